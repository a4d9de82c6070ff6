//! A request context turned into CEL values once per decision (building it costs
//! microseconds; evaluating a rule against it costs nanoseconds), then reused for
//! every rule and, with [`PreparedContext::set_tool_id`], for every tool.

use crate::context::RequestContext;
use crate::env;
use crate::error::ContextError;
use crate::limits::{
    MAX_CONTEXT_COLLECTION, MAX_CONTEXT_DEPTH, MAX_CONTEXT_STRING_BYTES, MAX_CONTEXT_VALUES,
};
use cel::objects::{Key, Map};
use cel::{Context, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The CEL evaluation context of one decision (or one resolution).
pub struct PreparedContext {
    cel: Context<'static, 'static>,
    request: HashMap<Key, Value>,
}

impl std::fmt::Debug for PreparedContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedContext")
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}

/// Collects limit violations with their paths while converting.
struct Limits {
    errors: Vec<ContextError>,
    values: usize,
}

impl Limits {
    fn fail(&mut self, path: &str, message: String) {
        self.errors.push(ContextError {
            path: path.to_string(),
            message,
        });
    }

    fn string(&mut self, path: &str, s: &str) -> Value {
        if s.len() > MAX_CONTEXT_STRING_BYTES {
            self.fail(
                path,
                format!(
                    "string of {} bytes, at most {MAX_CONTEXT_STRING_BYTES}",
                    s.len()
                ),
            );
        }
        Value::String(Arc::new(s.to_string()))
    }

    fn collection(&mut self, path: &str, len: usize) {
        if len > MAX_CONTEXT_COLLECTION {
            self.fail(
                path,
                format!("{len} entries, at most {MAX_CONTEXT_COLLECTION}"),
            );
        }
    }

    /// Converts free-form JSON, checking depth, sizes and the total value count.
    fn json(&mut self, path: &str, v: &serde_json::Value, depth: usize) -> Value {
        self.values += 1;
        if self.values == MAX_CONTEXT_VALUES + 1 {
            self.fail(path, format!("more than {MAX_CONTEXT_VALUES} values in customData"));
        }
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => n
                .as_i64()
                .map(Value::Int)
                .or_else(|| n.as_u64().map(Value::UInt))
                .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or(f64::NAN))),
            serde_json::Value::String(s) => self.string(path, s),
            serde_json::Value::Array(_) | serde_json::Value::Object(_)
                if depth >= MAX_CONTEXT_DEPTH =>
            {
                self.fail(path, format!("nested deeper than {MAX_CONTEXT_DEPTH} levels"));
                Value::Null
            }
            serde_json::Value::Array(items) => {
                self.collection(path, items.len());
                let list = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| self.json(&format!("{path}/{i}"), item, depth + 1))
                    .collect::<Vec<_>>();
                Value::List(Arc::new(list))
            }
            serde_json::Value::Object(map) => self.object(path, map, depth),
        }
    }

    fn object(&mut self, path: &str, map: &serde_json::Map<String, serde_json::Value>, depth: usize) -> Value {
        self.collection(path, map.len());
        let mut out = HashMap::with_capacity(map.len());
        for (k, item) in map {
            let child = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
            if k.len() > MAX_CONTEXT_STRING_BYTES {
                self.fail(&child, format!("key of {} bytes, at most {MAX_CONTEXT_STRING_BYTES}", k.len()));
            }
            let value = self.json(&child, item, depth + 1);
            out.insert(Key::String(Arc::new(k.clone())), value);
        }
        map_value(out)
    }
}

fn map_value(map: HashMap<Key, Value>) -> Value {
    Value::Map(Map { map: Arc::new(map) })
}

fn key(name: &str) -> Key {
    Key::String(Arc::new(name.to_string()))
}

/// Adds `name: value` when the value is present.
fn put(map: &mut HashMap<Key, Value>, limits: &mut Limits, path: &str, name: &str, value: Option<&String>) {
    if let Some(v) = value {
        let v = limits.string(&format!("{path}/{name}"), v);
        map.insert(key(name), v);
    }
}

impl PreparedContext {
    /// Converts `context` to CEL values, checking the context limits (see `limits`).
    /// An absent `request.time` is the current time.
    pub fn new(context: &RequestContext) -> Result<Self, Vec<ContextError>> {
        let mut limits = Limits {
            errors: Vec::new(),
            values: 0,
        };

        let u = &context.user;
        let mut user = HashMap::with_capacity(4);
        put(&mut user, &mut limits, "/user", "userId", u.user_id.as_ref());
        put(&mut user, &mut limits, "/user", "userType", u.user_type.as_ref());
        put(&mut user, &mut limits, "/user", "email", u.email.as_ref());
        if let Some(roles) = &u.roles {
            limits.collection("/user/roles", roles.len());
            let roles = roles
                .iter()
                .enumerate()
                .map(|(i, r)| limits.string(&format!("/user/roles/{i}"), r))
                .collect::<Vec<_>>();
            user.insert(key("roles"), Value::List(Arc::new(roles)));
        }

        let a = &context.account;
        let mut account = HashMap::with_capacity(3);
        put(&mut account, &mut limits, "/account", "accountId", a.account_id.as_ref());
        put(&mut account, &mut limits, "/account", "type", a.account_type.as_ref());
        put(&mut account, &mut limits, "/account", "organizationId", a.organization_id.as_ref());

        let custom = limits.object("/customData", &context.custom_data, 0);

        let r = &context.request;
        let mut request = HashMap::with_capacity(4);
        put(&mut request, &mut limits, "/request", "region", r.region.as_ref());
        put(&mut request, &mut limits, "/request", "agentId", r.agent_id.as_ref());
        put(&mut request, &mut limits, "/request", "toolId", r.tool_id.as_ref());
        let time = r.time.unwrap_or_else(|| chrono::Utc::now().fixed_offset());
        request.insert(key("time"), Value::Timestamp(time));

        if !limits.errors.is_empty() {
            return Err(limits.errors);
        }
        let mut cel = Context::with_env(Arc::clone(env::env()));
        cel.add_variable_from_value("user", map_value(user));
        cel.add_variable_from_value("customData", custom);
        cel.add_variable_from_value("account", map_value(account));
        cel.add_variable_from_value("request", map_value(request.clone()));
        Ok(Self { cel, request })
    }

    /// Sets (or, with `None`, removes) `request.toolId` for the next evaluations.
    pub fn set_tool_id(&mut self, tool_id: Option<&str>) {
        self.set_request_field("toolId", tool_id);
    }

    /// Sets (or, with `None`, removes) `request.agentId` for the next evaluations.
    pub fn set_agent_id(&mut self, agent_id: Option<&str>) {
        self.set_request_field("agentId", agent_id);
    }

    fn set_request_field(&mut self, name: &str, value: Option<&str>) {
        match value {
            Some(v) => {
                self.request
                    .insert(key(name), Value::String(Arc::new(v.to_string())));
            }
            None => {
                self.request.remove(&key(name));
            }
        }
        self.cel
            .add_variable_from_value("request", map_value(self.request.clone()));
    }

    /// The CEL context conditions are evaluated against.
    pub(crate) fn cel(&self) -> &Context<'static, 'static> {
        &self.cel
    }
}
