#![doc = include_str!("../README.md")]

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use fancy_regex::Regex;
use serde_json::{Map, Value};

const BEDROCK_AGENT: &str = include_str!("../models/bedrock-agent.service-2.json");
const BEDROCK_AGENT_RUNTIME: &str = include_str!("../models/bedrock-agent-runtime.service-2.json");
const EVENTBRIDGE: &str = include_str!("../models/events.service-2.json");

/// One AWS service model: its shapes by name.
pub struct Model {
    name: &'static str,
    shapes: Map<String, Value>,
    patterns: Mutex<HashMap<String, Result<Regex, String>>>,
}

impl Model {
    /// The Bedrock Agents model (`bedrock-agent`, 2023-06-05): CreateAgent, action groups.
    pub fn bedrock_agent() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| Model::parse("bedrock-agent", BEDROCK_AGENT))
    }

    /// The Bedrock Agent Runtime model (`bedrock-agent-runtime`, 2023-07-26):
    /// InvokeInlineAgent, return of control.
    pub fn bedrock_agent_runtime() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| Model::parse("bedrock-agent-runtime", BEDROCK_AGENT_RUNTIME))
    }

    /// The EventBridge model (`events`, 2015-10-07): PutEvents.
    pub fn eventbridge() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| Model::parse("events", EVENTBRIDGE))
    }

    fn parse(name: &'static str, text: &str) -> Model {
        let shapes = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(mut doc)) => match doc.remove("shapes") {
                Some(Value::Object(shapes)) => shapes,
                _ => panic!("{name}: the model has no `shapes` object"),
            },
            Ok(_) => panic!("{name}: the model is not a JSON object"),
            Err(e) => panic!("{name}: the model is not valid JSON: {e}"),
        };
        Model { name, shapes, patterns: Mutex::new(HashMap::new()) }
    }

    /// Checks `value` against the shape named `shape`; `Err` lists every violation as
    /// `<JSON Pointer>: <what is wrong>`.
    pub fn check(&self, shape: &str, value: &Value) -> Result<(), Vec<String>> {
        let mut out = Vec::new();
        self.walk(shape, value, "", &mut out);
        if out.is_empty() { Ok(()) } else { Err(out) }
    }

    /// Panics with every violation unless `value` satisfies `shape` (for tests).
    pub fn assert(&self, shape: &str, value: &Value) {
        if let Err(violations) = self.check(shape, value) {
            panic!(
                "{} `{shape}` refuses the value:\n  {}\nvalue: {value:#}",
                self.name,
                violations.join("\n  ")
            );
        }
    }

    /// Names of every shape in the model.
    pub fn shape_names(&self) -> Vec<String> {
        self.shapes.keys().cloned().collect()
    }

    fn shape(&self, name: &str) -> Option<&Map<String, Value>> {
        self.shapes.get(name).and_then(Value::as_object)
    }

    fn walk(&self, name: &str, value: &Value, at: &str, out: &mut Vec<String>) {
        let Some(shape) = self.shape(name) else {
            out.push(format!("{at}: the model has no shape `{name}`"));
            return;
        };
        if shape.get("document").and_then(Value::as_bool) == Some(true) {
            return; // any JSON
        }
        let kind = shape.get("type").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "structure" => self.structure(name, shape, value, at, out),
            "list" => {
                let Some(items) = value.as_array() else {
                    return out.push(format!("{at}: `{name}` must be a list"));
                };
                self.size(shape, items.len(), "items", name, at, out);
                if let Some(member) = member_shape(shape, "member") {
                    for (i, item) in items.iter().enumerate() {
                        self.walk(member, item, &format!("{at}/{i}"), out);
                    }
                }
            }
            "map" => {
                let Some(entries) = value.as_object() else {
                    return out.push(format!("{at}: `{name}` must be an object (map)"));
                };
                self.size(shape, entries.len(), "entries", name, at, out);
                for (k, v) in entries {
                    let path = registry_types::pointer(at, k);
                    if let Some(key) = member_shape(shape, "key") {
                        self.walk(key, &Value::String(k.clone()), &format!("{path} (key)"), out);
                    }
                    if let Some(val) = member_shape(shape, "value") {
                        self.walk(val, v, &path, out);
                    }
                }
            }
            "string" => {
                let Some(s) = value.as_str() else {
                    return out.push(format!("{at}: `{name}` must be a string"));
                };
                self.size(shape, s.chars().count(), "characters", name, at, out);
                if let Some(values) = shape.get("enum").and_then(Value::as_array)
                    && !values.iter().any(|v| v.as_str() == Some(s))
                {
                    out.push(format!("{at}: {s:?} is not one of `{name}`'s values {values:?}"));
                }
                if let Some(pattern) = shape.get("pattern").and_then(Value::as_str) {
                    match self.matches_whole(pattern, s) {
                        Ok(true) => {}
                        Ok(false) => out.push(format!(
                            "{at}: {s:?} does not match `{name}`'s pattern {pattern}"
                        )),
                        Err(e) => out.push(format!("{at}: pattern of `{name}` unusable: {e}")),
                    }
                }
            }
            "integer" | "long" => match value.as_i64() {
                Some(n) => self.range(shape, n as f64, name, at, out),
                None => out.push(format!("{at}: `{name}` must be an integer")),
            },
            "float" | "double" => match value.as_f64() {
                Some(n) => self.range(shape, n, name, at, out),
                None => out.push(format!("{at}: `{name}` must be a number")),
            },
            "boolean" => {
                if !value.is_boolean() {
                    out.push(format!("{at}: `{name}` must be a boolean"));
                }
            }
            "blob" => {
                if !value.is_string() {
                    out.push(format!("{at}: `{name}` must be a base64 string"));
                }
            }
            "timestamp" => {
                if !(value.is_string() || value.is_number()) {
                    out.push(format!("{at}: `{name}` must be a timestamp"));
                }
            }
            other => out.push(format!("{at}: `{name}` has an unknown type `{other}`")),
        }
    }

    fn structure(
        &self,
        name: &str,
        shape: &Map<String, Value>,
        value: &Value,
        at: &str,
        out: &mut Vec<String>,
    ) {
        let Some(object) = value.as_object() else {
            return out.push(format!("{at}: `{name}` must be an object"));
        };
        let members = shape.get("members").and_then(Value::as_object);
        let wire = |member: &str, spec: &Value| -> String {
            spec.get("locationName").and_then(Value::as_str).unwrap_or(member).to_string()
        };
        let mut known: HashMap<String, &str> = HashMap::new();
        for (member, spec) in members.into_iter().flatten() {
            if let Some(target) = spec.get("shape").and_then(Value::as_str) {
                known.insert(wire(member, spec), target);
            }
        }
        for required in shape.get("required").and_then(Value::as_array).into_iter().flatten() {
            if let Some(required) = required.as_str() {
                let spec = members.and_then(|m| m.get(required)).unwrap_or(&Value::Null);
                if !object.contains_key(&wire(required, spec)) {
                    out.push(format!("{at}: `{name}` requires `{required}`"));
                }
            }
        }
        for (key, v) in object {
            let path = registry_types::pointer(at, key);
            match known.get(key) {
                Some(target) => self.walk(target, v, &path, out),
                None => out.push(format!("{path}: `{name}` has no member `{key}`")),
            }
        }
        if shape.get("union").and_then(Value::as_bool) == Some(true) && object.len() != 1 {
            out.push(format!(
                "{at}: `{name}` is a union: exactly one member must be set (got {})",
                object.len()
            ));
        }
    }

    fn size(
        &self,
        shape: &Map<String, Value>,
        len: usize,
        unit: &str,
        name: &str,
        at: &str,
        out: &mut Vec<String>,
    ) {
        let len = len as f64;
        if let Some(min) = shape.get("min").and_then(Value::as_f64)
            && len < min
        {
            out.push(format!("{at}: `{name}` needs at least {min} {unit} (got {len})"));
        }
        if let Some(max) = shape.get("max").and_then(Value::as_f64)
            && len > max
        {
            out.push(format!("{at}: `{name}` allows at most {max} {unit} (got {len})"));
        }
    }

    fn range(
        &self,
        shape: &Map<String, Value>,
        n: f64,
        name: &str,
        at: &str,
        out: &mut Vec<String>,
    ) {
        if let Some(min) = shape.get("min").and_then(Value::as_f64)
            && n < min
        {
            out.push(format!("{at}: `{name}` must be at least {min} (got {n})"));
        }
        if let Some(max) = shape.get("max").and_then(Value::as_f64)
            && n > max
        {
            out.push(format!("{at}: `{name}` must be at most {max} (got {n})"));
        }
    }

    /// Whether `pattern` matches all of `s` (AWS patterns are not always anchored on
    /// both ends; a value must match as a whole).
    fn matches_whole(&self, pattern: &str, s: &str) -> Result<bool, String> {
        let mut cache = self.patterns.lock().map_err(|_| "pattern cache poisoned".to_string())?;
        let compiled = cache
            .entry(pattern.to_string())
            .or_insert_with(|| Regex::new(&format!("^(?:{pattern})$")).map_err(|e| e.to_string()));
        match compiled {
            Ok(re) => re.is_match(s).map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        }
    }
}

fn member_shape<'a>(shape: &'a Map<String, Value>, member: &str) -> Option<&'a str> {
    shape.get(member)?.get("shape")?.as_str()
}
