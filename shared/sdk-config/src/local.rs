//! The local AWS-API server of the tests (feature `local-server`): moto serves
//! DynamoDB, Lambda's control API and a few Bedrock Agents calls.
//!
//! Uses `DYNAMODB_ENDPOINT` when set (the test command starts one server with
//! `scripts/dynamodb-local.sh start`). Otherwise it runs that script with
//! `--owner-pid <this process>`: moto is installed into `.venv-moto` if needed, started on
//! a free port, and stopped when this process exits. There is no silent fallback: when
//! no server can be had, the error says why.

use std::process::Command;
use std::sync::OnceLock;

/// The local server's endpoint URL, starting the server on first use.
pub fn endpoint() -> Result<&'static str, String> {
    static ENDPOINT: OnceLock<Result<String, String>> = OnceLock::new();
    ENDPOINT
        .get_or_init(|| match std::env::var("DYNAMODB_ENDPOINT") {
            Ok(url) if !url.is_empty() => Ok(url),
            _ => start_server(),
        })
        .as_deref()
        .map_err(|why| format!("no local DynamoDB-API server: {why}"))
}

/// Starts the server for the life of this process; its endpoint URL.
fn start_server() -> Result<String, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/dynamodb-local.sh");
    let pid = std::process::id().to_string();
    let out = Command::new("bash")
        .args([script, "start", "--owner-pid", &pid])
        .output()
        .map_err(|e| format!("cannot run {script}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{script} start failed ({}):\n{stderr}", out.status));
    }
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("export DYNAMODB_ENDPOINT="))
        .map(str::to_owned)
        .ok_or_else(|| format!("{script} printed no endpoint:\n{stdout}\n{stderr}"))
}
