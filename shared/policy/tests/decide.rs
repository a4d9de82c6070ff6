//! `decide` on real counters (a SQLite store): the order of its stages, and what a
//! point that cannot count gets for a call that needs counting.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use registry_access::{DecisionPoint, Effect, PreparedContext, RequestContext, ToolCall};
use registry_core::{AgentDefinition, ToolDefinition};
use registry_policy::Known;
use registry_policy::{
    Budget, CallDecision, CallRequest, Counting, Reason, Stage, ToolRules, counts_calls, decide,
};
use registry_store_sqlite::SqliteStore;
use serde_json::{Map, Value, json};

fn tool(extra: Value) -> ToolDefinition {
    let mut tool = json!({
        "toolId": "refund@1.0.0", "name": "refund", "executionType": "lambda",
        "description": "Refunds an order.",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:refund",
        "functionSchema": [{"name": "issue_refund", "description": "Refunds.",
            "parameters": {"amount": {"type": "number", "description": "USD", "required": true}}}],
        "accessRules": [{"id": "staff", "effect": "allow", "condition": "'staff' in user.roles"}],
        "callRules": [
            {"id": "cap", "effect": "deny", "condition": "call.arguments.amount > 500.0",
             "description": "Refunds over 500 need a human"},
            {"id": "allow", "effect": "allow"}
        ]
    });
    tool.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    serde_json::from_value(tool).unwrap()
}

fn agent() -> AgentDefinition {
    serde_json::from_value(json!({
        "agentId": "support", "basePrompt": "p", "toolIds": ["refund@1.0.0"],
        "limits": {"maxToolCalls": 1}
    }))
    .unwrap()
}

async fn run(
    tool: &ToolDefinition,
    roles: &[&str],
    amount: f64,
    counting: Counting<'_>,
) -> CallDecision {
    let rules = ToolRules::compile(tool).unwrap();
    let context: RequestContext =
        serde_json::from_value(json!({"user": {"userId": "u-1", "roles": roles}})).unwrap();
    let mut prepared = PreparedContext::new(&context).unwrap();
    let arguments: Map<String, Value> = json!({"amount": amount}).as_object().unwrap().clone();
    let call = ToolCall { function: "issue_refund", http_method: None, arguments: &arguments };
    let request = CallRequest {
        tool,
        rules: &rules,
        context: &mut prepared,
        call,
        grant: None,
        explain: false,
        now_ms: 1_700_000_000_000,
    };
    decide(request, counting).await.unwrap()
}

#[tokio::test]
async fn stages_decide_in_order_and_a_session_budget_is_spent_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("registry.db")).unwrap();
    let (known, agent) = (Known::default(), agent());
    let budget = Budget {
        counters: &store,
        known: &known,
        session: Some(("session#support#s-1", Some(&agent))),
    };
    let live = tool(json!({}));
    let disabled = tool(json!({"lifecycle": {"status": "disabled"}}));

    let off = run(&disabled, &["staff"], 5.0, Counting::In(budget)).await;
    assert_eq!(
        (off.stage, off.reason),
        (Stage::Lifecycle, Reason::SwitchedOff(registry_core::LifecycleStatus::Disabled))
    );
    assert_eq!(off.reason_code(DecisionPoint::Guard), "TOOL_SWITCHED_OFF");
    assert_eq!(off.reason_code(DecisionPoint::Authorize), "DISABLED");

    let stranger = run(&live, &[], 5.0, Counting::In(budget)).await;
    assert_eq!((stranger.effect, stranger.stage), (Effect::Deny, Stage::Access));
    assert_eq!(
        stranger.why(&live).unwrap(),
        "the tool is not granted to this principal: no rule allows it"
    );

    let capped = run(&live, &["staff"], 900.0, Counting::In(budget)).await;
    assert_eq!((capped.stage, capped.rule_id.as_deref()), (Stage::Call, Some("cap")));
    assert_eq!(capped.why(&live).unwrap(), "Refunds over 500 need a human (rule `cap`)");

    let first = run(&live, &["staff"], 5.0, Counting::In(budget)).await;
    assert_eq!((first.effect, first.stage), (Effect::Allow, Stage::Call));
    assert_eq!(first.session.as_ref().map(|s| s.calls), Some(1), "the denied call counted nothing");

    let second = run(&live, &["staff"], 5.0, Counting::In(budget)).await;
    assert_eq!(
        (second.effect, second.stage, second.limit),
        (Effect::Deny, Stage::Limit, Some("maxToolCalls"))
    );
    let record = second.record(DecisionPoint::Authorize, registry_policy::Stamp::at(0));
    assert_eq!(
        (record.reason.as_str(), record.stage, record.limit.as_deref()),
        ("LIMIT", Some("limit"), Some("maxToolCalls"))
    );
}

#[tokio::test]
async fn a_point_that_cannot_count_refuses_what_needs_counting_and_decides_the_rest() {
    let agent = agent();
    let rated = tool(json!({"rateLimit": {"calls": 5, "perSeconds": 60, "key": "principal"}}));
    let plain = tool(json!({}));
    let rules = |t: &ToolDefinition| ToolRules::compile(t).unwrap();
    assert!(counts_calls(&rated, &rules(&rated), None));
    assert!(counts_calls(&plain, &rules(&plain), Some(&agent)));
    assert!(!counts_calls(&plain, &rules(&plain), None));

    let refused = Counting::Refused {
        reason: Reason::BudgetsUnavailable,
        message: "no session store".into(),
    };
    let denied = run(&rated, &["staff"], 5.0, refused.clone()).await;
    assert_eq!(
        (denied.effect, denied.stage, denied.reason),
        (Effect::Deny, Stage::Limit, Reason::BudgetsUnavailable)
    );
    assert_eq!(denied.why(&rated).unwrap(), "the session's budget cannot be checked right now");
    // what the point cannot count never hides an earlier stage's refusal
    assert_eq!(run(&rated, &[], 5.0, refused).await.stage, Stage::Access);
    let decided = run(&plain, &["staff"], 5.0, Counting::Uncounted).await;
    assert_eq!((decided.effect, decided.rule_id.as_deref()), (Effect::Allow, Some("allow")));
}
