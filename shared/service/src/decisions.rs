//! Where decision records go (SPEC section 16): one JSON line each. The lines of one
//! request are serialized together and handed over at once; how they reach standard
//! output depends on the process: a long-running server appends them to a buffer that
//! a background thread writes every few milliseconds (the request path makes no
//! system call and wakes no thread), a Lambda writes them before it answers (the
//! process may be frozen right after).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use registry_access::DecisionRecord;

/// How often the background writer of [`Delivery::Buffered`] writes.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(10);

/// How decision lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionFormat {
    /// Plain JSON lines (`serve`).
    Json,
    /// CloudWatch embedded-metric-format lines: the same fields plus decision counts
    /// (Lambda).
    Emf,
}

/// When decision lines reach standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Buffered and written by a background thread every [`FLUSH_INTERVAL`], and when
    /// the log is dropped (`serve`).
    Buffered,
    /// Written before the call that records them returns (Lambda).
    Direct,
}

/// The decision log: off, or JSON lines on standard output.
#[derive(Clone, Default)]
pub struct DecisionLog {
    sink: Option<Arc<Sink>>,
}

struct Sink {
    format: DecisionFormat,
    /// Whether records keep argument values and context fields.
    with_values: bool,
    /// Lines waiting for the background writer, when buffered.
    pending: Option<Arc<Mutex<Vec<u8>>>>,
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

    /// Decision lines on standard output, in `format`, delivered as `delivery` says;
    /// with `with_values`, records keep argument values and context fields (off by
    /// default: they may be personal data).
    pub fn stdout(format: DecisionFormat, with_values: bool, delivery: Delivery) -> Self {
        let pending = match delivery {
            Delivery::Direct => None,
            Delivery::Buffered => Some(Arc::new(Mutex::new(Vec::new()))),
        };
        let sink = Arc::new(Sink { format, with_values, pending });
        if let Some(pending) = &sink.pending {
            let (pending, alive) = (Arc::clone(pending), Arc::downgrade(&sink));
            let spawned = std::thread::Builder::new()
                .name("decision-log".into())
                .spawn(move || write_periodically(&pending, &alive));
            if let Err(e) = spawned {
                tracing::error!(error = %e, "decision log thread not started; decisions are not logged");
                return Self::off();
            }
        }
        Self { sink: Some(sink) }
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
        if let Some(mut lines) = self.lines() {
            lines.push(&mut record);
        }
    }

    /// A batch of lines handed over together when dropped; `None` when the log is off.
    pub fn lines(&self) -> Option<Lines<'_>> {
        let sink = self.sink.as_deref()?;
        let timestamp_ms = chrono::Utc::now().timestamp_millis();
        Some(Lines { sink, out: Vec::with_capacity(4096), timestamp_ms })
    }
}

/// Decision lines of one request, handed to the log together when dropped.
pub struct Lines<'a> {
    sink: &'a Sink,
    out: Vec<u8>,
    timestamp_ms: i64,
}

impl Lines<'_> {
    /// Adds `record` as one line (its values dropped unless the log keeps them).
    pub fn push(&mut self, record: &mut DecisionRecord) {
        if !self.sink.with_values {
            record.arguments = None;
            record.context = None;
        }
        match self.sink.format {
            DecisionFormat::Json => record.write_line(&mut self.out),
            DecisionFormat::Emf => record.write_emf_line(self.timestamp_ms, &mut self.out),
        }
    }
}

impl Drop for Lines<'_> {
    fn drop(&mut self) {
        if self.out.is_empty() {
            return;
        }
        match &self.sink.pending {
            Some(pending) => {
                pending.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(&self.out)
            }
            None => write_out(&self.out),
        }
    }
}

impl Drop for Sink {
    /// Writes what the background writer has not (the process may end next).
    fn drop(&mut self) {
        if let Some(pending) = &self.pending {
            write_pending(pending, &mut Vec::new());
        }
    }
}

/// Writes the pending lines every [`FLUSH_INTERVAL`] until the log is dropped.
fn write_periodically(pending: &Mutex<Vec<u8>>, alive: &Weak<Sink>) {
    let mut batch = Vec::new();
    while alive.strong_count() > 0 {
        std::thread::sleep(FLUSH_INTERVAL);
        write_pending(pending, &mut batch);
    }
}

/// Takes the pending lines (into `batch`, emptied) and writes them, holding standard
/// output throughout so that batches never overtake one another.
fn write_pending(pending: &Mutex<Vec<u8>>, batch: &mut Vec<u8>) {
    let mut out = std::io::stdout().lock();
    std::mem::swap(batch, &mut *pending.lock().unwrap_or_else(PoisonError::into_inner));
    if !batch.is_empty() {
        let _ = out.write_all(batch).and_then(|()| out.flush());
        batch.clear();
    }
}

/// Writes `lines` to standard output (a decision log that cannot be written is not
/// worth failing a request for).
fn write_out(lines: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(lines).and_then(|()| out.flush());
}
