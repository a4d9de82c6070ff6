//! The template's permissions as a fact of the end-to-end tests: a function started by
//! [`crate::Lambda`] reaches the local AWS-API server through a [`Recorder`], and when
//! the [`Lambda`](crate::Lambda) is dropped at the end of a test, every request it made
//! is checked against the role of its function in `infra/template.yaml` (the function
//! whose `Metadata.BuildProperties.Binary` is the binary): a call the role would deny
//! fails the test.
//!
//! Each grant a call used is appended to `<profile>/e2e-logs/permissions-used.jsonl`, and
//! `<profile>/e2e-logs/permissions-unused.txt` is rewritten from it: the grants (statement,
//! action, resource) no recorded call used. `scripts/test.sh` starts a run with neither
//! and prints the second at its end (listed, not failed: some grants serve calls the
//! end-to-end tests do not make, such as publishing to Bedrock).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use registry_config::names;
use serde_json::{Value, json};

use crate::iam::{self, Statement};
use crate::recorder::Recorder;
use crate::template::{Deployment, Template};

/// The environment variables that name AWS endpoints of the functions: all point at
/// the recorder, so that no call escapes it.
pub const ENDPOINT_VARIABLES: [&str; 5] = [
    names::DYNAMODB_ENDPOINT_URL,
    names::EVENTBRIDGE_ENDPOINT_URL,
    names::SECRETSMANAGER_ENDPOINT_URL,
    names::LAMBDA_ENDPOINT_URL,
    names::BEDROCK_ENDPOINT_URL,
];
/// The template, parsed once per test process.
pub fn template() -> &'static Template {
    static TEMPLATE: OnceLock<Result<Template, String>> = OnceLock::new();
    match TEMPLATE.get_or_init(Template::load) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

/// The checks of one running function.
pub struct Permissions {
    function: String,
    recorder: Recorder,
    statements: Vec<Statement>,
    log_dir: PathBuf,
}

impl Permissions {
    /// A recorder to `upstream` for the binary `binary`, when the template has a
    /// function built from it.
    pub async fn start(binary: &str, upstream: &str, log_dir: &Path) -> Option<Self> {
        let function = template().function_of_binary(binary)?.to_owned();
        Some(Self {
            function,
            recorder: Recorder::start(upstream).await,
            statements: Vec::new(),
            log_dir: log_dir.to_owned(),
        })
    }

    /// The endpoint URL to give the function.
    pub fn url(&self) -> String {
        self.recorder.url()
    }

    /// The server the recorder forwards to.
    pub fn upstream(&self) -> &str {
        self.recorder.upstream()
    }

    /// Resolves the role for the function's environment `env` (its `!Ref` variables
    /// name the resources: `REGISTRY_TABLE` the table, `REGISTRY_EVENT_BUS` the bus).
    pub fn bind(&mut self, env: &BTreeMap<String, String>) {
        let mut deployment = Deployment::new(template());
        deployment.names_from_environment(&self.function, env);
        self.statements = iam::role(template(), &deployment, &self.function)
            .unwrap_or_else(|e| panic!("the role of {} cannot be evaluated: {e}", self.function));
    }

    /// Checks every request so far against the role; records the grants used. Err
    /// lists each call the role would deny.
    pub fn check(&self) -> Result<(), String> {
        let pk = registry_store_dynamodb::table::TABLE.partition_key;
        let mut denied = Vec::new();
        let mut used = BTreeSet::new();
        for request in self.recorder.requests() {
            let calls = match iam::calls(&request, pk) {
                Ok(calls) => calls,
                Err(e) => {
                    denied.push(format!("  {e}"));
                    continue;
                }
            };
            for call in calls {
                match iam::decide(&self.statements, &call) {
                    Ok(statement) => used.extend(iam::grants_used(statement, &call)),
                    Err(why) => denied.push(format!("  {call}: {why} (request {request})")),
                }
            }
        }
        self.log_used(&used);
        if denied.is_empty() {
            return Ok(());
        }
        denied.dedup();
        Err(format!(
            "the role of {} in infra/template.yaml would deny {} call(s) the function made:\n{}",
            self.function,
            denied.len(),
            denied.join("\n")
        ))
    }

    fn log_used(&self, used: &BTreeSet<(String, usize, usize)>) {
        let _ = std::fs::create_dir_all(&self.log_dir);
        let path = self.log_dir.join("permissions-used.jsonl");
        let mut lines = String::new();
        for (sid, action, resource) in used {
            let line = json!({"function": self.function, "sid": sid, "action": action, "resource": resource});
            lines.push_str(&format!("{line}\n"));
        }
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(lines.as_bytes()));
        if appended.is_ok() {
            let _ = write_unused_report(&self.log_dir);
        }
    }
}

/// Rewrites `permissions-unused.txt` in `dir` from `permissions-used.jsonl`.
fn write_unused_report(dir: &Path) -> std::io::Result<()> {
    let used_text = std::fs::read_to_string(dir.join("permissions-used.jsonl"))?;
    let mut used: BTreeSet<(String, String, usize, usize)> = BTreeSet::new();
    for line in used_text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        let index = |k: &str| v[k].as_u64().and_then(|n| usize::try_from(n).ok());
        if let (Some(f), Some(sid), Some(a), Some(r)) =
            (v["function"].as_str(), v["sid"].as_str(), index("action"), index("resource"))
        {
            used.insert((f.to_owned(), sid.to_owned(), a, r));
        }
    }
    let deployment = Deployment::new(template());
    let mut report = String::from(
        "Grants of infra/template.yaml no recorded end-to-end call used (function: statement: action on resource):\n",
    );
    for (function, resource) in template().resources() {
        if resource["Type"] != "AWS::Serverless::Function" {
            continue;
        }
        let Ok(statements) = iam::role(template(), &deployment, function) else { continue };
        for s in statements.iter().filter(|s| s.allow()) {
            for (a, action) in s.actions.iter().enumerate() {
                for (r, arn) in s.resources.iter().enumerate() {
                    if !used.contains(&(function.clone(), s.sid.clone(), a, r)) {
                        report.push_str(&format!("{function}: {}: {action} on {arn}\n", s.sid));
                    }
                }
            }
        }
    }
    let tmp = dir.join(format!("permissions-unused.txt.{}", std::process::id()));
    std::fs::write(&tmp, report)?;
    std::fs::rename(tmp, dir.join("permissions-unused.txt"))
}
