//! Events as text no `serde_json::Value` can hold: members named twice at every level,
//! lone surrogates, nesting past any parser's limit. Each gets an output document a
//! strict parser reads (the gateway's), and a call in it is never passed on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use gateway_interceptor::{Interceptor, POINT};
use registry_gateway::{DecisionRecord, Gateway};
use registry_token::{DEFAULT_AUDIENCE, KeyRing, TokenRequest};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

use support::{ISSUER, Memory, NOW_MS, config, units_tool};

fn setup() -> (Interceptor<Memory>, String) {
    let (interceptor, token, _) = setup_logged();
    (interceptor, token)
}

/// [`setup`], with the decision lines it writes.
fn setup_logged() -> (Interceptor<Memory>, String, Arc<Mutex<Vec<DecisionRecord>>>) {
    let keys = KeyRing::generate(NOW_MS / 1000).unwrap();
    let gateway = Gateway::new(config(&keys), Memory(units_tool()), POINT).with_clock(|| NOW_MS);
    let token = keys
        .issue(&TokenRequest {
            issuer: ISSUER,
            audience: DEFAULT_AUDIENCE,
            user_id: Some("u-1"),
            agent_id: "support-bot",
            session_id: "s-1",
            context_json: r#"{"user":{"userId":"u-1","roles":["staff"]}}"#,
            now: NOW_MS / 1000,
            ttl_seconds: 3_600,
        })
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    (Interceptor::new(gateway, move |r| sink.lock().unwrap().push(r)), token, lines)
}

/// The REQUEST event around the client's `body` (JSON text), with the bearer `token`.
fn event(token: &str, body: &str) -> String {
    format!(
        r#"{{"interceptorInputVersion":"1.0","mcp":{{"gatewayRequest":{{"path":"/mcp","httpMethod":"POST","headers":{{"Authorization":"Bearer {token}"}},"body":{body}}}}}}}"#
    )
}

