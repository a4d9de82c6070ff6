//! The guard in remote mode without a registry to ask: which mode the environment
//! chooses, the fail-closed paths that need no registry, and registries that misbehave
//! (hang, redirect, err, answer what cannot be read); the decisions themselves are the
//! decision table's, tests/tests/decide_table.rs, against the real router.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bedrock_action_group::ToolError;
use registry_guard::{DynamoSource, Guard, Remote, RemoteAuth, RemoteConfig, handle_guarded};
use serde_json::{Value, json};

fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
}

#[test]
fn the_environment_chooses_the_mode_and_an_ambiguous_one_is_refused() {
    // no REGISTRY_URL: table mode (GuardConfig reads the rest)
    let table = RemoteConfig::from_vars(vars(&[("REGISTRY_TABLE", "t")])).unwrap();
    assert!(table.is_none());
    let remote = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "http://127.0.0.1:8080/prod/"),
        ("REGISTRY_TOKEN", "ar_token"),
        ("REGISTRY_TOOL_ID", "convert_units@1.0.0"),
    ]))
    .unwrap()
    .unwrap();
    assert_eq!(remote.url.as_str(), "http://127.0.0.1:8080/prod/");
    assert_eq!(remote.tool_id, "convert_units@1.0.0");
    // every problem named: no token, no tool, and both modes' variables at once
    let problems = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "http://127.0.0.1:8080"),
        ("REGISTRY_TABLE", "t"),
    ]))
    .unwrap_err()
    .to_string();
    for name in ["REGISTRY_TOKEN", "REGISTRY_TOOL_ID", "REGISTRY_TABLE"] {
        assert!(problems.contains(name), "{problems}");
    }
    let bad = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "ftp://registry"),
        ("REGISTRY_TOKEN", "t"),
        ("REGISTRY_TOOL_ID", "t"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(bad.contains("REGISTRY_URL"), "{bad}");
    // SigV4 with the function's role: no token, the region Lambda sets
    let signed = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/"),
        ("REGISTRY_AUTH", "sigv4"),
        ("AWS_REGION", "eu-west-1"),
        ("REGISTRY_TOOL_ID", "convert_units@1.0.0"),
    ]))
    .unwrap()
    .unwrap();
    assert!(matches!(&signed.auth, RemoteAuth::SigV4 { region } if region == "eu-west-1"));
    let problems = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "https://registry"),
        ("REGISTRY_AUTH", "iam"),
        ("REGISTRY_TOOL_ID", "t"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(problems.contains("REGISTRY_AUTH"), "{problems}");
}

/// A registry stand-in that records each request (method, path, headers, body) and
/// allows the call.
async fn recording(seen: Arc<Mutex<Vec<http::Request<Vec<u8>>>>>) -> String {
    let allow = json!({
        "decisionId": "d1", "toolId": "convert_units@1.0.0", "version": 1,
        "effect": "allow", "outcome": "allow", "stage": "call", "reason": "RULE_MATCH"
    });
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let seen = Arc::clone(&seen);
        let allow = allow.to_string();
        async move {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, 1 << 20).await.unwrap().to_vec();
            seen.lock().unwrap().push(http::Request::from_parts(parts, body));
            let mut response = axum::response::Response::new(axum::body::Body::from(allow));
            response.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            );
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// Remote mode against the admin API on AWS: the request is SigV4-signed for
/// `execute-api` with the function's credentials (here given; in a Lambda its role's),
/// no bearer token; the signature is what API Gateway recomputes from the request as
/// it arrived (re-signed here with aws-sigv4 at the request's own `x-amz-date`).
#[tokio::test]
async fn sigv4_signs_the_request_with_the_functions_credentials() {
    use aws_credential_types::Credentials;
    use aws_credential_types::provider::SharedCredentialsProvider;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let url = recording(Arc::clone(&seen)).await;
    let config = RemoteConfig {
        tool_id: "convert_units@1.0.0".into(),
        url: format!("{url}/").parse().unwrap(),
        auth: RemoteAuth::SigV4 { region: "eu-west-1".into() },
    };
    let credentials =
        Credentials::new("AKIDGUARD", "guard-secret", Some("session-1".into()), None, "test");
    let remote = Remote::new(config)
        .unwrap()
        .with_credentials(SharedCredentialsProvider::new(credentials.clone()));
    let guard: Guard<DynamoSource> = Guard::remote(remote);
    let (response, ran) = call(&guard, &event(json!({"registryPrincipal": TOKEN}))).await;
    assert!(ran, "{response}");

    let request = seen.lock().unwrap().pop().unwrap();
    let header = |name: &str| {
        request.headers().get(name).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
    };
    let authorization = header("authorization");
    let date = header("x-amz-date");
    assert!(
        authorization.starts_with(&format!(
            "AWS4-HMAC-SHA256 Credential=AKIDGUARD/{}/eu-west-1/execute-api/aws4_request, SignedHeaders=",
            &date[..8]
        )),
        "{authorization}"
    );
    assert!(authorization.contains("x-registry-principal"), "the token is signed: {authorization}");
    assert_eq!(header("x-amz-security-token"), "session-1");
    assert_eq!(header("x-registry-principal"), TOKEN);

    // recompute the signature over what arrived, as API Gateway does
    let at = chrono::NaiveDateTime::parse_from_str(&date, "%Y%m%dT%H%M%SZ").unwrap().and_utc();
    let identity = credentials.into();
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region("eu-west-1")
        .name("execute-api")
        .time(at.into())
        .settings(aws_sigv4::http_request::SigningSettings::default())
        .build()
        .unwrap()
        .into();
    let signed: Vec<&str> = authorization
        .split("SignedHeaders=")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .split(';')
        .collect();
    let headers: Vec<(&str, &str)> = request
        .headers()
        .iter()
        .filter(|(n, _)| signed.contains(&n.as_str()) && n.as_str() != "x-amz-date")
        .filter(|(n, _)| *n != http::header::AUTHORIZATION && n.as_str() != "x-amz-security-token")
        .map(|(n, v)| (n.as_str(), v.to_str().unwrap()))
        .collect();
    let uri = format!("http://{}{}", header("host"), request.uri());
    let signable = aws_sigv4::http_request::SignableRequest::new(
        request.method().as_str(),
        &uri,
        headers.into_iter(),
        aws_sigv4::http_request::SignableBody::Bytes(request.body()),
    )
    .unwrap();
    let (instructions, _) = aws_sigv4::http_request::sign(signable, &params).unwrap().into_parts();
    let (expected, _) = instructions.into_parts();
    let expected = expected.iter().find(|h| h.name() == "authorization").unwrap();
    assert_eq!(expected.value(), authorization);
}

