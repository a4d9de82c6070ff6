//! The AgentCore Gateway interceptor (`functions/gateway-interceptor`) under a local
//! Lambda Runtime API, its tools and agent in a registry table on the local DynamoDB-API
//! server (seeded with the registry's own store code), fed events in the shapes of
//! AgentCore's developer guide: REQUEST `tools/call` with arguments, RESPONSE `tools/list`
//! answers, with and without the passed headers, and events no gateway sends. Every
//! output must be a valid interceptor output document (`registry_e2e::agentcore`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_e2e::agentcore::{
    self, error_code, headers, output_problem, request_event, response_event, rpc, tool_error,
    tools_call, tools_list_answer,
};
use registry_e2e::principal::{self, guard_env, now_s, other_ring, ring};
use registry_e2e::{Lambda, Table};
use registry_store::{Expected, Store};
use serde_json::{Value, json};

const BINARY: &str = "gateway-interceptor";
const POINT: &str = "gateway-interceptor";
const AGENT: &str = "support-agent";
const REFUND: &str = "refunds___issue_refund";
const CONVERT: &str = "units___convert";
const HR: &str = "hr___lookup_employee";

/// The refund tool of docs/call-policy.md, the unit converter (target `units`), a tool
/// only HR staff get (target `hr`), and the support agent (two tool calls a session).
fn definitions() -> (Vec<ToolDefinition>, AgentDefinition) {
    let refunds: ToolDefinition =
        serde_json::from_str(include_str!("../../cli/example/refunds.json")).unwrap();
    let mut units: Value =
        serde_json::from_str(include_str!("../../cli/example/convert-units.json")).unwrap();
    units["tags"]["gateway-target"] = json!("units");
    let hr = json!({
        "toolId": "hr@1.0.0", "executionType": "lambda", "name": "hr",
        "displayName": "HR", "description": "Looks up employees.",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:hr",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{"name": "lookup_employee", "description": "Looks one up.",
            "parameters": {"employeeId": {"type": "string", "description": "Who", "required": true}}}],
        "accessRules": [{"id": "hr-only", "effect": "allow", "condition": "'hr' in user.roles"}],
        "tags": {"gateway-target": "hr"}
    });
    let mut agent: Value =
        serde_json::from_str(include_str!("../../cli/example/support-agent.json")).unwrap();
    agent["toolIds"] = json!(["refunds@1.0.0", "convert_units@1.0.0", "hr@1.0.0"]);
    let tools =
        vec![refunds, serde_json::from_value(units).unwrap(), serde_json::from_value(hr).unwrap()];
    (tools, serde_json::from_value(agent).unwrap())
}

async fn seeded() -> Table {
    let store = registry_store_dynamodb::local::fresh_store("icpt").await.unwrap();
    let (tools, agent) = definitions();
    for tool in tools {
        store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
    }
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
    let endpoint = registry_store_dynamodb::local::endpoint().unwrap().to_owned();
    Table { name: store.table().to_owned(), endpoint }
}

/// The interceptor on `table`, verifying the tests' registry's tokens, plus `env`.
async fn interceptor(table: &Table, env: &[(&str, &str)]) -> Lambda {
    let mut all = guard_env().to_vec();
    all.extend_from_slice(env);
    Lambda::start(BINARY, table, &all).await
}

/// The registry's principal token for a user with `roles`, in `session`.
fn token(user: &str, roles: &[&str], session: &str) -> String {
    let context = json!({"user": {"userId": user, "roles": roles}});
    principal::issue(ring(), AGENT, &context, session, now_s() + 3_600)
}

fn refund(amount: f64) -> Value {
    json!({"amount": amount, "currency": "USD", "orderId": "o-1"})
}

/// Invokes with `event`; the output, checked to be a valid output document.
async fn call(lambda: &Lambda, event: &Value) -> Value {
    let output = lambda.call(event).await;
    if let Some(problem) = output_problem(&output) {
        panic!("not a valid interceptor output ({problem}): {output}\nfor {event}");
    }
    let members = output["mcp"].as_object().map(serde_json::Map::len);
    assert_eq!(members, Some(1), "one transformed member: {output}");
    output
}

