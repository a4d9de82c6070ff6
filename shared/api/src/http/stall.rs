//! A write deadline per connection: a client that stops reading its response (so the
//! server's writes make no progress) is disconnected after the stall limit.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A connection whose writes fail with `TimedOut` after `limit` without progress.
#[derive(Debug)]
pub struct StallTimeout<T> {
    inner: T,
    limit: Duration,
    /// Running while a write or flush is blocked; reset on progress.
    timer: Option<Pin<Box<Sleep>>>,
}

impl<T> StallTimeout<T> {
    /// Wraps a connection.
    pub fn new(inner: T, limit: Duration) -> Self {
        Self { inner, limit, timer: None }
    }

    /// Called when the inner write is pending: starts the timer, or fails once it ran out.
    fn poll_stalled<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let limit = self.limit;
        let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading the response",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Passes a finished write through and clears the timer.
    fn progressed<R>(&mut self, result: io::Result<R>) -> Poll<io::Result<R>> {
        self.timer = None;
        Poll::Ready(result)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.poll_stalled(cx),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.poll_stalled(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_shutdown(cx) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.poll_stalled(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_reader_that_stops_reading_is_cut_off_and_one_that_reads_is_not() {
        // A pipe with room for 64 bytes whose reader never reads.
        let (server, _client) = tokio::io::duplex(64);
        let mut stalled = StallTimeout::new(server, Duration::from_millis(50));
        let error = stalled.write_all(&[b'x'; 1024]).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);

        // A reader that keeps reading gets everything, however long it takes overall.
        let (server, mut client) = tokio::io::duplex(64);
        let mut writer = StallTimeout::new(server, Duration::from_millis(50));
        let reader = tokio::spawn(async move {
            let mut all = Vec::new();
            client.read_to_end(&mut all).await.map(|_| all.len())
        });
        writer.write_all(&[b'y'; 4096]).await.unwrap();
        writer.shutdown().await.unwrap();
        drop(writer);
        assert_eq!(reader.await.unwrap().unwrap(), 4096);
    }
}
