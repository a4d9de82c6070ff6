//! The open-file limit: raised to the hard limit at start-up, and the connection cap
//! kept below it.

/// File descriptors kept for the database, logs and the listener.
const RESERVED_FILES: u64 = 64;

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (best effort) and returns the
/// connection cap that fits under it: `wanted`, or less with a warning.
pub fn fit_connections(wanted: usize) -> usize {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(error) => {
            tracing::warn!(%error, "cannot read or raise the open-file limit");
            return wanted;
        }
    };
    let room = usize::try_from(limit.saturating_sub(RESERVED_FILES)).unwrap_or(usize::MAX).max(1);
    if wanted > room {
        tracing::warn!(
            wanted,
            open_file_limit = limit,
            max_connections = room,
            "connection cap lowered to fit the open-file limit"
        );
        return room;
    }
    tracing::info!(open_file_limit = limit, max_connections = wanted, "connection cap");
    wanted
}
