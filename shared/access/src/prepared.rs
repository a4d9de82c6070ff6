//! A request context turned into CEL values once per decision (or per resolution),
//! then reused for every rule and, with [`PreparedContext::set_tool_id`], every tool.
//!
//! Conditions reach it through a `cel` variable resolver: compiled conditions refer to
//! field paths as single identifiers (`"user.userType"`, see `flatten`), resolved here
//! by walking the prepared values without allocating.

use crate::context::RequestContext;
use crate::error::ContextError;
use crate::limits::{
    MAX_CONTEXT_COLLECTION, MAX_CONTEXT_DEPTH, MAX_CONTEXT_STRING_BYTES, MAX_CONTEXT_VALUES,
};
use crate::node::Root;
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelTimestamp,
    CelUInt,
};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use std::collections::HashMap;

pub(crate) type Boxed = Box<dyn Val + 'static>;

/// The CEL values of one request context.
pub struct PreparedContext {
    user: Boxed,
    custom_data: Boxed,
    account: Boxed,
    /// `request` without `agentId` and `toolId`, which change per agent and per tool.
    request: Boxed,
    agent_id: Option<String>,
    tool_id: Option<String>,
    /// The typed fields again, one slot each (see [`SLOTS`]), resolved without hashing.
    slots: [Option<Boxed>; SLOTS.len()],
}

/// Flattened paths resolved from a slot instead of a map walk.
pub(crate) const SLOTS: [&str; 9] = [
    "user.userId",
    "user.userType",
    "user.email",
    "user.roles",
    "account.accountId",
    "account.type",
    "account.organizationId",
    "request.region",
    "request.time",
];

impl std::fmt::Debug for PreparedContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedContext")
            .field("user", &self.user)
            .field("customData", &self.custom_data)
            .field("account", &self.account)
            .field("request", &self.request)
            .field("agentId", &self.agent_id)
            .field("toolId", &self.tool_id)
            .finish()
    }
}

/// Collects limit violations with their paths while converting.
struct Limits {
    errors: Vec<ContextError>,
    values: usize,
}

fn string(s: &str) -> Boxed {
    Box::new(CelString::from(s.to_string()))
}

fn map(entries: HashMap<CelMapKey<'static>, Boxed>) -> Boxed {
    Box::new(CelMap::from(entries))
}

impl Limits {
    fn fail(&mut self, path: &str, message: String) {
        self.errors.push(ContextError { path: path.to_string(), message });
    }

    fn string(&mut self, path: &str, s: &str) -> Boxed {
        if s.len() > MAX_CONTEXT_STRING_BYTES {
            self.fail(
                path,
                format!("string of {} bytes, at most {MAX_CONTEXT_STRING_BYTES}", s.len()),
            );
        }
        string(s)
    }

    fn collection(&mut self, path: &str, len: usize) {
        if len > MAX_CONTEXT_COLLECTION {
            self.fail(path, format!("{len} entries, at most {MAX_CONTEXT_COLLECTION}"));
        }
    }

