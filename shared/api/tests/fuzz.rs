#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A bounded, seeded fuzz campaign against the real router (with the server's guards):
//! mutated agent, tool, patch, context, rule and call bodies (truncation, type swaps,
//! huge numbers, deep nesting, duplicate keys, invalid UTF-8, random bytes), hostile
//! headers (`If-Match`, content types, content-length lies, tokens), query strings
//! and CEL conditions, on every write, resolve, evaluate, validate and list route.
//!
//! Every answer must be below 500; every 4xx an `application/problem+json` with `code`
//! and `errors`; a refused request (and any resolve, evaluate, validate or list) must
//! leave the store exactly as it was (every definition at the same version).
//!
//! `REGISTRY_FUZZ_CASES` (default 300) sets the number of cases, `REGISTRY_FUZZ_SEED`
//! (default 20261122) the seed; a failure names its case for replay. Figures of a
//! larger run are in docs/limits.md.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use http::{HeaderValue, Request, StatusCode};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use registry_api::{AppState, Registry, Role, ServerLimits, TokenFile, router};
use registry_store::contract::sample::{mcp_tool_json, tool_json};
use registry_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Default number of cases: a few seconds in a debug build.
const DEFAULT_CASES: u64 = 300;
/// Default seed.
const DEFAULT_SEED: u64 = 20_261_122;

/// The router under test and its tokens.
struct Target {
    app: Router,
    admin: String,
    editor: String,
    reader: String,
    _dir: tempfile::TempDir,
}

/// One generated request, kept printable for failure reports.
#[derive(Debug)]
struct Case {
    method: &'static str,
    uri: String,
    headers: Vec<(&'static str, Vec<u8>)>,
    body: Vec<u8>,
    /// The route only reads: the store must not change whatever the answer.
    read_only: bool,
}

/// Head versions of every definition: `agent:<id>` / `tool:<id>` -> version.
type Snapshot = BTreeMap<String, u64>;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn fuzz_the_router() {
    let cases = env_u64("REGISTRY_FUZZ_CASES", DEFAULT_CASES);
    let seed = env_u64("REGISTRY_FUZZ_SEED", DEFAULT_SEED);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let target = setup().await;
        let mut snapshot = snapshot(&target).await;
        let started = std::time::Instant::now();
        let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
        for index in 0..cases {
            let mut rng = StdRng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let case = generate(&mut rng, &target);
            let (status, content_type, body) = send(&target, &case).await;
            *statuses.entry(status.as_u16()).or_default() += 1;
            let report = || {
                format!(
                    "case {index} (REGISTRY_FUZZ_SEED={seed}): {} {} {:?}\nbody: {}\n-> {status} {content_type}: {}",
                    case.method,
                    truncate(&case.uri),
                    case.headers
                        .iter()
                        .map(|(n, v)| format!("{n}: {}", truncate(&String::from_utf8_lossy(v))))
                        .collect::<Vec<_>>(),
                    truncate(&String::from_utf8_lossy(&case.body)),
                    truncate(&String::from_utf8_lossy(&body)),
                )
            };
            assert!(!status.is_server_error(), "server error: {}", report());
            if status.is_client_error() {
                assert_eq!(content_type, "application/problem+json", "{}", report());
                let problem: Value = serde_json::from_slice(&body)
                    .unwrap_or_else(|e| panic!("problem is not JSON ({e}): {}", report()));
                assert!(problem["code"].is_string(), "no code: {}", report());
                assert!(problem["errors"].is_array(), "no errors: {}", report());
                assert_eq!(problem["status"], status.as_u16(), "{}", report());
            }
            let after = self::snapshot(&target).await;
            if status.is_client_error() || case.read_only {
                assert_eq!(after, snapshot, "state changed: {}", report());
            }
            snapshot = after;
        }
        eprintln!(
            "fuzz: {cases} cases, seed {seed}, {:.1} s, statuses {statuses:?}, {} definitions at the end",
            started.elapsed().as_secs_f64(),
            snapshot.len()
        );
    });
}

fn truncate(text: &str) -> String {
    if text.len() <= 400 {
        return text.to_owned();
    }
    let mut end = 400;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len())
}

