//! The permissions of a function's role in `infra/template.yaml`, evaluated for the AWS
//! requests the function made: each request becomes the IAM actions it is authorized as
//! ([`Call`]: action, resource ARN with the index, condition keys), each checked against
//! the role's statements (actions, resources, conditions; an explicit deny wins,
//! anything not allowed is denied).
//!
//! Only what the template uses is understood (inline policy documents; `StringEquals`,
//! `StringLike` and their negations with `ForAllValues:`/`ForAnyValue:`); anything else
//! (a SAM policy template, a managed policy, `NotAction`, another operator) is an
//! error, so that the checks never pass on a policy they did not read.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::template::{ACCOUNT, Deployment, Template};

/// One IAM authorization a request needs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Call {
    /// e.g. `dynamodb:Query`.
    pub action: String,
    /// e.g. `arn:aws:dynamodb:us-east-1:123456789012:table/t/index/byKind`.
    pub resource: String,
    /// Condition keys of the request, e.g. `dynamodb:LeadingKeys`.
    pub context: BTreeMap<String, Vec<String>>,
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}", self.action, self.resource)?;
        for (key, values) in &self.context {
            write!(f, " ({key} = {values:?})")?;
        }
        Ok(())
    }
}

/// A statement's condition: `operator` (qualifier included) on `key`.
#[derive(Debug, Clone)]
pub struct Condition {
    operator: String,
    key: String,
    values: Vec<String>,
}

/// One statement of a role's policy, resolved.
#[derive(Debug, Clone)]
pub struct Statement {
    /// `Sid` (or `#<n>` of the statement).
    pub sid: String,
    allow: bool,
    /// The actions (wildcards allowed).
    pub actions: Vec<String>,
    /// The resource ARNs (wildcards allowed).
    pub resources: Vec<String>,
    conditions: Vec<Condition>,
}

fn strings(value: &Value, what: &str) -> Result<Vec<String>, String> {
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_owned).ok_or_else(|| format!("{what}: {v} is no string"))
            })
            .collect(),
        Value::Bool(b) => Ok(vec![b.to_string()]),
        other => Err(format!("{what}: {other} is neither a string nor a list")),
    }
}

const OPERATORS: [&str; 4] = ["StringEquals", "StringNotEquals", "StringLike", "StringNotLike"];

fn statement(n: usize, s: &Value) -> Result<Statement, String> {
    let sid = s["Sid"].as_str().map(str::to_owned).unwrap_or_else(|| format!("#{n}"));
    for unsupported in ["NotAction", "NotResource", "Principal", "NotPrincipal"] {
        if s.get(unsupported).is_some() {
            return Err(format!("statement {sid}: {unsupported} is not evaluated here"));
        }
    }
    let allow = match s["Effect"].as_str() {
        Some("Allow") => true,
        Some("Deny") => false,
        other => return Err(format!("statement {sid}: Effect {other:?}")),
    };
    let mut conditions = Vec::new();
    for (operator, keys) in s.get("Condition").and_then(Value::as_object).into_iter().flatten() {
        let base = operator.rsplit(':').next().unwrap_or(operator);
        let qualifier = operator.strip_suffix(base).unwrap_or_default();
        if !OPERATORS.contains(&base) || !["", "ForAllValues:", "ForAnyValue:"].contains(&qualifier)
        {
            return Err(format!(
                "statement {sid}: condition operator {operator} is not evaluated here"
            ));
        }
        for (key, values) in
            keys.as_object().ok_or_else(|| format!("statement {sid}: {operator}"))?
        {
            conditions.push(Condition {
                operator: operator.clone(),
                key: key.clone(),
                values: strings(values, &format!("statement {sid}: {operator} {key}"))?,
            });
        }
    }
    Ok(Statement {
        sid: sid.clone(),
        allow,
        actions: strings(&s["Action"], &format!("statement {sid}: Action"))?,
        resources: strings(&s["Resource"], &format!("statement {sid}: Resource"))?,
        conditions,
    })
}

/// The statements of `function`'s role (`Properties.Policies`), resolved for
/// `deployment`.
pub fn role(
    template: &Template,
    deployment: &Deployment<'_>,
    function: &str,
) -> Result<Vec<Statement>, String> {
    let resource = template
        .resource(function)
        .ok_or_else(|| format!("no resource {function} in the template"))?;
    let policies = resource.pointer("/Properties/Policies");
    let policies = match policies {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.clone(),
        Some(other) => vec![other.clone()],
    };
    let mut out = Vec::new();
    for policy in &policies {
        let statements = policy.get("Statement").ok_or_else(|| {
            format!("{function}: policy {policy} is no policy document (SAM policy templates and managed policies are not evaluated here)")
        })?;
        let statements = deployment.resolve(statements).map_err(|e| format!("{function}: {e}"))?;
        let list = match statements {
            Value::Array(items) => items,
            one => vec![one],
        };
        for s in &list {
            out.push(statement(out.len(), s)?);
        }
    }
    Ok(out)
}

