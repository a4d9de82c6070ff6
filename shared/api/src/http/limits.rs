//! The server's limits against slow, idle and greedy clients, with their defaults.

use std::time::Duration;

/// Limits applied by [`crate::http::serve_with`]; see docs/decisions.md for the reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// Time to receive a complete request head, counted from the moment the server
    /// waits for one: a new connection, or an idle keep-alive one after a response.
    /// Bounds idle keep-alive connections and slowly sent headers; the connection is
    /// closed when it runs out.
    pub header_timeout: Duration,
    /// Time for a whole request, reading the body included; a 503 `TIMEOUT` problem
    /// after it.
    pub request_timeout: Duration,
    /// Time a response write may make no progress (the client stopped reading)
    /// before the connection is closed.
    pub write_timeout: Duration,
    /// Open connections at most; the server stops accepting at the cap (new clients
    /// wait in the listen backlog).
    pub max_connections: usize,
    /// Requests being handled at most; beyond it a 503 `OVERLOADED` problem with
    /// `Retry-After`.
    pub max_in_flight: usize,
    /// Longest request target (path and query) in bytes; a 414 `URI_TOO_LONG` beyond.
    pub max_uri_bytes: usize,
    /// Largest request head (every header name and value) in bytes; a 431
    /// `HEADERS_TOO_LARGE` beyond.
    pub max_header_bytes: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
            max_connections: 4_096,
            max_in_flight: 256,
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 32 * 1024,
        }
    }
}

impl ServerLimits {
    /// Seconds a shed client is told to wait (`Retry-After`).
    pub const RETRY_AFTER_SECONDS: u32 = 1;

    /// The HTTP/1 read buffer: room for a head at the limits above, so that the
    /// router (not hyper) answers most oversize requests; hyper's own refusals beyond
    /// it are turned into problems too.
    pub fn read_buffer_bytes(&self) -> usize {
        (self.max_uri_bytes + self.max_header_bytes + 16 * 1024).max(128 * 1024)
    }
}
