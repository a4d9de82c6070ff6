#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Discovery attacked from outside (docs/discovery.md), over real HTTP: every role and a
//! principal token send oversized, extreme, repeated and malformed input to
//! `/v0.1/servers`, the server version routes, `/agent-cards/{agentId}`, the AI catalog
//! and `/tools/search`. Each answer is a problem (a 400 listing the violations, a 401, a
//! 404, a 414 or 431), never a 500, and nothing a principal may not see shows up in
//! counts, cursors, scores or errors.

mod common;

use std::collections::BTreeSet;

use common::discovery::apply;
use common::{Server, agent_json};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const NS: &str = "local.agent-registry";

/// Release 1.0.0 of the MCP server `name`.
fn mcp(name: &str, description: &str, rules: Option<Value>) -> Value {
    common::discovery::mcp(&format!("{name}@1.0.0"), name, description, rules)
}

async fn get(s: &Server, path: &str, token: &str) -> common::Reply {
    s.send(s.req(Method::GET, path, token)).await
}

/// A registry that signs principal tokens, with an open server, a staff-only server
/// (hidden from external users) and, when `with_hidden_twin`, a second staff-only server
/// whose words match the open one's.
async fn registry(with_hidden_twin: bool) -> Server {
    // the key file's directory outlives the server (a test process's temporary files)
    let dir = tempfile::tempdir().unwrap().keep();
    let keys = common::principal_keys(&dir).await;
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    let staff = json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}]);
    apply(&s, "open@1.0.0", mcp("open", "Pollen counts for a city.", None)).await;
    apply(&s, "staff@1.0.0", mcp("staff", "Storm alerts for staff.", Some(staff.clone()))).await;
    let mut tools = vec!["open@1.0.0", "staff@1.0.0"];
    if with_hidden_twin {
        apply(&s, "twin@1.0.0", mcp("twin", "Pollen counts for a city, pollen.", Some(staff)))
            .await;
        tools.push("twin@1.0.0");
    }
    let mut agent = agent_json("a1", &tools);
    agent["endpoint"] = json!("https://agents.example.com/a1");
    apply(&s, "a1", agent).await;
    s
}

