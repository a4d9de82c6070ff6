//! The `serve` command: the registry API on the embedded store (or DynamoDB).

use std::sync::Arc;

use anyhow::{Context, Result};
use registry_api::principal_keys::{FileKeyStore, PrincipalKeys, SigningAlgorithm, TokenSettings};
use registry_api::service::{DecisionFormat, DecisionLog, Delivery};
use registry_api::{AppState, Registry, ReviewPolicy, TokenFile, serve_with};
use registry_config::{ConfigError, Vars, names};
use registry_store::Store;
use registry_store_sqlite::SqliteStore;
use tokio::net::TcpListener;

use crate::args::{DecisionLogArgs, DecisionLogTarget, ServeArgs, StoreArgs, StoreKind};
use crate::{example, ext_mcp, nofile, shutdown};

/// Prints a line for the operator; a closed standard output never stops the server.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// File name of the embedded database inside the data directory.
pub const DATABASE_FILE: &str = "registry.db";

/// Runs the API until SIGTERM or Ctrl-C.
pub async fn run(args: ServeArgs) -> Result<()> {
    let data_dir = &args.store.data_dir;
    registry_store::create_private_dir(data_dir)
        .with_context(|| format!("cannot create data directory {}", data_dir.display()))?;
    // Held until the server stops: `vault rotate-key` (and a second `serve`) refuse the
    // directory meanwhile.
    let _data_dir_lock = registry_api::vault::DataDirLock::acquire(data_dir)
        .with_context(|| format!("cannot use data directory {}", data_dir.display()))?;
    let env = EnvSettings::read(Vars::from_env())?;
    let (store, fresh) = open_store(&args.store, env.cursor_key.as_deref()).await?;
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let ext_mcp_listener = match args.ext_mcp {
        Some(address) => Some(ext_mcp::bind(address).await?),
        None => None,
    };
    let address = listener.local_addr()?;
    let issuer = env.token_issuer.unwrap_or_else(|| match address.ip().is_unspecified() {
        true => format!("http://127.0.0.1:{}", address.port()),
        false => format!("http://{address}"),
    });
    let mut settings = TokenSettings::new(issuer);
    settings.audience = env.token_audience.unwrap_or(settings.audience);
    settings.ttl_seconds = args.context_ttl;
    settings.algorithm = env.token_algorithm.unwrap_or_default();
    let keys = Arc::new(open_keys(data_dir, settings).await?);
    let decisions = decision_log(&args.decisions);
    let ext_mcp_server = match ext_mcp_listener {
        Some(listener) => {
            let gateways =
                ext_mcp::gateways(Arc::clone(&store), Arc::clone(&keys), decisions.clone())?;
            Some((listener, gateways))
        }
        None => None,
    };
    let vault = registry_api::vault::FileVault::open(data_dir)
        .with_context(|| format!("cannot open the secret vault in {}", data_dir.display()))?;
    let discovery = registry_api::DiscoverySettings::parse(
        args.discovery_namespace.as_deref(),
        args.discovery_anonymous.as_deref(),
    )?;
    let registry = Registry::new(store)
        .with_discovery(discovery)
        .with_principal_keys(keys)
        .with_decision_log(decisions)
        .with_vault(std::sync::Arc::new(vault));
    #[cfg(feature = "aws")]
    let registry = registry.with_aws(registry_aws::Aws::new(registry_aws::Endpoints {
        lambda: args.lambda_endpoint_url.clone(),
        lambda_invoke: args.lambda_invoke_endpoint_url.clone(),
        bedrock: args.bedrock_endpoint_url.clone(),
    }));
    if fresh && !args.no_example {
        example::load(&registry).await.context("cannot load the example definitions")?;
        say!(
            "Loaded the example: agent `weather-agent`, tools `weather-basic@1.0.0`, `weather-forecast@1.0.0`, `convert_units@1.0.0`."
        );
    }

    let (auth, new_token) = TokenFile::load_or_init(data_dir, env.admin_token)
        .context("cannot read or create the token file")?;
    if let Some(token) = new_token {
        say!(
            "Created an admin token (shown once; it is stored hashed in {}):",
            data_dir.join("auth.json").display()
        );
        say!("  export {}={token}", names::TOKEN);
    }

    // After the example: the first run's example is not a change to review.
    let review = ReviewPolicy { required: args.require_review, approvals: args.review_approvals };
    if review.required {
        say!(
            "Review required: editors' changes to governed fields become proposals (GET /proposals)."
        );
    }

    say!("agent-registry listening on http://{address} (data in {})", data_dir.display());
    say!("  console: http://{address}/console (sign in with a token)");
    say!("  try: curl -s -H \"Authorization: Bearer ${}\" http://{address}/agents", names::TOKEN);
    let state = AppState::new(registry.with_review(review), Arc::new(auth));
    let mut limits = args.limits.to_limits();
    limits.max_connections = nofile::fit_connections(limits.max_connections);
    let stop = shutdown::Stop::on_signal();
    let api = serve_with(listener, registry_console::app(state), limits, stop.stopped());
    match ext_mcp_server {
        None => api.await?,
        Some((listener, gateways)) => {
            say!("  ext-mcp: agentgateway's ExtMCP gRPC on {}", listener.local_addr()?);
            let grpc = registry_ext_mcp::serve(listener, gateways, stop.stopped());
            let (api, grpc) = tokio::join!(api, grpc);
            api?;
            grpc.context("the ExtMCP server failed")?;
        }
    }
    say!("agent-registry stopped");
    Ok(())
}

