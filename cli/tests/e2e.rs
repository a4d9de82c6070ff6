#![allow(clippy::unwrap_used, clippy::expect_used)]
//! End to end, as a new user would: the built `agent-registry` binary serving on a fresh
//! data directory, driven over HTTP and through its own admin commands.

mod common;

use std::process::Command;

use common::{BIN, add_token, serve, serve_in};
use serde_json::{Value, json};

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
async fn tools_search_ranks_the_example_and_the_agent_has_a_card() {
    let s = serve(None, &[]);
    s.healthy().await;
    let (ok, out, err) = s.cli(&["tools", "search", "seven day forecast", "--output", "json"]);
    assert!(ok, "{err}");
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["results"][0]["toolId"], "weather-forecast@1.0.0", "{answer}");
    let (ok, out, err) = s.cli(&["tools", "search", "convert miles"]);
    assert!(ok, "{err}");
    let first = out.find("convert_units@1.0.0").expect("the converter is found");
    assert!(out.find("weather-").is_none_or(|other| first < other), "{out}");
    let (status, card) =
        s.call(reqwest::Method::GET, "/agent-cards/weather-agent", Some(&s.token), None).await;
    assert_eq!(status, 200, "{card}");
    assert_eq!(card["supportedInterfaces"][0]["url"], "https://agents.example.com/weather-agent");
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

/// A loopback OAuth token endpoint: answers every request with one token and counts
/// the requests.
async fn token_endpoint() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = calls.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                // The form body is short: read until the headers and the body are in.
                while let Ok(n) = socket.read(&mut buf).await {
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request);
                    if n == 0 || text.contains("grant_type=client_credentials") {
                        break;
                    }
                }
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let body = r#"{"access_token":"e2e-access-token","token_type":"Bearer","expires_in":3600}"#;
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    (url, calls)
}

/// Every file of `dir` holding `needle` (`grep -rla`).
fn files_holding(dir: &std::path::Path, needle: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            std::fs::read(p).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .map(|p| p.display().to_string())
        .collect()
}

/// The binary end to end: an MCP tool's secret given, rotated and kept only encrypted in
/// the data directory; `tools token` gets an access token for a granted caller (twice,
/// one upstream request), and a denied caller gets none.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_secrets_stay_encrypted_and_tools_token_gets_an_access_token() {
    const S1: &str = "e2e-secret-one-3b9f";
    const S2: &str = "e2e-secret-two-c04d";
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let runtime = add_token(&data, "chat", "runtime");
    let s = serve_in(dir, data, Some("e2e-admin-token-0123456789"), &["--no-example"]);
    s.healthy().await;
    let (token_url, calls) = token_endpoint().await;
    let tool = json!({
        "toolId": "forecast@1.0.0", "executionType": "mcp", "name": "forecast",
        "displayName": "Forecast", "description": "Forecast over MCP.",
        "supportedAgentFrameworks": ["bedrock"], "url": "https://mcp.example.com/forecast",
        "auth": {"clientId": "registry", "clientSecret": S1, "tokenUrl": token_url},
        "accessRules": [{"effect": "deny", "condition": "user.userId == 'mallory'"}, {"effect": "allow"}],
        "functionSchema": [{"name": "get_forecast", "description": "Forecast for a city.",
            "parameters": {"city": {"description": "City", "type": "string", "required": true}}}]
    });
    let (status, body) = s.call(reqwest::Method::POST, "/tools", Some(&s.token), Some(tool)).await;
    assert_eq!(status, 201, "{body}");
    let agent = json!({"agentId": "a1", "basePrompt": "You answer questions about the weather, briefly.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0", "toolIds": ["forecast@1.0.0"]});
    let (status, body) =
        s.call(reqwest::Method::POST, "/agents", Some(&s.token), Some(agent)).await;
    assert_eq!(status, 201, "{body}");
    let patch = json!({"version": 1, "auth": {"clientSecret": S2}});
    let (status, body) =
        s.call(reqwest::Method::PATCH, "/tools/forecast@1.0.0", Some(&s.token), Some(patch)).await;
    assert_eq!(status, 200, "{body}");
    for secret in [S1, S2] {
        assert_eq!(files_holding(&s.data, secret), Vec::<String>::new(), "{secret}");
    }
    let token_for = |token: &str, user: &str| {
        let context = format!(r#"{{"user": {{"userId": "{user}"}}}}"#);
        let args = ["tools", "token", "forecast@1.0.0", "--agent", "a1", "--context", &context];
        s.cli_as(token, &[&args[..], &["--output", "json"]].concat())
    };
    // Tool tokens are for the `runtime` role alone: the admin token gets none.
    let (ok, _, err) = token_for(&s.token, "ana");
    assert!(!ok && err.contains("403"), "{err}");
    for _ in 0..2 {
        let (ok, out, err) = token_for(&runtime, "ana");
        assert!(ok, "{err}");
        let token: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(token["accessToken"], "e2e-access-token", "{out}");
        assert_eq!(token["tokenType"], "Bearer");
    }
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    let (ok, _, err) = token_for(&runtime, "mallory");
    assert!(!ok && err.contains("403"), "{err}");
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
    // the rules as proposed, each given an id on the way in
    let mut served_rules = served["accessRules"].clone();
    for r in served_rules.as_array_mut().unwrap() {
        assert!(r.as_object_mut().unwrap().remove("id").is_some(), "{r}");
    }
    assert_eq!(served_rules, rule["accessRules"]);

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

/// `serve`'s log on a pipe (as in a file or a container log) is plain text: no ANSI
/// colour code (no ESC byte) in what it logs on stderr or prints on stdout, even with a
/// colour terminal named in `TERM`.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn serve_logs_plain_text_when_stdout_and_stderr_are_not_terminals() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--no-example", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("data"))
        .env("REGISTRY_ADMIN_TOKEN", "e2e-admin-token-0123456789")
        .env("RUST_LOG", "info")
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = Vec::new();
    while !String::from_utf8_lossy(&printed).contains("agent-registry listening") {
        assert_ne!(stdout.read_until(b'\n', &mut printed).unwrap(), 0, "exited early");
    }
    let printed_text = String::from_utf8_lossy(&printed).into_owned();
    let base = printed_text
        .lines()
        .find_map(|line| common::listening_address(line, "agent-registry listening on "))
        .expect("serve printed where it listens");
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(health.status(), 200);
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let mut logged = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut logged).unwrap();
    stdout.read_to_end(&mut printed).unwrap();
    assert!(child.wait().unwrap().success());
    let log = String::from_utf8_lossy(&logged);
    assert!(log.contains(" INFO "), "the log has its lines: {log:?}");
    assert!(!logged.contains(&0x1b), "ANSI escape in the log: {log:?}");
    assert!(
        !printed.contains(&0x1b),
        "ANSI escape on stdout: {:?}",
        String::from_utf8_lossy(&printed)
    );
}