/// The principal token resolution issues to a user of `user_type`.
async fn principal(s: &Server, user_type: &str) -> String {
    let context = json!({"user": {"userId": format!("{user_type}-1"), "userType": user_type}});
    let r = s.send(s.req(Method::POST, "/agents/a1/resolve", &s.reader).json(&context)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Asserts a 400 in the MCP Registry spec's error shape whose violations are exactly at
/// `paths`.
fn assert_invalid(r: &common::Reply, what: &str, paths: &[&str]) {
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{what}: {}", r.text);
    assert_eq!(r.content_type(), "application/problem+json", "{what}: {}", r.text);
    assert!(r.body["error"].is_string(), "{what}: the spec's `error` member: {}", r.text);
    assert_eq!(r.error_paths(), paths, "{what}: {}", r.text);
}

#[tokio::test]
async fn extreme_and_malformed_query_values_are_400s_listing_each_violation() {
    let s = common::start().await;
    apply(&s, "open@1.0.0", mcp("open", "Pollen counts for a city.", None)).await;
    let limits = [
        "18446744073709551616",
        "4294967296",
        "-1",
        "0",
        "1e2",
        "NaN",
        "inf",
        "-inf",
        "",
        "5%00",
        "０５",
    ];
    for limit in limits {
        for route in ["/v0.1/servers?limit=", "/tools/search?q=pollen&limit="] {
            let path = format!("{route}{limit}");
            let r = get(&s, &path, &s.reader).await;
            assert_invalid(&r, &path, &["/limit"]);
        }
    }
    // a limit the search route could not read is said to be no integer, not `0`
    let r = get(&s, "/tools/search?q=pollen&limit=abc", &s.reader).await;
    assert!(!r.text.contains("got 0") && r.text.contains("not an integer"), "{}", r.text);
    let r = get(&s, &format!("/tools/search?q={}&limit=x", "q".repeat(300)), &s.reader).await;
    assert_invalid(&r, "search, unreadable limit and long words", &["/q", "/limit"]);
    for since in [
        "9999-12-31T24:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "0000-00-00T00:00:00Z",
        "%2B275760-09-13T00:00:00Z",
        "2026-01-01",
        "",
        "NaN",
    ] {
        let path = format!("/v0.1/servers?updated_since={since}");
        assert_invalid(&get(&s, &path, &s.reader).await, &path, &["/updated_since"]);
    }
    // the extremes that are times are fine
    for since in
        ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999%2B14:00", "2016-12-31T23:59:60Z"]
    {
        let path = format!("/v0.1/servers?updated_since={since}");
        assert_eq!(get(&s, &path, &s.reader).await.status, StatusCode::OK, "{path}");
    }
    for version in ["", &"9".repeat(256)] {
        let path = format!("/v0.1/servers?version={version}");
        assert_invalid(&get(&s, &path, &s.reader).await, &path, &["/version"]);
    }
    for deleted in ["", "TRUE", "1", "yes"] {
        let path = format!("/v0.1/servers?include_deleted={deleted}");
        assert_invalid(&get(&s, &path, &s.reader).await, &path, &["/include_deleted"]);
    }
    // every violation at once
    let r = get(
        &s,
        "/v0.1/servers?limit=-1&cursor=%2F%2F&search=&updated_since=x&version=&include_deleted=2",
        &s.reader,
    )
    .await;
    assert_invalid(
        &r,
        "all at once",
        &["/limit", "/cursor", "/updated_since", "/version", "/include_deleted"],
    );
    let r = get(&s, &format!("/tools/search?q={}&limit=0", "é".repeat(257)), &s.reader).await;
    assert_invalid(&r, "search, both", &["/q", "/limit"]);
    // 256 two-byte characters are within the bound (characters, not bytes)
    let r = get(&s, &format!("/tools/search?q={}", "é".repeat(256)), &s.reader).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn a_repeated_query_parameter_is_a_400_problem() {
    let s = common::start().await;
    for path in [
        "/v0.1/servers?limit=5&limit=6",
        "/v0.1/servers?cursor=a&cursor=b",
        "/v0.1/servers?version=latest&version=1.0.0",
        "/tools/search?q=a&q=b",
        "/tools/search?q=a&limit=1&limit=2",
    ] {
        let r = get(&s, path, &s.reader).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {}", r.text);
        assert_eq!(r.content_type(), "application/problem+json", "{path}: {}", r.text);
        assert!(r.body["error"].is_string(), "{path}: {}", r.text);
    }
}

#[tokio::test]
async fn cursors_truncated_reencoded_or_forged_are_400s_or_pages_never_500s() {
    let s = common::start().await;
    for name in ["a_one", "b_two", "c_three"] {
        apply(&s, &format!("{name}@1.0.0"), mcp(name, "A server.", None)).await;
    }
    let first = get(&s, "/v0.1/servers?limit=1", &s.reader).await;
    let cursor = first.body["metadata"]["nextCursor"].as_str().unwrap().to_owned();
    let mut forged = vec![
        cursor[..cursor.len() / 2].to_owned(),
        cursor[..cursor.len() - 1].to_owned(),
        format!("{cursor}{cursor}"),
        format!("{cursor}="),
        cursor.replace('-', "+").replace('_', "/"),
        urlencoding(&cursor),
        "A".repeat(5_000),
        "%00".to_owned(),
        "%FF%FE".to_owned(),
        "..%2F..%2F".to_owned(),
        "=".to_owned(),
    ];
    // well-formed cursors of keys that do not exist: a page, not an error
    use base64::Engine as _;
    for raw in ["zzzz/none@9.9.9", "", "\u{0}", "😀/😀"] {
        forged.push(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw));
    }
    for c in &forged {
        let path = format!("/v0.1/servers?limit=1&cursor={c}");
        let r = get(&s, &path, &s.reader).await;
        match r.status {
            StatusCode::OK => assert!(r.body["servers"].is_array(), "{path}: {}", r.text),
            _ => assert_invalid(&r, &path, &["/cursor"]),
        }
    }
}

fn urlencoding(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

#[tokio::test]
async fn odd_path_segments_are_404s_or_400_problems_never_plain_text() {
    let s = common::start().await;
    apply(&s, "open@1.0.0", mcp("open", "Pollen counts for a city.", None)).await;
    let long = "n".repeat(7_000);
    for path in [
        "/v0.1/servers/%FF/versions".to_owned(),
        "/v0.1/servers/%C0%AF/versions/latest".to_owned(),
        format!("/v0.1/servers/{NS}%2Fopen/versions/%FF"),
        "/agent-cards/%FF%FE".to_owned(),
        "/v0.1/servers/..%2F..%2Ftools/versions".to_owned(),
        format!("/v0.1/servers/{NS}%2F..%2Fopen/versions/latest"),
        format!("/v0.1/servers/{NS}%2Fopen/versions/..%2F1.0.0"),
        format!("/v0.1/servers/{NS}%252Fopen/versions"),
        format!("/v0.1/servers/{NS}%2FOPEN/versions"),
        format!("/v0.1/servers/{NS}%2Fopen%00/versions"),
        format!("/v0.1/servers/{NS}%2Fopen/versions/LATEST"),
        format!("/v0.1/servers/{NS}%2Fopen/versions/1.0"),
        format!("/v0.1/servers/{NS}%2Fopen/versions/v1.0.0"),
        format!("/v0.1/servers/{NS}%2Fopen/versions/1.0.0%2B"),
        format!("/v0.1/servers/{long}/versions"),
        "/agent-cards/%2E%2E%2Fagents".to_owned(),
        format!("/agent-cards/{long}"),
        "/agent-cards/%F0%9F%98%80".to_owned(),
    ] {
        let r = get(&s, &path, &s.reader).await;
        assert!(
            [StatusCode::NOT_FOUND, StatusCode::BAD_REQUEST].contains(&r.status),
            "{path}: {} {}",
            r.status,
            r.text
        );
        assert_eq!(r.content_type(), "application/problem+json", "{path}: {}", r.text);
        assert!(r.body["error"].is_string(), "{path}: the spec's `error` member: {}", r.text);
    }
    // the real one still answers
    let r = get(&s, &format!("/v0.1/servers/{NS}%2Fopen/versions/latest"), &s.reader).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn huge_query_strings_and_headers_are_refused_with_problems() {
    let s = common::start().await;
    let huge = "q".repeat(20 * 1024);
    for path in [format!("/v0.1/servers?search={huge}"), format!("/tools/search?q={huge}")] {
        let r = get(&s, &path, &s.reader).await;
        assert_eq!(r.status.as_u16(), 414, "{}", r.text);
        assert_eq!(r.content_type(), "application/problem+json");
    }
    // many parameters, each within bounds, under the URI cap
    let many: String = (0..500).map(|i| format!("x{i}=1&")).collect();
    let r = get(&s, &format!("/v0.1/servers?{many}limit=1"), &s.reader).await;
    assert_eq!(r.status, StatusCode::OK, "unknown parameters are ignored: {}", r.text);
    // a long bearer token: refused, not a 500
    let long = "t".repeat(16 * 1024);
    let r = get(&s, "/v0.1/servers", &long).await;
    r.assert_problem(401, "UNAUTHENTICATED");
    let longer = "t".repeat(128 * 1024);
    let r = get(&s, "/v0.1/servers", &longer).await;
    assert_eq!(r.status.as_u16(), 431, "{}", r.text);
}

#[tokio::test]
async fn bad_credentials_never_discover_and_a_principal_token_is_no_role() {
    let s = registry(false).await;
    let external = principal(&s, "external-user").await;
    let mut wrong = vec![
        external[..external.len() - 1].to_owned(),
        external[..external.len() / 2].to_owned(),
        format!("{external}x"),
        format!("{external}{external}"),
        external.replace('.', "%2E"),
        external.to_uppercase(),
    ];
    // one character flipped in each part
    for (i, _) in external.match_indices('.').chain([(0, ".")]) {
        let mut bytes = external.clone().into_bytes();
        let at = i + 1;
        if at < bytes.len() {
            bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
            wrong.push(String::from_utf8(bytes).unwrap());
        }
    }
    for token in &wrong {
        for path in ["/v0.1/servers", "/tools/search?q=pollen", "/.well-known/ai-catalog.json"] {
            let r = get(&s, path, token).await;
            assert!(
                [StatusCode::UNAUTHORIZED, StatusCode::BAD_REQUEST].contains(&r.status),
                "{path} with {token}: {}",
                r.text
            );
            assert_eq!(r.content_type(), "application/problem+json");
        }
    }
    // other schemes, an empty bearer, two Authorization headers
    for value in ["Basic YTpi", "Bearer", "Bearer ", "bearer", &format!("Token {external}")] {
        let r = s
            .send(s.client.get(format!("{}/v0.1/servers", s.base)).header("authorization", value))
            .await;
        r.assert_problem(401, "UNAUTHENTICATED");
    }
    let r = s
        .send(
            s.client
                .get(format!("{}/v0.1/servers", s.base))
                .header("authorization", format!("Bearer {external}"))
                .header("authorization", format!("Bearer {}", s.reader)),
        )
        .await;
    r.assert_problem(400, "BAD_REQUEST");
    // a principal token is no role anywhere else: not a reader, not an editor, not an admin
    for (method, path, body) in [
        (Method::GET, "/tools", None),
        (Method::GET, "/agents/a1", None),
        (Method::POST, "/agents/a1/resolve", Some(json!({"user": {"userId": "x"}}))),
        (Method::POST, "/tools", Some(mcp("evil", "Evil.", None))),
        (Method::GET, "/events", None),
    ] {
        let mut req = s.req(method.clone(), path, &external);
        if let Some(body) = &body {
            req = req.json(body);
        }
        let r = s.send(req).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{method} {path}: {}", r.text);
    }
    get(&s, "/tools/evil@1.0.0", &s.reader).await.assert_problem(404, "NOT_FOUND");
}

/// `value` without its times (two registries write the same definitions at different
/// instants).
fn timeless(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            map.retain(|k, _| !["publishedAt", "updatedAt", "createdAt"].contains(&k.as_str()));
            for v in map.values_mut() {
                *v = timeless(v.take());
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                *v = timeless(v.take());
            }
        }
        _ => {}
    }
    value
}

#[tokio::test]
async fn a_hidden_server_leaks_through_no_count_cursor_score_or_error() {
    let with = registry(true).await;
    let without = registry(false).await;
    let ext_with = principal(&with, "external-user").await;
    let ext_without = principal(&without, "external-user").await;
    let int_with = principal(&with, "internal-user").await;
    // the same answers whether the hidden twin exists or not (scores included)
    for path in [
        "/v0.1/servers",
        "/v0.1/servers?search=pollen",
        "/v0.1/servers?search=pollen%20city&limit=1",
        "/v0.1/servers?version=latest&include_deleted=true",
        "/tools/search?q=pollen%20city",
        "/tools/search?q=pollen&limit=100",
        "/.well-known/ai-catalog.json",
        "/agent-cards/a1",
    ] {
        let a = get(&with, path, &ext_with).await;
        let b = get(&without, path, &ext_without).await;
        assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.text);
        assert_eq!(
            timeless(a.body),
            timeless(b.body),
            "{path}: the hidden server changes the external answer"
        );
    }
    // staff sees the twin, so the answers do differ for them
    let r = get(&with, "/tools/search?q=pollen", &int_with).await;
    assert!(r.text.contains("twin@1.0.0"), "{}", r.text);
    // a cursor naming the hidden server pages as one naming nothing
    use base64::Engine as _;
    let hidden_key = get(&with, "/v0.1/servers?limit=1", &int_with).await;
    assert_eq!(hidden_key.status, StatusCode::OK);
    let all = get(&with, "/v0.1/servers?limit=100", &with.reader).await;
    let names: BTreeSet<String> = all.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["server"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&format!("{NS}/twin")), "{}", all.text);
    // page by page with limit=1 to find each cursor's text
    let mut cursors = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let path = match &next {
            Some(c) => format!("/v0.1/servers?limit=1&cursor={c}"),
            None => "/v0.1/servers?limit=1".to_owned(),
        };
        let page = get(&with, &path, &with.reader).await;
        match page.body["metadata"]["nextCursor"].as_str() {
            Some(c) => {
                cursors.push(c.to_owned());
                next = Some(c.to_owned());
            }
            None => break,
        }
    }
    assert!(cursors.len() >= 2);
    let decoded: Vec<String> = cursors
        .iter()
        .map(|c| {
            String::from_utf8(base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(c).unwrap())
                .unwrap_or_default()
        })
        .collect();
    // a cursor is the last key shown: the twin's, as staff would get it, forged
    assert!(decoded.iter().all(|d| d.starts_with(NS) && d.ends_with("\n1.0.0")), "{decoded:?}");
    let twin_cursor =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{NS}/twin\n1.0.0"));
    for path in [
        format!("/v0.1/servers?limit=5&cursor={twin_cursor}"),
        format!("/v0.1/servers?search=pollen&limit=5&cursor={twin_cursor}"),
    ] {
        let hidden = get(&with, &path, &ext_with).await;
        assert_eq!(hidden.status, StatusCode::OK, "{path}: {}", hidden.text);
        let missing = get(&without, &path, &ext_without).await;
        assert_eq!(timeless(hidden.body), timeless(missing.body), "{path}");
    }
    // every route of the hidden server is the 404 of one that does not exist
    for (hidden, missing) in [
        (
            format!("/v0.1/servers/{NS}%2Ftwin/versions"),
            format!("/v0.1/servers/{NS}%2Ftwim/versions"),
        ),
        (
            format!("/v0.1/servers/{NS}%2Ftwin/versions/latest"),
            format!("/v0.1/servers/{NS}%2Ftwim/versions/latest"),
        ),
        (
            format!("/v0.1/servers/{NS}%2Ftwin/versions/1.0.0"),
            format!("/v0.1/servers/{NS}%2Ftwim/versions/1.0.0"),
        ),
    ] {
        let h = get(&with, &hidden, &ext_with).await;
        let m = get(&with, &missing, &ext_with).await;
        h.assert_problem(404, "NOT_FOUND");
        assert_eq!(h.text.replace("twin", "twim"), m.text, "{hidden}");
        assert_eq!(
            h.headers.iter().filter(|(k, _)| *k != "date" && *k != "x-request-id").count(),
            m.headers.iter().filter(|(k, _)| *k != "date" && *k != "x-request-id").count()
        );
    }
}