    /// Converts free-form JSON, checking depth, sizes and the total value count.
    fn json(&mut self, path: &str, v: &serde_json::Value, depth: usize) -> Boxed {
        use serde_json::Value as J;
        self.values += 1;
        if self.values == MAX_CONTEXT_VALUES + 1 {
            self.fail(path, format!("more than {MAX_CONTEXT_VALUES} values in customData"));
        }
        match v {
            J::Null => Box::new(CelNull),
            J::Bool(b) => Box::new(CelBool::from(*b)),
            J::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Box::new(CelInt::from(i)),
                (None, Some(u)) => Box::new(CelUInt::from(u)),
                _ => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
            },
            J::String(s) => self.string(path, s),
            J::Array(_) | J::Object(_) if depth >= MAX_CONTEXT_DEPTH => {
                self.fail(path, format!("nested deeper than {MAX_CONTEXT_DEPTH} levels"));
                Box::new(CelNull)
            }
            J::Array(items) => {
                self.collection(path, items.len());
                let list = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| self.json(&format!("{path}/{i}"), item, depth + 1))
                    .collect::<Vec<_>>();
                Box::new(CelList::from(list))
            }
            J::Object(m) => self.object(path, m, depth),
        }
    }

    fn object(
        &mut self,
        path: &str,
        m: &serde_json::Map<String, serde_json::Value>,
        depth: usize,
    ) -> Boxed {
        self.collection(path, m.len());
        let mut out = HashMap::with_capacity(m.len());
        for (k, item) in m {
            let child = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
            if k.len() > MAX_CONTEXT_STRING_BYTES {
                self.fail(
                    &child,
                    format!("key of {} bytes, at most {MAX_CONTEXT_STRING_BYTES}", k.len()),
                );
            }
            let value = self.json(&child, item, depth + 1);
            out.insert(CelMapKey::from(k.clone()), value);
        }
        map(out)
    }

    /// Adds `name: value` to `entries` when the value is present.
    fn put(
        &mut self,
        entries: &mut HashMap<CelMapKey<'static>, Boxed>,
        path: &str,
        name: &'static str,
        value: Option<&String>,
    ) {
        if let Some(v) = value {
            let v = self.string(&format!("{path}/{name}"), v);
            entries.insert(CelMapKey::from(name.to_string()), v);
        }
    }
}

impl PreparedContext {
    /// Converts `context` to CEL values, checking the context limits (see `limits`).
    /// An absent `request.time` is the current time.
    pub fn new(context: &RequestContext) -> Result<Self, Vec<ContextError>> {
        let mut l = Limits { errors: Vec::new(), values: 0 };

        let u = &context.user;
        let mut user = HashMap::with_capacity(4);
        l.put(&mut user, "/user", "userId", u.user_id.as_ref());
        l.put(&mut user, "/user", "userType", u.user_type.as_ref());
        l.put(&mut user, "/user", "email", u.email.as_ref());
        if let Some(roles) = &u.roles {
            l.collection("/user/roles", roles.len());
            let roles = roles
                .iter()
                .enumerate()
                .map(|(i, r)| l.string(&format!("/user/roles/{i}"), r))
                .collect::<Vec<_>>();
            user.insert(CelMapKey::from("roles".to_string()), Box::new(CelList::from(roles)));
        }

        let a = &context.account;
        let mut account = HashMap::with_capacity(3);
        l.put(&mut account, "/account", "accountId", a.account_id.as_ref());
        l.put(&mut account, "/account", "type", a.account_type.as_ref());
        l.put(&mut account, "/account", "organizationId", a.organization_id.as_ref());

        let custom_data = l.object("/customData", &context.custom_data, 0);

        let r = &context.request;
        let mut request = HashMap::with_capacity(2);
        l.put(&mut request, "/request", "region", r.region.as_ref());
        let time = r.time.unwrap_or_else(|| chrono::Utc::now().fixed_offset());
        request.insert(CelMapKey::from("time".to_string()), Box::new(CelTimestamp::from(time)));
        for (name, v) in [("agentId", &r.agent_id), ("toolId", &r.tool_id)] {
            if let Some(v) = v {
                l.string(&format!("/request/{name}"), v);
            }
        }

        if !l.errors.is_empty() {
            return Err(l.errors);
        }
        let slots = SLOTS.map(|path| {
            let (root, field) = path.split_once('.')?;
            let entries = match root {
                "user" => &user,
                "account" => &account,
                _ => &request,
            };
            entries.get(&CelMapKey::from(field.to_string())).map(|v| v.clone_as_boxed())
        });
        let (user, account, request) = (map(user), map(account), map(request));
        Ok(Self {
            user,
            custom_data,
            account,
            request,
            agent_id: r.agent_id.clone(),
            tool_id: r.tool_id.clone(),
            slots,
        })
    }

