//! Serving a tool behind the guard with `lambda_runtime`: a plain `service_fn` over
//! [`handle_guarded`].

use bedrock_action_group::{RuntimeError, ToolError, run};
use lambda_runtime::{LambdaEvent, service_fn};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::{Guard, RuleSource, SWITCH_ENV, handle_guarded, switched_off};

/// Serves a synchronous handler that takes typed arguments, behind the call-time guard:
/// [`Guard::from_env`], unless `REGISTRY_GUARD=off` turns it off (then this is
/// `bedrock_action_group::run`). Both cases are logged to stderr at start, with the
/// problem when the guard's settings are missing or invalid (it then refuses every call).
pub async fn run_guarded<T, R, F>(handler: F) -> Result<(), RuntimeError>
where
    T: DeserializeOwned,
    R: Serialize,
    F: Fn(T) -> Result<R, ToolError>,
{
    if switched_off(|name| std::env::var(name).ok()) {
        eprintln!("call guard: off ({SWITCH_ENV}=off); calls reach the handler unchecked");
        return run(handler).await;
    }
    let guard = Guard::from_env().await;
    match guard.problem() {
        Some(problem) => eprintln!("call guard: every call is refused: {problem}"),
        None => eprintln!(
            "call guard: on for tool `{}`, {}",
            guard.tool_id().unwrap_or_default(),
            if guard.is_remote() { "asking the registry" } else { "rules from the table" }
        ),
    }
    run_with_guard(&guard, handler).await
}

/// `bedrock_action_group::run` behind `guard`: each call is checked before `handler`
/// runs. The runtime hands over the event's JSON text unparsed, so text `serde_json`
/// cannot read as a value (a lone UTF-16 surrogate escape) is answered with `FAILURE`;
/// a body that is not JSON at all is the runtime's invocation error (Bedrock sends
/// neither; the handler runs for neither).
pub async fn run_with_guard<S, T, R, F>(guard: &Guard<S>, handler: F) -> Result<(), RuntimeError>
where
    S: RuleSource,
    T: DeserializeOwned,
    R: Serialize,
    F: Fn(T) -> Result<R, ToolError>,
{
    let handler = &handler;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Box<RawValue>>| async move {
        let body = event.payload.get().as_bytes();
        Ok::<_, RuntimeError>(handle_guarded(guard, body, handler).await)
    }))
    .await
}
