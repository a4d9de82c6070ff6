//! A tool call made ready for evaluation: its arguments typed by the tool's schema,
//! read by conditions as `call.function`, `call.httpMethod` and `call.arguments.<name>`
//! beside the request context.

use crate::call::schema::{ArgType, CallSchema};
use crate::call::session::{SessionKeys, SessionView};
use crate::context::prepared::PreparedContext;
use crate::context::value::Value;
use cel::common::value::CowVal;
use cel::context::VariableResolver;
use serde_json::Map;
use std::borrow::Cow;

/// One call of a tool, as call rules see it.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The function called (`apiPath` for API-schema tools).
    pub function: &'a str,
    /// The HTTP method, for API-schema tools.
    pub http_method: Option<&'a str>,
    /// The arguments, by parameter name (Bedrock's JSON-encoded parameters decoded).
    pub arguments: &'a Map<String, serde_json::Value>,
}

/// `call` as the interpreter reads it: each argument typed when a condition reads it.
pub(crate) struct CallValues<'a> {
    call: ToolCall<'a>,
    schema: &'a CallSchema,
}

impl<'a> CallValues<'a> {
    /// The values of `call`, each argument typed by what `schema` declares for it
    /// (`number` as double also when written without a fraction, `integer` as int);
    /// arguments the schema does not declare keep their JSON types.
    pub(crate) fn new(call: &ToolCall<'a>, schema: &'a CallSchema) -> Self {
        Self { call: *call, schema }
    }

    /// The argument `name`, typed.
    fn argument(&self, name: &str) -> Option<Value<'a>> {
        let value = self.call.arguments.get(name)?;
        Some(self.typed(name, value))
    }

    fn typed(&self, name: &str, value: &'a serde_json::Value) -> Value<'a> {
        let typed = match (self.schema.parameter(self.call.function, name), value) {
            (Some(ArgType::Number), serde_json::Value::Number(n)) => n.as_f64().map(Value::Double),
            (Some(ArgType::Integer), serde_json::Value::Number(n)) => n.as_i64().map(Value::Int),
            _ => None,
        };
        typed.unwrap_or_else(|| Value::from_json(value))
    }

    /// `call.arguments` as one map.
    fn arguments(&self) -> Value<'a> {
        let entries = self.call.arguments.iter();
        Value::Map(entries.map(|(k, v)| (Cow::Borrowed(k.as_str()), self.typed(k, v))).collect())
    }

    /// `call` as one map.
    fn whole(&self) -> Value<'a> {
        let mut entries = vec![
            (Cow::Borrowed("function"), Value::str(self.call.function)),
            (Cow::Borrowed("arguments"), self.arguments()),
        ];
        if let Some(method) = self.call.http_method {
            entries.push((Cow::Borrowed("httpMethod"), Value::str(method)));
        }
        Value::Map(entries)
    }

    /// `call.<path>`: `function`, `httpMethod`, `arguments` or `arguments.<name>...`.
    pub(crate) fn at(&self, path: &str) -> Option<Value<'a>> {
        match path {
            "" => Some(self.whole()),
            ".function" => Some(Value::str(self.call.function)),
            ".httpMethod" => self.call.http_method.map(Value::str),
            ".arguments" => Some(self.arguments()),
            path => {
                let path = path.strip_prefix(".arguments.")?;
                let Some((name, rest)) = path.split_once('.') else {
                    return self.argument(path);
                };
                let mut value = self.call.arguments.get(name)?;
                for field in rest.split('.') {
                    value = value.get(field)?;
                }
                Some(Value::from_json(value))
            }
        }
    }
}

/// The request context, a call and the session so far, read together by call rules.
pub(crate) struct WithCall<'a> {
    pub ctx: &'a PreparedContext<'a>,
    pub call: CallValues<'a>,
    pub session: SessionView<'a>,
    pub keys: SessionKeys<'a>,
}

impl VariableResolver for WithCall<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        if let Some(rest) = variable.strip_prefix("session") {
            let field = match rest {
                "" => None,
                field => Some(field.strip_prefix('.')?),
            };
            return self.session.value(field, self.keys).map(CowVal::Owned);
        }
        let Some(rest) = variable.strip_prefix("call") else {
            return self.ctx.resolve(variable);
        };
        Some(CowVal::Owned(self.call.at(rest)?.to_cel()))
    }
}
