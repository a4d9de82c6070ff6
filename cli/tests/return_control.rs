#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A chat runtime authorizing the calls Bedrock returned to it, before running them,
//! against the built `serve` (`POST /tools/{toolId}/authorize` over real HTTP), and in
//! process on the same tool definition: the same decisions, and result entries that say
//! why a call is not run.

mod common;

use bedrock_action_group::parse_return_control;
use bedrock_action_group::return_control::{
    ApiAuthorizer, ApiTransport, AuthorizeError, Authorizer, authorize,
};
use common::{Serve, serve};
use registry_guard::RuleSetAuthorizer;
use reqwest::Method;
use serde_json::{Value, json};

/// The runtime's HTTP client: the registry API with its token.
struct Http<'a>(&'a Serve);

impl ApiTransport for Http<'_> {
    async fn post_json(&self, path: &str, body: &Value) -> Result<(u16, Value), AuthorizeError> {
        Ok(self.0.call(Method::POST, path, Some(&self.0.token), Some(body.clone())).await)
    }
}

const TOOL: &str = "convert_units@1.0.0";

/// What the InvokeInlineAgent event stream returned: two calls of `convert`.
fn returned() -> Vec<bedrock_action_group::ControlCall> {
    let call = |value: &str| {
        json!({"functionInvocationInput": {"actionGroup": "convert_units", "function": "convert",
            "actionInvocationType": "RESULT",
            "parameters": [{"name": "value", "type": "number", "value": value},
                           {"name": "from", "type": "string", "value": "km"},
                           {"name": "to", "type": "string", "value": "mi"}]}})
    };
    let payload =
        json!({"invocationId": "inv-1", "invocationInputs": [call("5"), call("2000000000")]});
    parse_return_control(&payload).unwrap().calls
}

#[tokio::test]
async fn returned_calls_are_authorized_by_the_registry_before_they_run() {
    let s = serve(None, &[]);
    s.healthy().await;
    // serve registers its example on first start, convert_units@1.0.0 among it
    let context = json!({"user": {"userId": "alice", "userType": "internal-user"}});
    let calls = returned();

    let api = ApiAuthorizer::new(Http(&s));
    let allowed = authorize(&api, TOOL, &context, &calls[0]).await.unwrap();
    assert_eq!(allowed.rule_id.as_deref(), Some("allow-calls"));
    let refused = authorize(&api, TOOL, &context, &calls[1]).await.unwrap_err();
    let result = refused.result.as_json();
    assert_eq!(result["functionResult"]["responseState"], "REPROMPT", "{result}");
    assert_eq!(
        result["functionResult"]["responseBody"]["TEXT"]["body"],
        "The call to `convert` is not permitted: denied by rule `no-huge-values`."
    );
    // the decision lines come from serve's writer thread
    s.wait_for_line("decisionId", |l| l["ruleId"] == "no-huge-values").await;
    let lines = s.json_lines_with("decisionId");
    let points: Vec<_> = lines.iter().filter(|l| l["point"] == "authorize").collect();
    assert_eq!(points.len(), 2, "one decision line per authorize: {lines:?}");
    assert_eq!(points[0]["outcome"], "would-deny", "metric-only is log-only: {}", points[0]);

    // In process on the definition the registry serves: the same decisions.
    let (status, served) =
        s.call(Method::GET, &format!("/tools/{TOOL}"), Some(&s.token), None).await;
    assert_eq!(status, 200, "{served}");
    let local = RuleSetAuthorizer::new(serde_json::from_value(served).unwrap()).unwrap();
    for (call, remote) in calls.iter().zip([Some("allow-calls"), Some("no-huge-values")]) {
        let decided = local.authorize(TOOL, &context, call).await.unwrap();
        assert_eq!(decided.rule_id.as_deref(), remote);
        assert_eq!(decided.allowed, remote == Some("allow-calls"));
    }
}