/// Whether `output` sends `event`'s request on unchanged but for the caller's
/// `Authorization` header, which the target never gets.
fn passed_on(output: &Value, event: &Value) -> bool {
    let mut expected = event["mcp"]["gatewayRequest"].clone();
    if let Some(headers) = expected.get_mut("headers").and_then(Value::as_object_mut) {
        headers.retain(|name, _| !name.eq_ignore_ascii_case("authorization"));
    }
    output["mcp"].get("transformedGatewayRequest") == Some(&expected)
}

/// The last decision line, and how many there are.
fn last_line(lambda: &Lambda) -> (Value, usize) {
    let lines = lambda.decision_lines(POINT);
    (lines.last().cloned().unwrap_or(Value::Null), lines.len())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_refund_example_decides_as_the_call_policy_docs_say() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let support = |session: &str| token("u-1", &["support"], session);

    // allowed: the request goes on to the target as it came
    let token_a = support("s-allow");
    let event = request_event(
        &tools_call(json!(1), REFUND, refund(50.0)),
        Some(&headers(Some(&token_a), None)),
    );
    let output = call(&lambda, &event).await;
    assert!(passed_on(&output, &event), "{output}");
    let (line, _) = last_line(&lambda);
    assert_eq!(
        (line["effect"].as_str(), line["outcome"].as_str()),
        (Some("allow"), Some("allow")),
        "{line}"
    );
    assert_eq!(line["ruleId"], "allow");
    assert_eq!(line["toolId"], "refunds@1.0.0");
    assert_eq!(line["agentId"], AGENT);
    assert_eq!(line["principalId"], "u-1");

    // denied by a rule: a tool error naming it, with the request's id; the target is not called
    let token_b = support("s-deny");
    let event = request_event(
        &tools_call(json!("r-2"), REFUND, refund(-5.0)),
        Some(&headers(Some(&token_b), None)),
    );
    let output = call(&lambda, &event).await;
    let text = tool_error(&output).unwrap_or_else(|| panic!("no tool error: {output}"));
    assert!(text.contains("refund-positive"), "{text}");
    assert!(!text.contains('\n'), "one line: {text}");
    assert_eq!(output["mcp"]["transformedGatewayResponse"]["statusCode"], 200);
    assert_eq!(output["mcp"]["transformedGatewayResponse"]["body"]["id"], "r-2");
    let (line, _) = last_line(&lambda);
    assert_eq!(
        (line["effect"].as_str(), line["ruleId"].as_str()),
        (Some("deny"), Some("refund-positive")),
        "{line}"
    );

    // log-only: allowed, and the line says it would have been denied
    let token_c = support("s-log-only");
    let event = request_event(
        &tools_call(json!(3), REFUND, refund(300.0)),
        Some(&headers(Some(&token_c), None)),
    );
    let output = call(&lambda, &event).await;
    assert!(passed_on(&output, &event), "{output}");
    let (line, _) = last_line(&lambda);
    assert_eq!(
        (line["effect"].as_str(), line["outcome"].as_str()),
        (Some("allow"), Some("would-deny")),
        "{line}"
    );
    assert_eq!(line["wouldBeRuleId"], "review-large-refunds", "{line}");

    // a user who may list the tool but not call it
    let trainee = token("u-2", &["support", "trainee"], "s-trainee");
    let event = request_event(
        &tools_call(json!(4), REFUND, refund(10.0)),
        Some(&headers(Some(&trainee), None)),
    );
    let output = call(&lambda, &event).await;
    assert!(tool_error(&output).unwrap().contains("no-trainee-refunds"), "{output}");

    // the metric lines: EMF in the guard's namespace
    for line in lambda.decision_lines(POINT) {
        assert_eq!(
            line["_aws"]["CloudWatchMetrics"][0]["Namespace"], "AgentRegistry/Decisions",
            "{line}"
        );
        // the arguments' values (300, "o-1"), not digits of a time or an id that happen to match
        let values = [json!("o-1"), json!("USD"), json!(300.0), json!(300)];
        assert!(
            !holds_any(&line, &values) && line.get("arguments").is_none(),
            "no argument values: {line}"
        );
    }
}