/// IAM wildcard match (`*` any run, `?` one character).
pub fn matches(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

impl Condition {
    fn holds(&self, call: &Call) -> bool {
        let base = self.operator.rsplit(':').next().unwrap_or(&self.operator);
        let like = base.contains("Like");
        let negated = base.contains("Not");
        let one = |value: &str| {
            let hit = self.values.iter().any(|p| if like { matches(p, value) } else { p == value });
            hit != negated
        };
        let values = call.context.get(&self.key);
        if self.operator.starts_with("ForAllValues:") {
            // True when the key is absent or empty, as IAM has it.
            values.is_none_or(|v| v.iter().all(|x| one(x)))
        } else if self.operator.starts_with("ForAnyValue:") {
            values.is_some_and(|v| v.iter().any(|x| one(x)))
        } else {
            match values {
                Some(v) if !v.is_empty() => v.iter().all(|x| one(x)),
                _ => negated,
            }
        }
    }
}

impl Statement {
    /// Whether the statement allows (else it denies).
    pub fn allow(&self) -> bool {
        self.allow
    }

    /// Whether the statement applies to `call` (action, resource and every condition).
    pub fn applies(&self, call: &Call) -> bool {
        self.actions.iter().any(|a| matches(&a.to_lowercase(), &call.action.to_lowercase()))
            && self.resources.iter().any(|r| matches(r, &call.resource))
            && self.conditions.iter().all(|c| c.holds(call))
    }
}

/// The statement that allows `call`, or why it is denied.
pub fn decide<'s>(statements: &'s [Statement], call: &Call) -> Result<&'s Statement, String> {
    if let Some(deny) = statements.iter().find(|s| !s.allow && s.applies(call)) {
        return Err(format!("explicitly denied by {}", deny.sid));
    }
    statements
        .iter()
        .find(|s| s.allow && s.applies(call))
        .ok_or_else(|| "no statement allows it".to_owned())
}

/// The grants of `statement` that allow `call`: (statement id, index of the action,
/// index of the resource).
pub fn grants_used(statement: &Statement, call: &Call) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (a, action) in statement.actions.iter().enumerate() {
        if !matches(&action.to_lowercase(), &call.action.to_lowercase()) {
            continue;
        }
        for (r, resource) in statement.resources.iter().enumerate() {
            if matches(resource, &call.resource) {
                out.push((statement.sid.clone(), a, r));
            }
        }
    }
    out
}

/// One recorded HTTP request to an AWS API.
#[derive(Debug, Clone)]
pub struct Request {
    /// Method.
    pub method: String,
    /// Path (percent-encoded, as sent) and query.
    pub path: String,
    /// `X-Amz-Target`, if any.
    pub target: Option<String>,
    /// `Authorization` (SigV4: its credential scope names the region and service).
    pub authorization: Option<String>,
    /// Body.
    pub body: Vec<u8>,
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)?;
        if let Some(target) = &self.target {
            write!(f, " ({target})")?;
        }
        Ok(())
    }
}

fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The IAM authorizations `request` needs. `partition_key`: the table's partition key
/// attribute (the values of `dynamodb:LeadingKeys`).
pub fn calls(request: &Request, partition_key: &str) -> Result<Vec<Call>, String> {
    let scope = request
        .authorization
        .as_deref()
        .and_then(|a| a.split("Credential=").nth(1))
        .map(|c| c.split([',', ' ']).next().unwrap_or_default().split('/').collect::<Vec<_>>())
        .unwrap_or_default();
    let (region, service) = match scope.as_slice() {
        [_, _, region, service, ..] => (*region, *service),
        _ => return Err(format!("{request}: no SigV4 credential scope")),
    };
    let body: Value = if request.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&request.body).unwrap_or(Value::Null)
    };
    let arn = |service: &str, rest: &str| format!("arn:aws:{service}:{region}:{ACCOUNT}:{rest}");
    let operation = request.target.as_deref().and_then(|t| t.rsplit('.').next());
    let one = |action: String, resource: String| {
        vec![Call { action, resource, context: BTreeMap::new() }]
    };
    match (service, operation) {
        ("dynamodb", Some(op)) => Ok(dynamodb(op, &body, partition_key, &|t: &str| {
            arn("dynamodb", &format!("table/{t}"))
        })),
        ("secretsmanager", Some(op)) => {
            let id = body["SecretId"].as_str().or(body["Name"].as_str()).unwrap_or("*");
            let resource = if id.starts_with("arn:") {
                id.to_owned()
            } else {
                // Secrets Manager appends six random characters to the name.
                arn("secretsmanager", &format!("secret:{id}-AbCdEf"))
            };
            Ok(one(format!("secretsmanager:{op}"), resource))
        }
        ("events", Some("PutEvents")) => {
            let mut out = Vec::new();
            for entry in body["Entries"].as_array().into_iter().flatten() {
                let bus = entry["EventBusName"].as_str().unwrap_or("default");
                let resource = if bus.starts_with("arn:") {
                    bus.to_owned()
                } else {
                    arn("events", &format!("event-bus/{bus}"))
                };
                out.extend(one("events:PutEvents".into(), resource));
            }
            out.sort();
            out.dedup();
            Ok(out)
        }
        ("lambda", None) => {
            let path = request.path.split('?').next().unwrap_or_default();
            let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
            let function = |name: &str| {
                let name = decode(name);
                if name.starts_with("arn:") {
                    name
                } else {
                    arn("lambda", &format!("function:{name}"))
                }
            };
            let action = match (request.method.as_str(), parts.as_slice()) {
                ("GET", [_, "functions", name]) => ("GetFunction", function(name)),
                ("GET", [_, "functions", name, "configuration"]) => {
                    ("GetFunctionConfiguration", function(name))
                }
                ("GET", [_, "functions", name, "policy"]) => ("GetPolicy", function(name)),
                ("POST", [_, "functions", name, "invocations"]) => {
                    ("InvokeFunction", function(name))
                }
                ("GET", [_, "tags", resource]) => ("ListTags", decode(resource)),
                _ => return Err(format!("{request}: a Lambda API call the checks do not know")),
            };
            Ok(one(format!("lambda:{}", action.0), action.1))
        }
        _ => Err(format!(
            "{request}: a {service} call the checks do not know (teach registry_e2e::iam::calls)"
        )),
    }
}