#[tokio::test]
async fn agent_endpoints_that_could_mislead_a_client_are_refused() {
    let s = common::start().await;
    for endpoint in [
        json!("javascript:alert(1)"),
        json!("data:text/html,hi"),
        json!("file:///etc/passwd"),
        json!("https://user:pass@agents.example.com/a1"),
        json!("https://@agents.example.com/a1"),
        json!("https://"),
        json!("https:///a1"),
        json!("https://agents.example.com\\@evil.example/a1"),
        json!("https://agents.example.com/a1\r\nX-Evil: 1"),
        json!(format!("https://agents.example.com/{}", "a".repeat(10_000))),
        json!(""),
        json!(" https://agents.example.com/a1"),
        json!(1),
        json!(["https://agents.example.com/a1"]),
        json!({"url": "https://agents.example.com/a1"}),
        json!(f64::MAX),
    ] {
        let mut agent = agent_json("a1", &[]);
        agent["endpoint"] = endpoint.clone();
        let r = s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{endpoint}: {}", r.text);
        assert!(r.error_paths().iter().any(|p| p == "/endpoint"), "{endpoint}: {}", r.text);
    }
    let r = get(&s, "/agents", &s.reader).await;
    assert_eq!(r.body["items"].as_array().map(Vec::len), Some(0), "nothing written: {}", r.text);
    // and no card for what was refused
    get(&s, "/agent-cards/a1", &s.reader).await.assert_problem(404, "NOT_FOUND");
}

