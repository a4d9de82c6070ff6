//! Hyper answers requests it cannot parse (bad request line, URI over 64 KiB, head over
//! the read buffer, unknown HTTP version) itself, with an empty body and no hook to
//! change it. [`ProblemIo`] wraps the connection and replaces exactly those responses
//! (a 4xx or 505 head with `content-length: 0` and no `content-type`, written alone)
//! by the same status with a problem+json body. Responses of the router always carry a
//! content type, so they pass through untouched.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::http::problem::{Code, PROBLEM_JSON, Problem};

/// A connection whose hyper-generated error responses become problems.
#[derive(Debug)]
pub struct ProblemIo<T> {
    inner: T,
    /// A replacement response still to write, and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<T> ProblemIo<T> {
    /// Wraps a connection.
    pub fn new(inner: T) -> Self {
        Self { inner, pending: None }
    }
}

impl<T: AsyncWrite + Unpin> ProblemIo<T> {
    /// Writes what is left of the replacement.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written >= bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ProblemIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_drain(cx))?;
        let Some(replacement) = replacement(buf) else {
            return Pin::new(&mut self.inner).poll_write(cx, buf);
        };
        self.pending = Some((replacement, 0));
        // The original bytes count as written; the replacement goes out now or on flush.
        match self.poll_drain(cx) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Ready(Ok(())) | Poll::Pending => Poll::Ready(Ok(buf.len())),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The problem response replacing `buf`, when `buf` is one of hyper's bodiless errors.
fn replacement(buf: &[u8]) -> Option<Vec<u8>> {
    // Cheap byte checks first: every body write of a response passes through here.
    if !buf.starts_with(b"HTTP/1.1 ") || !buf.ends_with(b"\r\n\r\n") {
        return None;
    }
    let head = std::str::from_utf8(buf).ok()?;
    let head = head.strip_suffix("\r\n\r\n")?;
    if head.contains("\r\n\r\n") {
        return None;
    }
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let code: u16 = status_line.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    let status = StatusCode::from_u16(code).ok()?;
    if !(status.is_client_error() || status == StatusCode::HTTP_VERSION_NOT_SUPPORTED) {
        return None;
    }
    let mut kept = Vec::new();
    let mut empty = false;
    for line in lines {
        let name = line.split(':').next().unwrap_or("").trim().to_ascii_lowercase();
        match name.as_str() {
            "content-type" => return None,
            "content-length" => empty = line.split(':').nth(1).map(str::trim) == Some("0"),
            "connection" => {}
            _ => kept.push(line),
        }
    }
    if !empty {
        return None;
    }
    let body = serde_json::to_vec(&problem_for(status)).ok()?;
    let mut out = format!(
        "{status_line}\r\ncontent-type: {PROBLEM_JSON}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for line in kept {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(&body);
    Some(out)
}

/// The problem for a request hyper refused to parse.
fn problem_for(status: StatusCode) -> Problem {
    let (code, path, message) = match status {
        StatusCode::URI_TOO_LONG => (Code::UriTooLong, "", "the request target is too long"),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            (Code::HeadersTooLarge, "/headers", "the request headers are too large")
        }
        StatusCode::HTTP_VERSION_NOT_SUPPORTED => {
            (Code::BadRequest, "", "only HTTP/1.0 and HTTP/1.1 are supported")
        }
        _ => {
            (Code::BadRequest, "", "malformed HTTP request (request line, target or header syntax)")
        }
    };
    let mut problem = Problem::new(status, code, message);
    problem
        .errors
        .push(registry_core::Violation { path: path.to_owned(), message: message.into() });
    problem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_hyper_error_heads_only() {
        let hyper_431 = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Sun, 22 Nov 2026 12:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(replacement(hyper_431).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "{out}");
        assert!(out.contains("content-type: application/problem+json\r\n"), "{out}");
        assert!(out.contains("date: Sun, 22 Nov 2026"), "{out}");
        let body = out.split("\r\n\r\n").nth(1).unwrap();
        let problem: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(problem["code"], "HEADERS_TOO_LARGE");
        assert!(out.contains(&format!("content-length: {}\r\n", body.len())));

        // Router responses (typed, with a body) and successes pass through.
        let typed = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/problem+json\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(typed).is_none());
        assert!(replacement(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}").is_none());
    }
}
