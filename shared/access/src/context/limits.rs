//! The context limits (see `limits`), checked on the values of a context before it
//! is prepared: every violation with its JSON pointer, in the order of the context's
//! fields. Nothing is allocated when the context is within the limits.

use crate::context::prepared::{ACCOUNT_FIELDS, Parts, USER_FIELDS};
use crate::context::value::Value;
use crate::diagnostics::ContextError;
use crate::limits::{
    MAX_CONTEXT_COLLECTION, MAX_CONTEXT_DEPTH, MAX_CONTEXT_STRING_BYTES, MAX_CONTEXT_VALUES,
};

/// Collects violations while walking the context.
struct Limits {
    errors: Vec<ContextError>,
    values: usize,
}

/// The string fields of `request`, in order.
const REQUEST: [&str; 3] = ["region", "agentId", "toolId"];

/// Checks every limit on `p`; `Err` lists each violation.
pub(crate) fn check(p: &Parts<'_>) -> Result<(), Vec<ContextError>> {
    let mut l = Limits { errors: Vec::new(), values: 0 };
    for (name, v) in USER_FIELDS.iter().zip(&p.user) {
        l.field("/user", name, v.as_ref());
    }
    for (name, v) in ACCOUNT_FIELDS.iter().zip(&p.account) {
        l.field("/account", name, v.as_ref());
    }
    if let Value::Map(entries) = &p.custom_data {
        l.object(&|| "/customData".to_string(), entries, 0);
    }
    for (name, v) in REQUEST.iter().zip([&p.region, &p.agent_id, &p.tool_id]) {
        l.field("/request", name, v.as_ref());
    }
    if l.errors.is_empty() { Ok(()) } else { Err(l.errors) }
}

impl Limits {
    fn fail(&mut self, path: String, message: String) {
        self.errors.push(ContextError { path, message });
    }

    /// A typed field: a string, or (`roles`) a list of strings.
    fn field(&mut self, parent: &str, name: &str, v: Option<&Value<'_>>) {
        match v {
            Some(Value::Str(s)) => self.string(&|| format!("{parent}/{name}"), s),
            Some(Value::List(items)) => {
                self.collection(&|| format!("{parent}/{name}"), items.len());
                for (i, item) in items.iter().enumerate() {
                    if let Value::Str(s) = item {
                        self.string(&|| format!("{parent}/{name}/{i}"), s);
                    }
                }
            }
            _ => {}
        }
    }

    fn string(&mut self, path: &dyn Fn() -> String, s: &str) {
        if s.len() > MAX_CONTEXT_STRING_BYTES {
            self.fail(
                path(),
                format!("string of {} bytes, at most {MAX_CONTEXT_STRING_BYTES}", s.len()),
            );
        }
    }

    fn collection(&mut self, path: &dyn Fn() -> String, len: usize) {
        if len > MAX_CONTEXT_COLLECTION {
            self.fail(path(), format!("{len} entries, at most {MAX_CONTEXT_COLLECTION}"));
        }
    }

    /// A free-form value of `customData`: depth, sizes and the total value count.
    fn json(&mut self, path: &dyn Fn() -> String, v: &Value<'_>, depth: usize) {
        self.values += 1;
        if self.values == MAX_CONTEXT_VALUES + 1 {
            self.fail(path(), format!("more than {MAX_CONTEXT_VALUES} values in customData"));
        }
        match v {
            Value::Str(s) => self.string(path, s),
            Value::List(_) | Value::Map(_) if depth >= MAX_CONTEXT_DEPTH => {
                self.fail(path(), format!("nested deeper than {MAX_CONTEXT_DEPTH} levels"));
            }
            Value::List(items) => {
                self.collection(path, items.len());
                for (i, item) in items.iter().enumerate() {
                    self.json(&|| format!("{}/{i}", path()), item, depth + 1);
                }
            }
            Value::Map(entries) => self.object(path, entries, depth),
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::UInt(_)
            | Value::Double(_)
            | Value::Time(_) => {}
        }
    }

    fn object(
        &mut self,
        path: &dyn Fn() -> String,
        entries: &[(std::borrow::Cow<'_, str>, Value<'_>)],
        depth: usize,
    ) {
        self.collection(path, entries.len());
        for (k, item) in entries {
            let child = || registry_types::pointer(&path(), k);
            if k.len() > MAX_CONTEXT_STRING_BYTES {
                self.fail(
                    child(),
                    format!("key of {} bytes, at most {MAX_CONTEXT_STRING_BYTES}", k.len()),
                );
            }
            self.json(&child, item, depth + 1);
        }
    }
}