#[tokio::test]
async fn many_parallel_discoveries_during_writes_all_answer() {
    let s = registry(true).await;
    let external = principal(&s, "external-user").await;
    let mut tasks = Vec::new();
    for i in 0..64usize {
        let (base, client, token) = (
            s.base.clone(),
            s.client.clone(),
            if i % 2 == 0 { external.clone() } else { s.reader.clone() },
        );
        let path = match i % 4 {
            0 => "/v0.1/servers?search=pollen",
            1 => "/tools/search?q=storm",
            2 => "/.well-known/ai-catalog.json",
            _ => "/v0.1/servers?version=latest",
        };
        tasks.push(tokio::spawn(async move {
            let r = client.get(format!("{base}{path}")).bearer_auth(token).send().await.unwrap();
            (path, r.status())
        }));
    }
    for i in 0..10 {
        let name = format!("extra_{i}");
        let id = format!("{name}@1.0.0");
        apply(&s, &id, mcp(&name, "More pollen.", None)).await;
    }
    for task in tasks {
        let (path, status) = task.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{path}");
    }
    // the external user still never sees the staff servers
    let r = get(&s, "/v0.1/servers?limit=100", &external).await;
    assert!(!r.text.contains("staff") && !r.text.contains("twin"), "{}", r.text);
}

