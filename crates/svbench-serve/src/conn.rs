//! The accept loop and HTTP/1.1 connections, driven with hyper directly
//! (axum's `serve` has no header-read or idle timeout and no connection
//! cap): a client that is slow to send its request head, a connection that
//! sits idle, and connections beyond the cap are all closed, so slow or
//! idle clients can hold neither memory nor shutdown.
//!
//! At the cap a new connection takes the slot of the connection that has
//! waited longest with no request in flight (an idle keep-alive connection,
//! a client that connected and sent nothing or half a head): a flood of
//! half-open sockets only evicts itself, and a client that sends its
//! request promptly is served. When every slot has a request in flight, a
//! small reserve of slots serves the health routes only.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
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
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
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
    /// Open connections at most. At the cap a new connection evicts the
    /// one that has waited longest with no request in flight; when all
    /// have one in flight it gets a health slot, else 503.
    pub max_connections: usize,
    /// Extra slots, beyond `max_connections`, that serve one request each
    /// to `/healthz`, `/readyz` or `/metrics` (others get 503), used when
    /// every general slot has a request in flight.
    pub health_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(5),
            max_connections: 1024,
            health_connections: 16,
        }
    }
}

/// Routes a health slot serves.
const HEALTH_ROUTES: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// The most a health slot waits for its request head.
const HEALTH_HEAD_TIMEOUT: Duration = Duration::from_secs(2);

/// The answer to a connection beyond the cap, written without reading the
/// request.
const OVER_CAPACITY_BODY: &str = r#"{"error":{"code":"capacity_exhausted","message":"too many open connections (--max-connections)","details":null}}"#;

fn over_capacity() -> Vec<u8> {
    let body = OVER_CAPACITY_BODY;
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
    /// Connections with no request in flight closed to give their slot to
    /// a new connection at the cap.
    pub evicted: AtomicU64,
    /// Connections served on a health slot.
    pub health: AtomicU64,
}

/// Slots of one kind, and the connections holding them in the order they
/// started waiting, to find the one that has waited longest.
struct Pool {
    slots: Arc<Semaphore>,
    cap: usize,
    holders: Mutex<VecDeque<Weak<Activity>>>,
}

impl Pool {
    fn new(cap: usize) -> Self {
        let cap = cap.min(Semaphore::MAX_PERMITS);
        Self {
            slots: Arc::new(Semaphore::new(cap)),
            cap,
            holders: Mutex::new(VecDeque::new()),
        }
    }

    /// A free slot, or the slot of the holder that has waited longest with
    /// no request in flight (told to close).
    fn admit(&self, stats: &ConnStats) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
            return Some(permit);
        }
        let mut holders = self.holders.lock().unwrap_or_else(PoisonError::into_inner);
        // Each holder is looked at once: busy ones go to the back.
        for _ in 0..holders.len() {
            let Some(weak) = holders.pop_front() else {
                break;
            };
            let Some(holder) = weak.upgrade() else {
                continue;
            };
            if let Some(permit) = holder.evict() {
                stats.evicted.fetch_add(1, Ordering::Relaxed);
                return Some(permit);
            }
            if holder.permit_held() {
                holders.push_back(weak);
            }
        }
        None
    }

    fn hold(&self, activity: &Arc<Activity>, permit: OwnedSemaphorePermit) {
        *activity
            .permit
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(permit);
        let mut holders = self.holders.lock().unwrap_or_else(PoisonError::into_inner);
        holders.retain(|w| w.strong_count() > 0);
        holders.push_back(Arc::downgrade(activity));
    }
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
    let general = Arc::new(Pool::new(limits.max_connections.max(1)));
    let health = Arc::new(Pool::new(limits.health_connections));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let builder = Arc::new(builder);
    let mut health_builder = hyper::server::conn::http1::Builder::new();
    health_builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout.min(HEALTH_HEAD_TIMEOUT))
        .keep_alive(false);
    let health_builder = Arc::new(health_builder);
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
        let (pool, builder, health_only) = if let Some(permit) = general.admit(&stats) {
            ((Arc::clone(&general), permit), Arc::clone(&builder), false)
        } else if let Some(permit) = health.admit(&stats) {
            stats.health.fetch_add(1, Ordering::Relaxed);
            (
                (Arc::clone(&health), permit),
                Arc::clone(&health_builder),
                true,
            )
        } else {
            stats.refused.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(refuse(stream));
            continue;
        };
        // Registered before the task runs, so the next accept can already
        // take this slot if it stays idle.
        let activity = Arc::new(Activity::new());
        let (pool, permit) = pool;
        pool.hold(&activity, permit);
        tokio::spawn(connection(
            stream,
            app.clone(),
            builder,
            limits,
            Arc::clone(&stats),
            stop.clone(),
            activity,
            health_only,
        ));
    }
    drop(listener);
    // Every connection holds a permit until it is closed (a permit taken
    // from an evicted connection moves to its successor).
    for pool in [&general, &health] {
        if pool.cap > 0 {
            let _all = pool
                .slots
                .acquire_many(u32::try_from(pool.cap).unwrap_or(u32::MAX))
                .await;
        }
    }
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
    // Set when another connection took this one's slot; the task closes.
    evicted: AtomicBool,
    close: Notify,
    permit: Mutex<Option<OwnedSemaphorePermit>>,
}

