//! Hostile callers over real gRPC on loopback: whatever arrives is answered in the
//! protocol, in bounded time, and a refused call counts nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value as ProtoValue};
use registry_ext_mcp::proto::authorization_error::Code;
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{
    McpHeader, McpRequest, McpResponse, mcp_request_result, mcp_response_result,
};
use serde_json::{Value, json};

use common::{claims, code, example, listen, serve, text};

fn staff() -> Option<Struct> {
    claims("ana", &["staff"])
}

fn convert(session: &str) -> McpRequest {
    let params = json!({"name": "convert", "arguments": {"value": 5.0, "from": "km", "to": "m"}});
    McpRequest {
        service_names: vec!["units".into()],
        method: "tools/call".into(),
        metadata_context: staff(),
        mcp_request: Some(params.to_string().into_bytes()),
        headers: vec![McpHeader { key: "mcp-session-id".into(), value: session.into() }],
    }
}

/// A DynamoDB endpoint that accepts connections and never answers.
async fn silent_endpoint() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{address}")
}

#[tokio::test]
async fn a_table_that_never_answers_is_a_denial_in_bounded_time() {
    // SAFETY-free: the SDK reads credentials from the environment, as `ext-mcp` does
    let base = registry_sdk_config::sdk_config(Some(silent_endpoint().await)).await;
    let client = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&base)
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "test", "test", None, None, "tests",
            ))
            .build(),
    );
    // the store as `ext-mcp --store dynamodb` opens it (DynamoStore::connect)
    let store = registry_store_dynamodb::DynamoStore::new(client, "registry", b"cursor key");
    let (mut client, _stop) = serve(Arc::new(store)).await;
    for _ in 0..3 {
        let started = Instant::now();
        let answered =
            tokio::time::timeout(Duration::from_secs(20), code(&mut client, convert("s-1"))).await;
        assert_eq!(answered, Ok(Some(Code::PermissionDenied)), "no answer in 20 s");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }
    let list = McpResponse {
        service_names: vec!["units".into()],
        method: "tools/list".into(),
        metadata_context: staff(),
        mcp_response: json!({"tools": [{"name": "convert"}]}).to_string().into_bytes(),
    };
    let listed = tokio::time::timeout(Duration::from_secs(20), client.check_response(list)).await;
    let result = listed.expect("no answer in 20 s").unwrap().into_inner().result;
    let Some(mcp_response_result::Result::Mutated(bytes)) = result else { panic!("{result:?}") };
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), json!({"tools": []}));
}

#[tokio::test]
async fn concurrent_calls_of_one_session_admit_exactly_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _stop) = serve(example(dir.path()).await).await;
    let calls = (0..64).map(|_| {
        let mut client = client.clone();
        tokio::spawn(async move { code(&mut client, convert("race")).await })
    });
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.unwrap());
    }
    let passed = answers.iter().filter(|a| a.is_none()).count();
    let exhausted = answers.iter().filter(|a| **a == Some(Code::ResourceExhausted)).count();
    assert_eq!((passed, exhausted), (2, 62), "{answers:?}");
    // and one after another: the budget holds exactly
    let mut client = client.clone();
    let mut passed = 0;
    for _ in 0..200 {
        passed += usize::from(code(&mut client, convert("serial")).await.is_none());
    }
    assert_eq!(passed, 2);
}

fn request(service_names: &[&str], method: &str, params: Option<Vec<u8>>) -> McpRequest {
    McpRequest {
        service_names: service_names.iter().map(|s| (*s).to_owned()).collect(),
        method: method.into(),
        metadata_context: staff(),
        mcp_request: params,
        headers: vec![McpHeader { key: "mcp-session-id".into(), value: b"hostile".to_vec() }],
    }
}

