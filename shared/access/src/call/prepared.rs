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

/// `call` as the interpreter reads it.
pub(crate) struct CallValues<'a> {
    function: Value<'a>,
    http_method: Option<Value<'a>>,
    /// A [`Value::Map`].
    arguments: Value<'a>,
}

impl<'a> CallValues<'a> {
    /// The values of `call`, each argument typed by what `schema` declares for it
    /// (`number` as double also when written without a fraction, `integer` as int);
    /// arguments the schema does not declare keep their JSON types.
    pub(crate) fn new(call: &ToolCall<'a>, schema: &CallSchema) -> Self {
        let arguments = call
            .arguments
            .iter()
            .map(|(name, value)| {
                let typed = match (schema.parameter(call.function, name), value) {
                    (Some(ArgType::Number), serde_json::Value::Number(n)) => {
                        n.as_f64().map(Value::Double)
                    }
                    (Some(ArgType::Integer), serde_json::Value::Number(n)) => {
                        n.as_i64().map(Value::Int)
                    }
                    _ => None,
                };
                (Cow::Borrowed(name.as_str()), typed.unwrap_or_else(|| Value::from_json(value)))
            })
            .collect();
        Self {
            function: Value::str(call.function),
            http_method: call.http_method.map(Value::str),
            arguments: Value::Map(arguments),
        }
    }

    /// `call` as one map.
    fn whole(&self) -> Value<'a> {
        let mut entries = vec![
            (Cow::Borrowed("function"), self.function.clone()),
            (Cow::Borrowed("arguments"), self.arguments.clone()),
        ];
        if let Some(method) = &self.http_method {
            entries.push((Cow::Borrowed("httpMethod"), method.clone()));
        }
        Value::Map(entries)
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
        let value = match rest {
            "" => return Some(CowVal::Owned(self.call.whole().to_cel())),
            ".function" => &self.call.function,
            ".httpMethod" => self.call.http_method.as_ref()?,
            ".arguments" => &self.call.arguments,
            path => {
                let path = path.strip_prefix(".arguments.")?;
                let mut value = &self.call.arguments;
                for field in path.split('.') {
                    value = value.get(field)?;
                }
                value
            }
        };
        Some(CowVal::Owned(value.to_cel()))
    }
}
