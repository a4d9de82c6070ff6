#![allow(clippy::unwrap_used, clippy::expect_used)]
//! agentgateway's ExtMCP server from outside, on the built binary: `serve --ext-mcp` and
//! `ext-mcp` answer `CheckRequest`/`CheckResponse` over real gRPC on loopback, and decide
//! the refund example of docs/call-policy.md as `authorize` on the same server does.

mod common;

use std::process::{Command, Stdio};

use common::{BIN, Serve, serve};
use prost_types::value::Kind;
use prost_types::{Struct, Value as ProtoValue};
use registry_ext_mcp::proto::authorization_error::Code;
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{
    McpHeader, McpRequest, McpResponse, mcp_request_result, mcp_response_result,
};
use reqwest::Method;
use serde_json::{Value, json};
use tonic::transport::Channel;

/// A Lambda tool `name` behind agentgateway backend `backend`, with one function of one
/// required parameter, granted by `access`.
fn tool(
    name: &str,
    backend: &str,
    function: &str,
    parameter: (&str, &str),
    access: Value,
) -> Value {
    let (parameter, kind) = parameter;
    json!({
        "executionType": "lambda", "name": name, "displayName": name, "description": "A tool.",
        "lambdaArn": format!("arn:aws:lambda:us-east-1:123456789012:function:{name}"),
        "supportedAgentFrameworks": ["bedrock"],
        "tags": {"gateway-target": backend},
        "functionSchema": [{"name": function, "description": "Does it.",
            "parameters": {parameter: {"type": kind, "description": "It", "required": true}}}],
        "accessRules": [access]
    })
}

/// The refund tool behind backend `payments`: staff only, the budget of
/// docs/call-policy.md with a log-only review rule; and `reports`, auditors only.
async fn setup(s: &Serve) {
    let staff =
        json!({"id": "staff-only", "effect": "allow", "condition": "'staff' in user.roles"});
    let mut refunds = tool("refunds", "payments", "issue_refund", ("amount", "number"), staff);
    refunds["callRules"] = json!([
        {"id": "refund-positive", "effect": "deny", "description": "A refund is a positive amount",
         "condition": "!(call.arguments.amount > 0.0)"},
        {"id": "refund-review", "effect": "deny", "mode": "log-only",
         "description": "Refunds above 100 will need a human",
         "condition": "call.arguments.amount > 100.0"},
        {"id": "refund-budget", "effect": "deny", "description": "At most 500 refunded per session",
         "condition": "session.total['issue_refund.amount'] + call.arguments.amount > 500.0"},
        {"id": "allow", "effect": "allow"}
    ]);
    let auditors =
        json!({"id": "auditors-only", "effect": "allow", "condition": "'auditor' in user.roles"});
    let reports = tool("reports", "reports", "export", ("month", "string"), auditors);
    for (id, tool) in [("refunds@1.0.0", refunds), ("reports@1.0.0", reports)] {
        let (status, body) =
            s.call(Method::PUT, &format!("/tools/{id}"), Some(&s.token), Some(tool)).await;
        assert_eq!(status, 201, "{body}");
    }
    let agent = json!({
        "basePrompt": "You help customers with refunds, within the budget of each conversation.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": ["refunds@1.0.0", "reports@1.0.0"],
        "limits": {"maxToolCalls": 2}
    });
    let (status, body) = s.call(Method::PUT, "/agents/support", Some(&s.token), Some(agent)).await;
    assert_eq!(status, 201, "{body}");
}

