//! What the guard answers: the call goes on to the handler, or a Bedrock-format
//! response tells the model in one line that it is not permitted and why.
//!
//! A call a rule denies is a `REPROMPT` (API form: 403): the model reads why and can
//! tell the user or call again with other arguments, each call checked anew. A refusal
//! before any rule ran (no valid principal context, rules unreadable, guard not
//! configured, tool switched off) is a `FAILURE`: nothing the model could change fixes
//! it, and Bedrock ends the turn with a dependency failure the application sees (for an
//! expired context: resolve the agent again).

use bedrock_action_group::{ActionGroupEvent, ActionGroupResponse, ResponseBuilder, ResponseState};
use registry_policy::Refusal;

/// The guard's answer for one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Permitted: run the handler.
    Allow,
    /// Not permitted, or not decidable: answer with this response; the handler never runs.
    Deny(Box<ActionGroupResponse>),
}

/// The `FAILURE` response for `refusal`.
pub(crate) fn failure(event: &ActionGroupEvent, refusal: Refusal) -> ActionGroupResponse {
    ResponseBuilder::new(event)
        .text(not_permitted(event, refusal.why()))
        .state(Some(ResponseState::Failure))
        .build()
}

/// The `REPROMPT` response (API form: 403) for a call a rule denied, saying `why`.
pub(crate) fn denied(event: &ActionGroupEvent, why: &str) -> ActionGroupResponse {
    ResponseBuilder::new(event)
        .text(not_permitted(event, why))
        .state(Some(ResponseState::Reprompt))
        .status(403)
        .build()
}

/// The one line the model reads.
fn not_permitted(event: &ActionGroupEvent, why: &str) -> String {
    bedrock_action_group::return_control::not_permitted(event.name(), why)
}
