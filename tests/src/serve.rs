//! `agent-registry serve` as a child process on a fresh data directory (the example
//! loaded), with an admin token and any other tokens minted before it starts.

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::binaries::binary;

/// The admin token every test server starts with.
pub const ADMIN_TOKEN: &str = "e2e-console-admin-token-0123456789";

/// A running `agent-registry serve`, stopped on drop.
#[derive(Debug)]
pub struct Serve {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Tokens minted before start, by principal name (`admin` holds [`ADMIN_TOKEN`]).
    pub tokens: Vec<(String, String)>,
    /// The data directory.
    pub data: PathBuf,
}

impl Serve {
    /// Mints a token for each `(name, role)`, then starts the server and waits until it
    /// listens.
    pub fn start(principals: &[(&str, &str)]) -> Result<Self, String> {
        Self::start_with(principals, &[])
    }

    /// As [`Serve::start`], with `args` added to `serve` (such as `--require-review`).
    pub fn start_with(principals: &[(&str, &str)], args: &[&str]) -> Result<Self, String> {
        let data = std::env::temp_dir().join(format!(
            "registry-console-e2e-{}-{}",
            std::process::id(),
            uuid_like()
        ));
        std::fs::create_dir_all(&data).map_err(|e| format!("data dir: {e}"))?;
        let bin = binary("agent-registry");
        let mut tokens = vec![("admin".to_owned(), ADMIN_TOKEN.to_owned())];
        for (name, role) in principals {
            let out = Command::new(&bin)
                .args(["tokens", "add", name, "--role", role, "--data-dir"])
                .arg(&data)
                .output()
                .map_err(|e| format!("tokens add: {e}"))?;
            if !out.status.success() {
                return Err(format!("tokens add: {}", String::from_utf8_lossy(&out.stderr)));
            }
            tokens
                .push(((*name).to_owned(), String::from_utf8_lossy(&out.stdout).trim().to_owned()));
        }
        let mut child = Command::new(&bin)
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(&data)
            .args(args)
            .env("REGISTRY_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let mut base = None;
        for line in lines.by_ref() {
            let line = line.map_err(|e| e.to_string())?;
            if let Some(rest) = line.strip_prefix("agent-registry listening on ") {
                base = rest.split_whitespace().next().map(str::to_owned);
                break;
            }
        }
        // Keep reading what the server prints, as a terminal would.
        std::thread::spawn(move || lines.for_each(drop));
        let base = base.ok_or("serve exited before listening")?;
        Ok(Self { child, base, tokens, data })
    }

    /// The token of principal `name`.
    pub fn token(&self, name: &str) -> &str {
        self.tokens.iter().find(|(n, _)| n == name).map_or("", |(_, t)| t.as_str())
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// A name unique within this process.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{nanos}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}
