//! Each tool's rules, compiled once and kept per container, on the point's one timer
//! ([`Freshness`]): re-read once half the staleness bound old; when a re-read fails, the
//! cached rules serve until they are the bound old, then every call is refused until a
//! read succeeds (fail closed).

use std::sync::Arc;

use super::clock::Clock;
use super::fresh::{Freshness, Stale, Unread};
use super::loaded::Loaded;
use super::refusal::Refusal;
use super::source::RuleSource;

/// Most tools whose rules a container keeps; when full, the one least worth keeping
/// makes room.
const MAX_TOOLS: usize = 1_000;

/// The rules of each tool, cached.
#[derive(Debug)]
pub(crate) struct RuleCache {
    tools: quick_cache::sync::Cache<String, Arc<Loaded>>,
}

impl Default for RuleCache {
    fn default() -> Self {
        Self { tools: quick_cache::sync::Cache::new(MAX_TOOLS) }
    }
}

impl RuleCache {
    /// The rules to decide with at `now_ms`, read from `source` when the cached ones
    /// are due for a re-read (or there are none). `Err`: the refusal and what went wrong.
    pub async fn get<S: RuleSource>(
        &self,
        source: &S,
        fresh: &Freshness,
        clock: &dyn Clock,
        tool_id: &str,
        now_ms: i64,
    ) -> Result<Arc<Loaded>, (Refusal, String)> {
        let cached = self.tools.get(tool_id);
        let cached = cached.map(|loaded| {
            let read_at = loaded.read_at_ms;
            (loaded, read_at)
        });
        let read = async {
            match source.tool(tool_id).await {
                Ok(Some(tool)) => Loaded::compile(tool, now_ms)
                    .map(Arc::new)
                    .map_err(|e| Unread::Unusable(format!("the tool's {e}"))),
                Ok(None) => Err(Unread::Absent(format!("the registry has no tool `{tool_id}`"))),
                Err(e) => {
                    Err(Unread::Unreachable(format!("the registry's table could not be read: {e}")))
                }
            }
        };
        match fresh.serve(clock, cached, now_ms, read).await {
            Ok((loaded, _, read_now)) => {
                if read_now {
                    self.tools.insert(tool_id.to_owned(), loaded.clone());
                }
                Ok(loaded)
            }
            Err(Stale::Expired { age_ms, error }) => Err((
                Refusal::RulesStale,
                format!(
                    "cached rules are {age_ms} ms old, the bound is {} ms; {error}",
                    fresh.bound_ms()
                ),
            )),
            Err(Stale::Never(error)) => Err((Refusal::RulesUnavailable, error)),
            Err(Stale::Absent(error)) => Err((Refusal::UnknownTool, error)),
        }
    }
}