/// Whether any value in `value` (at any depth) is one of `values`.
fn holds_any(value: &Value, values: &[Value]) -> bool {
    values.contains(value)
        || match value {
            Value::Array(items) => items.iter().any(|v| holds_any(v, values)),
            Value::Object(members) => members.values().any(|v| holds_any(v, values)),
            _ => false,
        }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_budget_runs_out_on_the_third_call_of_a_session() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let session = "s-budget";
    let bearer = token("u-3", &["support"], session);
    let headers = headers(Some(&bearer), Some(session));
    for n in 1..=2 {
        let event = request_event(&tools_call(json!(n), REFUND, refund(10.0)), Some(&headers));
        let output = call(&lambda, &event).await;
        assert!(passed_on(&output, &event), "call {n}: {output}");
    }
    let event = request_event(&tools_call(json!(3), REFUND, refund(10.0)), Some(&headers));
    let output = call(&lambda, &event).await;
    let text =
        tool_error(&output).unwrap_or_else(|| panic!("the third call went through: {output}"));
    assert!(text.contains("used its 2 tool calls"), "{text}");
    let (line, _) = last_line(&lambda);
    assert_eq!(
        (line["effect"].as_str(), line["stage"].as_str()),
        (Some("deny"), Some("limit")),
        "{line}"
    );
    assert_eq!(line["limit"], "maxToolCalls", "{line}");
    assert_eq!(line["sessionId"], session, "{line}");
    // another session of the same user starts from zero
    let other = token("u-3", &["support"], "s-budget-2");
    let event = request_event(
        &tools_call(json!(4), REFUND, refund(10.0)),
        Some(&agentcore::headers(Some(&other), None)),
    );
    assert!(passed_on(&call(&lambda, &event).await, &event));
}

/// A JWT of another issuer, as a gateway's own authorizer validated it (the interceptor
/// reads it unverified: its signature is not the registry's to check).
fn foreign_jwt(claims: &Value) -> String {
    use base64::Engine;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": "idp-key-1"});
    format!("{}.{}.c2lnbmF0dXJl", b64(&header), b64(claims))
}