/// The authorizations of one DynamoDB JSON-protocol operation.
fn dynamodb(op: &str, body: &Value, pk: &str, table: &dyn Fn(&str) -> String) -> Vec<Call> {
    let leading = |key: &Value| key[pk]["S"].as_str().map(str::to_owned);
    let call = |action: &str, name: &str, keys: Vec<String>| {
        let mut context = BTreeMap::new();
        if !keys.is_empty() {
            context.insert("dynamodb:LeadingKeys".to_owned(), keys);
        }
        Call { action: format!("dynamodb:{action}"), resource: table(name), context }
    };
    let name = body["TableName"].as_str().unwrap_or("*");
    match op {
        "GetItem" | "UpdateItem" | "DeleteItem" => {
            vec![call(op, name, leading(&body["Key"]).into_iter().collect())]
        }
        "PutItem" => vec![call(op, name, leading(&body["Item"]).into_iter().collect())],
        "Query" | "Scan" => {
            let mut c = call(op, name, Vec::new());
            if let Some(index) = body["IndexName"].as_str() {
                c.resource = format!("{}/index/{index}", c.resource);
            } else if op == "Query" {
                c.context.extend(
                    query_leading_key(body, pk)
                        .map(|k| ("dynamodb:LeadingKeys".to_owned(), vec![k])),
                );
            }
            vec![c]
        }
        "BatchGetItem" | "BatchWriteItem" => {
            let mut out = Vec::new();
            for (name, request) in body["RequestItems"].as_object().into_iter().flatten() {
                let keys: Vec<String> = match request {
                    Value::Object(get) => {
                        get["Keys"].as_array().into_iter().flatten().filter_map(leading).collect()
                    }
                    Value::Array(writes) => writes
                        .iter()
                        .filter_map(|w| {
                            leading(&w["PutRequest"]["Item"])
                                .or(leading(&w["DeleteRequest"]["Key"]))
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                out.push(call(op, name, keys));
            }
            out
        }
        // Authorized per contained action.
        "TransactWriteItems" | "TransactGetItems" => {
            let mut out = Vec::new();
            for item in body["TransactItems"].as_array().into_iter().flatten() {
                for (member, action, key) in [
                    ("Put", "PutItem", "Item"),
                    ("Update", "UpdateItem", "Key"),
                    ("Delete", "DeleteItem", "Key"),
                    ("ConditionCheck", "ConditionCheckItem", "Key"),
                    ("Get", "GetItem", "Key"),
                ] {
                    let part = &item[member];
                    if part.is_object() {
                        let name = part["TableName"].as_str().unwrap_or("*");
                        out.push(call(action, name, leading(&part[key]).into_iter().collect()));
                    }
                }
            }
            out
        }
        _ => vec![call(op, name, Vec::new())],
    }
}

/// The partition key value of a table query's key condition (`#a = :v AND ...`).
fn query_leading_key(body: &Value, pk: &str) -> Option<String> {
    let condition = body["KeyConditionExpression"].as_str()?;
    condition.split(" AND ").chain(condition.split(" and ")).find_map(|part| {
        let (left, right) = part.split_once('=')?;
        let (left, right) = (left.trim(), right.trim());
        let name = body["ExpressionAttributeNames"][left].as_str().unwrap_or(left);
        (name == pk)
            .then(|| body["ExpressionAttributeValues"][right]["S"].as_str())?
            .map(str::to_owned)
    })
}