fn call(id: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

#[tokio::test]
async fn raw_events_get_documents_a_strict_parser_reads() {
    let (interceptor, token) = setup();
    let ok = r#"{"name":"units___convert","arguments":{"value":5,"from":"km","to":"m"}}"#;
    // the allowed call, as a control
    let allowed =
        interceptor.handle(&RawValue::from_string(event(&token, &call("1", ok))).unwrap()).await;
    assert!(allowed.get().contains("transformedGatewayRequest"), "{}", allowed.get());
    // the caller's token goes no further than the interceptor: the target never gets it
    let read: serde_json::Value = serde_json::from_str(allowed.get()).unwrap();
    assert_eq!(read["mcp"]["transformedGatewayRequest"]["headers"], serde_json::json!({}));
    assert!(!allowed.get().contains(&token), "{}", allowed.get());
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let refused = [
        // a member twice
        event(
            &token,
            &call("1", r#"{"name":"units___convert","name":"units___convert","arguments":{}}"#),
        ),
        event(
            &token,
            &call(
                "1",
                r#"{"name":"units___convert","arguments":{"value":2e9,"value":5,"from":"km","to":"m"}}"#,
            ),
        ),
        event(
            &token,
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{ok}}}"#
            ),
        ),
        format!(
            r#"{{"interceptorInputVersion":"1.0","interceptorInputVersion":"1.0","mcp":{{"gatewayRequest":{{"body":{}}}}}}}"#,
            call("1", ok)
        ),
        // lone surrogates: in the id, the name, an argument, a key
        event(&token, &call(r#""\ud800""#, r#"{"name":"units___conv\udc00ert"}"#)),
        event(&token, &call(r#""\udfff""#, r#"{"name":"nope___x"}"#)),
        event(
            &token,
            &call(
                "1",
                r#"{"name":"units___convert","arguments":{"value":5,"from":"\ud800","to":"m"}}"#,
            ),
        ),
        event(&token, &call("1", r#"{"name":"units___convert","arguments":{"\ud800":1}}"#)),
        // nesting past any limit: the id, the arguments, a header
        event(&token, &call(&deep, r#"{"name":"nope___x"}"#)),
        event(
            &token,
            &call("1", &format!(r#"{{"name":"units___convert","arguments":{{"value":{deep}}}}}"#)),
        ),
        format!(
            r#"{{"interceptorInputVersion":"1.0","mcp":{{"gatewayRequest":{{"headers":{{"Authorization":"Bearer {token}","X":{deep}}},"body":{}}}}}}}"#,
            call("1", ok)
        ),
        // numbers at the extremes
        event(&token, &call("1e400", r#"{"name":"nope___x"}"#)),
        event(
            &token,
            &call(
                "1",
                r#"{"name":"units___convert","arguments":{"value":1e400,"from":"km","to":"m"}}"#,
            ),
        ),
        event(
            &token,
            &call(
                "1",
                r#"{"name":"units___convert","arguments":{"value":"NaN","from":"km","to":"m"}}"#,
            ),
        ),
    ];
    for (i, text) in refused.iter().enumerate() {
        let output = interceptor.handle(&RawValue::from_string(text.clone()).unwrap()).await;
        let read: Result<Value, _> = serde_json::from_str(output.get());
        let Ok(read) = read else {
            panic!("case {i}: not JSON a strict parser reads: {:.400}", output.get())
        };
        assert_eq!(read["interceptorOutputVersion"], "1.0", "case {i}");
        assert!(read["mcp"].get("transformedGatewayRequest").is_none(), "case {i}: passed on");
        let id = &read["mcp"]["transformedGatewayResponse"]["body"]["id"];
        assert!(id.is_string() || id.is_number() || id.is_null(), "case {i}: {id}");
    }
}

#[tokio::test]
async fn a_huge_tool_list_is_filtered_in_bounded_time() {
    let (interceptor, token, lines) = setup_logged();
    let description = "d".repeat(500);
    let mut tools: Vec<Value> = (0..10_000)
        .map(|i| json!({"name": format!("t{i}___x"), "description": description}))
        .collect();
    tools.insert(5_000, json!({"name": "units___convert", "description": "kept"}));
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools, "nextCursor": "c"}});
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let text = format!(
        r#"{{"interceptorInputVersion":"1.0","mcp":{{"gatewayRequest":{{"headers":{{"Authorization":"Bearer {token}"}},"body":{request}}},"gatewayResponse":{{"statusCode":200,"body":{answer}}}}}}}"#
    );
    assert!(text.len() > 5_000_000, "{}", text.len());
    let started = std::time::Instant::now();
    let output = interceptor.handle(&RawValue::from_string(text).unwrap()).await;
    let elapsed = started.elapsed();
    let read: Value = serde_json::from_str(output.get()).unwrap();
    assert_eq!(
        read["mcp"]["transformedGatewayResponse"]["body"]["result"],
        json!({"tools": [{"name": "units___convert", "description": "kept"}], "nextCursor": "c"})
    );
    assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    // one decision line for the list, not one per listed tool
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), 1, "{} lines", lines.len());
    let listed = lines[0].listed.clone().unwrap();
    assert_eq!((listed.kept, listed.withheld), (1, 10_000));
}

#[tokio::test]
async fn a_header_given_twice_with_different_values_denies() {
    let (interceptor, token) = setup();
    let body =
        call("1", r#"{"name":"units___convert","arguments":{"value":5,"from":"km","to":"m"}}"#);
    let with = |headers: &str| {
        let text = format!(
            r#"{{"interceptorInputVersion":"1.0","mcp":{{"gatewayRequest":{{"headers":{{{headers}}},"body":{body}}}}}}}"#
        );
        RawValue::from_string(text).unwrap()
    };
    let same = format!(r#""Authorization":"Bearer {token}","authorization":"Bearer {token}""#);
    let output = interceptor.handle(&with(&same)).await;
    assert!(output.get().contains("transformedGatewayRequest"), "{}", output.get());
    for headers in [
        format!(r#""Authorization":"Bearer {token}","AUTHORIZATION":"Bearer other""#),
        format!(r#""Authoriz\u0061tion":"Bearer other","Authorization":"Bearer {token}""#),
        format!(r#""Authorization":"Bearer {token}","Mcp-Session-Id":"a","mcp-session-id":"b""#),
        format!(r#""Authorization":["Bearer {token}"]"#),
    ] {
        let output = interceptor.handle(&with(&headers)).await;
        let read: Value = serde_json::from_str(output.get()).unwrap();
        assert!(read["mcp"].get("transformedGatewayRequest").is_none(), "{headers}: passed on");
    }
}
