//! Lambda entry point: the EventBridge client and bus from the environment, then the
//! stream handler ([`event_forwarder::forward`]). A missing bus stops the function.

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use event_forwarder::{DEFAULT_SOURCE, EventBridge, forward};
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing_subscriber::fmt().json().with_target(false).without_time().with_ansi(false).init();
    let env = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
    let bus = env("EVENT_BUS_NAME").ok_or("EVENT_BUS_NAME is not set: the bus to put events on")?;
    let source = env("EVENT_SOURCE").unwrap_or_else(|| DEFAULT_SOURCE.to_owned());
    let publisher = EventBridge::new(env("EVENTBRIDGE_ENDPOINT_URL")).await;
    let (bus, source, publisher) = (&bus, &source, &publisher);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Event>| async move {
        Ok::<DynamoDbEventResponse, Error>(forward(publisher, &event.payload, bus, source).await)
    }))
    .await
}
