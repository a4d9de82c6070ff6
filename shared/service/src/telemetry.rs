//! Log filtering that keeps secrets out of logs whatever the configured level, and the
//! logging every registry Lambda and the command line start with.

use tracing::level_filters::LevelFilter;
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

/// Starts a registry Lambda's logging: JSON lines for CloudWatch (which adds the time), at
/// the level of `RUST_LOG`, else `AWS_LAMBDA_LOG_LEVEL`, else `info`, with body logging
/// capped ([`log_filter`]); never ANSI colour codes.
pub fn init_lambda_logging() {
    let level = std::env::var("AWS_LAMBDA_LOG_LEVEL").unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(log_filter(&level.to_lowercase()))
        .without_time()
        .with_ansi(false)
        .init();
}

/// Starts the command line's logging: text lines on stderr at the level of `RUST_LOG`
/// (else `default`), with body logging capped ([`log_filter`]), coloured only when
/// stderr is a terminal: a file, a pipe or a container log gets plain text.
pub fn init_terminal_logging(default: &str) {
    use std::io::IsTerminal as _;
    tracing_subscriber::fmt()
        .with_env_filter(log_filter(default))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

/// Caps the body-logging targets of `filter` at `debug`; a filter that enables nothing
/// at `trace` is returned unchanged.
pub fn cap_body_logging(mut filter: EnvFilter) -> EnvFilter {
    if filter.max_level_hint() != Some(LevelFilter::TRACE) {
        return filter;
    }
    for target in BODY_LOGGING_TARGETS {
        if let Ok(directive) = format!("{target}=debug").parse::<Directive>() {
            filter = filter.add_directive(directive);
        }
    }
    filter
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::fmt::MakeWriter;

    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_err(|_| std::io::ErrorKind::Other)?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Lines {
        type Writer = Lines;
        fn make_writer(&'a self) -> Self::Writer {
            self.clone()
        }
    }

    /// What a subscriber with `directives` (capped) prints for a few events.
    fn logged(directives: &str) -> String {
        let lines = Lines::default();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(cap_body_logging(EnvFilter::new(directives)))
            .with_writer(lines.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::trace!(target: "aws_smithy_runtime::client::orchestrator", "sdk-trace-body");
            tracing::debug!(target: "aws_smithy_runtime::client::orchestrator", "sdk-debug");
            tracing::info!(target: "aws_smithy_runtime", "sdk-info");
            tracing::trace!(target: "registry_api::x", "own-trace");
        });
        String::from_utf8(lines.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn trace_everywhere_still_hides_sdk_bodies() {
        let out = logged("trace");
        assert!(!out.contains("sdk-trace-body"), "{out}");
        assert!(out.contains("sdk-debug") && out.contains("own-trace"), "{out}");
    }

    #[test]
    fn trace_asked_for_the_sdk_itself_is_capped() {
        let out = logged("info,aws_smithy_runtime=trace");
        assert!(!out.contains("sdk-trace-body"), "{out}");
        assert!(out.contains("sdk-debug"), "{out}");
    }

    #[test]
    fn quieter_filters_are_left_alone() {
        let out = logged("info");
        assert!(out.contains("sdk-info"), "{out}");
        assert!(!out.contains("sdk-debug"), "the cap must not raise verbosity: {out}");
        assert!(logged("warn").is_empty());
    }
}