/// A guard asking a registry at `url`, and its decision lines.
fn guard(url: &str) -> (Guard<DynamoSource>, Arc<Mutex<Vec<Value>>>) {
    let config = RemoteConfig {
        tool_id: "convert_units@1.0.0".into(),
        url: url.parse().unwrap(),
        auth: RemoteAuth::Bearer("ar_token".into()),
    };
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    let guard = Guard::remote(Remote::new(config).unwrap())
        .with_log(move |line| l.lock().unwrap().push(serde_json::from_str(line).unwrap()));
    (guard, lines)
}

fn event(attributes: Value) -> Vec<u8> {
    event_in("s-1", attributes)
}

/// A call of `convert` in Bedrock session `session`.
fn event_in(session: &str, attributes: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "messageVersion": "1.0",
        "agent": {"name": "units", "id": "AGENT1", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "convert", "sessionId": session, "actionGroup": "convert_units",
        "function": "convert",
        "parameters": [
            {"name": "value", "type": "number", "value": "5"},
            {"name": "from", "type": "string", "value": "km"},
            {"name": "to", "type": "string", "value": "m"}
        ],
        "sessionAttributes": attributes, "promptSessionAttributes": {}
    }))
    .unwrap()
}

/// Runs `body` through the guard: the response's state and body text, and whether the
/// handler ran.
async fn call(guard: &Guard<DynamoSource>, body: &[u8]) -> (Value, bool) {
    let ran = std::sync::atomic::AtomicBool::new(false);
    let response = handle_guarded(guard, body, |_: Value| {
        ran.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok::<_, ToolError>("ran")
    })
    .await;
    let json = serde_json::to_value(&response).unwrap();
    (json["response"]["functionResponse"].clone(), ran.into_inner())
}

#[tokio::test]
async fn an_unreachable_registry_refuses_the_call() {
    // a port nothing listens on
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (guard, lines) = guard(&format!("http://127.0.0.1:{port}"));
    assert!(guard.is_remote());
    let (response, ran) = call(&guard, &event(json!({"registryPrincipal": "v1.k.1.e30.x"}))).await;
    assert!(!ran);
    assert_eq!(response["responseState"], "FAILURE", "{response}");
    let text = response["responseBody"]["TEXT"]["body"].as_str().unwrap();
    assert!(text.contains("cannot be checked right now"), "{text}");
    let line = lines.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        (line["reason"].as_str(), line["effect"].as_str()),
        (Some("REGISTRY_UNAVAILABLE"), Some("deny"))
    );
    assert!(line["message"].as_str().unwrap().contains("was not reached"), "{line}");
    assert_eq!(line["toolId"], "convert_units@1.0.0");
}

#[tokio::test]
async fn without_a_token_nothing_is_asked() {
    let (guard, lines) = guard("http://127.0.0.1:9");
    let (response, ran) = call(&guard, &event(json!({}))).await;
    assert!(!ran);
    assert_eq!(response["responseState"], "FAILURE", "{response}");
    let line = lines.lock().unwrap().last().cloned().unwrap();
    assert_eq!(line["reason"], "NO_SIGNED_CONTEXT");
}

// A registry that misbehaves: one that accepts and never answers, redirects to an
// allowing server, answers an error, a decision it cannot read or an allow in another
// shape; and an event whose session id or token no header can carry. Each call is
// refused (`FAILURE` or `REPROMPT`), the handler never runs, the wait is bounded.

