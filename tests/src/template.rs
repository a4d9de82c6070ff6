//! `infra/template.yaml` as data: parsed with its short-form tags (`!Ref`, `!Sub`,
//! `!GetAtt`, ...) turned into their long forms, and values resolved for one
//! deployment ([`Deployment`]: fixed account, region and stack name, the physical names
//! the tests gave the resources).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The template's path.
pub const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../infra/template.yaml");

/// The account of every ARN the checks build (moto's default account).
pub const ACCOUNT: &str = "123456789012";
/// The region of the functions (`AWS_REGION` of [`crate::Lambda`]).
pub const REGION: &str = "us-east-1";
/// The stack name of the deployment the tests stand for.
pub const STACK_NAME: &str = "registry-e2e";

/// The parsed template, as JSON with long-form intrinsic functions.
#[derive(Debug, Clone)]
pub struct Template(Value);

impl Template {
    /// Reads and parses [`PATH`].
    pub fn load() -> Result<Self, String> {
        let text = std::fs::read_to_string(PATH).map_err(|e| format!("{PATH}: {e}"))?;
        Self::parse(&text)
    }

    /// Parses template text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let yaml: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(text).map_err(|e| format!("template: {e}"))?;
        long_form(yaml).map(Self)
    }

    /// The resource `logical_id` (`Type`, `Properties`, ...).
    pub fn resource(&self, logical_id: &str) -> Option<&Value> {
        self.0.get("Resources")?.get(logical_id)
    }

    /// Every resource, by logical id.
    pub fn resources(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.get("Resources").and_then(Value::as_object).into_iter().flatten()
    }

    /// The function (`AWS::Serverless::Function`) whose build produces `binary`
    /// (`Metadata.BuildProperties.Binary`): its logical id.
    pub fn function_of_binary(&self, binary: &str) -> Option<&str> {
        self.resources()
            .find(|(_, r)| {
                r["Type"] == "AWS::Serverless::Function"
                    && r.pointer("/Metadata/BuildProperties/Binary").and_then(Value::as_str)
                        == Some(binary)
            })
            .map(|(id, _)| id.as_str())
    }

    /// The condition `name` of the template's `Conditions` (long form).
    pub fn condition(&self, name: &str) -> Option<&Value> {
        self.0.get("Conditions")?.get(name)
    }

    /// A parameter's default value.
    pub fn parameter_default(&self, name: &str) -> Option<String> {
        let default = self.0.get("Parameters")?.get(name)?.get("Default")?;
        match default {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// YAML to JSON; `!Name value` becomes `{"Ref": value}` for `!Ref` and
/// `{"Fn::Name": value}` otherwise (`!GetAtt A.B` becomes `["A", "B"]`).
fn long_form(yaml: serde_yaml_ng::Value) -> Result<Value, String> {
    use serde_yaml_ng::Value as Y;
    Ok(match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => serde_json::to_value(&n).map_err(|e| e.to_string())?,
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => {
            Value::Array(items.into_iter().map(long_form).collect::<Result<_, _>>()?)
        }
        Y::Mapping(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let key = match k {
                    Y::String(s) => s,
                    other => format!("{other:?}"),
                };
                out.insert(key, long_form(v)?);
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => {
            let name = tagged.tag.to_string().trim_start_matches('!').to_owned();
            let value = long_form(tagged.value)?;
            let (key, value) = match (name.as_str(), value) {
                ("Ref", v) => ("Ref".to_owned(), v),
                ("GetAtt", Value::String(s)) => {
                    let (resource, attribute) =
                        s.split_once('.').ok_or_else(|| format!("!GetAtt {s}: no attribute"))?;
                    ("Fn::GetAtt".to_owned(), serde_json::json!([resource, attribute]))
                }
                (other, v) => (format!("Fn::{other}"), v),
            };
            Value::Object(Map::from_iter([(key, value)]))
        }
    })
}

/// One deployment of the template: the pseudo parameters and the physical names of
/// resources (a resource without one is named `<stack>-<logical id>`, as CloudFormation
/// names it).
#[derive(Debug, Clone)]
pub struct Deployment<'t> {
    template: &'t Template,
    names: BTreeMap<String, String>,
}

impl<'t> Deployment<'t> {
    /// The deployment of `template` with no physical names given.
    pub fn new(template: &'t Template) -> Self {
        Self { template, names: BTreeMap::new() }
    }

    /// The resource `logical_id` is named `name` (e.g. the table a test created).
    pub fn name(&mut self, logical_id: &str, name: &str) -> &mut Self {
        self.names.insert(logical_id.to_owned(), name.to_owned());
        self
    }

    /// Binds physical names from a function's environment: each variable of
    /// `function`'s `Environment.Variables` that is `!Ref <resource>` names that
    /// resource with the value the function was given (`REGISTRY_TABLE: !Ref
    /// RegistryTable` and `REGISTRY_TABLE=e2e-...`: the table is `e2e-...`).
    pub fn names_from_environment(&mut self, function: &str, env: &BTreeMap<String, String>) {
        let variables = self
            .template
            .resource(function)
            .and_then(|f| f.pointer("/Properties/Environment/Variables"))
            .and_then(Value::as_object);
        for (variable, value) in variables.into_iter().flatten() {
            let referenced = value
                .get("Ref")
                .and_then(Value::as_str)
                .filter(|r| self.template.resource(r).is_some());
            if let (Some(resource), Some(given)) = (referenced, env.get(variable)) {
                self.names.insert(resource.to_owned(), given.clone());
            }
        }
    }

    fn physical_name(&self, logical_id: &str) -> String {
        self.names.get(logical_id).cloned().unwrap_or_else(|| format!("{STACK_NAME}-{logical_id}"))
    }

    /// `!Ref name`: a pseudo parameter, a parameter's default, or a resource's name.
    fn reference(&self, name: &str) -> Result<String, String> {
        Ok(match name {
            "AWS::AccountId" => ACCOUNT.to_owned(),
            "AWS::Region" => REGION.to_owned(),
            "AWS::Partition" => "aws".to_owned(),
            "AWS::StackName" => STACK_NAME.to_owned(),
            "AWS::URLSuffix" => "amazonaws.com".to_owned(),
            _ => {
                if let Some(default) = self.template.parameter_default(name) {
                    default
                } else if self.template.resource(name).is_some() {
                    self.physical_name(name)
                } else {
                    return Err(format!("!Ref {name}: no default, resource or pseudo parameter"));
                }
            }
        })
    }

    /// `!GetAtt resource.attribute` for the attributes the policies use.
    fn attribute(&self, resource: &str, attribute: &str) -> Result<String, String> {
        let kind = self
            .template
            .resource(resource)
            .and_then(|r| r["Type"].as_str())
            .ok_or_else(|| format!("!GetAtt {resource}.{attribute}: no such resource"))?;
        let name = self.physical_name(resource);
        let arn =
            |service: &str, rest: String| format!("arn:aws:{service}:{REGION}:{ACCOUNT}:{rest}");
        Ok(match (kind, attribute) {
            ("AWS::DynamoDB::Table", "Arn") => arn("dynamodb", format!("table/{name}")),
            ("AWS::DynamoDB::Table", "StreamArn") => {
                arn("dynamodb", format!("table/{name}/stream/2026-01-01T00:00:00.000"))
            }
            ("AWS::Events::EventBus", "Arn") => arn("events", format!("event-bus/{name}")),
            ("AWS::SQS::Queue", "Arn") => arn("sqs", name),
            ("AWS::Serverless::Function", "Arn") => arn("lambda", format!("function:{name}")),
            _ => return Err(format!("!GetAtt {resource}.{attribute} ({kind}) is not known here")),
        })
    }

    /// Resolves the intrinsic functions in `value` (`Ref`, `Fn::GetAtt`, `Fn::Sub`;
    /// any other is an error).
    pub fn resolve(&self, value: &Value) -> Result<Value, String> {
        match value {
            Value::Array(items) => items.iter().map(|v| self.resolve(v)).collect(),
            Value::Object(map) if map.len() == 1 => {
                let (key, arg) = map.iter().next().ok_or("empty")?;
                match key.as_str() {
                    "Ref" => {
                        let name = arg.as_str().ok_or_else(|| format!("Ref of {arg}"))?;
                        self.reference(name).map(Value::String)
                    }
                    "Fn::GetAtt" => {
                        let parts: Vec<&str> = match arg {
                            Value::String(s) => s.splitn(2, '.').collect(),
                            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                            _ => Vec::new(),
                        };
                        match parts.as_slice() {
                            [resource, attribute] => {
                                self.attribute(resource, attribute).map(Value::String)
                            }
                            _ => Err(format!("Fn::GetAtt of {arg}")),
                        }
                    }
                    "Fn::Sub" => self.sub(arg).map(Value::String),
                    k if k.starts_with("Fn::") => Err(format!("{k} is not resolved here")),
                    _ => Ok(Value::Object(Map::from_iter([(key.clone(), self.resolve(arg)?)]))),
                }
            }
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| Ok((k.clone(), self.resolve(v)?)))
                .collect::<Result<Map<_, _>, String>>()
                .map(Value::Object),
            other => Ok(other.clone()),
        }
    }

    /// `Fn::Sub` of a string (or `[string, variables]`).
    fn sub(&self, arg: &Value) -> Result<String, String> {
        let (text, vars) = match arg {
            Value::String(s) => (s.as_str(), None),
            Value::Array(a) => match a.as_slice() {
                [Value::String(s), Value::Object(vars)] => (s.as_str(), Some(vars)),
                _ => return Err(format!("Fn::Sub of {arg}")),
            },
            _ => return Err(format!("Fn::Sub of {arg}")),
        };
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or_else(|| format!("Fn::Sub {text}: unclosed ${{"))?;
            let name = &after[..end];
            let value = if let Some(v) = vars.and_then(|v| v.get(name)) {
                self.resolve(v)?.as_str().map(str::to_owned).ok_or("Fn::Sub variable")?
            } else if let Some(literal) = name.strip_prefix('!') {
                format!("${{{literal}}}")
            } else if let Some((resource, attribute)) =
                name.split_once('.').filter(|_| !name.starts_with("AWS::"))
            {
                self.attribute(resource, attribute)?
            } else {
                self.reference(name)?
            };
            out.push_str(&value);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}
