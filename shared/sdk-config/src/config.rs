//! SDK configuration: the rustls (ring) HTTP client, retries, region and endpoint.

use std::time::Duration;

use aws_config::Region;
use aws_config::retry::RetryConfig;
use aws_config::{BehaviorVersion, SdkConfig};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};

/// Attempts per request (first try included) for throttling and transient errors.
pub const MAX_SDK_ATTEMPTS: u32 = 5;

/// Loads the AWS SDK configuration from the environment, with the rustls+ring HTTP
/// client, standard retry mode with exponential backoff, and `endpoint_url` when given
/// (then the region falls back to `us-east-1` if none is configured).
pub async fn sdk_config(endpoint_url: Option<String>) -> SdkConfig {
    let http = aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https();
    let retry = RetryConfig::standard()
        .with_max_attempts(MAX_SDK_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(50))
        .with_max_backoff(Duration::from_secs(2));
    let mut loader =
        aws_config::defaults(BehaviorVersion::latest()).http_client(http).retry_config(retry);
    let local = endpoint_url.is_some();
    if let Some(url) = endpoint_url {
        loader = loader.endpoint_url(url);
    }
    let config = loader.load().await;
    if local && config.region().is_none() {
        return config.into_builder().region(Region::new("us-east-1")).build();
    }
    config
}