/// The principal token resolution issues for staff user `carol` in `session`.
async fn token(s: &Serve, session: &str) -> String {
    let context = json!({"user": {"userId": "carol", "roles": ["staff"]}});
    let path = format!("/agents/support/resolve?sessionId={session}");
    let (status, resolved) = s.call(Method::POST, &path, Some(&s.token), Some(context)).await;
    assert_eq!(status, 200, "{resolved}");
    resolved["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn string(s: &str) -> ProtoValue {
    ProtoValue { kind: Some(Kind::StringValue(s.to_owned())) }
}

fn with_token(token: &str) -> Option<Struct> {
    Some(Struct { fields: [("token".to_owned(), string(&format!("Bearer {token}")))].into() })
}

fn call(token: Option<&str>, backend: &str, params: Value) -> McpRequest {
    McpRequest {
        service_names: vec![backend.to_owned()],
        method: "tools/call".into(),
        metadata_context: token.and_then(with_token),
        mcp_request: Some(params.to_string().into_bytes()),
        headers: vec![McpHeader { key: "mcp-session-id".into(), value: b"ignored".to_vec() }],
    }
}

fn refund(amount: Value) -> Value {
    json!({"name": "issue_refund", "arguments": {"amount": amount}})
}

/// What the gateway is told: `pass`, or the error's code and the rule in its data.
#[derive(Debug, PartialEq)]
enum Answer {
    Pass,
    Error(Code, Option<String>),
}

async fn check(client: &mut ExtMcpClient<Channel>, request: McpRequest) -> Answer {
    let result = client.check_request(request).await.unwrap().into_inner().result;
    match result.unwrap() {
        mcp_request_result::Result::Pass(_) => Answer::Pass,
        mcp_request_result::Result::Error(e) => {
            let data: Option<Value> =
                e.mcp_error.as_deref().map(|b| serde_json::from_slice(b).unwrap());
            assert!(!e.reason.is_empty(), "a refusal says why");
            let rule = data.and_then(|d| d["ruleId"].as_str().map(str::to_owned));
            Answer::Error(e.code(), rule)
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// `authorize`'s decision of the same call with the same kind of token, as ExtMCP says it.
async fn authorize(s: &Serve, token: &str, amount: Value) -> Answer {
    let body = json!({"call": {"function": "issue_refund", "arguments": {"amount": amount}}});
    let response = reqwest::Client::new()
        .post(format!("{}/tools/refunds@1.0.0/authorize", s.base))
        .bearer_auth(&s.token)
        .header("X-Registry-Principal", token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let d: Value = response.json().await.unwrap();
    match (status, d["effect"].as_str(), d["stage"].as_str()) {
        (400, _, _) => Answer::Error(Code::Invalid, None),
        (200, Some("allow"), _) => Answer::Pass,
        (200, Some("deny"), Some("limit")) => Answer::Error(Code::ResourceExhausted, None),
        (200, Some("deny"), _) => {
            Answer::Error(Code::PermissionDenied, d["ruleId"].as_str().map(str::to_owned))
        }
        other => panic!("authorize answered {other:?}: {d}"),
    }
}

/// A client of the ExtMCP server `serve --ext-mcp 127.0.0.1:0` started.
async fn client(s: &Serve) -> ExtMcpClient<Channel> {
    let address = s.ext_mcp.as_deref().expect("serve printed its ExtMCP address");
    ExtMcpClient::connect(format!("http://{address}")).await.unwrap()
}

#[tokio::test]
async fn serve_ext_mcp_decides_the_refund_example_as_authorize_does() {
    let s = serve(None, &["--ext-mcp", "127.0.0.1:0"]);
    s.healthy().await;
    setup(&s).await;
    let mut grpc = client(&s).await;
    let (ours, theirs) = (token(&s, "ext-mcp-1").await, token(&s, "authorize-1").await);
    // one session each, the same calls in the same order
    let calls = [
        (json!(40.0), Answer::Pass),
        (json!(-5.0), Answer::Error(Code::PermissionDenied, Some("refund-positive".into()))),
        // the log-only rule would deny: allowed, and counted
        (json!(150.0), Answer::Pass),
        // the third counted call of a session limited to two
        (json!(10.0), Answer::Error(Code::ResourceExhausted, None)),
        (json!("ten"), Answer::Error(Code::Invalid, None)),
    ];
    for (amount, expected) in calls {
        let seen = check(&mut grpc, call(Some(&ours), "payments", refund(amount.clone()))).await;
        let decided = authorize(&s, &theirs, amount.clone()).await;
        let seen_code = match &seen {
            Answer::Error(code, _) => Answer::Error(*code, None),
            Answer::Pass => Answer::Pass,
        };
        let decided_code = match &decided {
            Answer::Error(code, _) => Answer::Error(*code, None),
            Answer::Pass => Answer::Pass,
        };
        assert_eq!(
            seen_code, decided_code,
            "amount {amount}: ExtMCP {seen:?}, authorize {decided:?}"
        );
        match expected {
            Answer::Error(_, Some(rule)) => {
                assert_eq!(seen, Answer::Error(Code::PermissionDenied, Some(rule.clone())));
                assert_eq!(decided, Answer::Error(Code::PermissionDenied, Some(rule)));
            }
            other => assert_eq!(seen_code, other, "amount {amount}"),
        }
    }
    // the decision lines name the point
    let line = s.wait_for_line("decisionId", |l| l["point"] == "ext-mcp").await;
    assert_eq!(line["toolId"], "refunds@1.0.0", "{line}");
    // no principal, an unknown backend: denied
    let anonymous = check(&mut grpc, call(None, "payments", refund(json!(5.0)))).await;
    assert!(matches!(anonymous, Answer::Error(Code::PermissionDenied, _)), "{anonymous:?}");
    let fresh = token(&s, "ext-mcp-2").await;
    let unknown = check(&mut grpc, call(Some(&fresh), "billing", refund(json!(5.0)))).await;
    assert!(matches!(unknown, Answer::Error(Code::PermissionDenied, _)), "{unknown:?}");
    // tools/list: what staff may not see is gone, everything else kept
    let listed = json!({"tools": [
        {"name": "payments_issue_refund", "inputSchema": {"type": "object"}},
        {"name": "reports_export", "inputSchema": {"type": "object"}},
        {"name": "billing_charge", "inputSchema": {"type": "object"}}
    ], "nextCursor": "c-1"});
    let response = McpResponse {
        service_names: vec!["payments".into(), "reports".into()],
        method: "tools/list".into(),
        metadata_context: with_token(&fresh),
        mcp_response: listed.to_string().into_bytes(),
    };
    let result = grpc.check_response(response).await.unwrap().into_inner().result.unwrap();
    let mcp_response_result::Result::Mutated(bytes) = result else { panic!("{result:?}") };
    let filtered: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        filtered,
        json!({"tools": [{"name": "payments_issue_refund", "inputSchema": {"type": "object"}}], "nextCursor": "c-1"})
    );
    // after a key rotation, tokens signed with the new key are accepted (the server
    // looks at the ring every few seconds)
    let (ok, out, err) = s.cli(&["keys", "rotate"]);
    assert!(ok, "{out}{err}");
    let rotated = token(&s, "ext-mcp-3").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let answer = check(&mut grpc, call(Some(&rotated), "payments", refund(json!(0.0)))).await;
        if answer == Answer::Error(Code::PermissionDenied, Some("refund-positive".into())) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the new key is never accepted: {answer:?}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn ext_mcp_runs_on_its_own_over_serves_data_and_stops_on_sigterm() {
    let s = serve(None, &[]);
    s.healthy().await;
    setup(&s).await;
    let mut child = Command::new(BIN)
        .args(["ext-mcp", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&s.data)
        .env("REGISTRY_TOKEN_ISSUER", &s.base)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // the address it printed once it listened; what it prints later is read too, so that
    // it never writes to a closed pipe
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let address = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| common::listening_address(&line, "agent-registry ext-mcp listening on "))
        .expect("ext-mcp printed where it listens");
    std::thread::spawn(move || lines.for_each(drop));
    let mut grpc = ExtMcpClient::connect(format!("http://{address}")).await.unwrap();
    let ours = token(&s, "standalone-1").await;
    assert_eq!(
        check(&mut grpc, call(Some(&ours), "payments", refund(json!(5.0)))).await,
        Answer::Pass
    );
    assert_eq!(
        check(&mut grpc, call(Some(&ours), "payments", refund(json!(0.0)))).await,
        Answer::Error(Code::PermissionDenied, Some("refund-positive".into()))
    );
    // a data directory without a registry is refused at start
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["ext-mcp", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no registry database"));
    // SIGTERM: stops cleanly, its client told to go away (the runtime stays free to hear it)
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = tokio::task::spawn_blocking(move || child.wait()).await.unwrap().unwrap();
    drop(grpc);
    assert!(status.success(), "{status:?}");
}

/// Requests that cannot be read, each answered `INVALID` (never a gRPC error).
fn malformed(token: &str) -> Vec<(&'static str, McpRequest)> {
    let with = |params: Vec<u8>| {
        let mut request = call(Some(token), "payments", json!({}));
        request.mcp_request = Some(params);
        request
    };
    let deep = format!(
        "{{\"name\":\"issue_refund\",\"arguments\":{{\"a\":{}1{}}}}}",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let huge = format!(
        "{{\"name\":\"issue_refund\",\"arguments\":{{\"amount\":1,\"note\":\"{}\"}}}}",
        "x".repeat(2 * 1024 * 1024)
    );
    let mut none = call(Some(token), "payments", json!({}));
    none.mcp_request = None;
    let mut two = call(Some(token), "payments", refund(json!(5.0)));
    two.service_names.push("reports".into());
    let mut zero = call(Some(token), "payments", refund(json!(5.0)));
    zero.service_names.clear();
    let mut long_method = call(Some(token), "payments", refund(json!(5.0)));
    long_method.method = "x".repeat(10_000);
    vec![
        ("not JSON", with(b"{\"name\": ".to_vec())),
        ("not UTF-8", with(vec![b'{', 0xff, 0xfe, b'}'])),
        ("not an object", with(b"[1, 2]".to_vec())),
        ("no name", with(br#"{"arguments": {"amount": 5}}"#.to_vec())),
        ("a name that is not a string", with(br#"{"name": 7}"#.to_vec())),
        (
            "arguments not an object",
            with(br#"{"name": "issue_refund", "arguments": [5]}"#.to_vec()),
        ),
        ("nested too deep", with(deep.into_bytes())),
        ("params over a MiB", with(huge.into_bytes())),
        ("no params", none),
        ("two backends", two),
        ("no backend", zero),
        ("a 10 KB method name", long_method),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_requests_are_invalid_and_64_concurrent_calls_are_all_answered() {
    let s = serve(None, &["--ext-mcp", "127.0.0.1:0"]);
    s.healthy().await;
    setup(&s).await;
    let mut grpc = client(&s).await;
    let shared = token(&s, "malformed-1").await;
    for (what, request) in malformed(&shared) {
        let answer = check(&mut grpc, request).await;
        assert_eq!(answer, Answer::Error(Code::Invalid, None), "{what}");
    }
    for bad in [b"not json".to_vec(), br#"{"content": []}"#.to_vec(), vec![0xff]] {
        let response = McpResponse {
            service_names: vec!["payments".into()],
            method: "tools/list".into(),
            metadata_context: with_token(&shared),
            mcp_response: bad,
        };
        let result = grpc.check_response(response).await.unwrap().into_inner().result.unwrap();
        let mcp_response_result::Result::Error(e) = result else { panic!("{result:?}") };
        assert_eq!(e.code(), Code::Invalid);
    }
    // other methods pass, on both sides
    let mut ping = call(Some(&shared), "payments", json!({}));
    ping.method = "prompts/get".into();
    assert_eq!(check(&mut grpc, ping).await, Answer::Pass);

    // 64 calls at once on one connection (64 HTTP/2 streams): allowed ones each in a
    // session of its own, denied, malformed and tools/list, every answer the right one
    let mut tokens = Vec::new();
    for i in 0..16 {
        tokens.push(token(&s, &format!("concurrent-{i}")).await);
    }
    let channel = tonic::transport::Endpoint::from_shared(format!(
        "http://{}",
        s.ext_mcp.as_deref().unwrap()
    ))
    .unwrap()
    .connect()
    .await
    .unwrap();
    let tasks: Vec<_> = (0..64)
        .map(|i| {
            let mut grpc = ExtMcpClient::new(channel.clone());
            let own = tokens[i / 4].clone();
            let shared = shared.clone();
            tokio::spawn(async move {
                match i % 4 {
                    0 => {
                        let answer =
                            check(&mut grpc, call(Some(&own), "payments", refund(json!(5.0))))
                                .await;
                        (answer == Answer::Pass, format!("{i}: {answer:?}"))
                    }
                    1 => {
                        let answer =
                            check(&mut grpc, call(Some(&shared), "payments", refund(json!(-1.0))))
                                .await;
                        let want =
                            Answer::Error(Code::PermissionDenied, Some("refund-positive".into()));
                        (answer == want, format!("{i}: {answer:?}"))
                    }
                    2 => {
                        let (_, request) = malformed(&shared).swap_remove(i % 12);
                        let answer = check(&mut grpc, request).await;
                        (answer == Answer::Error(Code::Invalid, None), format!("{i}: {answer:?}"))
                    }
                    _ => {
                        let listed = json!({"tools": [{"name": "issue_refund"}, {"name": "nope"}]});
                        let response = McpResponse {
                            service_names: vec!["payments".into()],
                            method: "tools/list".into(),
                            metadata_context: with_token(&own),
                            mcp_response: listed.to_string().into_bytes(),
                        };
                        let result =
                            grpc.check_response(response).await.unwrap().into_inner().result;
                        let ok = match &result {
                            Some(mcp_response_result::Result::Mutated(b)) => {
                                serde_json::from_slice::<Value>(b).unwrap()
                                    == json!({"tools": [{"name": "issue_refund"}]})
                            }
                            _ => false,
                        };
                        (ok, format!("{i}: {result:?}"))
                    }
                }
            })
        })
        .collect();
    let mut wrong = Vec::new();
    for task in tasks {
        let (ok, what) = task.await.unwrap();
        if !ok {
            wrong.push(what);
        }
    }
    assert!(wrong.is_empty(), "wrong answers under 64 concurrent streams: {wrong:?}");
    // and it still answers
    let fresh = token(&s, "after-1").await;
    assert_eq!(
        check(&mut grpc, call(Some(&fresh), "payments", refund(json!(5.0)))).await,
        Answer::Pass
    );
}
