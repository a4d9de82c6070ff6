//! The `ext-mcp` command, and `serve --ext-mcp`: agentgateway's ExtMCP gRPC service,
//! deciding with the registry's store and keys, logging to the registry's decision log.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use registry_access::DecisionPoint;
use registry_api::principal_keys::{PrincipalKeys, TokenSettings};
use registry_api::service::DecisionLog;
use registry_config::Vars;
use registry_gateway::StoreSource;
use registry_gateway::{Gateway, GatewayConfig};
use registry_store::Store;
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

/// The decision point ExtMCP calls go to: the registry's rules and session counters in
/// `store`, principal tokens verified with `keys`, decision lines in `decisions`.
pub fn gateway(
    store: Arc<dyn Store>,
    keys: &Arc<PrincipalKeys>,
    decisions: DecisionLog,
) -> Arc<Gateway<StoreSource>> {
    let _ = keys;
    let point = DecisionPoint::Authorize;
    let gateway = match GatewayConfig::from_vars(|name| std::env::var(name).ok()) {
        Ok(config) => Gateway::new(config, StoreSource::new(store), point),
        Err(error) => Gateway::misconfigured(error, point),
    };
    Arc::new(gateway.with_log(move |record| decisions.record(record)))
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
    let gateway = gateway(store, &keys, serve::decision_log(&args.decisions));
    println!("agent-registry ext-mcp listening on {} (gRPC)", listener.local_addr()?);
    registry_ext_mcp::serve(listener, gateway, shutdown::signal())
        .await
        .context("the ExtMCP server failed")?;
    println!("agent-registry ext-mcp stopped");
    Ok(())
}