/// `serve`'s settings that are environment variables only (secrets, never flags).
pub(crate) struct EnvSettings {
    /// The admin token of a first start ([`names::ADMIN_TOKEN`]; else a random one).
    pub(crate) admin_token: Option<String>,
    /// The principal token's `iss` ([`names::TOKEN_ISSUER`]; else `http://<listen address>`).
    pub(crate) token_issuer: Option<String>,
    /// The principal token's `aud` ([`names::TOKEN_AUDIENCE`]; else `agent-registry`).
    pub(crate) token_audience: Option<String>,
    /// The algorithm of new signing keys ([`names::TOKEN_ALGORITHM`]; else `RS256`).
    pub(crate) token_algorithm: Option<SigningAlgorithm>,
    /// The DynamoDB list cursor key ([`names::CURSOR_KEY`]).
    pub(crate) cursor_key: Option<String>,
}

impl EnvSettings {
    /// Reads the variables through `vars`; `Err` names each invalid one.
    pub(crate) fn read(mut vars: Vars<'_>) -> Result<Self, ConfigError> {
        let settings = Self {
            admin_token: vars.optional(names::ADMIN_TOKEN),
            token_issuer: vars.optional(names::TOKEN_ISSUER),
            token_audience: vars.optional(names::TOKEN_AUDIENCE),
            token_algorithm: vars.parsed(names::TOKEN_ALGORITHM, str::parse),
            cursor_key: vars.optional(names::CURSOR_KEY),
        };
        vars.finish()?;
        Ok(settings)
    }
}

/// The principal token's signing keys in `data_dir`, created on first use.
pub async fn open_keys(
    data_dir: &std::path::Path,
    settings: TokenSettings,
) -> Result<PrincipalKeys> {
    PrincipalKeys::open(Arc::new(FileKeyStore::in_dir(data_dir)), settings)
        .await
        .context("cannot read or create the principal token's signing keys")
}

/// The decision log the options ask for.
pub fn decision_log(args: &DecisionLogArgs) -> DecisionLog {
    match args.decision_log {
        DecisionLogTarget::Stdout => {
            DecisionLog::stdout(DecisionFormat::Json, args.decision_log_values, Delivery::Buffered)
        }
        DecisionLogTarget::Off => DecisionLog::off(),
    }
}

/// Opens the configured store; `true` when it was created just now (first run).
pub async fn open_store(
    args: &StoreArgs,
    cursor_key: Option<&str>,
) -> Result<(Arc<dyn Store>, bool)> {
    match args.store {
        StoreKind::Embedded => {
            let path = args.data_dir.join(DATABASE_FILE);
            let fresh = !path.exists();
            let store = SqliteStore::open(&path)
                .with_context(|| format!("cannot open the database {}", path.display()))?;
            Ok((Arc::new(store), fresh))
        }
        #[cfg(feature = "dynamodb")]
        StoreKind::Dynamodb => crate::dynamodb::open(args, cursor_key).await,
        #[cfg(not(feature = "dynamodb"))]
        StoreKind::Dynamodb => anyhow::bail!(
            "this agent-registry was built without DynamoDB support (feature `dynamodb`)"
        ),
    }
}
