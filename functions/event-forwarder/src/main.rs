//! Lambda entry point: the configuration ([`event_forwarder::Config`], from the
//! environment), the EventBridge client, then the stream handler
//! ([`event_forwarder::forward`]). A configuration error stops the function.

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use event_forwarder::{Config, EventBridge, forward};
use lambda_runtime::{Error, LambdaEvent, service_fn};
use registry_config::Vars;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing_subscriber::fmt().json().with_target(false).without_time().with_ansi(false).init();
    let config = Config::read(Vars::from_env()).inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid configuration");
    })?;
    let publisher = EventBridge::new(config.endpoint_url.clone()).await;
    let (bus, source, publisher) = (&config.bus, &config.source, &publisher);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Event>| async move {
        Ok::<DynamoDbEventResponse, Error>(forward(publisher, &event.payload, bus, source).await)
    }))
    .await
}
