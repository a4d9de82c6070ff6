//! `tools/list` results filtered to the tools the caller is granted (decision 91: how a
//! listed name maps to its backend when the gateway fans out to several).

use serde_json::Value;

use crate::Malformed;

/// agentgateway's separator between a backend's name and a tool's when it multiplexes
/// several backends behind one route (`{backend}_{tool}`).
const MUX_DELIMITER: char = '_';

/// The backend and the tool (in the backend's own names) of a listed tool `name`.
/// One backend: the name is the backend's own. Several: the name is `{backend}_{tool}`,
/// split where agentgateway splits it (at the first `_`), and the backend must be one of
/// `backends`; anything else is `None` (the tool is then not listed: fail closed).
pub fn backend_of<'a>(backends: &'a [String], name: &'a str) -> Option<(&'a str, &'a str)> {
    match backends {
        [] => None,
        [only] => Some((only.as_str(), name)),
        several => {
            let (backend, tool) = name.split_once(MUX_DELIMITER)?;
            let known = several.iter().any(|b| b == backend);
            (known && !tool.is_empty()).then_some((backend, tool))
        }
    }
}

/// The `tools/list` `result` with its `tools` filtered: `keep` is asked once with every
/// listed tool's (backend, tool) and answers whether each stays. A name that maps to no
/// backend is asked with the backend `""` (no registry tool has it: denied, and logged
/// as such); a tool without a name is `None` and dropped. Everything else of the result
/// is kept as it was. A result that names a member twice anywhere is
/// [`Malformed::Json`].
pub async fn filter_tools<F, Fut>(
    backends: &[String],
    result: &[u8],
    keep: F,
) -> Result<Vec<u8>, Malformed>
where
    F: FnOnce(Vec<Option<(String, String)>>) -> Fut,
    Fut: std::future::Future<Output = Vec<bool>>,
{
    if result.len() > crate::MAX_MESSAGE_BYTES {
        return Err(Malformed::TooLarge(result.len()));
    }
    // a member named twice (a tool's `name` above all) is refused, as the AgentCore
    // interceptor refuses it: a client's parser might read the other value
    let mut value: Value = registry_core::strict_json::parse_strict(result)
        .map_err(|e| Malformed::Json { what: "the result is", detail: e.to_string() })?;
    let Some(tools) = value.get_mut("tools").and_then(Value::as_array_mut) else {
        return Err(Malformed::Tools);
    };
    let listed = tools
        .iter()
        .map(|tool| {
            let name = tool.get("name").and_then(Value::as_str)?;
            let (backend, tool) = backend_of(backends, name).unwrap_or(("", name));
            Some((backend.to_owned(), tool.to_owned()))
        })
        .collect();
    let granted = keep(listed).await;
    let mut granted = granted.into_iter();
    tools.retain(|_| granted.next().unwrap_or(false));
    serde_json::to_vec(&value)
        .map_err(|e| Malformed::Json { what: "the result is", detail: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(backends: &[&str]) -> Vec<String> {
        backends.iter().map(|b| (*b).to_owned()).collect()
    }

    #[test]
    fn one_backend_keeps_the_name() {
        let b = names(&["payments"]);
        assert_eq!(backend_of(&b, "issue_refund"), Some(("payments", "issue_refund")));
    }

    #[test]
    fn several_backends_split_at_the_first_delimiter() {
        let b = names(&["payments", "weather"]);
        assert_eq!(backend_of(&b, "payments_issue_refund"), Some(("payments", "issue_refund")));
        assert_eq!(backend_of(&b, "other_issue_refund"), None);
        assert_eq!(backend_of(&b, "issue"), None);
        assert_eq!(backend_of(&b, "payments_"), None);
        assert_eq!(backend_of(&[], "x"), None);
    }

    #[tokio::test]
    async fn a_result_that_is_no_json_object_is_named_in_good_grammar() {
        let Err(e) = filter_tools(&names(&["a"]), b"[1", |_| async { Vec::new() }).await else {
            panic!("garbage passed");
        };
        let text = e.to_string();
        assert!(text.starts_with("the result is not a JSON object: "), "{text}");
    }
}
