//! The harness of the end-to-end tests: the built `agent-registry serve` on a fresh
//! data directory, its token and everything it prints.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_agent-registry");

/// A running `agent-registry serve`, stopped with SIGTERM on drop.
pub struct Serve {
    /// The server process.
    pub child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The admin token.
    pub token: String,
    /// What it printed until it listened.
    pub stdout: Vec<String>,
    /// Everything it printed since.
    pub later: Arc<Mutex<Vec<String>>>,
    /// The data directory.
    pub data: std::path::PathBuf,
    /// The ExtMCP gRPC server's `host:port`, when started with `--ext-mcp`.
    pub ext_mcp: Option<String>,
    _dir: tempfile::TempDir,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address in a line the binary prints once it listens (`... on <address>`, then a
/// space or the end): servers are started on port 0 and read back, never on a port
/// picked before (another test could take it in between).
pub fn listening_address(line: &str, prefix: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix(prefix)?;
    Some(rest.split_whitespace().next()?.to_owned())
}

/// Starts `serve` on a new data directory; without `admin_token` it reads the token the
/// first run prints.
pub fn serve(admin_token: Option<&str>, extra: &[&str]) -> Serve {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    serve_in(dir, data, admin_token, extra)
}

/// Starts `serve` with `data` (inside `dir`) as data directory.
pub fn serve_in(
    dir: tempfile::TempDir,
    data: std::path::PathBuf,
    admin_token: Option<&str>,
    extra: &[&str],
) -> Serve {
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .args(extra)
        .env_remove("REGISTRY_ADMIN_TOKEN")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(token) = admin_token {
        cmd.env("REGISTRY_ADMIN_TOKEN", token);
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stdout = Vec::new();
    let mut token = admin_token.map(str::to_owned);
    let (mut base, mut ext_mcp) = (None, None);
    let wants_ext_mcp = extra.contains(&"--ext-mcp");
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(t) = line.trim().strip_prefix("export REGISTRY_TOKEN=") {
            token = Some(t.to_owned());
        }
        base = base.or_else(|| listening_address(&line, "agent-registry listening on "));
        ext_mcp =
            ext_mcp.or_else(|| listening_address(&line, "ext-mcp: agentgateway's ExtMCP gRPC on "));
        stdout.push(line);
        if base.is_some() && (ext_mcp.is_some() || !wants_ext_mcp) {
            break;
        }
    }
    // Keep reading what the server prints, as a terminal would.
    let later = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&later);
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if let Ok(mut sink) = sink.lock() {
                sink.push(line);
            }
        }
    });
    let token = token.unwrap_or_else(|| panic!("no admin token printed: {stdout:?}"));
    let base = base.unwrap_or_else(|| panic!("no address printed: {stdout:?}"));
    Serve { child, base, token, stdout, later, data, ext_mcp, _dir: dir }
}

impl Serve {
    /// Waits until `/healthz` answers.
    pub async fn healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = reqwest::get(format!("{}/healthz", self.base)).await
                && r.status() == 200
            {
                return;
            }
            assert!(Instant::now() < deadline, "no /healthz: {:?}", self.stdout);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// One request; the status and the JSON body (`Null` when none).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = reqwest::Client::new().request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// Runs an admin command of the binary against this server.
    pub fn cli(&self, args: &[&str]) -> (bool, String, String) {
        self.cli_as(&self.token, args)
    }

    /// Runs an admin command of the binary against this server with `token`.
    pub fn cli_as(&self, token: &str, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(BIN)
            .args(args)
            .args(["--url", &self.base])
            .env("REGISTRY_TOKEN", token)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

impl Serve {
    /// The JSON lines printed since it listened that hold `field` (decision records).
    pub fn json_lines_with(&self, field: &str) -> Vec<Value> {
        let lines = self.later.lock().map(|l| l.clone()).unwrap_or_default();
        lines
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v.get(field).is_some())
            .collect()
    }

    /// Waits until a JSON line printed since it listened satisfies `found`.
    pub async fn wait_for_line(&self, field: &str, found: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(line) = self.json_lines_with(field).into_iter().find(|v| found(v)) {
                return line;
            }
            assert!(
                Instant::now() < deadline,
                "no such line: {:?}",
                self.later.lock().map(|l| l.clone())
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Adds a token for `name` with `role` to the data directory `data`; returns it.
pub fn add_token(data: &std::path::Path, name: &str, role: &str) -> String {
    let out = Command::new(BIN)
        .args(["tokens", "add", name, "--role", role, "--data-dir"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}