/// A router on a fresh SQLite store with a few definitions.
async fn setup() -> Target {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path().join("registry.db")).unwrap());
    let (_, admin) = TokenFile::load_or_init(dir.path(), None).unwrap();
    let admin = admin.unwrap();
    let editor = TokenFile::add_token(dir.path(), "eve-editor", Role::Editor).unwrap();
    let reader = TokenFile::add_token(dir.path(), "rita-reader", Role::Reader).unwrap();
    let (auth, _) = TokenFile::load_or_init(dir.path(), None).unwrap();
    let state = AppState::new(Registry::new(store), Arc::new(auth));
    let app = registry_api::http::guard::apply(router(state), ServerLimits::default());
    let target = Target { app, admin, editor, reader, _dir: dir };
    for (uri, body) in [
        ("/tools/t1", tool_body("t1")),
        ("/tools/t2", mcp_body("t2")),
        ("/agents/a1", agent_body("a1", "user.userType == 'internal-user'")),
        ("/agents/a2", agent_body("a2", "true")),
    ] {
        let case = Case {
            method: "PUT",
            uri: uri.to_owned(),
            headers: vec![
                ("authorization", format!("Bearer {}", target.admin).into_bytes()),
                ("content-type", b"application/json".to_vec()),
            ],
            body: serde_json::to_vec(&body).unwrap(),
            read_only: false,
        };
        let (status, _, text) = send(&target, &case).await;
        assert!(status.is_success(), "{uri}: {status} {}", String::from_utf8_lossy(&text));
    }
    target
}

async fn send(target: &Target, case: &Case) -> (StatusCode, String, Vec<u8>) {
    let mut request = Request::builder().method(case.method).uri(&case.uri);
    for (name, value) in &case.headers {
        request = request.header(*name, HeaderValue::from_bytes(value).unwrap());
    }
    let request = request.body(Body::from(case.body.clone())).unwrap();
    let response = target.app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec();
    (status, content_type, body)
}

/// Every definition's head version, read through the router as admin.
async fn snapshot(target: &Target) -> Snapshot {
    let mut out = Snapshot::new();
    for kind in ["agents", "tools"] {
        let mut cursor: Option<String> = None;
        loop {
            let uri = match &cursor {
                Some(c) => format!("/{kind}?limit=100&cursor={c}"),
                None => format!("/{kind}?limit=100"),
            };
            let case = Case {
                method: "GET",
                uri,
                headers: vec![("authorization", format!("Bearer {}", target.admin).into_bytes())],
                body: Vec::new(),
                read_only: true,
            };
            let (status, _, body) = send(target, &case).await;
            assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
            let page: Value = serde_json::from_slice(&body).unwrap();
            for item in page["items"].as_array().unwrap() {
                let id = item["agentId"].as_str().or_else(|| item["toolId"].as_str()).unwrap();
                out.insert(format!("{kind}:{id}"), item["version"].as_u64().unwrap());
            }
            match page["nextCursor"].as_str() {
                Some(next) => cursor = Some(percent_encode(next)),
                None => break,
            }
        }
    }
    out
}

fn percent_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

// ---------------------------------------------------------------------------------
// Valid bodies, mutated below.

fn tool_body(id: &str) -> Value {
    let mut body = tool_json(id);
    body["accessRules"] =
        json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}]);
    body
}

fn mcp_body(id: &str) -> Value {
    let mut body = mcp_tool_json(id, "s3cret-value");
    body["functionSchema"][0]["parameters"] =
        json!({ "days": { "description": "Days", "type": "integer", "required": false } });
    body
}

fn agent_body(id: &str, condition: &str) -> Value {
    json!({
        "agentId": id,
        "basePrompt": "You help people with the weather: answer briefly and name the city.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": ["t1", "t2"],
        "accessRules": [{"effect": "deny", "condition": "customData.blocked == true"}, {"effect": "allow", "condition": condition}],
        "rolloutPolicy": {"percentage": 50.5, "stickiness": "userId", "betaAccounts": ["acct-1"], "toolOverrides": {"t1": "t2"}},
        "lifecycle": {"status": "active"},
        "tags": {"team": "weather"}
    })
}

fn context_body() -> Value {
    json!({
        "user": {"userId": "u-1", "userType": "internal-user"},
        "account": {"accountId": "acct-1"},
        "region": "us-east-1",
        "customData": {"tier": "premium", "blocked": false}
    })
}

