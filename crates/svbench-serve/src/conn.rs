//! The accept loop and HTTP/1.1 connections, driven with hyper directly
//! (axum's `serve` has no header-read or idle timeout and no connection
//! cap): a client that is slow to send its request head, a connection that
//! sits idle, and connections beyond the cap are all closed, so slow or
//! idle clients can hold neither memory nor shutdown.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use axum::response::Response;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

/// Connection limits (flags of `svbench serve`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A request head must arrive complete within this long of the server
    /// starting to wait for it (on a new connection and between requests).
    pub header_read_timeout: Duration,
    /// A connection with no request in flight and no byte moving either way
    /// for this long is closed (an idle keep-alive connection, a client
    /// that connected and sent nothing, a client that stopped reading).
    pub idle_timeout: Duration,
    /// Open connections at most; one more is answered 503 and closed.
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(5),
            max_connections: 1024,
        }
    }
}

/// The answer to a connection beyond the cap, written without reading the
/// request.
fn over_capacity() -> Vec<u8> {
    let body = r#"{"error":{"code":"capacity_exhausted","message":"too many open connections (--max-connections)","details":null}}"#;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Counters of the accept loop, for metrics and tests.
#[derive(Debug, Default)]
pub struct ConnStats {
    /// Connections open now.
    pub open: AtomicUsize,
    /// Connections refused at the cap.
    pub refused: AtomicU64,
    /// Connections closed for idling or a slow request head.
    pub timed_out: AtomicU64,
}

/// Serves `app` on `listener` until `stop` turns true, then stops
/// accepting, closes every connection with no request in flight at once,
/// lets the others finish their request, and returns once all are closed.
///
/// # Errors
/// None in practice: accept errors (e.g. out of file descriptors) are
/// retried after a pause.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    stats: Arc<ConnStats>,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let cap = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(cap));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let builder = Arc::new(builder);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = stop.wait_for(|s| *s) => break,
            a = listener.accept() => a,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // EMFILE and friends: back off rather than spin.
                eprintln!("svbench serve: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            stats.refused.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(refuse(stream));
            continue;
        };
        tokio::spawn(connection(
            stream,
            app.clone(),
            Arc::clone(&builder),
            limits,
            Arc::clone(&stats),
            stop.clone(),
            permit,
        ));
    }
    drop(listener);
    // Every connection holds a permit until it is closed.
    let _all = slots
        .acquire_many(u32::try_from(cap).unwrap_or(u32::MAX))
        .await;
    Ok(())
}

/// Answers 503 to a connection over the cap and closes it (bounded time).
async fn refuse(mut stream: TcpStream) {
    use tokio::io::AsyncWriteExt;
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(&over_capacity()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// Activity of one connection: requests in flight and the last time a byte
/// moved or a request finished (milliseconds since `start`).
#[derive(Debug)]
struct Activity {
    start: Instant,
    last: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Self {
            start: Instant::now(),
            last: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.fetch_max(now, Ordering::Relaxed);
    }

    /// When the connection becomes idle for `timeout`, if nothing happens
    /// before; `None` while a request is in flight.
    fn idle_deadline(&self, timeout: Duration) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
        Some(self.start + last + timeout)
    }
}

/// Decrements the in-flight count when the request's response is ready
/// (or the request is abandoned).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn begin(activity: &Arc<Activity>) -> Self {
        activity.in_flight.fetch_add(1, Ordering::AcqRel);
        Self(Arc::clone(activity))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One connection: served until the client closes it, it times out, or
/// shutdown closes it.
async fn connection(
    stream: TcpStream,
    app: Router,
    builder: Arc<hyper::server::conn::http1::Builder>,
    limits: ConnLimits,
    stats: Arc<ConnStats>,
    mut stop: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    stats.open.fetch_add(1, Ordering::Relaxed);
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Tracked {
        inner: stream,
        activity: Arc::clone(&activity),
    });
    let service = {
        let activity = Arc::clone(&activity);
        hyper::service::service_fn(move |req: Request<Incoming>| {
            let guard = InFlight::begin(&activity);
            let app = app.clone();
            async move {
                let response: Response = match app.oneshot(req.map(Body::new)).await {
                    Ok(r) => r,
                    Err(never) => match never {},
                };
                drop(guard);
                Ok::<_, Infallible>(response)
            }
        })
    };
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        // While a request is in flight, look again an idle timeout later.
        let wake = activity
            .idle_deadline(limits.idle_timeout)
            .unwrap_or_else(|| Instant::now() + limits.idle_timeout);
        let idle = tokio::time::sleep_until(wake);
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    if e.is_timeout() {
                        stats.timed_out.fetch_add(1, Ordering::Relaxed);
                    }
                }
                break;
            }
            () = idle => {
                // Re-read: a byte or a request may have come meanwhile.
                if activity
                    .idle_deadline(limits.idle_timeout)
                    .is_some_and(|d| d <= Instant::now())
                {
                    stats.timed_out.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            }
            _ = stop.wait_for(|s| *s), if !stopping => {
                stopping = true;
                if activity.in_flight.load(Ordering::Acquire) == 0 {
                    // Nothing in flight: close now rather than wait for a
                    // slow or idle client.
                    break;
                }
                // Finish the request in flight, then close.
                conn.as_mut().graceful_shutdown();
            }
        }
        if stopping && activity.in_flight.load(Ordering::Acquire) == 0 {
            // The request in flight has its response; give the client the
            // idle timeout to read it, then close.
            let _ = tokio::time::timeout(limits.idle_timeout, conn.as_mut()).await;
            break;
        }
    }
    stats.open.fetch_sub(1, Ordering::Relaxed);
}

/// A stream that records when bytes move.
struct Tracked {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
