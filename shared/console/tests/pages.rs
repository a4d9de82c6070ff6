#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The console's pages over the real router (the API merged with the console) on a
//! SQLite store, without a browser: redirects, session cookie, security headers, role
//! and CSRF refusals, versions, escaping. The browser tests are `tests/tests/console.rs`.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use http::{Request, StatusCode, header};
use registry_api::{AppState, Principal, Registry, Role, TokenFile};
use registry_core::ToolDefinition;
use registry_store_sqlite::SqliteStore;
use serde_json::json;
use tower::ServiceExt as _;

const ADMIN: &str = "console-admin-token-0123456789";
const HOST: &str = "127.0.0.1:8080";

struct Fixture {
    app: Router,
    registry: Registry,
    reader: String,
    _dir: tempfile::TempDir,
}

/// A registry with one tool whose description is markup, and an admin and a reader.
async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let reader = TokenFile::add_token(dir.path(), "rita", Role::Reader).unwrap();
    let (auth, _) = TokenFile::load_or_init(dir.path(), Some(ADMIN.to_owned())).unwrap();
    let store = Arc::new(SqliteStore::open(dir.path().join("registry.db")).unwrap());
    let registry = Registry::new(store);
    let tool: ToolDefinition = serde_json::from_value(json!({
        "toolId": "probe@1.0.0",
        "executionType": "lambda",
        "name": "probe",
        "displayName": "Probe",
        "description": "<img src=x onerror=alert(1)>",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:probe",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{"name": "probe", "description": "Probes.", "parameters": {}}]
    }))
    .unwrap();
    registry.catalog.create(&Principal::new("admin", Role::Admin), tool, None).await.unwrap();
    let app = registry_console::app(AppState::new(registry.clone(), Arc::new(auth)));
    Fixture { app, registry, reader, _dir: dir }
}

/// Sends a request; status, headers and body text.
async fn send(app: &Router, request: Request<Body>) -> (StatusCode, http::HeaderMap, String) {
    let response = app.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 22).await.unwrap();
    (parts.status, parts.headers, String::from_utf8_lossy(&bytes).into_owned())
}

fn get(path: &str, cookie: Option<&str>) -> Request<Body> {
    let mut r = Request::get(path).header(header::HOST, HOST);
    if let Some(c) = cookie {
        r = r.header(header::COOKIE, c);
    }
    r.body(Body::empty()).unwrap()
}

