#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The web console in a real browser: headless Chromium driven over WebDriver against
//! a real `agent-registry serve` on loopback (the example loaded).
//!
//! Each test is `#[ignore]`d: it needs `chromedriver` and Chromium (Debian's `chromium`
//! and `chromium-driver`, which `scripts/test.sh` installs and then runs the ignored
//! tests too). The browser tests run one at a time (two cores).

use registry_e2e::serve::Serve;
use registry_e2e::webdriver::{Browser, Driver};
use serde_json::{Value, json};

/// One browser at a time.
static BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The installed browser.
fn browser() -> Browser {
    Browser::find()
        .expect("no chromedriver: scripts/chromium.sh installs chromium and chromium-driver")
}

/// One browser test's browser and server (the browser closes first), holding the
/// one-browser-at-a-time lock.
struct Run {
    d: Driver,
    s: Serve,
    _one: tokio::sync::MutexGuard<'static, ()>,
}

/// A server (with `principals` minted) and a browser signed in as `who` (none: not
/// signed in).
async fn run(principals: &[(&str, &str)], who: Option<&str>) -> Run {
    let browser = browser();
    let one = BROWSER.lock().await;
    let s = Serve::start(principals).unwrap();
    let d = Driver::start(&browser).await.unwrap();
    if let Some(name) = who {
        sign_in(&d, &s, name).await;
    }
    Run { d, s, _one: one }
}

/// Posts a form built in the page (as a forging page would) to `action`.
async fn post_form(d: &Driver, action: &str, fields: &[(&str, &str)]) {
    let script = "
        const form = document.createElement('form');
        form.method = 'post';
        form.action = arguments[0];
        for (const [name, value] of arguments[1]) {
            const input = document.createElement('input');
            input.type = 'hidden'; input.name = name; input.value = value;
            form.appendChild(input);
        }
        document.body.appendChild(form);
        form.submit();";
    d.execute_and_wait(script, json!([action, fields])).await.unwrap();
}

/// Saves a screenshot of the window in the target directory, and as the README's
/// `docs/console.png` when `REGISTRY_CONSOLE_SCREENSHOT` is set.
async fn screenshot(d: &Driver) {
    let png = d.screenshot().await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("console.png");
    std::fs::write(&out, &png).unwrap();
    if std::env::var_os("REGISTRY_CONSOLE_SCREENSHOT").is_some() {
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/console.png");
        std::fs::write(docs, &png).unwrap();
    }
}

/// Signs in as `name` through the sign-in form.
async fn sign_in(d: &Driver, s: &Serve, name: &str) {
    d.goto(&s.url("/")).await.unwrap();
    let token = d.find("#token").await.unwrap();
    d.fill(&token, s.token(name)).await.unwrap();
    d.click_and_wait(&d.find("form.sign-in button[type=submit]").await.unwrap()).await.unwrap();
    assert_eq!(d.text_of("#who").await.unwrap().split_whitespace().next(), Some(name));
}

