//! The tool's call rules, compiled once and kept per container: re-read once half the
//! staleness bound old; when a re-read fails, the cached rules serve until they are the
//! bound old, then every call is refused until a read succeeds (fail closed).

use std::sync::{Arc, Mutex, PoisonError};

use registry_access::RuleSet;
use registry_core::{LifecycleStatus, ToolDefinition};

use crate::guard::source::RuleSource;
use crate::guard::verdict::Refusal;

/// A tool's definition and its compiled rules, as read at `read_at_ms`.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The access rules: whether the tool is granted to the principal at all.
    pub access: RuleSet,
    /// The call rules, compiled against the tool's schema.
    pub set: RuleSet,
    /// The definition they came from (schema for argument decoding, descriptions).
    pub tool: ToolDefinition,
    /// When the read that gave them started.
    pub read_at_ms: i64,
}

impl Loaded {
    /// Compiles `tool`'s access and call rules; `Err` says why they do not compile.
    pub fn compile(tool: ToolDefinition, read_at_ms: i64) -> Result<Self, String> {
        let problem = |which: &str, errors: Vec<registry_access::RuleError>| {
            let first = errors.first().map(|e| format!("{}: {}", e.path, e.message));
            format!(
                "the {which} rules do not compile ({} problems; {})",
                errors.len(),
                first.unwrap_or_default()
            )
        };
        let access = RuleSet::compile(tool.access_rules.as_deref().unwrap_or_default())
            .map_err(|e| problem("access", e))?;
        let set = RuleSet::compile_call(
            tool.call_rules.as_deref().unwrap_or_default(),
            Arc::new(tool.call_schema()),
        )
        .map_err(|e| problem("call", e))?;
        Ok(Self { access, set, tool, read_at_ms })
    }

    /// Whether the registry has switched the tool off (`disabled` or `retired`).
    pub fn switched_off(&self) -> bool {
        let status = self.tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
        matches!(status, LifecycleStatus::Disabled | LifecycleStatus::Retired)
    }
}

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
