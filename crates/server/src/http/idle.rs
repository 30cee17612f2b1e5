//! The idle timeout of a connection (`server.idle_timeout_secs`): a socket wrapper that fails
//! with `TimedOut` once no byte has moved either way for the limit while the server waits on
//! it (`http::conn` serves every connection through it).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A socket that fails with `TimedOut` once no byte has moved either way for `limit` while
/// it is being polled.
pub(super) struct Idle<T> {
    inner: T,
    limit: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<T> Idle<T> {
    pub(super) fn new(inner: T, limit: Duration) -> Idle<T> {
        Idle {
            inner,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
        }
    }

    fn moved(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.limit);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn idle_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "connection idle past server.idle_timeout_secs",
    )
}

impl<T: AsyncRead + Unpin> AsyncRead for Idle<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    self.moved();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(idle_error())),
            other => other,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Idle<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, data) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    self.moved();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(idle_error())),
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(idle_error())),
            other => other,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
