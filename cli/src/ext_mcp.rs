//! The `ext-mcp` command, and `serve --ext-mcp`: agentgateway's ExtMCP gRPC service,
//! deciding with the registry's store and keys, logging to the registry's decision log.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use registry_api::principal_keys::{PrincipalKeys, TokenSettings};
use registry_api::service::DecisionLog;
use registry_config::{Vars, names};
use registry_ext_mcp::Gateways;
use registry_gateway::{DecisionPoint, Gateway, GatewayConfig, StoreSource};
use registry_store::Store;
use registry_token::KeySource;
use tokio::net::TcpListener;

use crate::args::{ExtMcpArgs, StoreKind};
use crate::serve::{self, DATABASE_FILE, EnvSettings};
use crate::shutdown;

/// The issuer principal tokens are checked against when `REGISTRY_TOKEN_ISSUER` is
/// unset: the one `serve` takes on its default address.
const DEFAULT_ISSUER: &str = "http://127.0.0.1:8080";

/// The listener of the ExtMCP server.
pub async fn bind(address: SocketAddr) -> Result<TcpListener> {
    TcpListener::bind(address).await.with_context(|| format!("cannot listen on {address} (ExtMCP)"))
}

/// How often the key ring is looked at for a rotation (in `serve`, `keys rotate` changes
/// it at once; another instance's change is re-read from its store once a minute).
const KEYS_CHECK: Duration = Duration::from_secs(5);

/// The decision points ExtMCP calls go to: the registry's rules and session counters in
/// `store`, principal tokens verified with the public keys of `keys`, decision lines in
/// `decisions`. The gateway's other settings (claims mapping, agent, staleness bound)
/// are read from the environment once; a bad one stops the command. When the key ring
/// changes (a rotation, a removed key) a gateway with the new keys takes over.
pub fn gateways(
    store: Arc<dyn Store>,
    keys: Arc<PrincipalKeys>,
    decisions: DecisionLog,
) -> Result<Gateways<StoreSource>> {
    // the registry's own keys as a JWKS document, where the interceptor reads a URL
    let jwks = serde_json::to_string(&keys.ring().jwks())
        .context("the principal token's public keys could not be written")?;
    let settings = keys.settings();
    let config = GatewayConfig::from_vars(|name| match name {
        names::TOKEN_ISSUER => Some(settings.issuer.clone()),
        names::TOKEN_AUDIENCE => Some(settings.audience.clone()),
        names::JWKS => Some(jwks.clone()),
        names::JWKS_URL => None,
        other => std::env::var(other).ok(),
    })
    .context("invalid gateway settings")?;
    let build = move |config: GatewayConfig| {
        let decisions = decisions.clone();
        let gateway =
            Gateway::new(config, StoreSource::new(Arc::clone(&store)), DecisionPoint::ExtMcp)
                .with_log(move |record| decisions.record(record));
        Arc::new(gateway)
    };
    let (publish, gateways) = tokio::sync::watch::channel(build(config.clone()));
    tokio::spawn(async move {
        let mut ring = keys.ring().to_text();
        let mut check = tokio::time::interval(KEYS_CHECK);
        while !publish.is_closed() {
            check.tick().await;
            keys.refresh().await;
            let now = keys.ring().to_text();
            if now != ring {
                ring = now;
                let keys = KeySource::Document(keys.verifier());
                let _ = publish
                    .send(build(GatewayConfig { keys: Some(Arc::new(keys)), ..config.clone() }));
            }
        }
    });
    Ok(gateways)
}

/// Runs the ExtMCP server on its own until SIGTERM or Ctrl-C.
pub async fn run(args: ExtMcpArgs) -> Result<()> {
    let env = EnvSettings::read(Vars::from_env())?;
    let data_dir = &args.store.data_dir;
    if args.store.store == StoreKind::Embedded && !data_dir.join(DATABASE_FILE).exists() {
        anyhow::bail!(
            "no registry database in {}: point --data-dir at the directory `serve` uses",
            data_dir.display()
        );
    }
    let (store, _) = serve::open_store(&args.store, env.cursor_key.as_deref()).await?;
    let listener = bind(args.listen).await?;
    let mut settings =
        TokenSettings::new(env.token_issuer.unwrap_or_else(|| DEFAULT_ISSUER.to_owned()));
    settings.audience = env.token_audience.unwrap_or(settings.audience);
    let keys = Arc::new(serve::open_keys(data_dir, settings).await?);
    let gateways = gateways(store, keys, serve::decision_log(&args.decisions))?;
    println!("agent-registry ext-mcp listening on {} (gRPC)", listener.local_addr()?);
    registry_ext_mcp::serve(listener, gateways, shutdown::signal())
        .await
        .context("the ExtMCP server failed")?;
    println!("agent-registry ext-mcp stopped");
    Ok(())
}
