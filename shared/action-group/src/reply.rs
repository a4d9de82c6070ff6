//! The response to a successful invocation, serialized straight from the event view: the
//! JSON text [`crate::ResponseBuilder`] and `serde_json` would give for it, without building
//! the owned response (no copies of the echoed names and attributes, no maps).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;

use crate::builder::status_of;
use crate::limit::MAX_RESPONSE_BYTES;
use crate::parse::{EventView, FormView};
use crate::response::TEXT;

/// `ActionGroupResponse` of a success, borrowed; fields in the same order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Reply<'v> {
    message_version: &'v str,
    response: Kind<'v>,
    #[serde(skip_serializing_if = "Attributes::is_empty")]
    session_attributes: Attributes<'v>,
    #[serde(skip_serializing_if = "Attributes::is_empty")]
    prompt_session_attributes: Attributes<'v>,
}

/// `ResponseKind`: either form, untagged.
#[derive(Serialize)]
#[serde(untagged)]
enum Kind<'v> {
    #[serde(rename_all = "camelCase")]
    Function { action_group: &'v str, function: &'v str, function_response: FunctionBody<'v> },
    #[serde(rename_all = "camelCase")]
    Api {
        action_group: &'v str,
        api_path: &'v str,
        http_method: &'v str,
        http_status_code: u16,
        response_body: Body<'v>,
    },
}

/// `functionResponse` of a success: no `responseState`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FunctionBody<'v> {
    response_body: Body<'v>,
}

/// `{"<content type>": {"body": "<text>"}}`.
struct Body<'v> {
    content_type: &'v str,
    text: &'v str,
}

/// `ContentBody`.
#[derive(Serialize)]
struct Content<'v> {
    body: &'v str,
}

/// An attribute map as the event reader gives it: sorted by key, each key once.
struct Attributes<'v>(&'v [(&'v str, &'v str)]);

impl Attributes<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.content_type, &Content { body: self.text })?;
        map.end()
    }
}

impl Serialize for Attributes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().copied())
    }
}

/// The success response to `view` whose body is `text` (a handler result's JSON that is
/// not a JSON string), as JSON text; `None` over [`MAX_RESPONSE_BYTES`], where the builder
/// cuts the body. The view's attributes are as [`crate::scan::read`] gives them: sorted,
/// each key once, as the response's maps hold them.
pub(crate) fn success(view: &EventView<'_>, text: &str) -> Option<Box<RawValue>> {
    let response = match view.form {
        FormView::Function(function) => Kind::Function {
            action_group: view.action_group,
            function,
            function_response: FunctionBody { response_body: Body { content_type: TEXT, text } },
        },
        FormView::Api { api_path, http_method } => Kind::Api {
            action_group: view.action_group,
            api_path,
            http_method,
            http_status_code: status_of(None),
            response_body: Body { content_type: view.content_type(), text },
        },
    };
    let reply = Reply {
        message_version: view.message_version,
        response,
        session_attributes: Attributes(&view.session_attributes),
        prompt_session_attributes: Attributes(&view.prompt_session_attributes),
    };
    let json = serde_json::value::to_raw_value(&reply).ok()?;
    (json.get().len() <= MAX_RESPONSE_BYTES).then_some(json)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;
    use serde::de::IgnoredAny;
    use serde_json::{Value, json};

    use crate::error::ToolError;
    use crate::handle::{handle_body, handle_body_raw};
    use crate::limit::MAX_RESPONSE_BYTES;
    use crate::scan::tests::{any_string, event, plain};

    /// What a handler returns: a JSON value (strings, numbers, objects...), a tool error,
    /// or a panic.
    fn result() -> impl Strategy<Value = Option<Result<Value, String>>> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any_string().prop_map(Value::from),
        ];
        let value = leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(any_string(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        prop::option::of(prop_oneof![value.prop_map(Ok), any_string().prop_map(Err)])
    }

    /// The text `handle_body_raw` gives equals `handle_body`'s response serialized.
    fn same(body: &[u8], result: &Option<Result<Value, String>>) -> Result<(), TestCaseError> {
        let handler = |_: IgnoredAny| match result.clone() {
            Some(Ok(value)) => Ok(value),
            Some(Err(message)) => Err(ToolError::Reply(message)),
            None => panic!("the handler panicked"),
        };
        let raw = handle_body_raw(body, handler).unwrap();
        let built = serde_json::to_string(&handle_body(body, handler)).unwrap();
        prop_assert_eq!(raw.get(), built.as_str());
        Ok(())
    }

    proptest! {
        #[test]
        fn the_written_response_is_the_built_one(
            e in event(plain().boxed()), result in result(), pretty in any::<bool>(),
        ) {
            let text = if pretty { serde_json::to_string_pretty(&e) } else { serde_json::to_string(&e) };
            same(text.unwrap().as_bytes(), &result)?;
        }

        #[test]
        fn any_event_is_answered_as_the_builder_answers_it(
            e in event(any_string().boxed()), result in result(),
            cut in any::<prop::sample::Index>(), byte in any::<u8>(),
        ) {
            let text = serde_json::to_string(&e).unwrap();
            same(text.as_bytes(), &result)?;
            let at = cut.index(text.len() + 1);
            let mut damaged = text.as_bytes()[..at].to_vec();
            damaged.push(byte);
            same(&damaged, &result)?;
        }
    }

    #[test]
    fn a_plain_success_is_written_straight_from_the_event() {
        let text = r#"{"messageVersion":"1.0","actionGroup":"units","apiPath":"/convert",
            "httpMethod":"POST","requestBody":{"content":{"text/plain":{"properties":[]}}},
            "parameters":[],"sessionAttributes":{"u":"1","a":"2"},"promptSessionAttributes":{}}"#;
        let view = crate::scan::read(text).unwrap();
        let raw = super::success(&view, r#"{"miles":7.7}"#).unwrap();
        let expected = json!({
            "messageVersion": "1.0",
            "response": {"actionGroup": "units", "apiPath": "/convert", "httpMethod": "POST",
                "httpStatusCode": 200,
                "responseBody": {"text/plain": {"body": "{\"miles\":7.7}"}}},
            "sessionAttributes": {"a": "2", "u": "1"},
        });
        assert_eq!(raw.get(), expected.to_string());
    }

    #[test]
    fn a_response_over_the_limit_is_cut_as_the_builder_cuts_it() {
        let text = r#"{"actionGroup":"g","function":"f"}"#;
        let view = crate::scan::read(text).unwrap();
        let long = "x".repeat(MAX_RESPONSE_BYTES);
        assert!(super::success(&view, &long).is_none());
        let answer = |_: IgnoredAny| Ok::<_, ToolError>(vec![long.as_str()]);
        let raw = handle_body_raw(text.as_bytes(), answer).unwrap();
        assert!(raw.get().len() <= MAX_RESPONSE_BYTES);
        assert!(raw.get().contains("[truncated"));
        assert_eq!(
            raw.get(),
            serde_json::to_string(&handle_body(text.as_bytes(), answer)).unwrap()
        );
    }
}