/// CEL conditions: valid, invalid, expensive, odd.
const CONDITIONS: &[&str] = &[
    "true",
    "user.userType == 'internal-user'",
    "customData.tier in ['gold', 'premium'] && account.accountId.startsWith('acct')",
    "size(user.userId) > 3",
    "user.userId.matches('^(a+)+$')",
    "1 / 0 == 1",
    "9223372036854775807 + 1 > 0",
    "[1,2,3].map(x, [x,x,x,x,x,x,x,x]).map(y, [y,y,y,y,y,y,y,y]).size() > 0",
    "customData.a.b.c.d.e.f == 1",
    "user.userType = 'internal-user' AND tier = 'premium'",
    "",
    "(((((((((((((((((((((((((((((((((((((((((((((((((true)))))))))))))))))))))))))))))))))))))))))))))))))",
    "'\u{0}' == '\u{0}'",
    "has(user.userId) ? user.userId : 1",
    "timestamp('2026-01-01T00:00:00Z') < timestamp('bad')",
    "dyn(customData).tier == 'premium'",
    "\u{202e}true",
    "user.",
];

fn condition(rng: &mut StdRng) -> String {
    match rng.random_range(0..6) {
        0 => "(".repeat(rng.random_range(100..3000)) + "true",
        1 => format!("{} {}", "!".repeat(rng.random_range(1..2000)), "true"),
        2 => (0..rng.random_range(1..500))
            .map(|_| format!("user.userId == 'u{}'", rng.random_range(0..9)))
            .collect::<Vec<_>>()
            .join(" || "),
        _ => CONDITIONS[rng.random_range(0..CONDITIONS.len())].to_owned(),
    }
}

// ---------------------------------------------------------------------------------
// Generation.

const IDS: &[&str] = &[
    "t1", "t2", "a1", "a2", "new-1", "new-2", "missing", "%FF", "%C3%28", "a%2Fb", "%00", "%20",
    "..", "UPPER",
];

fn id(rng: &mut StdRng) -> String {
    if rng.random_bool(0.05) {
        return "x".repeat(rng.random_range(100..400));
    }
    IDS[rng.random_range(0..IDS.len())].to_owned()
}

fn generate(rng: &mut StdRng, target: &Target) -> Case {
    let route = rng.random_range(0..15);
    let id = id(rng);
    let (method, uri, base, read_only): (&'static str, String, Option<Value>, bool) = match route {
        0 => ("POST", "/agents".into(), Some(agent_body(&id, &condition(rng))), false),
        1 => ("PUT", format!("/agents/{id}"), Some(agent_body(&id, &condition(rng))), false),
        2 => ("PATCH", format!("/agents/{id}"), Some(patch_body(rng)), false),
        3 => ("DELETE", format!("/agents/{id}"), None, false),
        4 => ("POST", "/tools".into(), Some(tool_body(&id)), false),
        5 => (
            "PUT",
            format!("/tools/{id}"),
            Some(if rng.random_bool(0.5) { tool_body(&id) } else { mcp_body(&id) }),
            false,
        ),
        6 => ("PATCH", format!("/tools/{id}"), Some(patch_body(rng)), false),
        7 => ("DELETE", format!("/tools/{id}"), None, false),
        8 => ("POST", format!("/agents/{id}/resolve"), Some(context_body()), true),
        9 => (
            "POST",
            "/access/evaluate".into(),
            Some(
                json!({"rules": [{"effect": "allow", "condition": condition(rng)}, {"effect": "deny"}], "context": context_body()}),
            ),
            true,
        ),
        10 => (
            "POST",
            format!("/tools/{id}/validate-call"),
            Some(json!({"function": "get_weather", "arguments": {"city": "Paris"}})),
            true,
        ),
        11 => ("GET", "/agents".into(), None, true),
        12 => ("GET", "/tools".into(), None, true),
        13 => ("GET", format!("/tools/{id}/schema"), None, true),
        _ => ("GET", format!("/agents/{id}/versions"), None, true),
    };
    let uri = if method == "GET" || rng.random_bool(0.1) { uri + &query(rng) } else { uri };
    let body = match base {
        Some(value) => mutate(rng, value),
        None if rng.random_bool(0.2) => random_bytes(rng, 64),
        None => Vec::new(),
    };
    let mut headers = Vec::new();
    let token = match rng.random_range(0..20) {
        0 => None,
        1 | 2 => Some(format!("Bearer {}", target.reader)),
        3 | 4 => Some(format!("Bearer {}", target.editor)),
        5 => Some("Bearer not-a-token".to_owned()),
        6 => Some(format!("Basic {}", target.admin)),
        _ => Some(format!("Bearer {}", target.admin)),
    };
    if let Some(token) = token {
        headers.push(("authorization", token.into_bytes()));
    }
    if let Some(content_type) = content_type(rng, method) {
        headers.push(("content-type", content_type));
    }
    if let Some(if_match) = if_match(rng) {
        headers.push(("if-match", if_match));
    }
    if rng.random_bool(0.15) {
        let lie = match rng.random_range(0..4) {
            0 => 0,
            1 => body.len().saturating_sub(1),
            2 => body.len() + 10,
            _ => 10_000_000_000,
        };
        headers.push(("content-length", lie.to_string().into_bytes()));
    }
    Case { method, uri, headers, body, read_only }
}

