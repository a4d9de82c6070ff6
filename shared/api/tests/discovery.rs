#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Discovery over real HTTP (docs/discovery.md): `/v0.1/servers` paging, `version`,
//! `updated_since` and bad input; what an internal and an external user's principal
//! tokens see against what `resolve` grants each; agent cards and the AI catalog; tool
//! search; and (with `REGISTRY_DISCOVERY_PYTHON`) the answers judged by outside
//! validators: the MCP Registry OpenAPI 2025-12-01's schemas (`openapi-schema-validator`)
//! and A2A's `AgentCard` (`a2a-sdk`).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::discovery::{apply, mcp};
use common::{Server, agent_json};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const NS: &str = "local.agent-registry";

/// `GET path` with `token` as the bearer (none when empty).
async fn get(s: &Server, path: &str, token: &str) -> common::Reply {
    s.send(s.req(Method::GET, path, token)).await
}

#[tokio::test]
async fn paging_with_limit_7_returns_each_latest_release_exactly_once() {
    // 300 writes: on SQLite always (the paging is above the store; the other tests run
    // discovery on DynamoDB too).
    let s = common::start_on_sqlite().await;
    for i in 0..250usize {
        let name = format!("srv_{i:03}");
        apply(
            &s,
            &format!("{name}@1.0.0"),
            mcp(&format!("{name}@1.0.0"), &name, "A server.", None),
        )
        .await;
        if i.is_multiple_of(5) {
            apply(
                &s,
                &format!("{name}@1.1.0"),
                mcp(&format!("{name}@1.1.0"), &name, "A server.", None),
            )
            .await;
        }
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v0.1/servers?version=latest&limit=7&cursor={c}"),
            None => "/v0.1/servers?version=latest&limit=7".to_owned(),
        };
        let page = get(&s, &path, &s.reader).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text);
        let servers = page.body["servers"].as_array().unwrap();
        assert!(servers.len() <= 7);
        assert_eq!(page.body["metadata"]["count"], servers.len());
        for server in servers {
            let meta = &server["_meta"]["io.modelcontextprotocol.registry/official"];
            assert_eq!(meta["isLatest"], true);
            seen.push((
                server["server"]["name"].as_str().unwrap().to_owned(),
                server["server"]["version"].as_str().unwrap().to_owned(),
            ));
        }
        pages += 1;
        match page.body["metadata"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 250usize.div_ceil(7));
    assert_eq!(seen.len(), 250);
    let names: BTreeSet<&String> = seen.iter().map(|(n, _)| n).collect();
    assert_eq!(names.len(), 250, "each server once");
    for (name, version) in &seen {
        let i: usize = name.rsplit('_').next().unwrap().parse().unwrap();
        assert_eq!(version, if i.is_multiple_of(5) { "1.1.0" } else { "1.0.0" }, "{name}");
        assert!(name.starts_with(&format!("{NS}/")));
    }
    // without `version`, every release: 250 + 50
    let all = get(&s, "/v0.1/servers?limit=100", &s.reader).await;
    assert_eq!(all.body["metadata"]["count"], 100);
    let exact = get(&s, "/v0.1/servers?version=1.1.0&limit=100", &s.reader).await;
    assert_eq!(exact.body["metadata"]["count"], 50);
    // versions of one server, newest first; one version; latest; URL-encoded names
    let versions = get(&s, &format!("/v0.1/servers/{NS}%2Fsrv_005/versions"), &s.reader).await;
    assert_eq!(versions.status, StatusCode::OK, "{}", versions.text);
    let listed: Vec<&str> = versions.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["server"]["version"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["1.1.0", "1.0.0"]);
    let latest = get(&s, &format!("/v0.1/servers/{NS}%2Fsrv_005/versions/latest"), &s.reader).await;
    assert_eq!(latest.body["server"]["version"], "1.1.0");
    let old = get(&s, &format!("/v0.1/servers/{NS}%2Fsrv_005/versions/1.0.0"), &s.reader).await;
    assert_eq!(old.body["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"], false);
    assert_eq!(old.body["_meta"][format!("{NS}/registry")]["toolId"], "srv_005@1.0.0");
}

