//! Create, read, update and version history.

use std::sync::Arc;

use registry_core::{Definition, Kind};
use serde_json::json;

use super::sample::with_description;
use super::sample::{agent, agent_from, agent_json, description, tool, tool_from, tool_json};
use crate::{Expected, ListQuery, Store, StoreError};

/// Definitions come back exactly as written: odd map keys byte for byte, the MCP client
/// secret kept, server fields other than `version` untouched, `version` set by the store.
pub async fn round_trip_keeps_keys_and_secrets(store: Arc<dyn Store>) {
    let odd_keys = json!({
        "beta-only": "yes",
        "a/b": "slash",
        "~0~1": "tilde",
        "ünïcödé-κλειδί-鍵": "unicode ✓",
        "with space": "",
        "UPPER.lower_mixed:1": "x"
    });
    let mut mcp = tool_json("mcp-tool");
    mcp["executionType"] = json!("mcp");
    mcp["url"] = json!("https://mcp.example.com/sse");
    mcp["auth"] = json!({
        "clientId": "client",
        "clientSecret": "s3cr3t-value",
        "tokenUrl": "https://auth.example.com/token"
    });
    mcp["tags"] = odd_keys.clone();
    mcp["functionSchema"][0]["parameters"]["a/b~c ü"] =
        json!({ "description": "odd", "type": "string" });
    mcp["version"] = json!(99);
    mcp["createdBy"] = json!("alice");
    mcp["createdAt"] = json!("2025-01-02T03:04:05.123456789Z");
    mcp.as_object_mut().expect("object").remove("lambdaArn");
    let input = tool_from(mcp);

    let stored = store.put(input.clone(), Expected::Absent).await.expect("create tool");
    assert_eq!(stored.version(), 1, "the store assigns version 1, ignoring the body");
    let mut expected = input;
    expected.server_mut().version = Some(1);
    assert_eq!(stored, expected, "put returns the definition as stored");
    let read = store.get(Kind::Tool, "mcp-tool").await.expect("get").expect("tool exists");
    assert_eq!(read, expected, "get returns exactly what was written");
    let Definition::Tool(t) = &read else { panic!("a tool comes back as a tool") };
    let secret = t.auth.as_ref().and_then(|a| a.client_secret.as_ref()).expect("secret kept");
    assert_eq!(secret.expose(), "s3cr3t-value");
    let tags = serde_json::to_value(t.tags.as_ref().expect("tags kept")).expect("json");
    assert_eq!(tags, odd_keys, "tag keys and values byte for byte");

    let mut agent_value = agent_json("weather-agent", &["mcp-tool"]);
    agent_value["tags"] = odd_keys.clone();
    agent_value["rolloutPolicy"] = json!({
        "toolOverrides": { "weather-basic@1": "mcp-tool", "a/b~ü": "mcp-tool" },
        "percentage": 12.5,
        "betaAccounts": ["123456789012"]
    });
    let input = agent_from(agent_value);
    let stored = store.put(input.clone(), Expected::Absent).await.expect("create agent");
    let read = store.get(Kind::Agent, "weather-agent").await.expect("get").expect("agent exists");
    assert_eq!(read, stored);
    let json = serde_json::to_value(&read).expect("json");
    let overrides = &json["definition"]["rolloutPolicy"]["toolOverrides"];
    assert_eq!(overrides["weather-basic@1"], json!("mcp-tool"));
    assert_eq!(overrides["a/b~ü"], json!("mcp-tool"));
    assert_eq!(json["definition"]["tags"], odd_keys);
    let snapshot = store.version(Kind::Agent, "weather-agent", 1).await.expect("version");
    assert_eq!(snapshot.as_ref(), Some(&stored), "the snapshot equals the head");
}

/// Versions start at 1 and go up by one per write.
pub async fn versions_start_at_one_and_increment(store: Arc<dyn Store>) {
    let v1 = store.put(tool("t1"), Expected::Absent).await.expect("create");
    assert_eq!(v1.version(), 1);
    let v2 = store
        .put(with_description(v1.clone(), "second"), Expected::Version(1))
        .await
        .expect("update");
    assert_eq!(v2.version(), 2);
    let v3 = store.put(v2.clone(), Expected::Version(2)).await.expect("identical update");
    assert_eq!(v3.version(), 3, "the store writes every put; idempotency is the caller's job");
    let head = store.get(Kind::Tool, "t1").await.expect("get").expect("exists");
    assert_eq!(head.version(), 3);
    assert_eq!(description(&head), "second");
}