fn patch_body(rng: &mut StdRng) -> Value {
    let mut patch = serde_json::Map::new();
    let status = ["active", "deprecated", "disabled", "retired", "bogus"][rng.random_range(0..5)];
    let fields: Vec<(&str, Value)> = vec![
        ("description", json!("Changed by the fuzzer.")),
        ("basePrompt", json!("A new prompt, long enough for Bedrock to accept it as is.")),
        ("toolIds", json!(["t1"])),
        ("accessRules", json!([{"effect": "allow", "condition": condition(rng)}])),
        ("version", json!(rng.random_range(0..4))),
        ("lifecycle", json!({"status": status})),
        ("tags", json!({"k": "v"})),
        ("auth", json!({"clientId": "c", "tokenUrl": "https://auth.example.com/t"})),
        ("rolloutPolicy", Value::Null),
        ("agentId", json!("other")),
        ("functionSchema", json!([])),
    ];
    for (key, value) in fields {
        if rng.random_bool(0.3) {
            patch.insert(key.to_owned(), value);
        }
    }
    Value::Object(patch)
}

fn query(rng: &mut StdRng) -> String {
    const PAIRS: &[&str] = &[
        "limit=10",
        "limit=0",
        "limit=-1",
        "limit=101",
        "limit=abc",
        "limit=99999999999999999999",
        "cursor=garbage",
        "cursor=",
        "cursor=%FF%FE",
        "tag=team",
        "tag=team=weather",
        "tag==",
        "status=active",
        "status=bogus",
        "executionType=mcp",
        "executionType=x",
        "createdBy=eve-editor",
        "unknown=1",
        "%FF=1",
        "limit=1&limit=2",
        "a",
        "=",
        "&&",
        "function=get_weather",
    ];
    let count = rng.random_range(1..4);
    let pairs: Vec<&str> = (0..count).map(|_| PAIRS[rng.random_range(0..PAIRS.len())]).collect();
    format!("?{}", pairs.join("&"))
}

fn content_type(rng: &mut StdRng, method: &str) -> Option<Vec<u8>> {
    let types: &[&[u8]] = &[
        b"application/json",
        b"application/json",
        b"application/json; charset=utf-8",
        b"application/merge-patch+json",
        b"APPLICATION/JSON",
        b"text/plain",
        b"application/x-www-form-urlencoded",
        b"application/json; charset=latin1",
        b"application/\xff+json",
        b"",
    ];
    if method == "GET" || method == "DELETE" || rng.random_bool(0.05) {
        return rng.random_bool(0.1).then(|| types[rng.random_range(0..types.len())].to_vec());
    }
    let index = if rng.random_bool(0.6) { 0 } else { rng.random_range(0..types.len()) };
    Some(types[index].to_vec())
}

fn if_match(rng: &mut StdRng) -> Option<Vec<u8>> {
    let values: &[&[u8]] = &[
        b"*",
        b"\"1\"",
        b"\"2\"",
        b"\"3\"",
        b"\"999\"",
        b"1",
        b"W/\"1\"",
        b"\"abc\"",
        b"\"1\", \"2\"",
        b"\"",
        b"",
        b"\"18446744073709551616\"",
        b"\"-1\"",
        b"\"01\"",
        b"*, \"1\"",
        b"\"\xff\"",
    ];
    rng.random_bool(0.6).then(|| values[rng.random_range(0..values.len())].to_vec())
}

fn random_bytes(rng: &mut StdRng, max: usize) -> Vec<u8> {
    (0..rng.random_range(0..max)).map(|_| rng.random()).collect()
}

// ---------------------------------------------------------------------------------
// Mutation.

/// Placeholder replaced textually by a value `serde_json` cannot hold.
const RAW: &str = "\u{1}RAW\u{1}";

