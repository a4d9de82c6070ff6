//! The guarded pipeline for one invocation: raw event -> guard -> typed arguments ->
//! handler -> response. The handler runs only when the guard allows the call.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use bedrock_action_group::{
    ActionGroupResponse, ToolError, handle_parsed, malformed_response, parse_event,
    unreadable_response,
};

use crate::{Guard, RuleSource, Verdict};

/// [`bedrock_action_group::handle_body`] behind the guard: an invocation body's bytes answered by
/// `handler` when the guard allows the call, else by the guard's refusal. Events that
/// cannot be read are answered as `handle_body` answers them (the handler never sees
/// them either).
pub async fn handle_guarded<S, T, R, F>(
    guard: &Guard<S>,
    body: &[u8],
    handler: F,
) -> ActionGroupResponse
where
    S: RuleSource,
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    let value = match serde_json::from_slice::<Value>(body) {
        Ok(value) => value,
        Err(e) => return unreadable_response(&e),
    };
    let parsed = match parse_event(&value) {
        Ok(parsed) => parsed,
        Err(e) => return malformed_response(&value, &e),
    };
    match guard.check(&parsed).await {
        Verdict::Allow => handle_parsed(parsed, handler),
        Verdict::Deny(response) => *response,
    }
}