/// An API call as the admin: status and JSON body. A `PATCH` body is a merge patch of
/// whatever version is current; any other body is JSON.
async fn api(s: &Serve, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let patch = method == reqwest::Method::PATCH;
    let mut request =
        reqwest::Client::new().request(method, s.url(path)).bearer_auth(s.token("admin"));
    request = match body {
        Some(body) if patch => request
            .header("Content-Type", "application/merge-patch+json")
            .header("If-Match", "*")
            .body(body.to_string()),
        Some(body) => request.json(&body),
        None => request,
    };
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn sign_in_find_the_example_agent_by_filter_and_open_it() {
    let Run { d, s, _one } = run(&[], None).await;

    // `/` sends a browser to the console's sign-in page; a wrong token is refused there.
    d.goto(&s.url("/")).await.unwrap();
    let url = d.url().await.unwrap();
    assert!(url.ends_with("/console/sign-in"), "{url}: {}", d.source().await.unwrap());
    d.fill(&d.find("#token").await.unwrap(), "not-a-token-0123456789").await.unwrap();
    d.click_and_wait(&d.find("form.sign-in button[type=submit]").await.unwrap()).await.unwrap();
    assert!(
        d.text_of("#sign-in-error").await.unwrap().contains("not accepted"),
        "{}",
        d.source().await.unwrap()
    );

    sign_in(&d, &s, "admin").await;
    // The session is a cookie scripts cannot read; the token is in no URL or storage.
    let cookies = d.cookies().await.unwrap();
    let session = cookies.iter().find(|c| c["name"] == "ar_console").expect("session cookie");
    assert_eq!(session["httpOnly"], json!(true));
    assert_eq!(session["sameSite"], json!("Strict"));
    assert_ne!(session["value"], json!(s.token("admin")));
    let seen = d
        .execute(
            "return [document.cookie, JSON.stringify(localStorage), JSON.stringify(sessionStorage)];",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(seen, json!(["", "{}", "{}"]));
    assert!(!d.url().await.unwrap().contains(s.token("admin")));

    // The keyboard: the first Tab reaches the skip link; `/` (the console's script,
    // allowed by the Content-Security-Policy) focuses the first filter.
    let focused = "return document.activeElement.id || document.activeElement.className;";
    d.keys("\u{E004}").await.unwrap();
    assert_eq!(d.execute(focused, json!([])).await.unwrap(), json!("skip"));
    d.keys("/").await.unwrap();
    assert_eq!(d.execute(focused, json!([])).await.unwrap(), json!("f-name"));

    // Find the example agent by filter (tag and part of the name), then open it.
    d.fill(&d.find("#f-tag").await.unwrap(), "team=weather").await.unwrap();
    d.fill(&d.find("#f-name").await.unwrap(), "weather").await.unwrap();
    d.click_and_wait(&d.find("form.filters button[type=submit]").await.unwrap()).await.unwrap();
    let rows = d.find_all_now("#agents tbody tr").await.unwrap();
    assert_eq!(rows.len(), 1, "{}", d.source().await.unwrap());
    // Each filter narrows: another team's tag or another name finds nothing.
    for query in ["tag=team%3Dother", "name=forecast", "status=disabled"] {
        d.goto(&s.url(&format!("/console/agents?{query}"))).await.unwrap();
        assert!(d.text_of("#empty").await.unwrap().contains("No agent matches"), "{query}");
    }
    d.goto(&s.url("/console/agents?tag=team%3Dweather&name=WEATHER")).await.unwrap();
    d.click_and_wait(&d.find("#agents a[href='/console/agents/weather-agent']").await.unwrap())
        .await
        .unwrap();
    assert_eq!(d.text_of("h1").await.unwrap(), "Agent weather-agent");
    let tools = d.text_of("#agent-tools").await.unwrap();
    for release in ["weather-basic@1.0.0", "weather-forecast@1.0.0", "convert_units@1.0.0"] {
        assert!(tools.contains(release), "{tools}");
    }
    assert!(tools.contains("weather-forecast@^1"), "the range as named: {tools}");

    // Pages: two releases, then the third behind "Next page".
    d.goto(&s.url("/console/tools?limit=2")).await.unwrap();
    assert_eq!(d.find_all_now("#tools tbody tr:not(.group)").await.unwrap().len(), 2);
    d.click_and_wait(&d.find("a[rel=next]").await.unwrap()).await.unwrap();
    assert_eq!(d.find_all_now("#tools tbody tr:not(.group)").await.unwrap().len(), 1);
    assert!(d.find_all_now("a[rel=next]").await.unwrap().is_empty());

    // A filter that matches nothing says so; a bad one is explained.
    d.goto(&s.url("/console/tools?executionType=mcp")).await.unwrap();
    assert!(d.text_of("#empty").await.unwrap().contains("No tool matches"));
    d.goto(&s.url("/console/tools?status=sleeping")).await.unwrap();
    assert!(d.text_of(".error").await.unwrap().contains("/status"));

    // Every form field has a label; a narrow window scrolls tables, not the page.
    let unlabelled =
        "return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter(e => !e.labels || e.labels.length === 0).map(e => e.name);";
    for path in [
        "/console/agents",
        "/console/tools",
        "/console/agents/weather-agent/resolve",
        "/console/tools/weather-basic@1.0.0/edit",
        "/console/tools/weather-basic@1.0.0/history",
        "/console/tools/convert_units@1.0.0/authorize",
        "/console/proposals",
        "/console/events",
    ] {
        d.goto(&s.url(path)).await.unwrap();
        assert_eq!(d.execute(unlabelled, json!([])).await.unwrap(), json!([]), "{path}");
    }
    d.resize(420, 900).await.unwrap();
    for path in [
        "/console/tools",
        "/console/agents/weather-agent",
        "/console/tools/weather-forecast@1.0.0",
        "/console/tools/convert_units@1.0.0/authorize",
        "/console/events",
    ] {
        d.goto(&s.url(path)).await.unwrap();
        let overflow = d
            .execute("return document.documentElement.scrollWidth - window.innerWidth;", json!([]))
            .await
            .unwrap();
        assert!(
            overflow.as_i64().unwrap() <= 0,
            "{path} is wider than a narrow window: {overflow}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn resolve_as_an_external_and_an_internal_user() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;

    d.goto(&s.url("/console/agents/weather-agent")).await.unwrap();
    d.click_and_wait(&d.find("#resolve-link").await.unwrap()).await.unwrap();
    d.fill(&d.find("#userId").await.unwrap(), "u-1").await.unwrap();
    d.fill(&d.find("#userType").await.unwrap(), "external-user").await.unwrap();
    d.click_and_wait(&d.find("#resolve").await.unwrap()).await.unwrap();
    assert_eq!(d.find_all_now("#granted tbody tr").await.unwrap().len(), 2);
    let left = d.text_of("#left-out").await.unwrap();
    assert!(left.contains("weather-forecast@1.0.0") && left.contains("no rule matched"), "{left}");
    let reasons = d.text_of("#left-out-reasons").await.unwrap();
    assert!(reasons.contains("tool weather-forecast@1.0.0: DENIED"), "{reasons}");
    assert!(d.text_of("#agent-decision").await.unwrap().contains("Everyone else"));

    d.fill(&d.find("#userType").await.unwrap(), "internal-user").await.unwrap();
    d.click_and_wait(&d.find("#resolve").await.unwrap()).await.unwrap();
    let granted = d.find_all_now("#granted tbody tr").await.unwrap();
    assert_eq!(granted.len(), 3);
    let text = d.text_of("#granted").await.unwrap();
    assert!(
        text.contains("allow by rule #0 \u{201c}Internal users and premium customers\u{201d}"),
        "the deciding rule: {text}"
    );
    assert_eq!(d.text_of("#left-out").await.unwrap(), "None.");
    // The README's screenshot: this result at 1280x800.
    d.execute("document.getElementById('agent-decision').scrollIntoView();", json!([]))
        .await
        .unwrap();
    screenshot(&d).await;

    // The full trace, folded until asked for.
    let trace = d.find("#trace pre").await.unwrap();
    assert_eq!(d.text(&trace).await.unwrap(), "", "hidden until opened");
    d.click(&d.find("#trace summary").await.unwrap()).await.unwrap();
    assert!(d.text(&trace).await.unwrap().contains("\"RULE_MATCH\""));

    // Context the server refuses is explained at the field.
    d.fill(&d.find("#customData").await.unwrap(), "[1]").await.unwrap();
    d.click_and_wait(&d.find("#resolve").await.unwrap()).await.unwrap();
    assert!(d.text_of("#error-customData").await.unwrap().contains("must be a JSON object"));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn editing_a_tool_description_makes_a_version_and_shows_the_diff() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;

    d.goto(&s.url("/console/tools/weather-basic@1.0.0")).await.unwrap();
    assert_eq!(d.text_of("#version").await.unwrap(), "1");
    d.click_and_wait(&d.find("#edit-link").await.unwrap()).await.unwrap();
    let field = d.find("#field-description").await.unwrap();
    d.fill(&field, "Current weather for a city, from the console.").await.unwrap();
    d.click_and_wait(&d.find("#save").await.unwrap()).await.unwrap();

    assert_eq!(d.text_of("#saved").await.unwrap(), "Saved as version 2.");
    let diff = d.text_of("#diff").await.unwrap();
    assert!(diff.contains("/description"), "{diff}");
    assert!(diff.contains("Looks up the current weather for a city."), "old text: {diff}");
    assert!(diff.contains("Current weather for a city, from the console."), "new text: {diff}");
    let (_, tool) = api(&s, reqwest::Method::GET, "/tools/weather-basic@1.0.0", None).await;
    assert_eq!(tool["version"], 2);
    assert_eq!(tool["lastModifiedBy"], "admin");

    // Disable it from its page; the page then offers to enable it again.
    d.goto(&s.url("/console/tools/weather-basic@1.0.0")).await.unwrap();
    assert_eq!(d.text_of("#version").await.unwrap(), "2");
    d.click_and_wait(&d.find("#lifecycle-button").await.unwrap()).await.unwrap();
    assert_eq!(d.text_of("#lifecycle-button").await.unwrap(), "Enable");
    let (_, tool) = api(&s, reqwest::Method::GET, "/tools/weather-basic@1.0.0", None).await;
    assert_eq!(tool["lifecycle"]["status"], "disabled");
    assert_eq!(tool["version"], 3);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn a_validation_error_is_shown_next_to_its_field() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;

    d.goto(&s.url("/console/tools/weather-basic@1.0.0/edit")).await.unwrap();
    d.fill(&d.find("#field-description").await.unwrap(), "   ").await.unwrap();
    d.click_and_wait(&d.find("#save").await.unwrap()).await.unwrap();

    let field = d.find("#field-description").await.unwrap();
    assert_eq!(d.attribute(&field, "aria-invalid").await.unwrap().as_deref(), Some("true"));
    assert_eq!(
        d.attribute(&field, "aria-describedby").await.unwrap().as_deref(),
        Some("error-description")
    );
    assert_eq!(d.text_of("#error-description").await.unwrap(), "must not be empty");
    // The message sits in the description's field, right after it.
    let next = d
        .execute(
            "return document.getElementById('field-description').nextElementSibling.id;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(next, json!("error-description"));
    // The other field is not marked; nothing was written.
    let other = d.find("#field-displayName").await.unwrap();
    assert_eq!(d.attribute(&other, "aria-invalid").await.unwrap(), None);
    let (_, tool) = api(&s, reqwest::Method::GET, "/tools/weather-basic@1.0.0", None).await;
    assert_eq!(tool["version"], 1);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn a_stale_page_gets_a_conflict_not_a_lost_update() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;

    d.goto(&s.url("/console/tools/weather-basic@1.0.0/edit")).await.unwrap();
    assert_eq!(d.text_of("#editing-version").await.unwrap(), "1");
    // Someone else changes the tool meanwhile (version 2).
    let (status, _) = api(
        &s,
        reqwest::Method::PATCH,
        "/tools/weather-basic@1.0.0",
        Some(json!({"description": "Changed by someone else."})),
    )
    .await;
    assert_eq!(status, 200);

    d.fill(&d.find("#field-description").await.unwrap(), "My change.").await.unwrap();
    d.click_and_wait(&d.find("#save").await.unwrap()).await.unwrap();
    let conflict = d.text_of("#conflict").await.unwrap();
    assert!(conflict.contains("your page shows version 1, it is now at version 2"), "{conflict}");
    // The user's text is kept in the form; the other change is not lost.
    let field = d.find("#field-description").await.unwrap();
    assert_eq!(d.property(&field, "value").await.unwrap(), json!("My change."));
    let (_, tool) = api(&s, reqwest::Method::GET, "/tools/weather-basic@1.0.0", None).await;
    assert_eq!(tool["description"], "Changed by someone else.");
    assert_eq!(tool["version"], 2);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn a_reader_sees_no_edit_controls_and_a_forged_write_is_refused() {
    let Run { d, s, _one } = run(&[("rita", "reader")], Some("rita")).await;

    d.goto(&s.url("/console/tools/weather-basic@1.0.0")).await.unwrap();
    assert_eq!(d.text_of("h1").await.unwrap(), "Tool weather-basic@1.0.0");
    assert!(
        d.find_all_now("#edit-link, #lifecycle-button, form[action$='/edit']")
            .await
            .unwrap()
            .is_empty()
    );
    d.goto(&s.url("/console/agents/weather-agent")).await.unwrap();
    assert!(d.find_all_now("#edit-link, #lifecycle-button").await.unwrap().is_empty());

    // A write forged in the reader's own session (with its valid CSRF token): the
    // server refuses it by role.
    let csrf = d.find("input[name=csrf]").await.unwrap();
    let csrf = d.property(&csrf, "value").await.unwrap();
    let fields =
        [("csrf", csrf.as_str().unwrap()), ("version", "1"), ("description", "forged by a reader")];
    post_form(&d, "/console/tools/weather-basic@1.0.0/edit", &fields).await;
    let refusal = d.text_of(".error").await.unwrap();
    assert!(refusal.contains("the `editor` role is needed"), "{refusal}");
    let (_, tool) = api(&s, reqwest::Method::GET, "/tools/weather-basic@1.0.0", None).await;
    assert_eq!(tool["version"], 1);
    assert_eq!(tool["description"], "Looks up the current weather for a city.");

    // The edit page itself says why instead of showing a form.
    d.goto(&s.url("/console/tools/weather-basic@1.0.0/edit")).await.unwrap();
    assert!(d.text_of(".error").await.unwrap().contains("needs the `editor` role"));
    assert!(d.find_all_now("#save").await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn a_form_without_the_session_csrf_token_is_refused() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;

    d.goto(&s.url("/console/tools/weather-basic@1.0.0")).await.unwrap();
    let fields = [("version", "1"), ("status", "disabled"), ("csrf", "guess")];
    post_form(&d, "/console/tools/weather-basic@1.0.0/lifecycle", &fields).await;
    assert!(d.text_of(".error").await.unwrap().contains("CSRF"));
    let (_, tool) = api(&s, reqwest::Method::GET, "/tools/weather-basic@1.0.0", None).await;
    assert_eq!(tool["version"], 1);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn stored_markup_renders_as_text() {
    let Run { d, s, _one } = run(&[], None).await;
    let payload = "<img src=x onerror=alert(1)>";
    let tool = json!({
        "toolId": "xss-probe@1.0.0",
        "executionType": "lambda",
        "name": "xss_probe",
        "displayName": "<script>alert(2)</script>",
        "description": payload,
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:probe",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{"name": "probe", "description": payload,
                            "parameters": {"q": {"type": "string", "description": payload}}}]
    });
    let (status, created) = api(&s, reqwest::Method::POST, "/tools", Some(tool)).await;
    assert_eq!(status, 201, "{created}");
    sign_in(&d, &s, "admin").await;

    for path in [
        "/console/tools?name=xss",
        "/console/tools/xss-probe@1.0.0",
        "/console/tools/xss-probe@1.0.0/edit",
        "/console/tools/xss-probe@1.0.0/history",
    ] {
        d.goto(&s.url(path)).await.unwrap();
        d.find("main").await.unwrap();
        assert_eq!(d.alert_text().await.unwrap(), None, "a dialog opened on {path}");
        assert!(
            d.find_all_now("img, main script").await.unwrap().is_empty(),
            "markup ran on {path}"
        );
        let text = d.text_of("main").await.unwrap();
        if !path.ends_with("/edit") && !path.ends_with("/history") {
            assert!(text.contains("<script>alert(2)</script>"), "{path}: {text}");
        }
    }
    d.goto(&s.url("/console/tools/xss-probe@1.0.0")).await.unwrap();
    assert_eq!(d.text_of("dd[data-field=description]").await.unwrap(), payload);
    let edit = "/console/tools/xss-probe@1.0.0/edit";
    d.goto(&s.url(edit)).await.unwrap();
    let field = d.find("#field-description").await.unwrap();
    assert_eq!(d.property(&field, "value").await.unwrap(), json!(payload));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn schemas_per_provider_and_release_compare() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;
    // The schema for a provider, with what that provider cannot express.
    d.goto(&s.url("/console/tools/weather-forecast@1.0.0")).await.unwrap();
    assert!(d.text_of("#compat").await.unwrap().starts_with("Lossless: bedrock"));
    let format = d.find("#format").await.unwrap();
    d.click(&format).await.unwrap();
    d.click(&d.find("#format option[value=openai]").await.unwrap()).await.unwrap();
    d.click_and_wait(&d.find("form[action*='schema-for'] button").await.unwrap()).await.unwrap();
    let compat = d.text_of("#compat").await.unwrap();
    assert!(
        compat.contains("/functionSchema/0/parameters/days") && compat.contains("nullable"),
        "{compat}"
    );
    assert!(d.text_of("#schema-for pre").await.unwrap().contains("\"strict\": true"));

    let (_, mut tool) = api(&s, reqwest::Method::GET, "/tools/weather-forecast@1.0.0", None).await;
    for field in ["version", "createdBy", "lastModifiedBy", "createdAt", "updatedAt"] {
        tool.as_object_mut().unwrap().remove(field);
    }
    tool["toolId"] = json!("weather-forecast@1.1.0");
    tool["functionSchema"][0]["parameters"]["units"] =
        json!({"type": "string", "description": "metric or imperial", "required": false});
    let (status, released) =
        api(&s, reqwest::Method::PUT, "/tools/weather-forecast@1.1.0", Some(tool)).await;
    assert_eq!(status, 201, "{released}");

    d.goto(&s.url("/console/tools/weather-forecast@1.1.0")).await.unwrap();
    d.click_and_wait(&d.find("#compare-link").await.unwrap()).await.unwrap();
    let verdict = d.text_of("#verdict").await.unwrap();
    assert!(verdict.starts_with("weather-forecast@1.0.0 to weather-forecast@1.1.0"), "{verdict}");
    assert!(verdict.contains("additive") && verdict.ends_with("is minor."), "{verdict}");
    let changes = d.text_of("#changes").await.unwrap();
    assert!(changes.contains("/functionSchema/0/parameters/units"), "{changes}");

    // Backwards, the new parameter is gone: a breaking change, a new major.
    d.goto(&s.url("/console/tools/weather-forecast/compare?from=1.1.0&to=1.0.0")).await.unwrap();
    let verdict = d.text_of("#verdict").await.unwrap();
    assert!(verdict.contains("breaking") && verdict.ends_with("is major."), "{verdict}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn authorize_a_call_with_typed_arguments() {
    let Run { d, s, _one } = run(&[], Some("admin")).await;

    // The tool page lists the call rules with their ids and modes.
    d.goto(&s.url("/console/tools/convert_units@1.0.0")).await.unwrap();
    let rules = d.text_of("#call-rules").await.unwrap();
    for text in ["no-huge-values", "metric-only", "log-only", "Quantities beyond a billion"] {
        assert!(rules.contains(text), "{text}: {rules}");
    }
    d.click_and_wait(&d.find("#authorize-link").await.unwrap()).await.unwrap();
    assert_eq!(d.text_of("h1").await.unwrap(), "Authorize a call of convert_units@1.0.0");

    // 5 km to miles: allowed, but the log-only metric-only rule would deny it.
    d.fill(&d.find("#arg-value").await.unwrap(), "5").await.unwrap();
    d.fill(&d.find("#arg-from").await.unwrap(), "km").await.unwrap();
    d.fill(&d.find("#arg-to").await.unwrap(), "mi").await.unwrap();
    d.fill(&d.find("#userId").await.unwrap(), "u-1").await.unwrap();
    d.fill(&d.find("#userType").await.unwrap(), "internal-user").await.unwrap();
    d.click_and_wait(&d.find("#authorize").await.unwrap()).await.unwrap();
    let source = d.source().await.unwrap();
    assert_eq!(d.text_of("#effect").await.unwrap(), "allow", "{source}");
    assert_eq!(d.text_of("#outcome").await.unwrap(), "would-deny");
    assert_eq!(d.text_of("#stage").await.unwrap(), "call");
    let would_be = d.text_of("#would-be").await.unwrap();
    assert!(would_be.starts_with("deny by metric-only"), "{would_be}");
    assert!(d.text_of("#log-only").await.unwrap().contains("metric-only"));
    let results = d.text_of("#call-results").await.unwrap();
    assert!(results.contains("no-huge-values") && results.contains("log-only"), "{results}");

    // The form keeps what was sent; a value beyond a billion is denied by no-huge-values.
    let value = d.find("#arg-value").await.unwrap();
    assert_eq!(d.property(&value, "value").await.unwrap(), json!("5"));
    d.fill(&value, "5e10").await.unwrap();
    d.click_and_wait(&d.find("#authorize").await.unwrap()).await.unwrap();
    assert_eq!(d.text_of("#effect").await.unwrap(), "deny");
    let rule = d.text_of("#deciding-rule").await.unwrap();
    assert!(rule.starts_with("no-huge-values") && rule.contains("beyond a billion"), "{rule}");

    // Not a number: the server's error is shown at the field, and nothing is decided.
    d.fill(&d.find("#arg-value").await.unwrap(), "lots").await.unwrap();
    d.click_and_wait(&d.find("#authorize").await.unwrap()).await.unwrap();
    let field = d.find("#arg-value").await.unwrap();
    assert_eq!(d.attribute(&field, "aria-invalid").await.unwrap().as_deref(), Some("true"));
    let error = d.text_of("#error-arg-value").await.unwrap();
    assert!(error.starts_with("value ") && error.len() > "value ".len(), "{error}");
    assert!(d.find_all_now("#decision").await.unwrap().is_empty());
    assert!(d.find_all_now("#arg-from[aria-invalid]").await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chromedriver and chromium (scripts/chromium.sh)"]
async fn a_second_user_approves_a_proposal() {
    let browser = browser();
    let _one = BROWSER.lock().await;
    let principals = [("erin", "editor"), ("alex", "approver")];
    let s = Serve::start_with(&principals, &["--require-review"]).unwrap();
    let d = Driver::start(&browser).await.unwrap();

    // An editor changes the agent's instruction (governed): a proposal, not a version.
    sign_in(&d, &s, "erin").await;
    d.goto(&s.url("/console/agents/weather-agent/edit")).await.unwrap();
    d.fill(
        &d.find("#field-basePrompt").await.unwrap(),
        "You are a careful weather assistant: say which city you looked up.",
    )
    .await
    .unwrap();
    d.click_and_wait(&d.find("#save").await.unwrap()).await.unwrap();
    let proposal = d.url().await.unwrap();
    assert!(proposal.contains("/console/proposals/"), "{proposal}: {}", d.source().await.unwrap());
    assert_eq!(d.text_of("#state").await.unwrap(), "open");
    assert_eq!(d.text_of("#author").await.unwrap(), "erin");
    assert!(d.text_of("#diff").await.unwrap().contains("/basePrompt"));
    // Its author sees no Approve button, and a forged approval is refused by the service.
    assert!(d.find_all_now("#approve").await.unwrap().is_empty());
    assert!(d.text_of("#no-review").await.unwrap().contains("another approver"));
    let csrf = d
        .execute("return document.querySelector('input[name=csrf]').value;", json!([]))
        .await
        .unwrap();
    let path = proposal.trim_start_matches(&s.base).to_owned();
    post_form(&d, &format!("{path}/approve"), &[("csrf", csrf.as_str().unwrap())]).await;
    let refused = d.text_of("#review-error").await.unwrap();
    assert!(refused.contains("role is needed to approve"), "{refused}");
    assert_eq!(d.text_of("#state").await.unwrap(), "open");
    d.goto(&s.url("/console/agents/weather-agent")).await.unwrap();
    assert_eq!(d.text_of("#version").await.unwrap(), "1");
    d.click_and_wait(&d.find("form.who button").await.unwrap()).await.unwrap();

    // The proposal is in the queue; an approver approves it and it applies.
    sign_in(&d, &s, "alex").await;
    d.click_and_wait(&d.find("nav a[href='/console/proposals']").await.unwrap()).await.unwrap();
    let queue = d.text_of("#proposals").await.unwrap();
    assert!(queue.contains("weather-agent") && queue.contains("erin"), "{queue}");
    d.goto(&proposal).await.unwrap();
    d.click_and_wait(&d.find("#approve").await.unwrap()).await.unwrap();
    let applied = d.text_of("#applied").await.unwrap();
    assert!(applied.contains("is now at version 2"), "{applied}");
    assert_eq!(d.text_of("#state").await.unwrap(), "applied");
    d.goto(&s.url("/console/agents/weather-agent")).await.unwrap();
    assert_eq!(d.text_of("#version").await.unwrap(), "2");

    // The audit events name who did what.
    d.click_and_wait(&d.find("nav a[href='/console/events']").await.unwrap()).await.unwrap();
    d.fill(&d.find("#id").await.unwrap(), "weather-agent").await.unwrap();
    d.click_and_wait(&d.find("#filter").await.unwrap()).await.unwrap();
    let rows = d
        .execute(
            "return [...document.querySelectorAll('#events tbody tr')]
                .map(r => r.querySelector('.action').textContent + ' ' + r.querySelector('.actor').textContent);",
            json!([]),
        )
        .await
        .unwrap();
    let rows: Vec<&str> = rows.as_array().unwrap().iter().filter_map(Value::as_str).collect();
    for expected in ["proposal.opened erin", "proposal.approved alex", "proposal.applied alex"] {
        assert!(rows.contains(&expected), "{expected}: {rows:?}");
    }
    drop(d);
}