fn mutate(rng: &mut StdRng, mut value: Value) -> Vec<u8> {
    if rng.random_bool(0.25) {
        return serde_json::to_vec(&value).unwrap();
    }
    let mut raw = Vec::new();
    for _ in 0..rng.random_range(1..4) {
        match rng.random_range(0..6) {
            0 => swap_type(rng, &mut value),
            1 => remove_or_add_key(rng, &mut value),
            2 => {
                let huge = [
                    "1e400",
                    "18446744073709551616",
                    "-9223372036854775809",
                    "1.0e-400",
                    "0.5",
                    "-0",
                    "1E+2",
                ];
                raw.push(huge[rng.random_range(0..huge.len())].to_owned());
                replace_random(rng, &mut value, Value::String(RAW.to_owned()));
            }
            3 => {
                let depth = rng.random_range(100..5000);
                raw.push(if rng.random_bool(0.5) {
                    "[".repeat(depth) + &"]".repeat(depth)
                } else {
                    "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth)
                });
                replace_random(rng, &mut value, Value::String(RAW.to_owned()));
            }
            4 => {
                let long = "é".repeat(rng.random_range(1000..700_000));
                replace_random(rng, &mut value, Value::String(long));
            }
            _ => {}
        }
    }
    let mut text = serde_json::to_string(&value).unwrap();
    let placeholder = serde_json::to_string(RAW).unwrap();
    for replacement in raw {
        text = text.replacen(&placeholder, &replacement, 1);
    }
    let mut bytes = text.into_bytes();
    match rng.random_range(0..6) {
        0 => duplicate_key(rng, &mut bytes),
        1 => bytes.truncate(rng.random_range(0..=bytes.len())),
        2 => {
            let at = rng.random_range(0..=bytes.len());
            let bad: &[&[u8]] =
                &[b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\\ud800", b"\x00", b"\xf4\x90\x80\x80"];
            let insert = bad[rng.random_range(0..bad.len())];
            bytes.splice(at..at, insert.iter().copied());
        }
        3 => {
            for _ in 0..rng.random_range(1..4) {
                if !bytes.is_empty() {
                    let at = rng.random_range(0..bytes.len());
                    bytes[at] = rng.random();
                }
            }
        }
        4 if rng.random_bool(0.3) => bytes = random_bytes(rng, 512),
        _ => {}
    }
    bytes
}

/// JSON Pointers of every node under `value`.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let child = registry_types::pointer(&at, key);
                out.push(child.clone());
                pointers(item, child, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let child = format!("{at}/{i}");
                out.push(child.clone());
                pointers(item, child, out);
            }
        }
        _ => {}
    }
}

fn replace_random(rng: &mut StdRng, value: &mut Value, with: Value) {
    let mut all = vec![String::new()];
    pointers(value, String::new(), &mut all);
    let at = &all[rng.random_range(0..all.len())];
    if let Some(node) = value.pointer_mut(at) {
        *node = with;
    }
}

fn swap_type(rng: &mut StdRng, value: &mut Value) {
    let with = match rng.random_range(0..7) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(rng.random::<i64>()),
        3 => json!(rng.random::<f64>() * 1e300),
        4 => json!("string"),
        5 => json!([1, "two", null]),
        _ => json!({"nested": {"object": []}}),
    };
    replace_random(rng, value, with);
}

fn remove_or_add_key(rng: &mut StdRng, value: &mut Value) {
    let Value::Object(map) = value else { return };
    if rng.random_bool(0.5) && !map.is_empty() {
        let key = map.keys().nth(rng.random_range(0..map.len())).cloned().unwrap();
        map.remove(&key);
    } else {
        map.insert(
            ["unknownField", "version", "createdBy", "__proto__", ""][rng.random_range(0..5)]
                .to_owned(),
            json!(1),
        );
    }
}

/// Repeats the first key of the top-level object with another value.
fn duplicate_key(rng: &mut StdRng, bytes: &mut Vec<u8>) {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(bytes) else { return };
    let Some(key) = map.keys().nth(rng.random_range(0..map.len().max(1))).cloned() else { return };
    let values = ["null", "1", "\"dup\"", "[]", "{}", "true"];
    let insert = format!(
        "{}:{},",
        serde_json::to_string(&key).unwrap(),
        values[rng.random_range(0..values.len())]
    );
    if bytes.first() == Some(&b'{') {
        bytes.splice(1..1, insert.into_bytes());
    }
}