#[tokio::test]
async fn updated_since_deprecation_and_deletion_behave_as_the_spec_says() {
    let s = common::start().await;
    apply(&s, "old@1.0.0", mcp("old@1.0.0", "old", "Old server.", None)).await;
    apply(&s, "gone@1.0.0", mcp("gone@1.0.0", "gone", "Gone server.", None)).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let since = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    apply(&s, "new@1.0.0", mcp("new@1.0.0", "new", "New server.", None)).await;
    let mut deprecated = mcp("old@1.0.0", "old", "Old server.", None);
    deprecated["lifecycle"] = json!({"status": "deprecated", "migrationPath": "new@1.0.0"});
    apply(&s, "old@1.0.0", deprecated).await;
    let mut retired = mcp("gone@1.0.0", "gone", "Gone server.", None);
    retired["lifecycle"] = json!({"status": "retired"});
    apply(&s, "gone@1.0.0", retired).await;
    let names = |r: &common::Reply| -> BTreeMap<String, String> {
        r.body["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["server"]["name"]
                        .as_str()
                        .unwrap()
                        .trim_start_matches(&format!("{NS}/"))
                        .to_owned(),
                    v["_meta"]["io.modelcontextprotocol.registry/official"]["status"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            })
            .collect()
    };
    let plain = get(&s, "/v0.1/servers", &s.reader).await;
    assert_eq!(
        names(&plain),
        BTreeMap::from([("new".into(), "active".into()), ("old".into(), "deprecated".into())])
    );
    let with_deleted = get(&s, "/v0.1/servers?include_deleted=true", &s.reader).await;
    assert_eq!(names(&with_deleted).get("gone").map(String::as_str), Some("deleted"));
    let since_q =
        get(&s, &format!("/v0.1/servers?updated_since={}", since.replace('+', "%2B")), &s.reader)
            .await;
    assert_eq!(since_q.status, StatusCode::OK, "{}", since_q.text);
    // the spec: include_deleted is always true with updated_since, so a sub-registry
    // syncing incrementally learns that `gone` was switched off
    assert_eq!(
        names(&since_q),
        BTreeMap::from([
            ("gone".into(), "deleted".into()),
            ("new".into(), "active".into()),
            ("old".into(), "deprecated".into()),
        ]),
        "everything changed after `since`, the deleted release marked deleted"
    );
    let gone = since_q.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["server"]["name"] == format!("{NS}/gone"))
        .unwrap();
    assert_eq!(gone["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"], false);
    let later = chrono::Utc::now() + chrono::Duration::seconds(5);
    let none = get(
        &s,
        &format!(
            "/v0.1/servers?updated_since={}",
            later.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
        &s.reader,
    )
    .await;
    assert_eq!(none.body["metadata"]["count"], 0);
}

#[tokio::test]
async fn search_is_the_specs_substring_match_on_the_name() {
    let s = common::start().await;
    for (name, description) in [
        ("files-mcp", "Files on a share."),
        ("secret-mcp", "Secrets of files-mcp users."),
        ("weather-mcp", "Weather, mcp files."),
        ("air_quality", "Air quality index and pollen counts for a city."),
        ("quality_gate", "Build checks."),
    ] {
        let id = format!("{name}@1.0.0");
        apply(&s, &id, mcp(&id, name, description, None)).await;
    }
    let names = |r: &common::Reply| -> Vec<String> {
        r.body["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                v["server"]["name"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches(&format!("{NS}/"))
                    .to_owned()
            })
            .collect()
    };
    // a name, not words ranked over descriptions
    let exact = get(&s, "/v0.1/servers?search=files-mcp", &s.reader).await;
    assert_eq!(names(&exact), ["files-mcp"], "{}", exact.text);
    let by_name = get(&s, "/v0.1/servers?search=QUALIT", &s.reader).await;
    assert_eq!(names(&by_name), ["air_quality", "quality_gate"], "{}", by_name.text);
    let words = get(&s, "/v0.1/servers?search=pollen%20city", &s.reader).await;
    assert_eq!(words.body["metadata"]["count"], 0, "{}", words.text);
    // the namespace is part of the name
    let all = get(&s, &format!("/v0.1/servers?search={NS}/"), &s.reader).await;
    assert_eq!(all.body["metadata"]["count"], 5, "{}", all.text);
    // paging a filtered answer: the cursor continues after the last one returned
    let first = get(&s, "/v0.1/servers?search=-mcp&limit=2", &s.reader).await;
    assert_eq!(names(&first), ["files-mcp", "secret-mcp"]);
    let cursor = first.body["metadata"]["nextCursor"].as_str().unwrap();
    let second =
        get(&s, &format!("/v0.1/servers?search=-mcp&limit=2&cursor={cursor}"), &s.reader).await;
    assert_eq!(names(&second), ["weather-mcp"]);
    assert!(second.body["metadata"]["nextCursor"].is_null());
}

