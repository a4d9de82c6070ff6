//! Lambda entry point: the interceptor built from the environment once
//! ([`Interceptor::from_env`]), then each event's output document. The event is taken as
//! the JSON text Lambda delivered (any JSON value: Lambda accepts nothing else), so an
//! event of any shape gets an output document, never an invocation error.

use gateway_interceptor::Interceptor;
use lambda_runtime::{Error, LambdaEvent, service_fn};
use serde_json::value::RawValue;

#[tokio::main]
async fn main() -> Result<(), Error> {
    let interceptor = &Interceptor::from_env().await;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Box<RawValue>>| async move {
        Ok::<_, Error>(interceptor.handle(&event.payload).await)
    }))
    .await
}
