#![allow(clippy::unwrap_used, clippy::expect_used)]
//! End to end, as a new user would: the built `agent-registry` binary serving on a fresh
//! data directory, driven over HTTP and through its own admin commands.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_agent-registry");

/// A running `agent-registry serve`, stopped with SIGTERM on drop.
struct Serve {
    child: Child,
    base: String,
    token: String,
    stdout: Vec<String>,
    data: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts `serve` on a new data directory; without `admin_token` it reads the token the
/// first run prints.
fn serve(admin_token: Option<&str>, extra: &[&str]) -> Serve {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    serve_in(dir, data, admin_token, extra)
}

/// Starts `serve` with `data` (inside `dir`) as data directory.
fn serve_in(
    dir: tempfile::TempDir,
    data: std::path::PathBuf,
    admin_token: Option<&str>,
    extra: &[&str],
) -> Serve {
    let port = free_port();
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--data-dir"])
        .arg(&data)
        .args(extra)
        .env_remove("AGENT_REGISTRY_ADMIN_TOKEN")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(token) = admin_token {
        cmd.env("AGENT_REGISTRY_ADMIN_TOKEN", token);
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stdout = Vec::new();
    let mut token = admin_token.map(str::to_owned);
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(t) = line.trim().strip_prefix("export AGENT_REGISTRY_TOKEN=") {
            token = Some(t.to_owned());
        }
        let listening = line.starts_with("agent-registry listening");
        stdout.push(line);
        if listening {
            break;
        }
    }
    // Keep reading what the server prints, as a terminal would.
    std::thread::spawn(move || lines.for_each(drop));
    let token = token.unwrap_or_else(|| panic!("no admin token printed: {stdout:?}"));
    Serve { child, base: format!("http://127.0.0.1:{port}"), token, stdout, data, _dir: dir }
}

impl Serve {
    async fn healthy(&self) {
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

    async fn call(
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
    fn cli(&self, args: &[&str]) -> (bool, String, String) {
        self.cli_as(&self.token, args)
    }

    /// Runs an admin command of the binary against this server with `token`.
    fn cli_as(&self, token: &str, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(BIN)
            .args(args)
            .args(["--url", &self.base])
            .env("AGENT_REGISTRY_TOKEN", token)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn first_run_prints_a_token_and_serves_the_example() {
    let s = serve(None, &[]);
    s.healthy().await;
    assert!(s.stdout.iter().any(|l| l.contains("Loaded the example")), "{:?}", s.stdout);
    // The data directory it created is private, and so are the files holding secrets.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&s.data), 0o700);
        for file in ["registry.db", "registry.db-wal", "auth.json"] {
            assert_eq!(mode(&s.data.join(file)), 0o600, "{file}");
        }
    }
    let (status, agent) =
        s.call(reqwest::Method::GET, "/agents/weather-agent", Some(&s.token), None).await;
    assert_eq!(status, 200, "{agent}");
    assert_eq!(agent["version"], 1);
    assert_eq!(
        agent["toolIds"],
        json!(["weather-basic@1.0.0", "weather-forecast@^1", "convert_units@1.0.0"])
    );

    // Resolution of the example: the protected tool only for internal users.
    let ctx = |user_type: &str| json!({"user": {"userId": "u", "userType": user_type}, "request": {"region": "us-east-1"}});
    let (status, external) = s
        .call(
            reqwest::Method::POST,
            "/agents/weather-agent/resolve",
            Some(&s.token),
            Some(ctx("external-user")),
        )
        .await;
    assert_eq!(status, 200, "{external}");
    assert_eq!(external["inlineAgent"]["actionGroups"].as_array().unwrap().len(), 2);
    conform(&external);
    let (_, internal) = s
        .call(
            reqwest::Method::POST,
            "/agents/weather-agent/resolve",
            Some(&s.token),
            Some(ctx("internal-user")),
        )
        .await;
    assert_eq!(internal["inlineAgent"]["actionGroups"].as_array().unwrap().len(), 3);
    conform(&internal);
}

#[tokio::test]
async fn publish_dry_run_of_the_example_prints_the_plan_and_calls_nothing() {
    // No Bedrock endpoint is reachable from the test (AWS's own is out of the network):
    // a dry run of a first publish plans from the resolution alone.
    let s = serve(None, &["--bedrock-endpoint-url", "http://127.0.0.1:9"]);
    s.healthy().await;
    let context = r#"{"user": {"userId": "u-1", "userType": "internal-user"}}"#;
    let role = "arn:aws:iam::123456789012:role/weather-agent";
    let args = [
        "agents",
        "publish",
        "weather-agent",
        "--dry-run",
        "--context",
        context,
        "--role-arn",
        role,
    ];
    let (ok, out, err) = s.cli(&args);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first().copied(), Some("would make  1. CreateAgent weather-agent"), "{out}");
    assert_eq!(lines.iter().filter(|l| l.contains("CreateAgentActionGroup")).count(), 3, "{out}");
    assert!(lines.last().unwrap().ends_with("PublishAlias"), "{out}");

    // Without an audience on record the first publish is refused, precisely.
    let (ok, _, err) = s.cli(&["agents", "publish", "weather-agent", "--dry-run"]);
    assert!(!ok);
    assert!(err.contains("/context"), "{err}");
}

/// The resolution's `inlineAgent`, with the two per-call members a runtime adds, is an
/// `InvokeInlineAgentRequest` in AWS's own model.
fn conform(resolution: &serde_json::Value) {
    let mut request = resolution["inlineAgent"].clone();
    request["sessionId"] = json!("readme-session-1");
    request["inputText"] = json!("What is the weather in Paris?");
    aws_conformance::Model::bedrock_agent_runtime().assert("InvokeInlineAgentRequest", &request);
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_need_a_token_with_the_right_role() {
    let s = serve(Some("e2e-admin-token-0123456789"), &["--no-example"]);
    s.healthy().await;
    let (status, list) = s.call(reqwest::Method::GET, "/agents", Some(&s.token), None).await;
    assert_eq!((status, list["items"].clone()), (200, json!([])), "--no-example loads nothing");
    let body = json!({"agentId": "a1", "basePrompt": "You answer questions about the weather, briefly.", "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0", "toolIds": []});
    let (status, problem) =
        s.call(reqwest::Method::POST, "/agents", None, Some(body.clone())).await;
    assert_eq!(status, 401, "{problem}");
    assert_eq!(problem["code"], "UNAUTHENTICATED");
    let (status, _) =
        s.call(reqwest::Method::POST, "/agents", Some("wrong-token-0123456789"), Some(body)).await;
    assert_eq!(status, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn admin_commands_apply_list_get_delete() {
    let s = serve(Some("e2e-admin-token-0123456789"), &[]);
    s.healthy().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tool.yaml");
    std::fs::write(
        &file,
        "toolId: calc@1\nexecutionType: inline\nname: calc\ndisplayName: Calculator\n\
         description: Adds numbers.\nsupportedAgentFrameworks: [bedrock]\ncode: \"return a + b\"\n\
         functionSchema:\n  - name: add\n    description: Add two numbers\n    parameters:\n\
         \x20     a: {type: number, description: First, required: true}\n\
         \x20     b: {type: number, description: Second, required: true}\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let (ok, out, err) = s.cli(&["tools", "apply", "-f", path]);
    assert!(ok && out.contains("calc@1: created (version 1)"), "{out}{err}");
    let (ok, out, err) = s.cli(&["tools", "apply", "-f", path]);
    assert!(ok && out.contains("calc@1: unchanged (version 1)"), "{out}{err}");

    let (ok, out, _) = s.cli(&["tools", "list", "--output", "json"]);
    assert!(ok);
    let page: Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> =
        page["items"].as_array().unwrap().iter().map(|t| t["toolId"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["calc@1.0.0", "convert_units@1.0.0", "weather-basic@1.0.0", "weather-forecast@1.0.0"],
        "ids are stored canonical: calc@1 is calc@1.0.0"
    );
    let (ok, out, _) = s.cli(&["tools", "list"]);
    assert!(ok && out.contains("TOOL ID") && out.contains("calc@1"), "{out}");

    // A tool in use cannot be deleted; the CLI shows the problem.
    let (ok, _, err) = s.cli(&["tools", "delete", "weather-basic@1"]);
    assert!(!ok && err.contains("409") && err.contains("weather-agent"), "{err}");
    let (ok, out, err) = s.cli(&["tools", "delete", "calc@1"]);
    assert!(ok && out.contains("deleted"), "{out}{err}");
    let (ok, _, err) = s.cli(&["tools", "get", "calc@1"]);
    assert!(!ok && err.contains("404"), "{err}");

    // A bad file gets every violation with its path.
    std::fs::write(&file, "toolId: bad@1\nexecutionType: lambda\nname: bad\ndisplayName: Bad\ndescription: ''\nsupportedAgentFrameworks: [bedrock]\nlambdaArn: nope\n").unwrap();
    let (ok, _, err) = s.cli(&["tools", "apply", "-f", path]);
    assert!(!ok && err.contains("/description") && err.contains("/lambdaArn"), "{err}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_stops_the_server_cleanly() {
    let mut s = serve(Some("e2e-admin-token-0123456789"), &["--no-example"]);
    s.healthy().await;
    let pid = s.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = s.child.wait().unwrap();
    assert!(status.success(), "exit status {status}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reader_token_reads_but_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let out = Command::new(BIN)
        .args(["tokens", "add", "rita", "--role", "reader", "--data-dir", data])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reader = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let data = dir.path().to_path_buf();
    let s = serve_in(dir, data, Some("e2e-admin-token-0123456789"), &[]);
    s.healthy().await;
    let (status, _) =
        s.call(reqwest::Method::GET, "/agents/weather-agent", Some(&reader), None).await;
    assert_eq!(status, 200);
    let body = json!({"agentId": "a1", "basePrompt": "You answer questions about the weather, briefly.", "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0", "toolIds": []});
    let (status, problem) =
        s.call(reqwest::Method::POST, "/agents", Some(&reader), Some(body)).await;
    assert_eq!(status, 403, "{problem}");
    assert_eq!(problem["code"], "FORBIDDEN");
}

/// Types pasted from the type language's reference page, in its own YAML syntax
/// (properties directly under the type name), apply as written.
#[tokio::test(flavor = "multi_thread")]
async fn seed_syntax_types_apply_from_yaml() {
    let s = serve(Some("e2e-admin-token-0123456789"), &["--no-example"]);
    s.healthy().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cart.yaml");
    std::fs::write(
        &file,
        r#"toolId: cart@1
executionType: inline
name: cart
displayName: Cart
description: Adds items to the cart.
supportedAgentFrameworks: [bedrock]
code: "return items"
types:
  CartItem:
    productId:
      type: string
      description: Product ID to add to cart
    quantity:
      type: integer
      description: Number of items (1-10)

  # Top-level array type - the type IS an array
  CartItemList:
    type: array
    items:
      type: CartItem
    description: List of cart items
functionSchema:
  - name: add-to-cart
    description: Adds products to the cart
    parameters:
      cartItems: {type: CartItemList, description: Items to add}
"#,
    )
    .unwrap();
    let (ok, out, err) = s.cli(&["tools", "apply", "-f", file.to_str().unwrap()]);
    assert!(ok && out.contains("cart@1: created (version 1)"), "{out}{err}");
    let (ok, out, _) = s.cli(&["tools", "get", "cart@1", "--output", "json"]);
    assert!(ok);
    let tool: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(tool["types"]["CartItem"]["properties"]["quantity"]["type"], "integer", "{tool}");
}

/// Adds a token for `name` with `role` to the data directory `data`; returns it.
fn add_token(data: &std::path::Path, name: &str, role: &str) -> String {
    let out = Command::new(BIN)
        .args(["tokens", "add", name, "--role", role, "--data-dir"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// `serve --require-review`: an editor's rule change waits for another approver, who
/// approves it with the CLI; the events show who did what.
#[tokio::test(flavor = "multi_thread")]
async fn review_required_end_to_end_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let editor = add_token(&data, "ed", "editor");
    let approver = add_token(&data, "ann", "approver");
    let s = serve_in(dir, data, Some("e2e-admin-token-0123456789"), &["--require-review"]);
    s.healthy().await;
    assert!(s.stdout.iter().any(|l| l.contains("Review required")), "{:?}", s.stdout);
    let tool = "/tools/weather-basic@1.0.0";
    let (_, before) = s.call(reqwest::Method::GET, tool, Some(&editor), None).await;
    let version = before["version"].as_u64().unwrap();

    let rule = json!({"accessRules": [{"effect": "deny", "condition": "customData.blocked == true"}, {"effect": "allow"}]});
    let patch = reqwest::Client::new()
        .patch(format!("{}{tool}", s.base))
        .bearer_auth(&editor)
        .header("if-match", format!("\"{version}\""))
        .header("proposal-note", "block blocked callers")
        .json(&rule)
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status().as_u16(), 202);
    let proposal: Value = patch.json().await.unwrap();
    let id = proposal["id"].as_str().unwrap().to_owned();
    let (_, served) = s.call(reqwest::Method::GET, tool, Some(&editor), None).await;
    assert_eq!(served["version"].as_u64(), Some(version), "nothing serves before approval");

    let (ok, out, err) = s.cli_as(&editor, &["proposals", "list", "--state", "open"]);
    assert!(ok && out.contains(&id), "{out}{err}");
    let (ok, _, err) = s.cli_as(&editor, &["proposals", "approve", &id]);
    assert!(!ok && err.contains("403"), "the author cannot approve: {err}");
    let (ok, out, err) = s.cli_as(&approver, &["proposals", "show", &id]);
    assert!(ok && out.contains("add /accessRules"), "{out}{err}");
    let (ok, out, err) = s.cli_as(&approver, &["proposals", "approve", &id]);
    assert!(ok && out.contains("(applied)"), "{out}{err}");
    let (_, served) = s.call(reqwest::Method::GET, tool, Some(&editor), None).await;
    assert_eq!(served["version"].as_u64(), Some(version + 1));
    assert_eq!(served["accessRules"], rule["accessRules"]);

    let (ok, out, err) =
        s.cli_as(&approver, &["events", "--id", "weather-basic@1.0.0", "-o", "json"]);
    assert!(ok, "{err}");
    let events: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seen: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        &seen[seen.len() - 3..],
        [("proposal.opened", "ed"), ("proposal.approved", "ann"), ("proposal.applied", "ann")]
    );
    assert!(err.contains("resume with: --after"), "{err}");
    let (ok, _, err) = s.cli_as(&approver, &["proposals", "approve", &id]);
    assert!(!ok && err.contains("409"), "a closed proposal: {err}");
    let (ok, _, err) = s.cli_as(&approver, &["events", "--after", "garbage"]);
    assert!(!ok && err.contains("400") && err.contains("/after"), "{err}");
}
