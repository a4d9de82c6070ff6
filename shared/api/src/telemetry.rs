//! Log filtering that keeps secrets out of logs whatever the configured level.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Directive;

/// Targets that log whole request or response bodies at `trace` (the AWS SDK logs
/// DynamoDB items, which hold stored definitions and so write-only secrets).
const BODY_LOGGING_TARGETS: &[&str] = &["aws_smithy_runtime", "aws_smithy_runtime_api", "hyper"];

/// An `EnvFilter` from `RUST_LOG` (or `default` when unset or invalid), with the
/// body-logging targets capped at `debug` even when `trace` is asked for.
pub fn log_filter(default: &str) -> EnvFilter {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    cap_body_logging(filter)
}

/// Caps the body-logging targets of `filter` at `debug`.
pub fn cap_body_logging(mut filter: EnvFilter) -> EnvFilter {
    for target in BODY_LOGGING_TARGETS {
        if let Ok(directive) = format!("{target}=debug").parse::<Directive>() {
            filter = filter.add_directive(directive);
        }
    }
    filter
}