#[tokio::test(flavor = "multi_thread")]
async fn claims_the_gateway_validated_count_in_the_mcp_session() {
    let table = seeded().await;
    let claims = r#"{"user.userId": "sub", "user.roles": "groups"}"#;
    let env = [("REGISTRY_GATEWAY_CLAIMS", claims), ("REGISTRY_GATEWAY_AGENT", AGENT)];
    let lambda = interceptor(&table, &env).await;
    let jwt = foreign_jwt(&json!({
        "iss": "https://idp.example.com", "sub": "u-10", "groups": ["support"],
        "aud": "gateway", "exp": now_s() + 600
    }));
    let session = "mcp-session-1";
    for n in 1..=2 {
        let event = request_event(
            &tools_call(json!(n), REFUND, refund(10.0)),
            Some(&headers(Some(&jwt), Some(session))),
        );
        assert!(passed_on(&call(&lambda, &event).await, &event), "call {n}: {}", lambda.log());
    }
    let (line, _) = last_line(&lambda);
    assert_eq!(
        (line["principalId"].as_str(), line["agentId"].as_str()),
        (Some("u-10"), Some(AGENT))
    );
    assert_eq!(line["sessionId"], session, "the MCP session counts: {line}");
    let third = request_event(
        &tools_call(json!(3), REFUND, refund(10.0)),
        Some(&headers(Some(&jwt), Some(session))),
    );
    let output = call(&lambda, &third).await;
    assert!(tool_error(&output).is_some_and(|t| t.contains("used its 2 tool calls")), "{output}");
    // the same caller in another MCP session starts from zero
    let fresh = request_event(
        &tools_call(json!(4), REFUND, refund(10.0)),
        Some(&headers(Some(&jwt), Some("mcp-session-2"))),
    );
    assert!(passed_on(&call(&lambda, &fresh).await, &fresh));
    // claims are mapped for lists too: the HR tool is not theirs
    let list = rpc(json!(5), "tools/list", None);
    let answer = tools_list_answer(json!(5), &[REFUND, HR], None);
    let output =
        call(&lambda, &response_event(&list, Some(&headers(Some(&jwt), None)), &answer)).await;
    let tools = &output["mcp"]["transformedGatewayResponse"]["body"]["result"]["tools"];
    assert_eq!(tools.as_array().map(Vec::len), Some(1), "{output}");
    assert_eq!(tools[0]["name"], REFUND);
    // an expired one is refused
    let expired = foreign_jwt(
        &json!({"iss": "https://idp.example.com", "sub": "u-10", "groups": ["support"], "exp": now_s() - 10}),
    );
    let event = request_event(
        &tools_call(json!(6), REFUND, refund(1.0)),
        Some(&headers(Some(&expired), Some("mcp-session-3"))),
    );
    assert!(tool_error(&call(&lambda, &event).await).is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_list_loses_exactly_the_tools_not_granted() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let listed = [REFUND, CONVERT, HR, "unknown___thing", "no-target-separator"];
    let request = rpc(json!(7), "tools/list", Some(json!({"cursor": "c1"})));
    let answer = tools_list_answer(json!(7), &listed, Some("c2"));
    let kept = |output: &Value| -> Vec<String> {
        output["mcp"]["transformedGatewayResponse"]["body"]["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };

    // the REQUEST point lets tools/list through: its answer is decided here
    let support = token("u-4", &["support"], "s-list");
    let with_headers = headers(Some(&support), None);
    let event = request_event(&request, Some(&with_headers));
    assert!(passed_on(&call(&lambda, &event).await, &event));

    let before = lambda.decision_lines(POINT).len();
    let output = call(&lambda, &response_event(&request, Some(&with_headers), &answer)).await;
    assert_eq!(kept(&output), [REFUND, CONVERT]);
    // everything else as the target sent it
    let mut expected = answer.clone();
    expected["result"]["tools"] =
        json!([answer["result"]["tools"][0], answer["result"]["tools"][1]]);
    let response = &output["mcp"]["transformedGatewayResponse"];
    assert_eq!(response["body"], expected);
    assert_eq!(response["statusCode"], 200);
    assert_eq!(response["headers"], json!({"Content-Type": "application/json"}));
    let lines = lambda.decision_lines(POINT);
    assert_eq!(lines.len() - before, 1, "one line per list: {}", lambda.log());
    let listing = &lines[before]["listed"];
    assert_eq!(
        (listing["kept"].as_u64(), listing["withheld"].as_u64()),
        (Some(2), Some(3)),
        "{listing}"
    );

    let hr = token("u-5", &["hr"], "s-list-hr");
    let output =
        call(&lambda, &response_event(&request, Some(&headers(Some(&hr), None)), &answer)).await;
    assert_eq!(kept(&output), [CONVERT, HR], "the HR user gets the HR tool, not refunds");

    // no headers (passRequestHeaders off), no Authorization, or a forged token: nothing listed
    let forged = principal::issue(
        other_ring(),
        AGENT,
        &json!({"user": {"userId": "u-6", "roles": ["support", "hr"]}}),
        "s-f",
        now_s() + 600,
    );
    for headers in [None, Some(headers(None, Some("s-x"))), Some(headers(Some(&forged), None))] {
        let output = call(&lambda, &response_event(&request, headers.as_ref(), &answer)).await;
        assert!(kept(&output).is_empty(), "{headers:?}: {output}");
    }

    // an error answer, and the answer of another method, pass unchanged
    let error =
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": "target down"}});
    for (body, answer) in [
        (&request, &error),
        (
            &rpc(json!(8), "initialize", None),
            &json!({"jsonrpc": "2.0", "id": 8, "result": {"protocolVersion": "2025-06-18"}}),
        ),
    ] {
        let event = response_event(body, Some(&with_headers), answer);
        let output = call(&lambda, &event).await;
        assert_eq!(output["mcp"]["transformedGatewayResponse"], event["mcp"]["gatewayResponse"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_principal_or_an_unknown_tool_denies() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let support = token("u-7", &["support"], "s-unknown");
    let forged = principal::issue(
        other_ring(),
        AGENT,
        &json!({"user": {"userId": "u-7", "roles": ["support"]}}),
        "s-f",
        now_s() + 600,
    );
    let cases = [
        ("no headers", REFUND, None),
        ("no Authorization", REFUND, Some(headers(None, Some("s-1")))),
        ("a forged token", REFUND, Some(headers(Some(&forged), None))),
        ("an unknown target", "unknown___thing", Some(headers(Some(&support), None))),
        ("an unknown function", "refunds___drain_account", Some(headers(Some(&support), None))),
        ("no target in the name", "issue_refund", Some(headers(Some(&support), None))),
    ];
    for (what, name, headers) in cases {
        let before = lambda.decision_lines(POINT).len();
        let event = request_event(&tools_call(json!(9), name, refund(10.0)), headers.as_ref());
        let output = call(&lambda, &event).await;
        assert!(tool_error(&output).is_some(), "{what}: {output}");
        let (line, count) = last_line(&lambda);
        assert_eq!(count, before + 1, "{what}: one decision line");
        assert_eq!(line["effect"], "deny", "{what}: {line}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn other_methods_pass_and_malformed_messages_get_json_rpc_errors() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let support = token("u-8", &["support"], "s-other");
    let with_headers = headers(Some(&support), None);
    for body in [
        rpc(
            json!(1),
            "initialize",
            Some(
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}),
            ),
        ),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        rpc(json!(2), "ping", None),
    ] {
        let before = lambda.decision_lines(POINT).len();
        let event = request_event(&body, Some(&with_headers));
        assert!(passed_on(&call(&lambda, &event).await, &event), "{body}");
        assert_eq!(lambda.decision_lines(POINT).len(), before + 1, "a line saying it passed");
    }
    // the answer of a call passes at the RESPONSE point (it was decided at REQUEST)
    let body = tools_call(json!(3), REFUND, refund(1.0));
    let answer = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "refunded"}]}});
    let event = response_event(&body, Some(&with_headers), &answer);
    let output = call(&lambda, &event).await;
    assert_eq!(output["mcp"]["transformedGatewayResponse"], event["mcp"]["gatewayResponse"]);

    for (what, params) in [
        ("no name", json!({"arguments": {}})),
        ("a name that is not a string", json!({"name": 5})),
        ("arguments not an object", json!({"name": REFUND, "arguments": [1, 2]})),
    ] {
        let body = rpc(json!("bad"), "tools/call", Some(params));
        let event = request_event(&body, Some(&with_headers));
        let output = call(&lambda, &event).await;
        assert_eq!(error_code(&output), Some(-32602), "{what}: {output}");
        assert_eq!(output["mcp"]["transformedGatewayResponse"]["body"]["id"], "bad");
    }
    // arguments the tool's schema refuses: malformed too, and the line says why
    let body = tools_call(json!(4), REFUND, json!({"amount": "lots", "currency": "USD"}));
    let output = call(&lambda, &request_event(&body, Some(&with_headers))).await;
    assert_eq!(error_code(&output), Some(-32602), "{output}");
    let (line, _) = last_line(&lambda);
    assert_eq!(line["reason"], "INVALID_ARGUMENTS", "{line}");
    assert_eq!(line["toolId"], "refunds@1.0.0", "{line}");
}

#[tokio::test(flavor = "multi_thread")]
async fn events_no_gateway_sends_still_get_valid_documents() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let call_body = tools_call(json!(1), REFUND, refund(1.0));
    let mut other_version = request_event(&call_body, None);
    other_version["interceptorInputVersion"] = json!("2.0");
    let mut no_request = request_event(&call_body, None);
    no_request["mcp"].as_object_mut().unwrap().remove("gatewayRequest");
    let batch = request_event(&json!([call_body, call_body]), None);
    let mut bad_response = response_event(&rpc(json!(1), "tools/list", None), None, &json!({}));
    bad_response["mcp"]["gatewayResponse"] = json!("not an object");
    let garbage = [
        json!(null),
        json!([1, 2]),
        json!("text"),
        json!(42),
        json!({}),
        json!({"interceptorInputVersion": "1.0"}),
        json!({"interceptorInputVersion": "1.0", "mcp": []}),
        other_version,
        no_request,
        batch,
        bad_response,
        json!({"interceptorInputVersion": "1.0", "mcp": {"gatewayRequest": {"body": "text"}}}),
    ];
    for event in garbage {
        let before = lambda.decision_lines(POINT).len();
        let output = call(&lambda, &event).await;
        assert!(error_code(&output).is_some(), "{event}: {output}");
        let (line, count) = last_line(&lambda);
        assert_eq!(count, before + 1, "{event}: one decision line");
        assert_eq!(line["effect"], "deny", "{line}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_misconfigured_function_or_an_unreachable_table_denies_with_valid_documents() {
    let table = seeded().await;
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let closed = format!("http://{closed}");
    let support = token("u-9", &["support"], "s-down");
    let with_headers = headers(Some(&support), None);
    let list = rpc(json!(2), "tools/list", None);
    let answer = tools_list_answer(json!(2), &[REFUND, CONVERT], None);
    for (what, env) in [
        ("no table", vec![("REGISTRY_TABLE", "")]),
        ("no keys", vec![("REGISTRY_JWKS", ""), ("REGISTRY_TOKEN_ISSUER", "")]),
        ("an unreachable table", vec![("REGISTRY_DYNAMODB_ENDPOINT_URL", closed.as_str())]),
    ] {
        let lambda = interceptor(&table, &env).await;
        let event = request_event(&tools_call(json!(1), REFUND, refund(1.0)), Some(&with_headers));
        let output = call(&lambda, &event).await;
        let text = tool_error(&output).unwrap_or_else(|| panic!("{what}: {output}"));
        assert!(!text.is_empty(), "{what}");
        let output = call(&lambda, &response_event(&list, Some(&with_headers), &answer)).await;
        let tools = &output["mcp"]["transformedGatewayResponse"]["body"]["result"]["tools"];
        assert_eq!(tools, &json!([]), "{what}: {output}");
        let lines = lambda.decision_lines(POINT);
        assert!(lines.iter().all(|l| l["effect"] == "deny"), "{what}: {}", lambda.log());
        assert!(
            lines.iter().all(|l| l["message"].is_string()),
            "{what}: the reason named: {}",
            lambda.log()
        );
    }
}

/// The validator itself: the guide's examples pass, and each way a document can miss the
/// shape is caught.
#[test]
fn the_output_check_follows_the_guide() {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
    let request = json!({"interceptorOutputVersion": "1.0", "mcp": {"transformedGatewayRequest": {"body": body}}});
    let response = json!({"interceptorOutputVersion": "1.0", "mcp": {"transformedGatewayResponse": {"statusCode": 200, "body": answer}}});
    let both = json!({"interceptorOutputVersion": "1.0", "mcp": {
        "transformedGatewayRequest": {"body": body},
        "transformedGatewayResponse": {"statusCode": 200, "body": answer}}});
    for valid in [&request, &response, &both] {
        assert_eq!(output_problem(valid), None, "{valid}");
    }
    let mut broken = Vec::new();
    let mut edit = |doc: &Value, pointer: &str, value: Option<Value>| {
        let mut doc = doc.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let parent = doc.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        match value {
            Some(v) => parent.insert(key.to_owned(), v),
            None => parent.remove(key),
        };
        broken.push(doc);
    };
    edit(&request, "/interceptorOutputVersion", Some(json!("2.0")));
    edit(&request, "/interceptorOutputVersion", None);
    edit(&request, "/extra", Some(json!(1)));
    edit(&request, "/mcp/transformedGatewayRequest", None);
    edit(&request, "/mcp/gatewayRequest", Some(json!({"body": body})));
    edit(&request, "/mcp/transformedGatewayRequest/body", None);
    edit(&request, "/mcp/transformedGatewayRequest/body", Some(json!("text")));
    edit(&request, "/mcp/transformedGatewayRequest/headers", Some(json!({"A": 1})));
    edit(&response, "/mcp/transformedGatewayResponse/statusCode", None);
    edit(&response, "/mcp/transformedGatewayResponse/statusCode", Some(json!("200")));
    edit(&response, "/mcp/transformedGatewayResponse/statusCode", Some(json!(99)));
    edit(&response, "/mcp/transformedGatewayResponse/body/result", None);
    edit(
        &response,
        "/mcp/transformedGatewayResponse/body/error",
        Some(json!({"code": 1, "message": "m"})),
    );
    edit(&response, "/mcp/transformedGatewayResponse/body/jsonrpc", Some(json!("1.0")));
    edit(&response, "/mcp/transformedGatewayResponse/body/id", Some(json!([1])));
    edit(&response, "/mcp/transformedGatewayResponse/extra", Some(json!(1)));
    broken.push(json!([request]));
    broken.push(json!(null));
    for doc in &broken {
        assert!(output_problem(doc).is_some(), "accepted: {doc}");
    }
    let error = json!({"interceptorOutputVersion": "1.0", "mcp": {"transformedGatewayResponse": {
        "statusCode": 200, "body": {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "m"}}}}});
    assert_eq!(output_problem(&error), None);
    assert_eq!(error_code(&error), Some(-32600));
}

/// A hostile caller's events: each answered with a valid output document that passes
/// nothing on, within a few seconds, neither the answer nor the decision line growing
/// with what the caller sent.
#[tokio::test(flavor = "multi_thread")]
async fn hostile_requests_are_refused_with_small_valid_documents() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let support = token("u-20", &["support"], "s-hostile");
    let with_headers = headers(Some(&support), None);
    let event_of = |body: &Value| request_event(body, Some(&with_headers));
    let long = "x".repeat(100_000);
    let long_target = format!("{long}___issue_refund");
    let mut events = Vec::new();
    // ids of every JSON type, on a denial and on a malformed call
    for id in [json!({"a": 1}), json!([1]), json!(true), json!(1e308), json!(-0.0), json!("")] {
        events.push(event_of(&tools_call(id.clone(), "unknown___thing", refund(1.0))));
        events.push(event_of(&rpc(id, "tools/call", Some(json!({"name": 5})))));
    }
    // tool names no tool has
    for name in ["___", "a___", "___b", "nosep", "a\u{0}___b", long.as_str(), &long_target] {
        events.push(event_of(&tools_call(json!(1), name, refund(1.0))));
    }
    // params missing, arguments an array, nested deep
    events.push(event_of(&rpc(json!(2), "tools/call", None)));
    events.push(event_of(&tools_call(json!(3), REFUND, json!([1, 2]))));
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    events.push(event_of(&tools_call(json!(4), REFUND, json!({"amount": deep}))));
    // a version no gateway sends, at length
    let mut version = event_of(&tools_call(json!(6), REFUND, refund(1.0)));
    version["interceptorInputVersion"] = json!(long);
    events.push(version);
    for event in &events {
        let started = std::time::Instant::now();
        let output = call(&lambda, event).await;
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            tool_error(&output).is_some() || error_code(&output).is_some(),
            "passed on: {:.300}",
            output.to_string()
        );
        let size = output.to_string().len();
        assert!(size < 16_384, "an answer of {size} bytes");
    }
    for line in lambda.decision_lines(POINT) {
        let size = line.to_string().len();
        assert!(size < 16_384, "a decision line of {size} bytes");
    }
    // none of them counted: the session still has its two calls
    let event = event_of(&tools_call(json!(7), REFUND, refund(1.0)));
    assert!(passed_on(&call(&lambda, &event).await, &event));
    assert!(passed_on(&call(&lambda, &event).await, &event));
    assert!(tool_error(&call(&lambda, &event).await).is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_response_that_is_not_an_object_gets_a_valid_document_whatever_the_method() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let support = token("u-21", &["support"], "s-odd-response");
    let with_headers = headers(Some(&support), None);
    for method in ["initialize", "tools/call", "tools/list"] {
        for answer in [
            json!("text"),
            json!(42),
            json!([1]),
            json!(true),
            json!({}),
            json!({"statusCode": "200", "body": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
            json!({"statusCode": 99, "body": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
        ] {
            let body = rpc(json!(1), method, None);
            let mut event = response_event(&body, Some(&with_headers), &json!({}));
            event["mcp"]["gatewayResponse"] = answer.clone();
            call(&lambda, &event).await;
        }
    }
}

/// The same call a thousand times in one session: exactly the agent's two tool calls go
/// through.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_budget_holds_over_a_thousand_repeats() {
    let table = seeded().await;
    let lambda = interceptor(&table, &[]).await;
    let session = "s-repeat";
    let bearer = token("u-22", &["support"], session);
    let event = request_event(
        &tools_call(json!(1), REFUND, refund(10.0)),
        Some(&headers(Some(&bearer), None)),
    );
    let mut passed = 0;
    for _ in 0..1_000 {
        passed += usize::from(passed_on(&call(&lambda, &event).await, &event));
    }
    assert_eq!(passed, 2);
}

/// A DynamoDB endpoint that accepts connections and never answers: denied, in bounded
/// time, with valid documents.
#[tokio::test(flavor = "multi_thread")]
async fn a_table_that_never_answers_denies_in_bounded_time() {
    let table = seeded().await;
    let endpoint = registry_e2e::silent_endpoint().await;
    let lambda =
        interceptor(&table, &[("REGISTRY_DYNAMODB_ENDPOINT_URL", endpoint.as_str())]).await;
    let support = token("u-23", &["support"], "s-silent");
    let with_headers = headers(Some(&support), None);
    let list = rpc(json!(2), "tools/list", None);
    let answer = tools_list_answer(json!(2), &[REFUND, CONVERT], None);
    for _ in 0..2 {
        let started = std::time::Instant::now();
        let event = request_event(&tools_call(json!(1), REFUND, refund(1.0)), Some(&with_headers));
        assert!(tool_error(&call(&lambda, &event).await).is_some());
        let output = call(&lambda, &response_event(&list, Some(&with_headers), &answer)).await;
        let tools = &output["mcp"]["transformedGatewayResponse"]["body"]["result"]["tools"];
        assert_eq!(tools, &json!([]), "{output}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }
}

/// Claims typed wrongly for the context they are mapped to: denied, never a crash.
#[tokio::test(flavor = "multi_thread")]
async fn claims_typed_wrongly_are_denied() {
    let table = seeded().await;
    let claims = r#"{"user.userId": "sub", "user.roles": "groups", "agentId": "azp"}"#;
    let env = [("REGISTRY_GATEWAY_CLAIMS", claims), ("REGISTRY_GATEWAY_AGENT", AGENT)];
    let lambda = interceptor(&table, &env).await;
    let iss = "https://idp.example.com";
    let exp = now_s() + 600;
    let roles: Vec<String> = (0..500).map(|i| format!("r{i}")).collect();
    for (i, claims) in [
        json!({"iss": iss, "exp": exp, "sub": "u-24", "groups": "support"}),
        json!({"iss": iss, "exp": exp, "sub": 24, "groups": ["support"]}),
        json!({"iss": iss, "exp": exp, "sub": "u-24", "groups": roles}),
        json!({"iss": iss, "exp": exp, "sub": "u-24", "groups": [[["support"]]]}),
        json!({"iss": iss, "exp": exp, "sub": "u-24", "groups": ["support"], "azp": 7}),
        json!({"iss": iss, "exp": exp, "sub": "u-24", "groups": ["support"], "azp": "no such agent"}),
        json!({"iss": iss, "exp": "soon", "sub": "u-24", "groups": ["support"]}),
        json!({"iss": iss, "exp": 1e308, "nbf": -0.0, "sub": {"a": 1}, "groups": {"support": true}}),
    ]
    .iter()
    .enumerate()
    {
        let event = request_event(
            &tools_call(json!(i), REFUND, refund(1.0)),
            Some(&headers(Some(&foreign_jwt(claims)), Some("mcp-odd"))),
        );
        let output = call(&lambda, &event).await;
        assert!(tool_error(&output).is_some(), "case {i}: {output}");
    }
}
