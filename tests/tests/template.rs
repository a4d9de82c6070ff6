//! `infra/template.yaml` against the code: the table it declares is the table
//! `create_table` (`serve --create-table`) creates, from one description; and its roles
//! as the permission checks of the end-to-end tests evaluate them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use registry_e2e::aws_json;
use registry_e2e::iam::{self, Call, Request};
use registry_e2e::template::{Deployment, Template};
use registry_store_dynamodb::table::TABLE;
use serde_json::{Value, json};

/// `properties` restricted to the members `like` has, lists of attribute definitions
/// sorted by name (their order carries no meaning).
fn comparable(properties: &Value, like: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in like.as_object().unwrap().keys() {
        let mut value = properties.get(key).cloned().unwrap_or(Value::Null);
        if let (true, Some(list)) = (key == "AttributeDefinitions", value.as_array_mut()) {
            list.sort_by_key(|a| a["AttributeName"].as_str().unwrap_or_default().to_owned());
        }
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

#[test]
fn the_template_declares_the_table_create_table_creates() {
    let template = Template::load().unwrap();
    let table = template.resource("RegistryTable").unwrap();
    assert_eq!(table["Type"], "AWS::DynamoDB::Table");
    let described = TABLE.cloudformation();
    assert_eq!(comparable(&table["Properties"], &described), described);
}

/// One DynamoDB call to the local server.
async fn dynamodb(endpoint: &str, operation: &str, body: Value) -> Value {
    aws_json(endpoint, &format!("DynamoDB_20120810.{operation}"), "dynamodb", body).await
}

#[tokio::test]
async fn create_table_creates_the_described_table() {
    let store = registry_store_dynamodb::local::fresh_store("table").await.unwrap();
    let endpoint = registry_store_dynamodb::local::endpoint().unwrap();
    let name = json!({"TableName": store.table()});
    let table = dynamodb(endpoint, "DescribeTable", name.clone()).await["Table"].clone();
    let ttl = dynamodb(endpoint, "DescribeTimeToLive", name).await["TimeToLiveDescription"].clone();
    let indexes: Vec<Value> = table["GlobalSecondaryIndexes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| json!({"IndexName": i["IndexName"], "KeySchema": i["KeySchema"], "Projection": i["Projection"]}))
        .collect();
    let created = json!({
        "BillingMode": table["BillingModeSummary"]["BillingMode"],
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": table["AttributeDefinitions"],
        "GlobalSecondaryIndexes": indexes,
        "StreamSpecification": {"StreamViewType": table["StreamSpecification"]["StreamViewType"]},
        "TimeToLiveSpecification": {
            "AttributeName": ttl["AttributeName"],
            "Enabled": ttl["TimeToLiveStatus"] == "ENABLED",
        },
    });
    let described = TABLE.cloudformation();
    assert_eq!(comparable(&created, &described), described);
    assert_eq!(table["StreamSpecification"]["StreamEnabled"], true, "{table}");
}

/// A call on the table `t` of the deployment.
fn on_table(action: &str, pk: Option<&str>) -> Call {
    let mut context = BTreeMap::new();
    if let Some(pk) = pk {
        context.insert("dynamodb:LeadingKeys".to_owned(), vec![pk.to_owned()]);
    }
    Call {
        action: format!("dynamodb:{action}"),
        resource: "arn:aws:dynamodb:us-east-1:123456789012:table/t".into(),
        context,
    }
}

#[test]
fn the_guarded_tool_may_write_counter_items_and_no_other() {
    let template = Template::load().unwrap();
    let mut deployment = Deployment::new(&template);
    deployment.name("RegistryTable", "t");
    let role = iam::role(&template, &deployment, "ExampleToolFunction").unwrap();
    let allowed = |call: &Call| iam::decide(&role, call).is_ok();
    assert!(allowed(&on_table("GetItem", Some("TOOL#convert_units@1.0.0"))));
    assert!(allowed(&on_table("PutItem", Some("COUNTER#budget/support-bot/s-1"))));
    assert!(!allowed(&on_table("PutItem", Some("TOOL#convert_units@1.0.0"))));
    assert!(!allowed(&on_table("UpdateItem", Some("COUNTER#budget/support-bot/s-1"))));
    assert!(!allowed(&on_table("DeleteItem", Some("COUNTER#budget/support-bot/s-1"))));
    // an agent's grant reads its tools and the releases of its ranges (decision 98)
    let mut query = on_table("Query", None);
    query.resource.push_str("/index/byKind");
    assert!(allowed(&query));
    let mut query = on_table("Query", None);
    query.resource.push_str("/index/byCreatedBy");
    assert!(!allowed(&query));
}

/// The gateway interceptor reads tools and agents (by id, a target's tool through the tag
/// index, an agent's ranges through the kind index), writes session counters, and nothing
/// else.
#[test]
fn the_gateway_interceptor_reads_the_table_and_writes_counter_items_only() {
    let template = Template::load().unwrap();
    let mut deployment = Deployment::new(&template);
    deployment.name("RegistryTable", "t");
    let role = iam::role(&template, &deployment, "GatewayInterceptorFunction").unwrap();
    let allowed = |call: &Call| iam::decide(&role, call).is_ok();
    let index = |name: &str| {
        let mut query = on_table("Query", None);
        query.resource.push_str(&format!("/index/{name}"));
        query
    };
    assert!(allowed(&on_table("GetItem", Some("TOOL#refunds@1.0.0"))));
    assert!(allowed(&on_table("GetItem", Some("AGENT#support-agent"))));
    assert!(allowed(&index("byTag")));
    assert!(allowed(&on_table("BatchGetItem", Some("TOOL#refunds@1.0.0"))));
    assert!(allowed(&on_table("PutItem", Some("COUNTER#budget/support-agent/s-1"))));
    // an agent's grant reads the releases of its ranges (decision 98)
    assert!(allowed(&index("byKind")));
    assert!(!allowed(&index("byCreatedBy")), "only the tag and kind indexes");
    for write in ["PutItem", "UpdateItem", "DeleteItem"] {
        assert!(!allowed(&on_table(write, Some("TOOL#refunds@1.0.0"))), "{write} of a tool");
    }
    assert!(!allowed(&on_table("UpdateItem", Some("COUNTER#budget/support-agent/s-1"))));
    assert!(!allowed(&on_table("Scan", None)));
    let interceptor = template.resource("GatewayInterceptorFunction").unwrap();
    let env = &interceptor["Properties"]["Environment"]["Variables"];
    assert!(env["REGISTRY_JWKS_URL"].to_string().contains("/.well-known/jwks.json"), "{env}");
}

#[test]
fn an_index_query_needs_the_index_resource() {
    let template = Template::load().unwrap();
    let mut deployment = Deployment::new(&template);
    deployment.name("RegistryTable", "t");
    let role = iam::role(&template, &deployment, "CustomResourceFunction").unwrap();
    let mut by_kind = on_table("Query", None);
    by_kind.resource.push_str("/index/byKind");
    assert!(iam::decide(&role, &by_kind).is_ok());
    let mut by_tag = on_table("Query", None);
    by_tag.resource.push_str("/index/byTag");
    assert!(iam::decide(&role, &by_tag).is_err(), "only the index it reads");
    let other_table = Call {
        resource: "arn:aws:dynamodb:us-east-1:123456789012:table/other/index/byKind".into(),
        ..by_kind
    };
    assert!(iam::decide(&role, &other_table).is_err());
}

/// A request as the SDK sends it to `service`.
fn request(service: &str, method: &str, path: &str, target: Option<&str>, body: Value) -> Request {
    Request {
        method: method.into(),
        path: path.into(),
        target: target.map(str::to_owned),
        authorization: Some(format!(
            "AWS4-HMAC-SHA256 Credential=test/20261127/us-east-1/{service}/aws4_request, SignedHeaders=host, Signature=x"
        )),
        body: if body.is_null() { Vec::new() } else { body.to_string().into_bytes() },
    }
}

fn described(calls: Result<Vec<Call>, String>) -> Vec<String> {
    calls.unwrap().iter().map(ToString::to_string).collect()
}

#[test]
fn requests_become_the_authorizations_iam_checks() {
    let table = "arn:aws:dynamodb:us-east-1:123456789012:table/t";
    let transaction = json!({"TransactItems": [
        {"Put": {"TableName": "t", "Item": {"pk": {"S": "TOOL#a"}, "sk": {"S": "HEAD"}}}},
        {"ConditionCheck": {"TableName": "t", "Key": {"pk": {"S": "TOOL#b"}, "sk": {"S": "HEAD"}}}},
        {"Update": {"TableName": "t", "Key": {"pk": {"S": "EVENTS"}, "sk": {"S": "#SEQ"}}}}
    ]});
    let target = Some("DynamoDB_20120810.TransactWriteItems");
    assert_eq!(
        described(iam::calls(&request("dynamodb", "POST", "/", target, transaction), "pk")),
        [
            format!("dynamodb:PutItem on {table} (dynamodb:LeadingKeys = [\"TOOL#a\"])"),
            format!("dynamodb:ConditionCheckItem on {table} (dynamodb:LeadingKeys = [\"TOOL#b\"])"),
            format!("dynamodb:UpdateItem on {table} (dynamodb:LeadingKeys = [\"EVENTS\"])"),
        ]
    );
    let query =
        json!({"TableName": "t", "IndexName": "byKind", "KeyConditionExpression": "#k = :k"});
    let target = Some("DynamoDB_20120810.Query");
    assert_eq!(
        described(iam::calls(&request("dynamodb", "POST", "/", target, query), "pk")),
        [format!("dynamodb:Query on {table}/index/byKind")]
    );
    let query = json!({"TableName": "t", "KeyConditionExpression": "#p = :p AND begins_with(#s, :s)",
        "ExpressionAttributeNames": {"#p": "pk", "#s": "sk"},
        "ExpressionAttributeValues": {":p": {"S": "TOOL#a"}, ":s": {"S": "REF#"}}});
    assert_eq!(
        described(iam::calls(&request("dynamodb", "POST", "/", target, query), "pk")),
        [format!("dynamodb:Query on {table} (dynamodb:LeadingKeys = [\"TOOL#a\"])")]
    );
    let secret = json!({"SecretId": "agent-registry/registry-e2e/tool/weather/1"});
    let target = Some("secretsmanager.GetSecretValue");
    assert_eq!(
        described(iam::calls(&request("secretsmanager", "POST", "/", target, secret), "pk")),
        [
            "secretsmanager:GetSecretValue on arn:aws:secretsmanager:us-east-1:123456789012:secret:agent-registry/registry-e2e/tool/weather/1-AbCdEf"
        ]
    );
    let events = json!({"Entries": [{"EventBusName": "bus"}, {"EventBusName": "bus"}]});
    let target = Some("AWSEvents.PutEvents");
    assert_eq!(
        described(iam::calls(&request("events", "POST", "/", target, events), "pk")),
        ["events:PutEvents on arn:aws:events:us-east-1:123456789012:event-bus/bus"]
    );
    let get =
        request("lambda", "GET", "/2015-03-31/functions/weather%3Aprod/policy", None, Value::Null);
    assert_eq!(
        described(iam::calls(&get, "pk")),
        ["lambda:GetPolicy on arn:aws:lambda:us-east-1:123456789012:function:weather:prod"]
    );
    // What the checker does not know is an error, never a pass.
    let bedrock = request("bedrock", "PUT", "/agents/", None, json!({}));
    assert!(iam::calls(&bedrock, "pk").unwrap_err().contains("do not know"));
    let unsigned = Request { authorization: None, ..get };
    assert!(iam::calls(&unsigned, "pk").is_err());
}

#[test]
fn a_policy_form_the_checks_do_not_read_fails_them() {
    let text = std::fs::read_to_string(registry_e2e::template::PATH).unwrap();
    let managed = text.replace(
        "      Policies:\n        - Version: \"2012-10-17\"\n          Statement:\n            - Sid: PutRegistryEvents",
        "      Policies:\n        - DynamoDBReadPolicy:\n            TableName: !Ref RegistryTable\n        - Version: \"2012-10-17\"\n          Statement:\n            - Sid: PutRegistryEvents",
    );
    assert_ne!(managed, text, "the event forwarder's policies moved; update this test");
    let template = Template::parse(&managed).unwrap();
    let deployment = Deployment::new(&template);
    let error = iam::role(&template, &deployment, "EventForwarderFunction").unwrap_err();
    assert!(error.contains("SAM policy templates"), "{error}");
}

/// No tool function holds or may read a signing key: their environment names only the
/// registry's public key set, and their roles are refused the signing-key secret, which
/// the admin API's role alone may read and write (decision 84).
#[test]
fn no_tool_function_holds_or_reads_a_signing_key() {
    let template = Template::load().unwrap();
    let secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:signing-keys-AbCdEf";
    let mut deployment = Deployment::new(&template);
    deployment.name("RegistryTable", "t").name("SigningKeysSecret", secret);
    let read = Call {
        action: "secretsmanager:GetSecretValue".into(),
        resource: secret.into(),
        context: BTreeMap::new(),
    };
    let mut functions = 0;
    for (id, resource) in template.resources() {
        if resource["Type"] != "AWS::Serverless::Function" {
            continue;
        }
        let env = resource["Properties"]["Environment"]["Variables"].as_object();
        let role = iam::role(&template, &deployment, id).unwrap();
        let admin = id == "AdminApiFunction";
        assert_eq!(iam::decide(&role, &read).is_ok(), admin, "{id} reading the signing keys");
        let names: Vec<&String> = env.map(|e| e.keys().collect()).unwrap_or_default();
        assert_eq!(
            names.iter().any(|n| n.as_str() == "REGISTRY_SIGNING_KEYS_SECRET"),
            admin,
            "{id}"
        );
        for name in names {
            assert!(!name.contains("CONTEXT_KEYS") && !name.contains("PRIVATE"), "{id}: {name}");
        }
        functions += 1;
    }
    assert!(functions >= 5, "{functions} functions");
    let tool = template.resource("ExampleToolFunction").unwrap();
    let env = &tool["Properties"]["Environment"]["Variables"];
    assert!(env["REGISTRY_JWKS_URL"].to_string().contains("/.well-known/jwks.json"), "{env}");
}

/// The signing keys outlive the stack: deleting it, or an update that replaces the
/// secret, keeps the ring (tokens in flight verify; nothing mints a new key by accident).
#[test]
fn the_signing_key_secret_is_retained_on_delete_and_replace() {
    let template = Template::load().unwrap();
    let secret = template.resource("SigningKeysSecret").unwrap();
    assert_eq!(secret["Type"], "AWS::SecretsManager::Secret");
    assert_eq!(secret["DeletionPolicy"], "Retain", "{secret}");
    assert_eq!(secret["UpdateReplacePolicy"], "Retain", "{secret}");
}

/// AgentCore's gateway name rule (the CloudFormation schema's `Name` pattern
/// `^([0-9a-zA-Z][-]?){1,48}$`), checked by hand.
fn agentcore_gateway_name_ok(name: &str) -> bool {
    let alnum = name.chars().filter(char::is_ascii_alphanumeric).count();
    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-')
        && !name.contains("--")
        && (1..=48).contains(&alnum)
}

/// `Fn::Sub` / `Fn::Select` / `Fn::Split` / `Ref AWS::StackId|StackName` of the example,
/// for a stack named `stack` with id `stack_id`.
fn evaluate(value: &Value, stack: &str, stack_id: &str) -> Value {
    let Some((key, arg)) = value.as_object().and_then(|m| m.iter().next()) else {
        return value.clone();
    };
    match key.as_str() {
        "Ref" if arg == "AWS::StackId" => json!(stack_id),
        "Ref" if arg == "AWS::StackName" => json!(stack),
        "Fn::Split" => {
            let text = evaluate(&arg[1], stack, stack_id);
            let parts = text.as_str().unwrap().split(arg[0].as_str().unwrap());
            Value::Array(parts.map(|p| json!(p)).collect())
        }
        "Fn::Select" => {
            evaluate(&arg[1], stack, stack_id)[arg[0].as_u64().unwrap() as usize].clone()
        }
        "Fn::Sub" => {
            let (text, vars) = match arg {
                Value::String(text) => (text.as_str(), serde_json::Map::new()),
                _ => (arg[0].as_str().unwrap(), arg[1].as_object().unwrap().clone()),
            };
            let mut out = text.replace("${AWS::StackName}", stack);
            for (name, v) in vars {
                let v = evaluate(&v, stack, stack_id);
                out = out.replace(&format!("${{{name}}}"), v.as_str().unwrap());
            }
            assert!(!out.contains("${"), "{out}");
            json!(out)
        }
        other => panic!("{other} is not evaluated here"),
    }
}

/// The example gateway's name fits AgentCore's rule whatever the stack is named: long
/// names, names with `--`, the longest stack name CloudFormation allows.
#[test]
fn the_example_gateway_name_is_valid_for_every_stack_name() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../infra/examples/agentcore-gateway.yaml");
    let example = Template::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let name = &example.resource("Gateway").unwrap()["Properties"]["Name"];
    let long = format!("a{}", "b-".repeat(60));
    let double = "registry--tools".to_owned();
    let longest = format!("A{}", "z".repeat(127));
    for stack in ["tools", "agent-registry-prod", long.as_str(), double.as_str(), &longest] {
        let id = format!(
            "arn:aws:cloudformation:us-east-1:123456789012:stack/{stack}/\
             9f3a2b10-4c5d-11ef-8e2a-0affd0e1b2c3"
        );
        let value = evaluate(name, stack, &id);
        let value = value.as_str().unwrap();
        assert!(agentcore_gateway_name_ok(value), "stack {stack}: {value}");
    }
    // the rule as checked here refuses what the old name gave
    assert!(!agentcore_gateway_name_ok("registry--tools-tools"));
    assert!(!agentcore_gateway_name_ok(&format!("{long}-tools")));
}

/// Every verifier the template deploys reads the keys without SigV4 (decision 101): its
/// `REGISTRY_JWKS_URL` is a route of the API with authorization `NONE` whose
/// integration is the admin API, as is the issuer's metadata; every other path is the
/// `$default` route, `AWS_IAM`. The issuer (`REGISTRY_TOKEN_ISSUER` of the admin API and
/// of every verifier) is by default the API's https URL, the JWKS URL's origin.
#[test]
fn verifiers_read_the_keys_from_public_routes_and_expect_the_api_url_as_issuer() {
    let template = Template::load().unwrap();
    let deployment = Deployment::new(&template);
    let mut routes = BTreeMap::new();
    for (id, resource) in template.resources() {
        if resource["Type"] == "AWS::ApiGatewayV2::Route" {
            let p = &resource["Properties"];
            let target = deployment.resolve(&p["Target"]).unwrap();
            let key = p["RouteKey"].as_str().unwrap().to_owned();
            routes.insert(key, (p["AuthorizationType"].clone(), target, id.clone()));
        }
    }
    let integration = template.resource("AdminApiIntegration").unwrap();
    assert_eq!(
        integration["Properties"]["IntegrationUri"]["Fn::GetAtt"],
        json!(["AdminApiFunction", "Arn"])
    );
    let admin = json!(format!(
        "integrations/{}",
        deployment.resolve(&json!({"Ref": "AdminApiIntegration"})).unwrap().as_str().unwrap()
    ));
    let public: Vec<&str> = routes
        .iter()
        .filter(|(_, (auth, _, _))| auth == "NONE")
        .map(|(key, _)| key.as_str())
        .collect();
    assert_eq!(
        public,
        [
            "GET /.well-known/jwks.json",
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/openid-configuration"
        ],
        "{routes:?}"
    );
    assert_eq!(routes["$default"].0, "AWS_IAM", "{routes:?}");
    for (key, (_, target, _)) in &routes {
        assert_eq!(target, &admin, "{key}");
    }

    // the default issuer: the API's own URL
    let condition = template.condition("IssuerIsApiUrl").unwrap();
    assert_eq!(condition, &json!({"Fn::Equals": [{"Ref": "TokenIssuer"}, ""]}));
    assert_eq!(template.parameter_default("TokenIssuer").as_deref(), Some(""));
    let issuer_of = |function: &str| {
        let env = &template.resource(function).unwrap()["Properties"]["Environment"]["Variables"];
        let choice = env["REGISTRY_TOKEN_ISSUER"]["Fn::If"].as_array().unwrap().clone();
        assert_eq!(choice[0], "IssuerIsApiUrl", "{function}");
        assert_eq!(choice[2], json!({"Ref": "TokenIssuer"}), "{function}");
        deployment.resolve(&choice[1]).unwrap().as_str().unwrap().to_owned()
    };
    let issuer = issuer_of("AdminApiFunction");
    assert!(issuer.starts_with("https://") && !issuer.ends_with('/'), "{issuer}");
    for function in ["ExampleToolFunction", "GatewayInterceptorFunction"] {
        assert_eq!(issuer_of(function), issuer, "{function}");
        let env = &template.resource(function).unwrap()["Properties"]["Environment"]["Variables"];
        let url = deployment.resolve(&env["REGISTRY_JWKS_URL"]).unwrap();
        let path = url
            .as_str()
            .unwrap()
            .strip_prefix(issuer.as_str())
            .unwrap_or_else(|| panic!("{function}: {url} is not below the issuer {issuer}"));
        assert_eq!(routes[&format!("GET {path}")].0, "NONE", "{function}: {path}");
    }
}
