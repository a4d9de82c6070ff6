//! The tool's rules, compiled once and kept per container: re-read once half the
//! staleness bound old; when a re-read fails, the cached rules serve until they are the
//! bound old, then every call is refused until a read succeeds (fail closed).

use std::sync::{Arc, Mutex, PoisonError};

use crate::guard::loaded::Loaded;
use crate::guard::source::RuleSource;
use crate::guard::verdict::Refusal;

/// The rules of one tool, cached.
#[derive(Debug)]
pub(crate) struct RuleCache {
    slot: Mutex<Option<Arc<Loaded>>>,
    max_staleness_ms: i64,
}

impl RuleCache {
    /// An empty cache whose rules may be `max_staleness_ms` old at most.
    pub fn new(max_staleness_ms: i64) -> Self {
        Self { slot: Mutex::new(None), max_staleness_ms }
    }

    /// The rules to decide with at `now_ms`, read from `source` when the cached ones
    /// are due for a re-read (or there are none). `Err`: the refusal and what went wrong.
    pub async fn get<S: RuleSource>(
        &self,
        source: &S,
        tool_id: &str,
        now_ms: i64,
    ) -> Result<Arc<Loaded>, (Refusal, String)> {
        let cached = self.slot.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(loaded) = &cached
            && now_ms.saturating_sub(loaded.read_at_ms) < self.max_staleness_ms / 2
        {
            return Ok(loaded.clone());
        }
        let read = match source.tool(tool_id).await {
            Ok(Some(tool)) => Loaded::compile(tool, now_ms),
            Ok(None) => Err(format!("the registry has no tool `{tool_id}`")),
            Err(e) => Err(format!("the registry's table could not be read: {e}")),
        };
        match (read, cached) {
            (Ok(loaded), _) => {
                let loaded = Arc::new(loaded);
                *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(loaded.clone());
                Ok(loaded)
            }
            (Err(e), Some(loaded)) => {
                let age = now_ms.saturating_sub(loaded.read_at_ms);
                if age < self.max_staleness_ms {
                    Ok(loaded)
                } else {
                    Err((
                        Refusal::RulesStale,
                        format!(
                            "cached rules are {age} ms old, the bound is {} ms; {e}",
                            self.max_staleness_ms
                        ),
                    ))
                }
            }
            (Err(e), None) => Err((Refusal::RulesUnavailable, e)),
        }
    }
}