/// Creating over a live definition fails with the live version.
pub async fn create_twice_is_already_exists(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("create");
    store.put(tool("t1"), Expected::Version(1)).await.expect("update");
    let err = store.put(tool("t1"), Expected::Absent).await.expect_err("second create");
    assert!(matches!(err, StoreError::AlreadyExists { current: 2 }), "got {err:?}");
    let head = store.get(Kind::Tool, "t1").await.expect("get").expect("exists");
    assert_eq!(head.version(), 2, "a refused write changes nothing");
}

/// Writes with a stale or unknown expected version fail and change nothing.
pub async fn stale_version_is_mismatch(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("create");
    store.put(with_description(tool("t1"), "v2"), Expected::Version(1)).await.expect("update");
    let err = store
        .put(with_description(tool("t1"), "stale"), Expected::Version(1))
        .await
        .expect_err("stale");
    assert!(
        matches!(err, StoreError::VersionMismatch { expected: 1, current: Some(2) }),
        "got {err:?}"
    );
    let err = store.put(tool("t1"), Expected::Version(7)).await.expect_err("future version");
    assert!(matches!(err, StoreError::VersionMismatch { expected: 7, current: Some(2) }));
    let err = store.put(tool("nope"), Expected::Version(1)).await.expect_err("missing");
    assert!(
        matches!(err, StoreError::VersionMismatch { expected: 1, current: None }),
        "got {err:?}"
    );
    assert!(store.get(Kind::Tool, "nope").await.expect("get").is_none());
    let head = store.get(Kind::Tool, "t1").await.expect("get").expect("exists");
    assert_eq!(description(&head), "v2");
}

/// A version snapshot never changes after later updates.
pub async fn snapshots_never_change(store: Arc<dyn Store>) {
    let v1 = store.put(with_description(tool("t1"), "first"), Expected::Absent).await.expect("v1");
    let v2 =
        store.put(with_description(tool("t1"), "second"), Expected::Version(1)).await.expect("v2");
    store.put(with_description(tool("t1"), "third"), Expected::Version(2)).await.expect("v3");
    assert_eq!(store.version(Kind::Tool, "t1", 1).await.expect("v1"), Some(v1));
    assert_eq!(store.version(Kind::Tool, "t1", 2).await.expect("v2"), Some(v2));
    let v3 = store.version(Kind::Tool, "t1", 3).await.expect("v3").expect("v3 exists");
    assert_eq!(description(&v3), "third");
    assert_eq!(store.version(Kind::Tool, "t1", 4).await.expect("v4"), None);
    assert_eq!(store.version(Kind::Tool, "t1", 0).await.expect("v0"), None);
    assert_eq!(store.version(Kind::Tool, "t1", u64::MAX).await.expect("huge"), None);
    assert_eq!(store.version(Kind::Agent, "t1", 1).await.expect("other kind"), None);
}

/// History pages come oldest first, with a cursor only while more remain.
pub async fn versions_page_oldest_first(store: Arc<dyn Store>) {
    store.put(with_description(tool("t1"), "d1"), Expected::Absent).await.expect("create");
    for v in 1..7u64 {
        let next = with_description(tool("t1"), &format!("d{}", v + 1));
        store.put(next, Expected::Version(v)).await.expect("update");
    }
    let mut query = ListQuery { limit: 3, ..ListQuery::default() };
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = store.versions(Kind::Tool, "t1", &query).await.expect("versions");
        pages += 1;
        assert!(page.items.len() <= 3);
        seen.extend(page.items.iter().map(|d| (d.version(), description(d).to_owned())));
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
        assert!(pages < 10, "paging does not end");
    }
    assert_eq!(pages, 3);
    let expected: Vec<_> = (1..=7u64).map(|v| (v, format!("d{v}"))).collect();
    assert_eq!(seen, expected);

    let exact = ListQuery { limit: 7, ..ListQuery::default() };
    let page = store.versions(Kind::Tool, "t1", &exact).await.expect("one page");
    assert_eq!(page.items.len(), 7);
    assert_eq!(page.next_cursor, None, "no cursor when nothing remains");

    let none = store.versions(Kind::Tool, "never", &ListQuery::default()).await.expect("empty");
    assert!(none.items.is_empty());
    assert_eq!(none.next_cursor, None);
}

/// Agents and tools with the same id are different definitions.
pub async fn kinds_are_separate(store: Arc<dyn Store>) {
    store.put(tool("same"), Expected::Absent).await.expect("tool");
    assert!(store.get(Kind::Agent, "same").await.expect("get").is_none());
    let agent = store.put(agent("same", &["same"]), Expected::Absent).await.expect("agent");
    assert_eq!(agent.version(), 1, "the agent has its own numbering");
    assert_eq!(store.get(Kind::Agent, "same").await.expect("get"), Some(agent));
    let listed = store.list(Kind::Tool, &ListQuery::default()).await.expect("list");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].kind(), Kind::Tool);
}