#[tokio::test]
async fn malformed_requests_are_answered_and_count_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _stop) = serve(example(dir.path()).await).await;
    let thousand: Vec<String> = (0..1_000).map(|i| format!("b{i}")).collect();
    let thousand: Vec<&str> = thousand.iter().map(String::as_str).collect();
    let deep = format!(
        r#"{{"name":"convert","arguments":{{"value":{}1{}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let long_name = format!(r#"{{"name":"{}"}}"#, "c".repeat(100_000));
    let ok = |args: &str| format!(r#"{{"name":"convert","arguments":{args}}}"#).into_bytes();
    let cases: Vec<(McpRequest, Code)> = vec![
        (
            request(&[], "tools/call", Some(ok(r#"{"value":1,"from":"km","to":"m"}"#))),
            Code::Invalid,
        ),
        (request(&thousand, "tools/call", Some(ok("{}"))), Code::Invalid),
        (request(&["units"], "tools/call", None), Code::Invalid),
        (request(&["units"], "tools/call", Some(b"null".to_vec())), Code::Invalid),
        (request(&["units"], "tools/call", Some(b"\"convert\"".to_vec())), Code::Invalid),
        (
            request(
                &["units"],
                "tools/call",
                Some(br#"{"name":"convert","arguments":[1]}"#.to_vec()),
            ),
            Code::Invalid,
        ),
        (
            request(&["units"], "tools/call", Some(br#"{"name":"","arguments":{}}"#.to_vec())),
            Code::Invalid,
        ),
        (
            request(&["units"], "tools/call", Some(br#"{"name":"con\u0000vert"}"#.to_vec())),
            Code::PermissionDenied,
        ),
        (request(&["units"], "tools/call", Some(br#"{"name":"\ud800"}"#.to_vec())), Code::Invalid),
        (request(&["units"], "tools/call", Some(long_name.into_bytes())), Code::PermissionDenied),
        (request(&["units"], "tools/call", Some(deep.into_bytes())), Code::Invalid),
        (
            request(&["units"], "tools/call", Some(ok(r#"{"value":1e308,"from":"km","to":"m"}"#))),
            Code::PermissionDenied,
        ),
        (
            request(&["units"], "tools/call", Some(ok(r#"{"value":1e309,"from":"km","to":"m"}"#))),
            Code::Invalid,
        ),
        (
            request(
                &["units"],
                "tools/call",
                Some(ok(r#"{"value":18446744073709551616,"from":"km","to":"m"}"#)),
            ),
            Code::PermissionDenied,
        ),
        (
            request(&["units"], "tools/call", Some(ok(r#"{"value":"NaN","from":"km","to":"m"}"#))),
            Code::Invalid,
        ),
        (
            request(
                &["units"],
                "tools/call",
                Some(ok(r#"{"value":2e9,"value":1,"from":"km","to":"m"}"#)),
            ),
            Code::Invalid,
        ),
        (request(&["no thing"], "tools/call", Some(ok("{}"))), Code::PermissionDenied),
        (request(&[""], "tools/call", Some(ok("{}"))), Code::PermissionDenied),
        (request(&["units"], &"m".repeat(100_000), Some(ok("{}"))), Code::Invalid),
    ];
    for (i, (request, expected)) in cases.into_iter().enumerate() {
        let answered = client.check_request(request).await;
        let result = answered.map(|r| r.into_inner().result);
        let got = match &result {
            Ok(Some(mcp_request_result::Result::Error(e))) => Some(e.code()),
            _ => None,
        };
        assert_eq!(got, Some(expected), "case {i}: {result:?}");
    }
    // nothing above counted: the session still has its two calls
    assert_eq!(code(&mut client, convert("hostile")).await, None);
    assert_eq!(code(&mut client, convert("hostile")).await, None);
    assert_eq!(code(&mut client, convert("hostile")).await, Some(Code::ResourceExhausted));
}

#[tokio::test]
async fn odd_principals_and_headers_are_denied_never_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _stop) = serve(example(dir.path()).await).await;
    let number = |n: f64| ProtoValue { kind: Some(Kind::NumberValue(n)) };
    let list =
        |values: Vec<ProtoValue>| ProtoValue { kind: Some(Kind::ListValue(ListValue { values })) };
    let object = |fields: Vec<(&str, ProtoValue)>| ProtoValue {
        kind: Some(Kind::StructValue(Struct {
            fields: fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        })),
    };
    let context =
        |claims: ProtoValue| Some(Struct { fields: [("claims".to_owned(), claims)].into() });
    let mut nested = text("x");
    for _ in 0..40 {
        nested = list(vec![nested]);
    }
    let many_roles = list((0..10_000).map(|i| text(&format!("r{i}"))).collect());
    let hostile = [
        context(object(vec![("sub", number(7.0)), ("groups", text("staff"))])),
        context(object(vec![("sub", text("ana")), ("groups", many_roles)])),
        context(object(vec![("sub", nested.clone()), ("groups", nested)])),
        context(object(vec![
            ("sub", number(f64::NAN)),
            ("groups", list(vec![number(f64::INFINITY)])),
        ])),
        context(text("claims as a string")),
        Some(Struct { fields: [("token".to_owned(), text(&"x".repeat(9_000)))].into() }),
        Some(Struct {
            fields: [("token".to_owned(), text("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbmEifQ."))].into(),
        }),
        Some(Struct { fields: [("authorization".to_owned(), number(1.0))].into() }),
        None,
    ];
    for (i, metadata) in hostile.into_iter().enumerate() {
        let mut request = convert("odd");
        request.metadata_context = metadata;
        let answer = code(&mut client, request).await;
        assert!(matches!(answer, Some(Code::PermissionDenied)), "case {i}: {answer:?}");
    }
    // headers: repeated, not UTF-8, empty; the call counts in the first usable one
    let mut request = convert("unused");
    request.headers = vec![
        McpHeader { key: "MCP-SESSION-ID".into(), value: vec![0xff, 0xfe] },
        McpHeader { key: "mcp-session-id".into(), value: Vec::new() },
        McpHeader { key: "Mcp-Session-Id".into(), value: b"odd-headers".to_vec() },
        McpHeader { key: "mcp-session-id".into(), value: b"second".to_vec() },
    ];
    assert_eq!(code(&mut client, request.clone()).await, None);
    assert_eq!(code(&mut client, request.clone()).await, None);
    assert_eq!(code(&mut client, request).await, Some(Code::ResourceExhausted));
    // a session id no session has (too long, control characters) is denied
    for session in ["s".repeat(10_000), "a\u{0}b".to_owned()] {
        let answer = code(&mut client, convert(&session)).await;
        assert_eq!(answer, Some(Code::PermissionDenied), "{session:.20}");
    }
}

#[tokio::test]
async fn huge_and_odd_lists_are_filtered_or_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _stop) = serve(example(dir.path()).await).await;
    let list = |names: &[&str], result: Vec<u8>| McpResponse {
        service_names: names.iter().map(|s| (*s).to_owned()).collect(),
        method: "tools/list".into(),
        metadata_context: staff(),
        mcp_response: result,
    };
    let mut tools: Vec<Value> = (0..10_000).map(|i| json!({"name": format!("t{i}")})).collect();
    tools.push(json!({"name": "convert", "description": "kept"}));
    tools.push(json!({"name": 7}));
    tools.push(json!("not an object"));
    let started = Instant::now();
    let result = client
        .check_response(list(
            &["units"],
            json!({"tools": tools, "nextCursor": "c"}).to_string().into_bytes(),
        ))
        .await
        .unwrap()
        .into_inner()
        .result;
    let Some(mcp_response_result::Result::Mutated(bytes)) = result else { panic!("{result:?}") };
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap(),
        json!({"tools": [{"name": "convert", "description": "kept"}], "nextCursor": "c"})
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let deep = format!("{{\"tools\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    for bad in [
        b"null".to_vec(),
        b"[]".to_vec(),
        br#"{"tools":{}}"#.to_vec(),
        // a member named twice: a tool's name (read either way by some parser), the
        // tools, another member of a tool
        br#"{"tools":[{"name":"t1","name":"convert"}]}"#.to_vec(),
        br#"{"tools":[{"name":"convert","name":"t1"}]}"#.to_vec(),
        br#"{"tools":[{"name":"t1"}],"tools":[{"name":"convert"}]}"#.to_vec(),
        br#"{"tools":[{"name":"convert","description":"a","description":"b"}]}"#.to_vec(),
        deep.into_bytes(),
        vec![0xff],
    ] {
        let result =
            client.check_response(list(&["units"], bad)).await.unwrap().into_inner().result;
        let Some(mcp_response_result::Result::Error(e)) = result else { panic!("{result:?}") };
        assert_eq!(e.code(), Code::Invalid);
    }
    // no backends: nothing can be granted
    let result = client
        .check_response(list(&[], br#"{"tools":[{"name":"convert"}]}"#.to_vec()))
        .await
        .unwrap()
        .into_inner()
        .result;
    let Some(mcp_response_result::Result::Mutated(bytes)) = result else { panic!("{result:?}") };
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), json!({"tools": []}));
    // over the message limit: the transport refuses, the server goes on
    let big = vec![b' '; registry_ext_mcp::MAX_MESSAGE_BYTES + 1];
    assert!(client.check_response(list(&["units"], big)).await.is_err());
    assert_eq!(code(&mut client, convert("after-big")).await, None);
}

/// One HTTP/2 frame.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).unwrap().to_be_bytes();
    let mut bytes = vec![len[1], len[2], len[3], kind, flags];
    bytes.extend_from_slice(&stream.to_be_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// An HPACK header block of literals (not indexed, not Huffman coded).
fn headers(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut block = Vec::new();
    for (name, value) in fields {
        block.push(0);
        block.push(u8::try_from(name.len()).unwrap());
        block.extend_from_slice(name.as_bytes());
        block.push(u8::try_from(value.len()).unwrap());
        block.extend_from_slice(value.as_bytes());
    }
    block
}

#[tokio::test]
async fn a_request_that_never_finishes_is_answered_in_bounded_time() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let address = listen(example(dir.path()).await, std::future::pending()).await;
    // a stream whose message is announced as 100 bytes, of which 10 ever come
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    out.extend(frame(4, 0, 0, &[]));
    let block = headers(&[
        (":method", "POST"),
        (":scheme", "http"),
        (":path", "/agentgateway.dev.ext_mcp.ExtMcp/CheckRequest"),
        (":authority", "localhost"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]);
    out.extend(frame(1, 4, 1, &block));
    let mut message = vec![0, 0, 0, 0, 100];
    message.extend_from_slice(&[0x12, 8]);
    message.extend_from_slice(b"tools/ca");
    out.extend(frame(0, 0, 1, &message));
    socket.write_all(&out).await.unwrap();
    // wait for stream 1's answer (a HEADERS frame), or the connection's end
    let started = Instant::now();
    let answered = tokio::time::timeout(Duration::from_secs(30), async {
        let mut buffer = Vec::new();
        loop {
            let mut chunk = [0_u8; 4096];
            let n = socket.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                return "closed";
            }
            buffer.extend_from_slice(&chunk[..n]);
            let mut at = 0;
            while buffer.len() >= at + 9 {
                let len = usize::from(buffer[at]) << 16
                    | usize::from(buffer[at + 1]) << 8
                    | usize::from(buffer[at + 2]);
                let stream = u32::from_be_bytes([
                    buffer[at + 5],
                    buffer[at + 6],
                    buffer[at + 7],
                    buffer[at + 8],
                ]) & 0x7fff_ffff;
                if buffer[at + 3] == 1 && stream == 1 {
                    return "answered";
                }
                if buffer[at + 3] == 3 && stream == 1 {
                    return "reset";
                }
                at += 9 + len;
            }
        }
    })
    .await;
    assert!(answered.is_ok(), "no answer in {:?}", started.elapsed());
    assert!(started.elapsed() < registry_ext_mcp::CALL_TIMEOUT + Duration::from_secs(5));
}

#[tokio::test]
async fn idle_connections_and_many_streams_do_not_stop_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let address = listen(example(dir.path()).await, std::future::pending()).await;
    // clients that connect and never send
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(tokio::net::TcpStream::connect(address).await.unwrap());
    }
    // 500 streams at once on one connection, and answers on another
    let client = ExtMcpClient::connect(format!("http://{address}")).await.unwrap();
    let calls = (0..500).map(|i| {
        let mut client = client.clone();
        tokio::spawn(async move {
            let request = McpRequest { method: format!("ping-{i}"), ..Default::default() };
            client.check_request(request).await.map(|r| r.into_inner().result)
        })
    });
    let started = Instant::now();
    for call in calls {
        let answer = call.await.unwrap().unwrap();
        assert!(matches!(answer, Some(mcp_request_result::Result::Pass(_))), "{answer:?}");
    }
    let mut other = ExtMcpClient::connect(format!("http://{address}")).await.unwrap();
    assert_eq!(code(&mut other, convert("after-idle")).await, None);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    drop(idle);
}