impl Activity {
    fn new() -> Self {
        Self {
            start: Instant::now(),
            last: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            evicted: AtomicBool::new(false),
            close: Notify::new(),
            permit: Mutex::new(None),
        }
    }

    fn permit_held(&self) -> bool {
        self.permit
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Takes this connection's slot if it has no request in flight, and
    /// tells it to close.
    fn evict(&self) -> Option<OwnedSemaphorePermit> {
        if self.in_flight.load(Ordering::SeqCst) > 0 || self.evicted.swap(true, Ordering::SeqCst) {
            return None;
        }
        // A request that began meanwhile keeps its connection (the request
        // side checks `evicted` after counting itself, in the same order).
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            self.evicted.store(false, Ordering::SeqCst);
            return None;
        }
        let permit = self
            .permit
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.close.notify_one();
        permit
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
        activity.in_flight.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(activity))
    }

    /// Whether the connection lost its slot before this request counted.
    fn evicted(&self) -> bool {
        self.0.evicted.load(Ordering::SeqCst)
    }
}

/// The JSON 503 of a request a connection cannot serve.
fn over_capacity_response() -> Response {
    let mut response = Response::new(Body::from(OVER_CAPACITY_BODY));
    *response.status_mut() = axum::http::StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from_static("1"),
    );
    headers.insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One connection: served until the client closes it, it times out,
/// another connection takes its slot, or shutdown closes it. On a health
/// slot (`health_only`) it serves one request to a health route.
#[allow(clippy::too_many_arguments)]
async fn connection(
    stream: TcpStream,
    app: Router,
    builder: Arc<hyper::server::conn::http1::Builder>,
    limits: ConnLimits,
    stats: Arc<ConnStats>,
    mut stop: watch::Receiver<bool>,
    activity: Arc<Activity>,
    health_only: bool,
) {
    stats.open.fetch_add(1, Ordering::Relaxed);
    let io = TokioIo::new(Tracked {
        inner: stream,
        activity: Arc::clone(&activity),
    });
    let service = {
        let activity = Arc::clone(&activity);
        hyper::service::service_fn(move |req: Request<Incoming>| {
            let guard = InFlight::begin(&activity);
            let refused =
                guard.evicted() || (health_only && !HEALTH_ROUTES.contains(&req.uri().path()));
            let app = app.clone();
            async move {
                if refused {
                    drop(guard);
                    return Ok::<_, Infallible>(over_capacity_response());
                }
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
            () = activity.close.notified() => {
                // Another connection took the slot.
                break;
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
    // Give the slot back (unless an eviction took it already).
    drop(
        activity
            .permit
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(),
    );
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