    /// Sets (or, with `None`, removes) `request.toolId` for the next evaluations.
    pub fn set_tool_id(&mut self, tool_id: Option<&str>) {
        set(&mut self.tool_id, tool_id);
    }

    /// Sets (or, with `None`, removes) `request.agentId` for the next evaluations.
    pub fn set_agent_id(&mut self, agent_id: Option<&str>) {
        set(&mut self.agent_id, agent_id);
    }

    /// The value of slot `at` (see [`SLOTS`]), when the field is present.
    pub(crate) fn slot(&self, at: usize) -> Option<&Boxed> {
        self.slots.get(at)?.as_ref()
    }

    /// A whole variable (`request` without `agentId` and `toolId`).
    pub(crate) fn root(&self, root: Root) -> &Boxed {
        match root {
            Root::User => &self.user,
            Root::CustomData => &self.custom_data,
            Root::Account => &self.account,
            Root::Request => &self.request,
        }
    }

    /// `request.toolId`, when set.
    pub(crate) fn tool_id(&self) -> Option<&String> {
        self.tool_id.as_ref()
    }

    /// `request.agentId`, when set.
    pub(crate) fn agent_id(&self) -> Option<&String> {
        self.agent_id.as_ref()
    }

    /// The whole `request` map, `agentId` and `toolId` included (built on demand).
    fn request_map(&self) -> Boxed {
        let mut entries = HashMap::with_capacity(4);
        for key in ["region", "time"] {
            if let Ok(v) =
                self.request.as_indexer().map_or(Err(cel::ExecutionError::no_such_key(key)), |i| {
                    i.get(&CelString::from(key))
                })
            {
                entries.insert(CelMapKey::from(key.to_string()), v.into_owned());
            }
        }
        for (key, v) in [("agentId", &self.agent_id), ("toolId", &self.tool_id)] {
            if let Some(v) = v {
                entries.insert(CelMapKey::from(key.to_string()), string(v));
            }
        }
        map(entries)
    }
}

fn set(slot: &mut Option<String>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(s), Some(v)) => {
            s.clear();
            s.push_str(v);
        }
        (_, v) => *slot = v.map(str::to_string),
    }
}

/// Walks `fields` down from `root`; `None` when a field is absent.
fn walk<'b>(root: &'b (dyn Val + 'static), fields: &str) -> Option<CowVal<'b, 'b>> {
    let mut current = CowVal::Borrowed(root);
    for field in fields.split('.') {
        let key = CelString::from(field);
        current = match current {
            CowVal::Borrowed(v) => v.as_indexer()?.get(&key).ok()?,
            CowVal::Owned(v) => CowVal::Owned(v.as_indexer()?.get(&key).ok()?.into_owned()),
        };
    }
    Some(current)
}

impl VariableResolver for PreparedContext {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        if let Some(i) = SLOTS.iter().position(|s| *s == variable) {
            return self.slots[i].as_deref().map(CowVal::Borrowed);
        }
        let (root, rest) = match variable.split_once('.') {
            Some((root, rest)) => (root, Some(rest)),
            None => (variable, None),
        };
        let value: &'b (dyn Val + 'static) = match root {
            "user" => self.user.as_ref(),
            "customData" => self.custom_data.as_ref(),
            "account" => self.account.as_ref(),
            "request" => match rest {
                None => return Some(CowVal::Owned(self.request_map())),
                Some("toolId") => {
                    return self.tool_id.as_deref().map(|s| CowVal::owned(CelString::from(s)));
                }
                Some("agentId") => {
                    return self.agent_id.as_deref().map(|s| CowVal::owned(CelString::from(s)));
                }
                Some(_) => self.request.as_ref(),
            },
            _ => return None,
        };
        match rest {
            None => Some(CowVal::Borrowed(value)),
            Some(fields) => walk(value, fields),
        }
    }
}