#[tokio::test]
async fn anonymous_discovery_of_a_missing_agent_sees_nothing_and_fails_closed() {
    let settings = registry_api::DiscoverySettings::parse(
        None,
        Some(r#"{"agentId": "no-such-agent", "context": {"user": {"userId": "anon"}}}"#),
    )
    .unwrap();
    let s = common::start_with_registry(Default::default(), |r| r.with_discovery(settings)).await;
    apply(&s, "open@1.0.0", mcp("open", "Pollen counts for a city.", None)).await;
    let r = get(&s, "/v0.1/servers", "").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["metadata"]["count"], 0, "{}", r.text);
    let r = get(&s, "/tools/search?q=pollen", "").await;
    assert_eq!(r.body["results"], json!([]), "{}", r.text);
    get(&s, &format!("/v0.1/servers/{NS}%2Fopen/versions"), "")
        .await
        .assert_problem(404, "NOT_FOUND");
    // anonymous is discovery only
    let r = get(&s, "/tools", "").await;
    r.assert_problem(401, "UNAUTHENTICATED");
}

#[tokio::test]
async fn expired_and_foreign_principal_tokens_are_refused_even_with_anonymous_on() {
    let settings = registry_api::DiscoverySettings::parse(
        None,
        Some(r#"{"agentId": "a1", "context": {"user": {"userId": "anon", "userType": "external-user"}}}"#),
    )
    .unwrap();
    use registry_api::principal_keys::{FileKeyStore, PrincipalKeys, TokenSettings};
    // tokens that expired before they were issued
    let dir = tempfile::tempdir().unwrap().keep();
    let lapsed = TokenSettings { ttl_seconds: -60, ..TokenSettings::new(common::ISSUER) };
    let store = std::sync::Arc::new(FileKeyStore::in_dir(&dir));
    let keys = std::sync::Arc::new(PrincipalKeys::open(store, lapsed).await.unwrap());
    let s = common::start_with_registry(Default::default(), |r| {
        r.with_principal_keys(keys).with_discovery(settings)
    })
    .await;
    apply(&s, "open@1.0.0", mcp("open", "Pollen counts for a city.", None)).await;
    let staff = json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}]);
    apply(&s, "staff@1.0.0", mcp("staff", "Storm alerts for staff.", Some(staff))).await;
    apply(&s, "a1", agent_json("a1", &["open@1.0.0", "staff@1.0.0"])).await;
    let expired = principal(&s, "internal-user").await;
    // a token of another registry (its own key)
    let other_dir = tempfile::tempdir().unwrap().keep();
    let other_keys = common::principal_keys(&other_dir).await;
    let other =
        common::start_with_registry(Default::default(), |r| r.with_principal_keys(other_keys))
            .await;
    apply(&other, "a1", agent_json("a1", &[])).await;
    let foreign = principal(&other, "internal-user").await;
    for token in [&expired, &foreign] {
        for path in ["/v0.1/servers", "/tools/search?q=storm", "/.well-known/ai-catalog.json"] {
            let r = get(&s, path, token).await;
            r.assert_problem(401, "UNAUTHENTICATED");
            assert!(!r.text.contains("staff"), "{path}: {}", r.text);
        }
    }
    // anonymous (external) still does not see the staff server
    let r = get(&s, "/v0.1/servers", "").await;
    assert_eq!(r.body["metadata"]["count"], 1, "{}", r.text);
}

