//! Helpers shared by the end-to-end tests: a stack driving the custom-resource binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use registry_e2e::events::{self, Request, cfn};
use registry_e2e::{Answer, Lambda, Put, ResponseUrl, Table};
use serde_json::Value;

/// Resource type of a tool.
pub const TOOL: &str = "Custom::AgentRegistryTool";
/// Resource type of an agent.
pub const AGENT: &str = "Custom::AgentRegistryAgent";
/// The role map of the admin API (the example one).
pub const ROLE_MAP: &str = include_str!("../../../functions/admin-api/role-map.example.json");
/// An admin of the example role map.
pub const ADMIN: &str = "arn:aws:sts::123456789012:assumed-role/RegistryAdmin/jane";
/// A reader of the example role map.
pub const READER: &str = "arn:aws:iam::123456789012:user/auditor";

/// A fixture of `tests/events/`.
pub fn fixture(name: &str) -> Value {
    let path = format!("{}/events/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The tool's template properties (every scalar a string, as CloudFormation sends them).
pub fn tool() -> Value {
    fixture("tool-properties.json")
}

/// The agent's template properties.
pub fn agent() -> Value {
    fixture("agent-properties.json")
}

/// CloudFormation, as far as the custom resource sees it.
pub struct Stack {
    /// The custom-resource function.
    pub function: Lambda,
    /// Where responses are PUT.
    pub urls: ResponseUrl,
    next: AtomicU32,
}

/// One request sent and the response PUT for it.
pub struct Sent {
    /// The event sent (for redelivery).
    pub event: Value,
    /// The response URL's name.
    pub name: String,
    /// The PUT recorded.
    pub put: Put,
}

impl Stack {
    /// The custom-resource binary on `table`.
    pub async fn start(table: &Table) -> Self {
        Self::with_env(table, &[]).await
    }

    /// The custom-resource binary on `table` with extra environment.
    pub async fn with_env(table: &Table, env: &[(&str, &str)]) -> Self {
        Self {
            function: Lambda::start("custom-resource", table, env).await,
            urls: ResponseUrl::start().await,
            next: AtomicU32::new(0),
        }
    }

    /// Sends a request with a 30 s deadline and returns the response PUT for it.
    pub async fn send(
        &self,
        request_type: &str,
        resource_type: &str,
        logical_id: &str,
        properties: &Value,
        physical_id: Option<&str>,
        old_properties: Option<&Value>,
    ) -> Sent {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let name = format!("responses/{logical_id}-{n}");
        let request_id = format!("req-{n}-7f3c9a2e-1b4d-4e8a-9c61");
        let response_url = self.urls.url(&name);
        let event = cfn(&Request {
            request_type,
            request_id: &request_id,
            response_url: &response_url,
            resource_type,
            logical_id,
            properties,
            physical_id,
            old_properties,
        });
        self.redeliver(&event, &name).await
    }

    /// Delivers `event` again (CloudFormation retries with the same request); `name` is
    /// its response URL's name.
    pub async fn redeliver(&self, event: &Value, name: &str) -> Sent {
        let before = self.urls.puts(name).len();
        let answer = self.function.invoke(event, Duration::from_secs(30)).await;
        assert!(matches!(answer, Answer::Response(_)), "{answer:?}\n{}", self.function.log());
        let puts = self.urls.puts(name);
        assert_eq!(puts.len(), before + 1, "one PUT per request\n{}", self.function.log());
        Sent { event: event.clone(), name: name.to_owned(), put: puts[before].clone() }
    }

    /// Create, expecting SUCCESS.
    pub async fn create(&self, resource_type: &str, logical_id: &str, props: &Value) -> Sent {
        let sent = self.send("Create", resource_type, logical_id, props, None, None).await;
        assert_success(&sent.put);
        sent
    }
}

/// Asserts a SUCCESS response.
pub fn assert_success(put: &Put) {
    assert_eq!(put.body["Status"], "SUCCESS", "{}", put.body);
}

/// Asserts a FAILED response and returns its reason.
pub fn assert_failed(put: &Put) -> String {
    assert_eq!(put.body["Status"], "FAILED", "{}", put.body);
    put.body["Reason"].as_str().unwrap().to_owned()
}

/// The admin API binary on `table` with the example role map.
pub async fn admin_api(table: &Table) -> Lambda {
    Lambda::start(
        "admin-api",
        table,
        &[("REGISTRY_ROLE_MAP", ROLE_MAP), ("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true")],
    )
    .await
}

/// Calls the admin API as `who`; returns status and JSON body.
pub async fn api(
    api: &Lambda,
    method: &str,
    path: &str,
    body: Option<&Value>,
    who: &str,
) -> (u64, Value) {
    let response = api.call(&events::http(method, path, body, who)).await;
    events::http_reply(&response)
}
