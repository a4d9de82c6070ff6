//! The async pipeline behind the `runtime` feature.
#![cfg(feature = "runtime")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::runtime::handle_async;
use bedrock_action_group::{ResponseState, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Args {
    n: u32,
}

fn event(n: &str) -> Value {
    json!({"actionGroup": "g", "function": "f", "parameters": [{"name": "n", "type": "integer", "value": n}]})
}

async fn double(a: Args) -> Result<u32, ToolError> {
    tokio::task::yield_now().await;
    if a.n == 0 {
        return Err(ToolError::invalid("n", "must be positive"));
    }
    if a.n == 13 {
        panic!("unlucky");
    }
    Ok(a.n * 2)
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
}

#[test]
fn async_handler_results_are_mapped() {
    let r = block_on(handle_async(&event("21"), double));
    assert_eq!((r.state(), r.body()), (None, "42"));
    let r = block_on(handle_async(&event("0"), double));
    assert_eq!(r.state(), Some(ResponseState::Reprompt));
    assert!(r.body().ends_with("- /n: must be positive"));
    let r = block_on(handle_async(&event("x"), double));
    assert!(r.body().ends_with("- /n: expected an integer, got \"x\""));
    let r = block_on(handle_async(&json!({"function": "f"}), double));
    assert_eq!(r.body(), "malformed action-group event: /actionGroup: is required");
}

#[test]
fn panics_while_polling_and_while_creating_the_future_become_failure() {
    let r = block_on(handle_async(&event("13"), double));
    assert_eq!(
        (r.state(), r.body()),
        (Some(ResponseState::Failure), "the tool handler panicked: unlucky")
    );
    let eager =
        |_: Args| -> std::future::Ready<Result<u32, ToolError>> { panic!("before the future") };
    let r = block_on(handle_async(&event("1"), eager));
    assert_eq!(r.body(), "the tool handler panicked: before the future");
}
