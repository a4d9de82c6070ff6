//! The long-lived threads, with a large stack, that parse and check conditions.
//!
//! The generated `cel` parser recurses deeply (about 100 KiB of stack per bracket
//! level in debug builds) and running out of stack aborts the process rather than
//! failing, so parsing runs on threads with [`COMPILE_STACK_BYTES`] of stack.
//! Spawning such a thread per compile cost more than the compile itself, so a pool of
//! [`pool_size`] threads is started on first use and fed through one channel: one
//! caller's compiles never serialise everyone else's. A panic in a job is caught and
//! reported to its caller; the thread carries on. Should no thread be running, a job
//! gets a thread of its own.

use crate::limits::COMPILE_STACK_BYTES;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, LazyLock, Mutex};

type Job = Box<dyn FnOnce() + Send>;

/// Why a job gave no result.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The job panicked.
    Panicked,
    /// No thread could run it (the message says why).
    Unavailable(String),
}

fn big_stack_thread() -> std::thread::Builder {
    std::thread::Builder::new().name("cel-compile".into()).stack_size(COMPILE_STACK_BYTES)
}

/// Threads of the pool: the machine's parallelism, at least 2 (so a dry run in
/// progress never holds up a write's compile) and at most 8.
pub fn pool_size() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8)
}

static WORKER: LazyLock<Option<Sender<Job>>> = LazyLock::new(|| {
    let (tx, rx) = mpsc::channel::<Job>();
    let rx = Arc::new(Mutex::new(rx));
    let started = (0..pool_size())
        .filter(|_| {
            let rx = Arc::clone(&rx);
            big_stack_thread().spawn(move || run_jobs(&rx)).is_ok()
        })
        .count();
    (started > 0).then_some(tx)
});

/// Takes jobs off the shared channel until it closes.
fn run_jobs(rx: &Mutex<Receiver<Job>>) {
    loop {
        let job = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(poisoned) => poisoned.into_inner().recv(),
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Runs `f` on a large-stack compile thread and waits for its result.
pub(crate) fn on_big_stack<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Failure> {
    let (tx, rx) = mpsc::sync_channel(1);
    let job: Job = Box::new(move || {
        // the receiver only goes away if the caller is gone
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
    });
    let unsent = match &*WORKER {
        Some(worker) => worker.send(job).err().map(|e| e.0),
        None => Some(job),
    };
    if let Some(job) = unsent {
        big_stack_thread().spawn(job).map_err(|e| Failure::Unavailable(e.to_string()))?;
    }
    match rx.recv() {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) => Err(Failure::Panicked),
        Err(_) => Err(Failure::Unavailable("the compile thread stopped".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_jobs_and_survives_panics() {
        assert_eq!(on_big_stack(|| 40 + 2).unwrap(), 42);
        assert!(matches!(on_big_stack(|| -> u8 { panic!("boom") }), Err(Failure::Panicked)));
        assert_eq!(on_big_stack(|| "still here").unwrap(), "still here");
        // deep recursion that needs far more than a default 2 MiB test thread stack
        fn deep(n: u64) -> u64 {
            let pad = std::hint::black_box([n; 64]);
            if n == 0 { 0 } else { 1 + deep(n - 1) + pad[0] - n }
        }
        assert_eq!(on_big_stack(|| deep(20_000)).unwrap(), 20_000);
    }
}
