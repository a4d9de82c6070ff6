//! Bedrock's response size limit.
//!
//! AWS documents that an action-group response may be as large as a synchronous Lambda
//! response: the *invocation payload* quota of 6 MB. [`MAX_RESPONSE_BYTES`] uses 6 MiB
//! (6,291,456 bytes) of serialized JSON. A response over the limit keeps its metadata and
//! attributes, and its body is cut on a character boundary and ends with
//! [`truncation_marker`]. If even an empty body does not fit (huge attributes), the
//! response becomes a `FAILURE` without attributes that says so.

use crate::response::{ActionGroupResponse, ContentBody, ResponseKind, ResponseState};

/// The default limit on the serialized response, in bytes (Lambda's 6 MB synchronous payload quota).
pub const MAX_RESPONSE_BYTES: usize = 6 * 1024 * 1024;

/// The text appended to a truncated body.
pub fn truncation_marker(limit: usize) -> String {
    format!("\n[truncated: the response exceeded the {limit}-byte limit]")
}

/// Bytes `c` takes inside a JSON string as serde_json writes it.
fn escaped_char_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{08}' | '\u{0c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Bytes `s` takes inside a JSON string as serde_json writes it.
pub(crate) fn escaped_len(s: &str) -> usize {
    s.chars().map(escaped_char_len).sum()
}

/// A cheap upper bound of the serialized size (every byte escaped to at most 6).
fn upper_bound(r: &ActionGroupResponse) -> Option<usize> {
    if !r.knowledge_bases_configuration.is_empty() {
        return None;
    }
    let attrs = r.session_attributes.iter().chain(&r.prompt_session_attributes);
    let strings: usize = attrs.map(|(k, v)| k.len() + v.len()).sum::<usize>()
        + r.message_version.len()
        + r.body_map().iter().map(|(k, v)| k.len() + v.body.len()).sum::<usize>()
        + match &r.response {
            ResponseKind::Function(f) => f.action_group.len() + f.function.len(),
            ResponseKind::Api(a) => a.action_group.len() + a.api_path.len() + a.http_method.len(),
        };
    let entries = r.session_attributes.len() + r.prompt_session_attributes.len();
    Some(strings * 6 + entries * 8 + 512)
}

/// Makes the serialized response fit in `limit` bytes (see the module documentation).
pub fn fit(response: &mut ActionGroupResponse, limit: usize) {
    if upper_bound(response).is_some_and(|b| b <= limit) {
        return;
    }
    let Ok(total) = serde_json::to_vec(&*response).map(|v| v.len()) else { return };
    if total <= limit {
        return;
    }
    let marker = truncation_marker(limit);
    let body = response.body().to_string();
    let overhead = total.saturating_sub(escaped_len(&body));
    let Some(budget) = limit.checked_sub(overhead + escaped_len(&marker)) else {
        too_large(response, limit);
        return;
    };
    let mut used = 0;
    let mut cut = 0;
    for (i, c) in body.char_indices() {
        used += escaped_char_len(c);
        if used > budget {
            break;
        }
        cut = i + c.len_utf8();
    }
    let truncated = format!("{}{marker}", &body[..cut]);
    if let Some(b) = response.body_map_mut().values_mut().next() {
        b.body = truncated;
    }
}

fn too_large(response: &mut ActionGroupResponse, limit: usize) {
    response.session_attributes.clear();
    response.prompt_session_attributes.clear();
    response.knowledge_bases_configuration.clear();
    let text = format!(
        "the tool response exceeded the {limit}-byte limit even without its body; attributes were dropped"
    );
    let key = response
        .body_map()
        .keys()
        .next()
        .cloned()
        .unwrap_or_else(|| crate::response::TEXT.to_string());
    let map = response.body_map_mut();
    map.clear();
    map.insert(key, ContentBody { body: text });
    match &mut response.response {
        ResponseKind::Function(f) => {
            f.function_response.response_state = Some(ResponseState::Failure)
        }
        ResponseKind::Api(a) => a.http_status_code = 500,
    }
}