fn post(path: &str, cookie: Option<&str>, form: &str) -> Request<Body> {
    let mut r = Request::post(path)
        .header(header::HOST, HOST)
        .header(header::ORIGIN, format!("http://{HOST}"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(c) = cookie {
        r = r.header(header::COOKIE, c);
    }
    r.body(Body::from(form.to_owned())).unwrap()
}

/// Signs in with `token`: the session cookie (`name=value`) and the CSRF token.
async fn sign_in(app: &Router, token: &str) -> (String, String) {
    let (status, headers, _) =
        send(app, post("/console/sign-in", None, &format!("token={token}"))).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let set = headers[header::SET_COOKIE].to_str().unwrap().to_owned();
    let cookie = set.split(';').next().unwrap().to_owned();
    let (_, _, page) = send(app, get("/console/tools", Some(&cookie))).await;
    let csrf = page.split("name=\"csrf\" value=\"").nth(1).unwrap().split('"').next().unwrap();
    (cookie, csrf.to_owned())
}

#[tokio::test]
async fn the_root_and_unsigned_pages_lead_to_the_sign_in_page() {
    let f = fixture().await;
    let (status, headers, _) = send(&f.app, get("/", None)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(headers[header::LOCATION], "/console");
    for path in ["/console", "/console/agents", "/console/tools/probe@1.0.0"] {
        let (status, headers, _) = send(&f.app, get(path, None)).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{path}");
        assert_eq!(headers[header::LOCATION], "/console/sign-in", "{path}");
    }
    // The API is still there, beside the console.
    let (status, _, _) = send(&f.app, get("/healthz", None)).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn sign_in_sets_a_strict_http_only_cookie_and_refuses_bad_tokens() {
    let f = fixture().await;
    let (status, headers, body) =
        send(&f.app, post("/console/sign-in", None, "token=wrong-token-0123456789")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(!headers.contains_key(header::SET_COOKIE));
    assert!(body.contains("not accepted"));

    let (_, headers, _) =
        send(&f.app, post("/console/sign-in", None, &format!("token={ADMIN}"))).await;
    let cookie = headers[header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.starts_with("ar_console="), "{cookie}");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/console"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    assert!(!cookie.contains(ADMIN), "the token itself is never the cookie");

    // A cross-site sign-in post is refused.
    let mut request = post("/console/sign-in", None, &format!("token={ADMIN}"));
    request.headers_mut().insert(header::ORIGIN, "https://evil.example".parse().unwrap());
    let (status, headers, _) = send(&f.app, request).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(!headers.contains_key(header::SET_COOKIE));
}

#[tokio::test]
async fn every_console_response_has_a_strict_content_security_policy() {
    let f = fixture().await;
    let (cookie, _) = sign_in(&f.app, ADMIN).await;
    for path in [
        "/console/sign-in",
        "/console/tools",
        "/console/tools/probe@1.0.0",
        "/console/static/console.js",
    ] {
        let (status, headers, _) = send(&f.app, get(path, Some(&cookie))).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert!(headers["server-timing"].to_str().unwrap().starts_with("app;dur="));
    }
    let (_, headers, css) = send(&f.app, get("/console/static/console.css", None)).await;
    assert_eq!(headers[header::CONTENT_TYPE], "text/css; charset=utf-8");
    assert!(css.contains("body"));
}

#[tokio::test]
async fn stored_markup_is_escaped_and_no_page_has_inline_script() {
    let f = fixture().await;
    let (cookie, _) = sign_in(&f.app, ADMIN).await;
    for path in ["/console/tools", "/console/tools/probe@1.0.0", "/console/tools/probe@1.0.0/edit"]
    {
        let (_, _, page) = send(&f.app, get(path, Some(&cookie))).await;
        assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "{path}");
        assert!(!page.contains("<img"), "{path}");
        assert_eq!(page.matches("<script").count(), 1, "only the script file: {path}");
        assert!(!page.contains(" style=") && !page.contains("<style"), "{path}");
    }
}

#[tokio::test]
async fn a_reader_write_is_refused_by_the_service_and_changes_nothing() {
    let f = fixture().await;
    let (cookie, csrf) = sign_in(&f.app, &f.reader).await;
    let (_, _, page) = send(&f.app, get("/console/tools/probe@1.0.0", Some(&cookie))).await;
    assert!(!page.contains("id=\"edit-link\"") && !page.contains("/lifecycle"));
    let form = format!("csrf={csrf}&version=1&description=forged");
    let (status, _, body) =
        send(&f.app, post("/console/tools/probe@1.0.0/edit", Some(&cookie), &form)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("the `editor` role is needed"));
    let form = format!("csrf={csrf}&version=1&status=disabled");
    let (status, _, _) =
        send(&f.app, post("/console/tools/probe@1.0.0/lifecycle", Some(&cookie), &form)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let tool: ToolDefinition = f.registry.catalog.get("probe@1.0.0").await.unwrap();
    assert_eq!(tool.server.version, Some(1));
}

#[tokio::test]
async fn writes_need_the_session_csrf_token_and_the_page_version() {
    let f = fixture().await;
    let (cookie, csrf) = sign_in(&f.app, ADMIN).await;
    let path = "/console/tools/probe@1.0.0/edit";
    let (status, _, body) =
        send(&f.app, post(path, Some(&cookie), "csrf=guess&version=1&description=x")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(body.contains("CSRF"));

    let form = format!("csrf={csrf}&version=1&displayName=Probe&description=Looks+things+up.");
    let (status, headers, _) = send(&f.app, post(path, Some(&cookie), &form)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        headers[header::LOCATION],
        "/console/tools/probe%401.0.0/history?from=1&to=2&saved=2"
    );
    // The same form again is a stale page: a conflict, nothing written.
    let (status, _, body) = send(&f.app, post(path, Some(&cookie), &form)).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    assert!(body.contains("your page shows version 1, it is now at version 2"), "{body}");
    let tool: ToolDefinition = f.registry.catalog.get("probe@1.0.0").await.unwrap();
    assert_eq!((tool.server.version, tool.description.as_str()), (Some(2), "Looks things up."));

    // Signing out ends the session server-side.
    let (status, _, _) =
        send(&f.app, post("/console/sign-out", Some(&cookie), &format!("csrf={csrf}"))).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (status, _, _) = send(&f.app, get("/console/tools", Some(&cookie))).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
}

/// A form post with `origin` and `referer` headers as given (none when `None`).
fn post_from(
    path: &str,
    cookie: Option<&str>,
    form: &str,
    origin: Option<&str>,
    referer: Option<&str>,
) -> Request<Body> {
    let mut r = post(path, cookie, form);
    r.headers_mut().remove(header::ORIGIN);
    for (name, value) in [(header::ORIGIN, origin), (header::REFERER, referer)] {
        if let Some(v) = value {
            r.headers_mut().insert(name, v.parse().unwrap());
        }
    }
    r
}

#[tokio::test]
async fn posts_need_this_servers_scheme_host_and_port_in_origin_or_referer() {
    let f = fixture().await;
    let sign_in_form = format!("token={ADMIN}");
    let own_page = format!("http://{HOST}/console/sign-in");
    let foreign = [
        (Some("https://127.0.0.1:8080"), None), // another scheme, same host and port
        (Some("http://127.0.0.1:8081"), None),  // another port
        (None, Some("http://evil.example/console/sign-in")), // a foreign Referer, no Origin
        (None, Some("https://127.0.0.1:8080/console/sign-in")),
        (None, None), // neither
    ];
    for (origin, referer) in foreign {
        let request = post_from("/console/sign-in", None, &sign_in_form, origin, referer);
        let (status, headers, _) = send(&f.app, request).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{origin:?} {referer:?}");
        assert!(!headers.contains_key(header::SET_COOKIE), "{origin:?} {referer:?}");
    }
    // This server's own page as Referer, without Origin, is this server.
    let request = post_from("/console/sign-in", None, &sign_in_form, None, Some(&own_page));
    assert_eq!(send(&f.app, request).await.0, StatusCode::SEE_OTHER);

    // A write of a signed-in session: the same rule, before the CSRF token counts.
    let (cookie, csrf) = sign_in(&f.app, ADMIN).await;
    let path = "/console/tools/probe@1.0.0/lifecycle";
    let form = format!("csrf={csrf}&version=1&status=disabled");
    for (origin, referer) in foreign {
        let request = post_from(path, Some(&cookie), &form, origin, referer);
        assert_eq!(send(&f.app, request).await.0, StatusCode::FORBIDDEN, "{origin:?} {referer:?}");
    }
    let tool: ToolDefinition = f.registry.catalog.get("probe@1.0.0").await.unwrap();
    assert_eq!(tool.server.version, Some(1));
}

#[tokio::test]
async fn sign_ins_end_only_their_own_principals_oldest_sessions() {
    let f = fixture().await;
    let (rita, _) = sign_in(&f.app, &f.reader).await;
    let mut admin = Vec::new();
    for _ in 0..registry_console::session::MAX_SESSIONS + 50 {
        let request = post("/console/sign-in", None, &format!("token={ADMIN}"));
        let (status, headers, _) = send(&f.app, request).await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        let set = headers[header::SET_COOKIE].to_str().unwrap();
        admin.push(set.split(';').next().unwrap().to_owned());
    }
    // The reader's session outlived 10,050 sign-ins of another principal ...
    let (status, _, _) = send(&f.app, get("/console/tools", Some(&rita))).await;
    assert_eq!(status, StatusCode::OK);
    // ... which kept its newest sessions and ended its own oldest.
    let newest = admin.last().unwrap();
    assert_eq!(send(&f.app, get("/console/tools", Some(newest))).await.0, StatusCode::OK);
    assert_eq!(send(&f.app, get("/console/tools", Some(&admin[0]))).await.0, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn authorize_review_and_events_pages_answer_and_refuse_what_the_service_refuses() {
    let f = fixture().await;
    let (cookie, csrf) = sign_in(&f.app, &f.reader).await;
    for path in ["/console/tools/probe@1.0.0/authorize", "/console/proposals", "/console/events"] {
        let (status, _, page) = send(&f.app, get(path, Some(&cookie))).await;
        assert_eq!(status, StatusCode::OK, "{path}: {page}");
        assert!(!page.contains("<img"), "{path}");
    }
    let (_, _, events) = send(&f.app, get("/console/events?actor=admin", Some(&cookie))).await;
    assert!(events.contains("probe@1.0.0") && events.contains(">create<"), "{events}");
    // Authorizing needs the session's CSRF token; with it, the decision is shown.
    let path = "/console/tools/probe@1.0.0/authorize";
    let (status, _, _) = send(&f.app, post(path, Some(&cookie), "function=probe")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let form = format!("csrf={csrf}&function=probe&userId=u-1");
    let (status, _, page) = send(&f.app, post(path, Some(&cookie), &form)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("id=\"effect\"><span class=\"badge badge-allow\">allow"), "{page}");
    // A reader sees no review controls and the service refuses a forged approval.
    let form = format!("csrf={csrf}");
    let (status, _, body) =
        send(&f.app, post("/console/proposals/any/approve", Some(&cookie), &form)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("role is needed to approve"), "{body}");
}

#[tokio::test]
async fn events_page_newer_then_older_along_the_pages_seen() {
    let f = fixture().await;
    let admin = Principal::new("admin", Role::Admin);
    for i in 0..55 {
        let patch = json!({"description": format!("Version {i}.")});
        f.registry
            .catalog
            .patch::<ToolDefinition>(
                &admin,
                "probe@1.0.0",
                &patch,
                registry_api::service::Precondition::Current,
                None,
            )
            .await
            .unwrap();
    }
    let (cookie, _) = sign_in(&f.app, ADMIN).await;
    let rows = |page: &str| page.matches("<td class=\"actor\">").count();
    let (_, _, first) = send(&f.app, get("/console/events", Some(&cookie))).await;
    assert_eq!(rows(&first), 50);
    assert!(!first.contains("id=\"older\""));
    let newer = first.split("id=\"newer\" href=\"").nth(1).unwrap().split('"').next().unwrap();
    let newer = newer.replace("&amp;", "&");
    assert!(newer.ends_with("&after=50&back=0"), "{newer}");
    let (_, _, second) = send(&f.app, get(&newer, Some(&cookie))).await;
    assert_eq!(rows(&second), 6, "56 events: the create and 55 patches");
    assert!(!second.contains("id=\"newer\""));
    let older = second.split("id=\"older\" href=\"").nth(1).unwrap().split('"').next().unwrap();
    let (_, _, back) = send(&f.app, get(&older.replace("&amp;", "&"), Some(&cookie))).await;
    assert_eq!(rows(&back), 50);
    assert!(back.contains("<td>1</td>"), "the first page again");
}

/// The tool page renders the typed definition: a parameter is required unless it says
/// otherwise (the model's default), tags and times are shown, and each property's value
/// sits under its JSON name.
#[tokio::test]
async fn the_tool_page_renders_the_typed_definition() {
    let f = fixture().await;
    let tool: ToolDefinition = serde_json::from_value(json!({
        "toolId": "typed@1.0.0",
        "executionType": "lambda",
        "name": "typed",
        "displayName": "Typed",
        "description": "Typed parameters.",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:typed",
        "supportedAgentFrameworks": ["bedrock"],
        "tags": {"team": "weather"},
        "functionSchema": [{"name": "look", "description": "Looks.", "parameters": {
            "city": {"type": "string", "description": "Where."},
            "days": {"type": "integer", "description": "How long.", "required": false}
        }}]
    }))
    .unwrap();
    f.registry.catalog.create(&Principal::new("admin", Role::Admin), tool, None).await.unwrap();
    let (cookie, _) = sign_in(&f.app, ADMIN).await;
    let (status, _, page) = send(&f.app, get("/console/tools/typed@1.0.0", Some(&cookie))).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let row = |name: &str| {
        let start = page.find(&format!("<code>{name}</code>")).unwrap();
        page[start..].split("</tr>").next().unwrap().to_owned()
    };
    assert!(row("city").contains("<td>yes</td>"), "{}", row("city"));
    assert!(row("days").contains("<td>no</td>"), "{}", row("days"));
    assert!(page.contains("<dd data-field=\"lambdaArn\">arn:aws:lambda:"), "{page}");
    assert!(page.contains("<dd data-field=\"supportedAgentFrameworks\">bedrock</dd>"), "{page}");
    assert!(page.contains("<span class=\"tag\">team=weather</span>"), "{page}");
    assert!(page.contains("<dt>Created by</dt><dd>admin</dd>"), "{page}");
}

/// A console on `store`, served over HTTP on 127.0.0.1: its base URL and the session
/// cookie of a signed-in reader (the server stops with the runtime).
async fn console_over_http(store: Arc<dyn registry_store::Store>) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let reader = TokenFile::add_token(dir.path(), "rita", Role::Reader).unwrap();
    let (auth, _) = TokenFile::load_or_init(dir.path(), Some(ADMIN.to_owned())).unwrap();
    let registry = Registry::new(store);
    let app = registry_console::app(AppState::new(registry, Arc::new(auth)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    let signed_in = client
        .build()
        .unwrap()
        .post(format!("{base}/console/sign-in"))
        .header(header::ORIGIN, &base)
        .form(&[("token", reader.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    let set = signed_in.headers()[header::SET_COOKIE].to_str().unwrap();
    let cookie = set.split(';').next().unwrap().to_owned();
    (base, cookie)
}

/// The events page's `after` is a sequence number a store can hold or nothing: anything
/// else (past `i64`, past `u64`, negative, signed, not a number) is a 400 page naming
/// `/after`, never a 500 or a bare text, on SQLite and on DynamoDB, over HTTP.
#[tokio::test]
async fn events_page_refuses_an_after_no_store_can_hold_with_a_400_page() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Arc::new(SqliteStore::open(dir.path().join("registry.db")).unwrap());
    let dynamodb = registry_store_dynamodb::local::fresh_store("console").await.unwrap();
    let stores: [(&str, Arc<dyn registry_store::Store>); 2] =
        [("sqlite", sqlite), ("dynamodb", Arc::new(dynamodb))];
    for (backend, store) in stores {
        let (base, cookie) = console_over_http(store).await;
        let client = reqwest::Client::new();
        let get = |query: &str| {
            client
                .get(format!("{base}/console/events?{query}"))
                .header(header::COOKIE, &cookie)
                .send()
        };
        for after in ["9223372036854775808", "18446744073709551615", "99999999999999999999999"]
            .into_iter()
            .chain(["-1", "+5", "abc", "1.5", "%20"])
        {
            let reply = get(&format!("after={after}")).await.unwrap();
            let status = reply.status();
            let page = reply.text().await.unwrap();
            assert_eq!(status, StatusCode::BAD_REQUEST, "{backend} after={after}: {page}");
            assert!(page.contains("<code>/after</code>"), "{backend} after={after}: {page}");
            assert!(page.contains("9223372036854775807"), "{backend}: {page}");
        }
        for query in ["after=", "after=0", "after=9223372036854775807", "back=-1,x"] {
            let reply = get(query).await.unwrap();
            let status = reply.status();
            let page = reply.text().await.unwrap();
            assert_eq!(status, StatusCode::OK, "{backend} {query}: {page}");
            assert!(page.contains("id=\"empty\""), "{backend} {query}: {page}");
        }
    }
}

#[tokio::test]
async fn the_tools_search_box_ranks_tools_and_escapes_what_it_shows() {
    let f = fixture().await;
    let (cookie, _) = sign_in(&f.app, &f.reader).await;
    let (_, _, list) = send(&f.app, get("/console/tools", Some(&cookie))).await;
    assert!(list.contains("action=\"/console/tools/search\""), "the list has the search box");
    let (status, _, page) =
        send(&f.app, get("/console/tools/search?q=probes", Some(&cookie))).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("href=\"/console/tools/probe%401.0.0\""), "{page}");
    assert!(page.contains("function.description: probe"), "why it matched: {page}");
    let (_, _, none) = send(&f.app, get("/console/tools/search?q=zzyzx", Some(&cookie))).await;
    assert!(none.contains("No tool matches"), "{none}");
    let long = "w".repeat(300);
    let (status, _, bad) =
        send(&f.app, get(&format!("/console/tools/search?q={long}"), Some(&cookie))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(!bad.contains("<img src=x"), "escaped");
}
