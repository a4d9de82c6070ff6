//! A function binary running as Lambda runs it: a child process whose runtime client
//! polls a [`RuntimeApi`] of the test, with the environment Lambda sets, its AWS calls
//! recorded and, when it is dropped, checked against its role in `infra/template.yaml`
//! ([`crate::permissions`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::binaries::binary;
use crate::permissions::{ENDPOINT_VARIABLES, Permissions};
use crate::runtime_api::{Answer, RuntimeApi};

/// A running function; the process is killed when this is dropped, and then (unless
/// the test failed already) the AWS calls it made are checked against its role: a call
/// the role would deny fails the test.
pub struct Lambda {
    api: RuntimeApi,
    child: Child,
    started: Instant,
    log: PathBuf,
    permissions: Option<Permissions>,
}

/// The table the functions use: name and the local DynamoDB-API endpoint.
#[derive(Debug, Clone)]
pub struct Table {
    /// Table name (`REGISTRY_TABLE`).
    pub name: String,
    /// Endpoint URL (`REGISTRY_DYNAMODB_ENDPOINT_URL`).
    pub endpoint: String,
}

impl Table {
    /// A new, empty registry table on the local DynamoDB-API server.
    pub async fn fresh() -> Self {
        let store = registry_store_dynamodb::local::fresh_store("e2e")
            .await
            .unwrap_or_else(|e| panic!("no local table: {e}"));
        let endpoint =
            registry_store_dynamodb::local::endpoint().unwrap_or_else(|e| panic!("{e}")).to_owned();
        Self { name: store.table().to_owned(), endpoint }
    }
}

impl Lambda {
    /// Starts the binary `name` (built by [`binary`]) on `table` with the extra
    /// environment `env`.
    pub async fn start(name: &str, table: &Table, env: &[(&str, &str)]) -> Self {
        Self::start_at(binary(name), name, table, env).await
    }

    /// Starts the executable `exe` as the function `name`. Its AWS endpoints
    /// ([`ENDPOINT_VARIABLES`]) are a recorder in front of the table's endpoint; a value
    /// of `env` that is the table's endpoint is replaced by the recorder's too (another
    /// endpoint is left alone: its calls go unrecorded).
    pub async fn start_at(exe: PathBuf, name: &str, table: &Table, env: &[(&str, &str)]) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let api = RuntimeApi::start().await;
        let logs = exe.parent().map(|d| d.join("e2e-logs")).unwrap_or_default();
        let _ = std::fs::create_dir_all(&logs);
        let log = logs.join(format!(
            "{name}-{}-{}.log",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let out = std::fs::File::create(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        let err = out.try_clone().unwrap_or_else(|e| panic!("{e}"));
        let mut permissions = Permissions::start(name, &table.endpoint, &logs).await;
        let endpoint = permissions.as_ref().map(Permissions::url);
        let endpoint = endpoint.as_deref().unwrap_or(&table.endpoint);
        let mut vars: BTreeMap<String, String> = BTreeMap::new();
        vars.insert(registry_config::names::TABLE.into(), table.name.clone());
        for variable in ENDPOINT_VARIABLES {
            vars.insert(variable.into(), endpoint.to_owned());
        }
        for (k, v) in env {
            let v = if *v == table.endpoint { endpoint } else { v };
            vars.insert((*k).to_owned(), v.to_owned());
        }
        if let Some(p) = permissions.as_mut() {
            p.bind(&vars);
        }
        let mut cmd = Command::new(&exe);
        cmd.env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", api.address())
            .env("AWS_LAMBDA_FUNCTION_NAME", name)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env("AWS_LAMBDA_LOG_STREAM_NAME", "2026/11/22/[$LATEST]e2e")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{name}"))
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .envs(&vars)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        let started = Instant::now();
        let child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
        Self { api, child, started, log, permissions }
    }

    /// Invokes the function with `event` and a deadline `timeout` from now.
    pub async fn invoke(&self, event: &Value, timeout: Duration) -> Answer {
        self.api.invoke(event.clone(), timeout).await
    }

    /// Invokes and expects a response (not an invocation error).
    pub async fn call(&self, event: &Value) -> Value {
        match self.invoke(event, Duration::from_secs(30)).await {
            Answer::Response(v) => v,
            Answer::Error(e) => panic!("invocation error {e}\nlog:\n{}", self.log()),
        }
    }

    /// Time from process start to its first poll of the runtime API (init done).
    pub fn init_time(&self) -> Option<Duration> {
        self.api.first_poll().map(|t| t.duration_since(self.started))
    }

    /// The process's output so far (stdout and stderr).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The decision lines of the guard in the output so far (`"point": "guard"`).
    pub fn guard_lines(&self) -> Vec<Value> {
        self.decision_lines("guard")
    }

    /// The decision lines of `point` in the output so far.
    pub fn decision_lines(&self, point: &str) -> Vec<Value> {
        self.log()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["point"] == point)
            .collect()
    }
}

impl Drop for Lambda {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            return;
        }
        if let Some(Err(denied)) = self.permissions.as_ref().map(Permissions::check) {
            panic!("{denied}");
        }
    }
}