#[tokio::test]
async fn a_hidden_agent_card_is_the_404_of_a_missing_one_and_odd_words_still_search() {
    let s = registry(false).await;
    // an agent the external user's agent does not name, with an endpoint
    let mut hidden = agent_json("a2", &["staff@1.0.0"]);
    hidden["endpoint"] = json!("https://agents.example.com/a2");
    apply(&s, "a2", hidden).await;
    let external = principal(&s, "external-user").await;
    let h = get(&s, "/agent-cards/a2", &external).await;
    let m = get(&s, "/agent-cards/a3", &external).await;
    h.assert_problem(404, "NOT_FOUND");
    assert_eq!(h.text.replace("a2", "a3"), m.text);
    assert_eq!(get(&s, "/agent-cards/a2", &s.reader).await.status, StatusCode::OK);
    let catalog = get(&s, "/.well-known/ai-catalog.json", &external).await;
    assert!(!catalog.text.contains("/agent-cards/a2"), "{}", catalog.text);
    // words a query parser might read as syntax are only words
    for q in [
        "%22pollen%22",
        "pollen*",
        "pollen%20OR%201%3D1",
        "%5C%5C",
        "(((",
        "NOT",
        "%E2%80%AE%20pollen",
        "%F0%9F%98%80",
        "%00",
        "the%20a%20of",
    ] {
        for path in [format!("/tools/search?q={q}"), format!("/v0.1/servers?search={q}")] {
            let r = get(&s, &path, &external).await;
            assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
            assert!(!r.text.contains("staff"), "{path}: {}", r.text);
        }
    }
}
