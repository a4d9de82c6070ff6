//! Where decision records go (SPEC section 16): one JSON line each, written by one
//! background thread so that the request path only hands a line over.

use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use registry_access::DecisionRecord;

/// How decision lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionFormat {
    /// Plain JSON lines (`serve`).
    Json,
    /// CloudWatch embedded-metric-format lines: the same fields plus decision counts
    /// (Lambda).
    Emf,
}

/// The decision log: off, or JSON lines on standard output.
#[derive(Clone, Default)]
pub struct DecisionLog {
    sink: Option<Arc<Sink>>,
}

struct Sink {
    lines: Sender<String>,
    format: DecisionFormat,
    /// Whether records keep argument values and context fields.
    with_values: bool,
}

impl std::fmt::Debug for DecisionLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecisionLog").field("on", &self.sink.is_some()).finish()
    }
}

impl DecisionLog {
    /// No decision log.
    pub fn off() -> Self {
        Self { sink: None }
    }

    /// Decision lines on standard output, in `format`; with `with_values`, records keep
    /// argument values and context fields (off by default: they may be personal data).
    pub fn stdout(format: DecisionFormat, with_values: bool) -> Self {
        let (tx, rx) = channel::<String>();
        let spawned = std::thread::Builder::new()
            .name("decision-log".into())
            .spawn(move || write_lines(&rx, std::io::stdout()));
        match spawned {
            Ok(_) => Self { sink: Some(Arc::new(Sink { lines: tx, format, with_values })) },
            Err(e) => {
                tracing::error!(error = %e, "decision log thread not started; decisions are not logged");
                Self::off()
            }
        }
    }

    /// Whether records are written at all.
    pub fn is_on(&self) -> bool {
        self.sink.is_some()
    }

    /// Whether records may keep argument values and context fields.
    pub fn with_values(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.with_values)
    }

    /// Writes `record` (its values dropped unless the log keeps them).
    pub fn record(&self, mut record: DecisionRecord) {
        let Some(sink) = &self.sink else { return };
        if !sink.with_values {
            record.arguments = None;
            record.context = None;
        }
        let line = match sink.format {
            DecisionFormat::Json => record.to_line(),
            DecisionFormat::Emf => record.to_emf_line(chrono::Utc::now().timestamp_millis()),
        };
        // the writer only stops when the process does
        let _ = sink.lines.send(line);
    }
}

/// Writes every line received, flushing whenever none is waiting.
fn write_lines(rx: &Receiver<String>, out: impl Write) {
    let mut out = std::io::BufWriter::new(out);
    while let Ok(line) = rx.recv() {
        let mut next = Some(line);
        while let Some(line) = next {
            if writeln!(out, "{line}").is_err() {
                return;
            }
            next = rx.try_recv().ok();
        }
        if out.flush().is_err() {
            return;
        }
    }
}