#[tokio::test]
async fn versions_honour_include_deleted_and_a_deleted_release_is_never_latest() {
    let s = common::start().await;
    let official = "io.modelcontextprotocol.registry/official";
    apply(&s, "kill@1.0.0", mcp("kill@1.0.0", "kill", "Kill switch.", None)).await;
    let mut disabled = mcp("kill@1.1.0", "kill", "Kill switch.", None);
    disabled["lifecycle"] = json!({"status": "disabled"});
    apply(&s, "kill@1.1.0", disabled).await;
    let base = format!("/v0.1/servers/{NS}%2Fkill/versions");
    let versions = |r: &common::Reply| -> Vec<(String, bool)> {
        r.body["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["server"]["version"].as_str().unwrap().to_owned(),
                    v["_meta"][official]["isLatest"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let plain = get(&s, &base, &s.reader).await;
    assert_eq!(plain.status, StatusCode::OK, "{}", plain.text);
    assert_eq!(versions(&plain), [("1.0.0".to_owned(), true)], "default: no deleted ones");
    let all = get(&s, &format!("{base}?include_deleted=true"), &s.reader).await;
    assert_eq!(
        versions(&all),
        [("1.1.0".to_owned(), false), ("1.0.0".to_owned(), true)],
        "the disabled release is listed, never latest"
    );
    let one = get(&s, &format!("{base}/1.1.0"), &s.reader).await;
    one.assert_problem(404, "NOT_FOUND");
    let one = get(&s, &format!("{base}/1.1.0?include_deleted=true"), &s.reader).await;
    assert_eq!(one.status, StatusCode::OK, "{}", one.text);
    assert_eq!(one.body["_meta"][official]["status"], "deleted");
    assert_eq!(one.body["_meta"][official]["isLatest"], false);
    for query in ["", "?include_deleted=true"] {
        let latest = get(&s, &format!("{base}/latest{query}"), &s.reader).await;
        assert_eq!(latest.body["server"]["version"], "1.0.0", "{query}: {}", latest.text);
    }
    get(&s, &format!("{base}?include_deleted=maybe"), &s.reader)
        .await
        .assert_invalid_at("/include_deleted");
    // every version deleted: none is latest, and the server is gone by default
    let mut off = mcp("kill@1.0.0", "kill", "Kill switch.", None);
    off["lifecycle"] = json!({"status": "disabled"});
    apply(&s, "kill@1.0.0", off).await;
    get(&s, &base, &s.reader).await.assert_problem(404, "NOT_FOUND");
    let all = get(&s, &format!("{base}?include_deleted=true"), &s.reader).await;
    assert_eq!(versions(&all), [("1.1.0".to_owned(), false), ("1.0.0".to_owned(), false)]);
    get(&s, &format!("{base}/latest?include_deleted=true"), &s.reader)
        .await
        .assert_problem(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_missing_server_or_version_is_named_as_such() {
    let s = common::start().await;
    apply(&s, "known@1.0.0", mcp("known@1.0.0", "known", "Known.", None)).await;
    let r = get(&s, &format!("/v0.1/servers/{NS}%2Fknown/versions/9.9.9"), &s.reader).await;
    r.assert_problem(404, "NOT_FOUND");
    assert_eq!(r.body["error"], format!("server `{NS}/known` has no version `9.9.9`"));
    let r = get(&s, &format!("/v0.1/servers/{NS}%2Fnone/versions"), &s.reader).await;
    assert_eq!(r.body["error"], format!("server `{NS}/none` not found"));
    assert!(!r.text.contains("tool"), "{}", r.text);
}

#[tokio::test]
async fn bad_input_is_a_400_in_the_specs_error_shape() {
    let s = common::start().await;
    let long = "w".repeat(300);
    for (path, at) in [
        ("/v0.1/servers?limit=0".to_owned(), "/limit"),
        ("/v0.1/servers?limit=101".to_owned(), "/limit"),
        ("/v0.1/servers?limit=seven".to_owned(), "/limit"),
        ("/v0.1/servers?cursor=%25%25not-a-cursor".to_owned(), "/cursor"),
        (format!("/v0.1/servers?search={long}"), "/search"),
        ("/v0.1/servers?updated_since=yesterday".to_owned(), "/updated_since"),
        ("/v0.1/servers?include_deleted=maybe".to_owned(), "/include_deleted"),
        ("/tools/search?q=weather&limit=0".to_owned(), "/limit"),
        ("/tools/search?q=weather&limit=101".to_owned(), "/limit"),
        (format!("/tools/search?q={long}"), "/q"),
    ] {
        let r = get(&s, &path, &s.reader).await;
        r.assert_problem(400, "VALIDATION_FAILED");
        assert_eq!(r.error_paths(), [at], "{path}: {}", r.text);
        assert!(r.body["error"].is_string(), "{path}: the spec's `error` member: {}", r.text);
    }
    // every problem at once
    let r = get(&s, "/v0.1/servers?limit=0&cursor=x", &s.reader).await;
    assert_eq!(r.error_paths(), ["/limit", "/cursor"], "{}", r.text);
    // a missing server is a 404 in the same shape; no credentials a 401
    let r = get(&s, &format!("/v0.1/servers/{NS}%2Fnothing/versions"), &s.reader).await;
    r.assert_problem(404, "NOT_FOUND");
    assert!(r.body["error"].is_string());
    let r = get(&s, "/v0.1/servers", "").await;
    r.assert_problem(401, "UNAUTHENTICATED");
    let r = get(&s, "/v0.1/servers", "not-a-token").await;
    r.assert_problem(401, "UNAUTHENTICATED");
}

/// The example data (cli/example) plus MCP tools under access rules, an agent with an
/// endpoint that names them all, and principal keys.
async fn example_registry() -> Server {
    // the key file's directory outlives the server (a test process's temporary files)
    let dir = tempfile::tempdir().unwrap().keep();
    let keys = common::principal_keys(&dir).await;
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    for (id, text) in [
        ("weather-basic@1.0.0", include_str!("../../../cli/example/weather-basic.json")),
        ("weather-forecast@1.0.0", include_str!("../../../cli/example/weather-forecast.json")),
        ("convert_units@1.0.0", include_str!("../../../cli/example/convert-units.json")),
    ] {
        apply(&s, id, serde_json::from_str(text).unwrap()).await;
    }
    let internal_only =
        json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}]);
    let external_only =
        json!([{"effect": "allow", "condition": "user.userType == 'external-user'"}]);
    apply(
        &s,
        "air_quality@1.0.0",
        mcp(
            "air_quality@1.0.0",
            "air_quality",
            "Air quality index and pollen counts for a city.",
            None,
        ),
    )
    .await;
    apply(
        &s,
        "storm_alerts@1.0.0",
        mcp(
            "storm_alerts@1.0.0",
            "storm_alerts",
            "Severe storm alerts for staff operations.",
            Some(internal_only),
        ),
    )
    .await;
    apply(
        &s,
        "travel_tips@1.0.0",
        mcp(
            "travel_tips@1.0.0",
            "travel_tips",
            "Weather travel tips for customers.",
            Some(external_only),
        ),
    )
    .await;
    // an MCP tool no agent names: only roles see it
    apply(&s, "unbound@1.0.0", mcp("unbound@1.0.0", "unbound", "A server no agent uses.", None))
        .await;
    let mut agent: Value =
        serde_json::from_str(include_str!("../../../cli/example/weather-agent.json")).unwrap();
    for id in ["air_quality@1.0.0", "storm_alerts@1.0.0", "travel_tips@1.0.0"] {
        agent["toolIds"].as_array_mut().unwrap().push(json!(id));
    }
    agent["endpoint"] = json!("https://agents.example.com/weather");
    apply(&s, "weather-agent", agent).await;
    // an agent without an endpoint has no card
    apply(&s, "quiet-agent", agent_json("quiet-agent", &["weather-basic@1.0.0"])).await;
    s
}

/// Resolves the example agent for a user of `user_type`: its principal token and the
/// tool ids resolution kept.
async fn resolve(s: &Server, user_type: &str) -> (String, BTreeSet<String>) {
    let context = json!({"user": {"userId": format!("{user_type}-1"), "userType": user_type}, "account": {"accountId": "acct-1"}});
    let r = s
        .send(
            s.req(Method::POST, "/agents/weather-agent/resolve?explain=true", &s.reader)
                .json(&context),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let token =
        r.body["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
            .as_str()
            .unwrap()
            .to_owned();
    let kept = r.body["trace"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["outcome"] == "INCLUDED")
        .map(|t| t["toolId"].as_str().unwrap().to_owned())
        .collect();
    (token, kept)
}

fn server_tool_ids(r: &common::Reply) -> BTreeSet<String> {
    r.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_meta"][format!("{NS}/registry")]["toolId"].as_str().unwrap().to_owned())
        .collect()
}

fn mcp_ids(ids: &BTreeSet<String>) -> BTreeSet<String> {
    ids.iter()
        .filter(|id| {
            ["air_quality", "storm_alerts", "travel_tips", "unbound"]
                .iter()
                .any(|n| id.starts_with(n))
        })
        .cloned()
        .collect()
}

#[tokio::test]
async fn each_principal_sees_exactly_what_resolve_grants_it() {
    let s = example_registry().await;
    let (internal, internal_kept) = resolve(&s, "internal-user").await;
    let (external, external_kept) = resolve(&s, "external-user").await;
    assert_ne!(internal_kept, external_kept, "the rules grant them different tools");
    assert!(
        internal_kept.contains("storm_alerts@1.0.0")
            && !external_kept.contains("storm_alerts@1.0.0")
    );
    assert!(
        external_kept.contains("travel_tips@1.0.0") && !internal_kept.contains("travel_tips@1.0.0")
    );

    // servers: exactly the MCP tools resolution kept
    for (token, kept) in [(&internal, &internal_kept), (&external, &external_kept)] {
        let r = get(&s, "/v0.1/servers", token).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(server_tool_ids(&r), mcp_ids(kept));
        assert_eq!(r.body["metadata"]["count"], mcp_ids(kept).len());
        // search: every tool resolution kept that matches, and nothing else
        let found = get(
            &s,
            "/tools/search?q=weather%20city%20storm%20travel%20air%20units&limit=100",
            token,
        )
        .await;
        assert_eq!(found.status, StatusCode::OK, "{}", found.text);
        let ids: BTreeSet<String> = found.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["toolId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(&ids, kept, "search over exactly the granted tools");
    }
    // a role sees every server, the unbound one too
    let all = get(&s, "/v0.1/servers", &s.reader).await;
    assert_eq!(
        server_tool_ids(&all),
        mcp_ids(
            &["air_quality@1.0.0", "storm_alerts@1.0.0", "travel_tips@1.0.0", "unbound@1.0.0"]
                .map(String::from)
                .into()
        )
    );

    // a hidden server is a 404 exactly like one that does not exist
    let hidden =
        get(&s, &format!("/v0.1/servers/{NS}%2Fstorm_alerts/versions/latest"), &external).await;
    let missing =
        get(&s, &format!("/v0.1/servers/{NS}%2Fstorm_alerts_x/versions/latest"), &external).await;
    hidden.assert_problem(404, "NOT_FOUND");
    assert_eq!(hidden.text.replace("storm_alerts", "storm_alerts_x"), missing.text);
    let seen =
        get(&s, &format!("/v0.1/servers/{NS}%2Fstorm_alerts/versions/latest"), &internal).await;
    assert_eq!(seen.status, StatusCode::OK, "{}", seen.text);
    // catalog: the agent card and the servers each may see
    for (token, kept) in [(&internal, &internal_kept), (&external, &external_kept)] {
        let catalog = get(&s, "/.well-known/ai-catalog.json", token).await;
        assert_eq!(catalog.status, StatusCode::OK, "{}", catalog.text);
        let entries = catalog.body["entries"].as_array().unwrap();
        let servers: BTreeSet<String> = entries
            .iter()
            .filter(|e| e["type"] == "application/mcp-server+json")
            .map(|e| e["identifier"].as_str().unwrap().rsplit(':').next().unwrap().to_owned())
            .collect();
        let want: BTreeSet<String> =
            mcp_ids(kept).iter().map(|id| id.split('@').next().unwrap().to_owned()).collect();
        assert_eq!(servers, want);
        assert!(entries.iter().any(|e| e["type"] == "application/a2a-agent-card+json"
            && e["url"] == format!("{}/agent-cards/weather-agent", common::ISSUER)));
        assert!(
            !entries.iter().any(|e| e["identifier"].as_str().unwrap().ends_with(":quiet-agent"))
        );
        // the card's skills are the functions of the tools resolution kept
        let card = get(&s, "/agent-cards/weather-agent", token).await;
        assert_eq!(card.status, StatusCode::OK, "{}", card.text);
        let skills: BTreeSet<String> = card.body["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["id"].as_str().unwrap().split('.').next().unwrap().to_owned())
            .collect();
        let kept_names: BTreeSet<String> =
            kept.iter().map(|id| id.split('@').next().unwrap().replace('-', "_")).collect();
        assert_eq!(skills, kept_names);
    }
    // the quiet agent has no card, for anyone
    let r = get(&s, "/agent-cards/quiet-agent", &s.reader).await;
    r.assert_problem(404, "NOT_FOUND");
    // search scores do not depend on hidden tools: the external user's answer is the
    // same with or without the internal-only tool in the registry
    let q = "/tools/search?q=storm%20weather%20alerts&limit=10";
    let before = get(&s, q, &external).await;
    let mut switched_off = mcp(
        "storm_alerts@1.0.0",
        "storm_alerts",
        "Severe storm alerts for staff operations.",
        Some(json!([{"effect": "deny"}])),
    );
    switched_off["lifecycle"] = json!({"status": "active"});
    apply(&s, "storm_alerts@1.0.0", switched_off).await;
    let after = get(&s, q, &external).await;
    assert_eq!(before.body, after.body);
}

/// The tool ids a principal's search for `q` finds.
async fn found(s: &Server, token: &str, q: &str) -> BTreeSet<String> {
    let r = get(s, &format!("/tools/search?q={q}&limit=100"), token).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["toolId"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_change_to_the_agent_or_a_tools_rules_is_seen_by_the_next_search() {
    let s = example_registry().await;
    let (internal, kept) = resolve(&s, "internal-user").await;
    let q = "weather%20city%20storm%20travel%20air%20units";
    // searched twice: the second answer is the kept grant's, and the same
    let first = found(&s, &internal, q).await;
    assert_eq!(&first, &kept);
    assert_eq!(found(&s, &internal, q).await, first);
    assert!(first.contains("storm_alerts@1.0.0"), "{first:?}");
    // the tool's rules now refuse everyone: the very next search no longer finds it
    let mut refused = mcp(
        "storm_alerts@1.0.0",
        "storm_alerts",
        "Severe storm alerts for staff operations.",
        Some(json!([{"effect": "deny"}])),
    );
    refused["lifecycle"] = json!({"status": "active"});
    apply(&s, "storm_alerts@1.0.0", refused).await;
    let after_rules = found(&s, &internal, q).await;
    assert!(!after_rules.contains("storm_alerts@1.0.0"), "{after_rules:?}");
    assert_eq!(after_rules.len(), first.len() - 1, "{after_rules:?}");
    // the agent drops a tool: the next search no longer finds it either
    let mut agent: Value =
        serde_json::from_str(include_str!("../../../cli/example/weather-agent.json")).unwrap();
    agent["toolIds"].as_array_mut().unwrap().push(json!("storm_alerts@1.0.0"));
    agent["endpoint"] = json!("https://agents.example.com/weather");
    apply(&s, "weather-agent", agent).await;
    let after_agent = found(&s, &internal, q).await;
    assert!(!after_agent.contains("air_quality@1.0.0"), "{after_agent:?}");
    assert!(after_agent.len() < after_rules.len(), "{after_agent:?}");
}

#[tokio::test]
async fn anonymous_discovery_is_off_unless_configured_then_uses_its_context() {
    let settings = registry_api::DiscoverySettings::parse(
        Some("com.example.tools"),
        Some(r#"{"agentId": "a1", "context": {"user": {"userId": "anon", "userType": "external-user"}}}"#),
    )
    .unwrap();
    let s = common::start_with_registry(Default::default(), |r| r.with_discovery(settings)).await;
    apply(&s, "open@1.0.0", mcp("open@1.0.0", "open", "Open to all.", None)).await;
    apply(
        &s,
        "staff@1.0.0",
        mcp(
            "staff@1.0.0",
            "staff",
            "Staff only.",
            Some(json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}])),
        ),
    )
    .await;
    apply(&s, "a1", agent_json("a1", &["open@1.0.0", "staff@1.0.0"])).await;
    let r = get(&s, "/v0.1/servers", "").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let names: Vec<&str> = r.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["server"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["com.example.tools/open"]);
    // a wrong token is still a 401, not anonymous
    get(&s, "/v0.1/servers", "wrong").await.assert_problem(401, "UNAUTHENTICATED");
    assert!(registry_api::DiscoverySettings::parse(Some("bad/ns"), None).is_err());
    assert!(registry_api::DiscoverySettings::parse(None, Some("{\"agentId\": 1}")).is_err());
}

#[tokio::test]
async fn an_agent_endpoint_is_validated() {
    let s = common::start().await;
    let mut agent = agent_json("a1", &[]);
    agent["endpoint"] = json!("http://agents.example.com/a1");
    let r = s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent)).await;
    r.assert_invalid_at("/endpoint");
    agent["endpoint"] = json!("https://agents.example.com/a1");
    s.create_agent(&agent).await;
}

#[tokio::test]
#[ignore = "needs REGISTRY_DISCOVERY_PYTHON (scripts/discovery-validators.sh installs it)"]
async fn answers_pass_the_outside_validators() {
    let python = std::env::var("REGISTRY_DISCOVERY_PYTHON").expect("REGISTRY_DISCOVERY_PYTHON");
    let s = example_registry().await;
    // a deleted (disabled) release, so that include_deleted and updated_since matter
    let since = chrono::Utc::now() - chrono::Duration::seconds(60);
    let mut disabled = mcp("air_quality@0.9.0", "air_quality", "Old air quality.", None);
    disabled["lifecycle"] = json!({"status": "disabled"});
    apply(&s, "air_quality@0.9.0", disabled).await;
    let (internal, _) = resolve(&s, "internal-user").await;
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut judge = |kind: &str, text: &str| {
        let file = dir.path().join(format!("{}.json", files.len()));
        std::fs::write(&file, text).unwrap();
        files.push(format!("{kind}={}", file.display()));
    };
    for (kind, path, token) in [
        ("ServerList", "/v0.1/servers", s.reader.as_str()),
        ("ServerList", "/v0.1/servers?version=latest&include_deleted=true", internal.as_str()),
        ("ServerList", &format!("/v0.1/servers/{NS}%2Fair_quality/versions"), s.reader.as_str()),
        (
            "ServerResponse",
            &format!("/v0.1/servers/{NS}%2Fair_quality/versions/latest"),
            internal.as_str(),
        ),
        ("AgentCard", "/agent-cards/weather-agent", internal.as_str()),
        ("AgentCard", "/agent-cards/weather-agent", s.reader.as_str()),
        ("AICatalog", "/.well-known/ai-catalog.json", s.reader.as_str()),
        ("AICatalog", "/.well-known/ai-catalog.json", internal.as_str()),
        ("ProtectedResource", "/.well-known/oauth-protected-resource", ""),
    ] {
        let r = get(&s, path, token).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
        judge(kind, &r.text);
    }
    // requests and answers of the MCP Registry API, both judged against its operations:
    // list, paging, every filter, versions
    let since = since.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let page = get(&s, "/v0.1/servers?limit=2", &s.reader).await;
    let cursor = page.body["metadata"]["nextCursor"].as_str().unwrap().to_owned();
    let name = format!("{NS}%2Fair_quality");
    let list = "/v0.1/servers".to_owned();
    let versions = format!("/v0.1/servers/{name}/versions");
    for (path, query) in [
        (list.clone(), vec![]),
        (list.clone(), vec![("limit", "2")]),
        (list.clone(), vec![("limit", "2"), ("cursor", cursor.as_str())]),
        (list.clone(), vec![("updated_since", since.as_str())]),
        (list.clone(), vec![("include_deleted", "true"), ("version", "latest")]),
        (list.clone(), vec![("include_deleted", "false")]),
        (list.clone(), vec![("search", "air")]),
        (list.clone(), vec![("version", "0.9.0"), ("include_deleted", "true")]),
        (versions.clone(), vec![]),
        (versions.clone(), vec![("include_deleted", "true")]),
        (format!("{versions}/latest"), vec![]),
        (format!("{versions}/0.9.0"), vec![("include_deleted", "true")]),
        (format!("{versions}/1.0.0"), vec![("include_deleted", "false")]),
    ] {
        let r = s.send(s.req(Method::GET, &path, &s.reader).query(&query)).await;
        assert_eq!(r.status, StatusCode::OK, "{path} {query:?}: {}", r.text);
        let exchange = json!({
            "method": "GET",
            "path": path,
            "query": query.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "status": r.status.as_u16(),
            "contentType": r.content_type(),
            "body": r.body,
        });
        judge("McpRegistryExchange", &exchange.to_string());
    }
    // the issuer's metadata, on a registry whose issuer is an https URL (both specs ask
    // for one)
    let keys_dir = tempfile::tempdir().unwrap().keep();
    let store = std::sync::Arc::new(registry_api::principal_keys::FileKeyStore::in_dir(&keys_dir));
    let settings = registry_api::principal_keys::TokenSettings::new("https://registry.example");
    let keys = std::sync::Arc::new(
        registry_api::principal_keys::PrincipalKeys::open(store, settings).await.unwrap(),
    );
    let https =
        common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    let oidc = get(&https, "/.well-known/openid-configuration", "").await;
    assert_eq!(oidc.status, StatusCode::OK, "{}", oidc.text);
    judge("OpenIDConfiguration", &oidc.text);
    let resource = get(&https, "/.well-known/oauth-protected-resource", "").await;
    assert_eq!(resource.body["resource"], "https://registry.example");
    judge("ProtectedResource", &resource.text);

    let schemas = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemas");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemas/validate.py");
    let out =
        std::process::Command::new(python).arg(script).arg(schemas).args(&files).output().unwrap();
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    assert_eq!(report.matches("valid ").count(), files.len(), "{report}");
    for kind in ["McpRegistryExchange", "AICatalog", "OpenIDConfiguration", "ProtectedResource"] {
        assert!(report.contains(&format!("valid {kind} ")), "{kind} judged: {report}");
    }
}

#[tokio::test]
async fn the_ai_catalog_is_an_ai_catalog_document_with_absolute_urls() {
    let s = example_registry().await;
    let r = get(&s, "/.well-known/ai-catalog.json", &s.reader).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.content_type(), "application/ai-catalog+json");
    assert_eq!(r.body["specVersion"], "1.0");
    let entries = r.body["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    for entry in entries {
        let url = entry["url"].as_str().unwrap();
        assert!(url.starts_with(&format!("{}/", common::ISSUER)), "{url}");
        // each URL answers the document it names
        let path = url.strip_prefix(common::ISSUER).unwrap();
        let doc = get(&s, path, &s.reader).await;
        assert_eq!(doc.status, StatusCode::OK, "{url}: {}", doc.text);
    }
    // without an issuer, the request's host
    let plain = common::start().await;
    apply(&plain, "a@1.0.0", mcp("a@1.0.0", "a", "A.", None)).await;
    let r = get(&plain, "/.well-known/ai-catalog.json", &plain.reader).await;
    let url = r.body["entries"][0]["url"].as_str().unwrap();
    assert_eq!(url, format!("{}/v0.1/servers/{NS}%2Fa/versions/latest", plain.base), "{}", r.text);
}

#[tokio::test]
async fn discovery_publishes_protected_resource_metadata_and_names_it_on_a_401() {
    let s = example_registry().await;
    let metadata_url = format!("{}/.well-known/oauth-protected-resource", common::ISSUER);
    for path in ["/v0.1/servers", "/.well-known/ai-catalog.json", "/agent-cards/weather-agent"] {
        for token in ["", "not-a-token"] {
            let r = get(&s, path, token).await;
            r.assert_problem(401, "UNAUTHENTICATED");
            let challenge = r.headers["www-authenticate"].to_str().unwrap();
            assert!(challenge.starts_with("Bearer "), "{challenge}");
            assert!(
                challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
                "{path}: {challenge}"
            );
        }
    }
    let r = get(&s, "/.well-known/oauth-protected-resource", "").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["resource"], common::ISSUER);
    assert_eq!(r.body["authorization_servers"], json!([common::ISSUER]));
    assert_eq!(r.body["bearer_methods_supported"], json!(["header"]));
    // the issuer the metadata names publishes its OpenID configuration
    let oidc = get(&s, "/.well-known/openid-configuration", "").await;
    assert_eq!(oidc.body["issuer"], r.body["authorization_servers"][0]);
    // hostile callers: other methods, a garbage host, a huge query
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
        let r = s.send(s.req(method.clone(), "/.well-known/oauth-protected-resource", "")).await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method}: {}", r.text);
    }
    let r =
        get(&s, &format!("/.well-known/oauth-protected-resource?x={}", "a".repeat(9000)), "").await;
    assert!(r.status == StatusCode::OK || r.status == StatusCode::URI_TOO_LONG, "{}", r.text);
    let r = s
        .send(
            s.req(Method::GET, "/.well-known/oauth-protected-resource", "")
                .header("X-Big", "b".repeat(70_000)),
        )
        .await;
    r.assert_problem(431, "HEADERS_TOO_LARGE");
    // any token, even a wrong one, reads the same public document
    for token in [s.reader.as_str(), "not-a-token"] {
        let r = get(&s, "/.well-known/oauth-protected-resource", token).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.body["resource"], common::ISSUER);
    }
    let plain = common::start().await;
    let r = plain
        .send(
            plain
                .req(Method::GET, "/.well-known/oauth-protected-resource", "")
                .header("Host", "evil\"host"),
        )
        .await;
    assert!(r.status.is_client_error() || r.body["resource"] == "http://localhost", "{}", r.text);
    let r = plain.send(plain.req(Method::GET, "/v0.1/servers", "")).await;
    let challenge = r.headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            plain.base
        )),
        "{challenge}"
    );
}