/// Response headers of a misbehaving registry.
type Headers = &'static [(&'static str, &'static str)];

/// [`call`], giving up after a minute (a hang, not a timing): the response's state and
/// whether the handler ran.
async fn bounded(guard: &Guard<DynamoSource>, body: &[u8]) -> (String, bool) {
    let (response, ran) =
        tokio::time::timeout(std::time::Duration::from_secs(60), call(guard, body))
            .await
            .expect("the guard waited on the registry without bound");
    (response["responseState"].as_str().unwrap_or("(none)").to_owned(), ran)
}

/// A server answering every request with `status`, `headers` and `body`; counts them.
async fn answering(status: u16, headers: Headers, body: String, hits: Arc<AtomicUsize>) -> String {
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        let hits = Arc::clone(&hits);
        async move {
            hits.fetch_add(1, Ordering::SeqCst);
            let mut response = axum::response::Response::new(axum::body::Body::from(body));
            *response.status_mut() = http::StatusCode::from_u16(status).unwrap();
            for (name, value) in headers {
                response.headers_mut().insert(*name, http::HeaderValue::from_static(value));
            }
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

const TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.e30.c2ln";

#[tokio::test]
async fn a_registry_that_never_answers_refuses_the_call_within_the_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let (guard, lines) = guard(&format!("http://{addr}"));
    let (state, ran) = bounded(&guard, &event(json!({"registryPrincipal": TOKEN}))).await;
    assert!(!ran);
    assert_eq!(state, "FAILURE");
    let line = lines.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        (line["reason"].as_str(), line["effect"].as_str()),
        (Some("REGISTRY_UNAVAILABLE"), Some("deny"))
    );
}

#[tokio::test]
async fn a_misbehaving_registry_never_lets_a_call_through() {
    let allow = json!({
        "decisionId": "d1", "toolId": "convert_units@1.0.0", "version": 1,
        "effect": "allow", "outcome": "allow", "stage": "call", "reason": "RULE_MATCH"
    });
    let allowing =
        answering(200, &[("content-type", "application/json")], allow.to_string(), Arc::default())
            .await;
    let redirect_to: &'static str =
        Box::leak(format!("{allowing}/tools/x/authorize").into_boxed_str());
    let redirect_headers: Headers = Box::leak(vec![("location", redirect_to)].into_boxed_slice());
    let cases: Vec<(&str, u16, Headers, String)> = vec![
        ("a redirect to an allowing server", 307, redirect_headers, String::new()),
        ("a redirect (302)", 302, redirect_headers, String::new()),
        ("a 500", 500, &[], r#"{"detail":"boom","effect":"allow"}"#.into()),
        ("a 503 with an allow body", 503, &[], allow.to_string()),
        (
            "an allow missing its outcome",
            200,
            &[],
            json!({"decisionId": "d", "effect": "allow"}).to_string(),
        ),
        ("an effect in another case", 200, &[], {
            let mut a = allow.clone();
            a["effect"] = json!("ALLOW");
            a.to_string()
        }),
        ("an effect that is no string", 200, &[], {
            let mut a = allow.clone();
            a["effect"] = json!(true);
            a.to_string()
        }),
        ("a list of allows", 200, &[], json!([allow.clone()]).to_string()),
        ("HTML", 200, &[("content-type", "text/html")], "<html>allow</html>".into()),
        ("an empty 200", 200, &[], String::new()),
        ("deep JSON", 200, &[], format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))),
        ("a 201", 201, &[], allow.to_string()),
    ];
    for (what, status, headers, body) in cases {
        let hits = Arc::new(AtomicUsize::new(0));
        let url = answering(status, headers, body, Arc::clone(&hits)).await;
        let (guard, lines) = guard(&url);
        let (state, ran) = bounded(&guard, &event(json!({"registryPrincipal": TOKEN}))).await;
        assert!(!ran, "{what}: the handler ran");
        assert!(state == "FAILURE" || state == "REPROMPT", "{what}: {state}");
        assert_eq!(hits.load(Ordering::SeqCst), 1, "{what}: asked once");
        let line = lines.lock().unwrap().last().cloned().unwrap();
        assert_eq!(line["effect"], "deny", "{what}: {line}");
    }
}

#[tokio::test]
async fn what_cannot_go_into_a_header_is_refused_without_asking() {
    let hits = Arc::new(AtomicUsize::new(0));
    let url = answering(200, &[], "{}".into(), Arc::clone(&hits)).await;
    let (guard, lines) = guard(&url);
    for (session, token) in [
        ("s-1\r\nX-Registry-Principal: forged", TOKEN.to_owned()),
        ("s-1", format!("{TOKEN}\r\nX-Registry-Session: other")),
        ("s-1", "\u{0}".to_owned()),
    ] {
        let (state, ran) =
            bounded(&guard, &event_in(session, json!({"registryPrincipal": token}))).await;
        assert!(!ran, "{session:?} {token:?}");
        assert_eq!(state, "FAILURE", "{session:?} {token:?}");
        let line = lines.lock().unwrap().last().cloned().unwrap();
        assert_eq!(line["effect"], "deny");
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing sent");
}
