//! The loopback HTTP/1.1 server: accept loop, connections, request handling.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::body::{Body, Incoming};
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::record::RecordedRequest;
use crate::response::{error_response, json_response, render, tokens, Ctx, FakeBody, Reply};
use crate::script::Script;
use crate::step::Step;

/// A running fake OpenAI-compatible server on `127.0.0.1`.
///
/// It serves `POST /v1/chat/completions` (also `/chat/completions`) from its
/// [`Script`] and `GET /v1/models` (also `/models`). Dropping it, or calling
/// [`FakeServer::shutdown`], stops it at once: in-flight requests are cut.
pub struct FakeServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<watch::Sender<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeServer")
            .field("addr", &self.addr)
            .field("dedicated_thread", &self.thread.is_some())
            .field("request_count", &self.request_count())
            .finish()
    }
}

impl FakeServer {
    /// Starts the server on its own single-threaded tokio runtime in a
    /// background thread. Works from sync code and from inside any runtime;
    /// its load never competes with the caller's runtime for scheduling.
    ///
    /// Delays run on real time here even if the caller's clock is paused; for
    /// paused-clock tests use [`FakeServer::start_on_current_runtime`].
    ///
    /// # Panics
    /// If no loopback port can be bound or the thread cannot start.
    pub fn start(script: Script) -> FakeServer {
        let (std_listener, addr) = bind();
        let shared = Arc::new(Shared::new(script));
        let (stop_tx, stop_rx) = watch::channel(false);
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("svbench-fakeai-{}", addr.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("svbench-fakeai: building the server's tokio runtime");
                runtime.block_on(async move {
                    let listener = TcpListener::from_std(std_listener)
                        .expect("svbench-fakeai: registering the listener");
                    serve(listener, thread_shared, stop_rx).await;
                });
                // Dropping the runtime cancels every connection task still alive.
            })
            .expect("svbench-fakeai: spawning the server thread");
        FakeServer {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// Starts the server as tasks on the caller's tokio runtime, so that
    /// [`Step::Delay`] and [`RecordedRequest::received_at`] follow that
    /// runtime's clock, including a paused test clock
    /// (`#[tokio::test(start_paused = true)]`).
    ///
    /// With a paused clock, prefer this to [`FakeServer::start`]: tokio
    /// advances a paused clock whenever the runtime is idle, so while a
    /// request waits on a server in another thread the client's own timers
    /// (its request timeout) may fire spuriously; a server on the same
    /// runtime answers before the runtime goes idle.
    ///
    /// Stopping is asynchronous: after [`FakeServer::shutdown`] or drop, the
    /// listener closes when the runtime next polls the server's tasks.
    ///
    /// # Panics
    /// If called outside a tokio runtime, or no loopback port can be bound.
    pub fn start_on_current_runtime(script: Script) -> FakeServer {
        let (std_listener, addr) = bind();
        let listener = TcpListener::from_std(std_listener).expect(
            "svbench-fakeai: start_on_current_runtime must be called within a tokio runtime",
        );
        let shared = Arc::new(Shared::new(script));
        let (stop_tx, stop_rx) = watch::channel(false);
        tokio::spawn(serve(listener, Arc::clone(&shared), stop_rx));
        FakeServer {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: None,
        }
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI-style base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every chat-completion request received so far, in arrival order
    /// (empty when the script turned recording off).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.recorded().clone()
    }

    /// Chat-completion requests received so far (always counted).
    pub fn request_count(&self) -> usize {
        self.shared.count.load(Ordering::SeqCst)
    }

    /// TCP connections accepted so far (shows whether a client reuses
    /// keep-alive connections).
    pub fn connection_count(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// Requests that no rule and no fallback answered (each got a 400).
    pub fn unmatched_count(&self) -> usize {
        self.shared.unmatched.load(Ordering::SeqCst)
    }

    /// Chat-completion requests being handled right now.
    pub fn in_flight(&self) -> usize {
        self.shared.in_flight.load(Ordering::SeqCst)
    }

    /// The most chat-completion requests ever handled at the same time.
    ///
    /// A request is in flight from the end of its body to its answer. The
    /// server runs on one thread, so instant answers rarely overlap; give
    /// steps a [`Step::Delay`] to measure how many requests a client keeps
    /// open at once.
    pub fn peak_concurrency(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }

    /// Forgets recorded requests and resets the request, connection and
    /// unmatched counts and the peak (rule queues keep their position).
    pub fn clear(&self) {
        self.shared.recorded().clear();
        self.shared.count.store(0, Ordering::SeqCst);
        self.shared.connections.store(0, Ordering::SeqCst);
        self.shared.unmatched.store(0, Ordering::SeqCst);
        self.shared.peak.store(
            self.shared.in_flight.load(Ordering::SeqCst),
            Ordering::SeqCst,
        );
    }

    /// Stops the server. With [`FakeServer::start`] this returns once the
    /// port is free and every connection is closed.
    pub fn shutdown(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(thread) = self.thread.take() {
            // A panic on the server thread has already been printed; the
            // test that caused it fails through its own assertions.
            let _ = thread.join();
        }
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}

fn bind() -> (std::net::TcpListener, SocketAddr) {
    let listener =
        std::net::TcpListener::bind(("127.0.0.1", 0)).expect("svbench-fakeai: binding 127.0.0.1:0");
    listener
        .set_nonblocking(true)
        .expect("svbench-fakeai: making the listener non-blocking");
    let addr = listener
        .local_addr()
        .expect("svbench-fakeai: reading the bound address");
    (listener, addr)
}

/// State shared by the handle and every connection.
struct Shared {
    script: Script,
    requests: Mutex<Vec<RecordedRequest>>,
    count: AtomicUsize,
    connections: AtomicUsize,
    unmatched: AtomicUsize,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    call_ids: AtomicUsize,
}

impl Shared {
    fn new(script: Script) -> Self {
        Shared {
            script,
            requests: Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            unmatched: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            call_ids: AtomicUsize::new(0),
        }
    }

    fn recorded(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        // A panic while holding the lock cannot leave the Vec inconsistent.
        self.requests.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Counts a request as in flight for as long as it lives.
struct InFlight<'a>(&'a Shared);

impl<'a> InFlight<'a> {
    fn enter(shared: &'a Shared) -> Self {
        let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        shared.peak.fetch_max(now, Ordering::SeqCst);
        InFlight(shared)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn serve(listener: TcpListener, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.keep_alive(true).header_read_timeout(None);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors or similar: back off briefly.
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
            },
            _ = stop.changed() => return,
        };
        shared.connections.fetch_add(1, Ordering::SeqCst);
        let _ = stream.set_nodelay(true);
        let flags = Arc::new(AtomicBool::new(false));
        let io = TokioIo::new(ConnIo {
            stream,
            reset: Arc::clone(&flags),
        });
        let shared = Arc::clone(&shared);
        let service = service_fn(move |req| handle(Arc::clone(&shared), Arc::clone(&flags), req));
        let conn = http.serve_connection(io, service);
        let mut stop = stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                // An error here is the point of some steps (dropped
                // connections, cut bodies) or a client that went away.
                _ = conn => {}
                _ = stop.changed() => {}
            }
        });
    }
}

/// Returned by the service to make hyper close the connection without a response.
#[derive(Debug)]
struct Abort;

impl fmt::Display for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("svbench-fakeai: connection dropped on purpose")
    }
}

impl std::error::Error for Abort {}

async fn handle(
    shared: Arc<Shared>,
    reset: Arc<AtomicBool>,
    req: Request<Incoming>,
) -> Result<Response<FakeBody>, Abort> {
    let path = req.uri().path();
    let chat = matches!(path, "/v1/chat/completions" | "/chat/completions");
    let models = matches!(path, "/v1/models" | "/models");
    match *req.method() {
        Method::POST if chat => {}
        Method::GET if models => return Ok(models_response(&shared.script)),
        _ if chat || models => return Ok(error_response(405, "method not allowed")),
        _ => return Ok(error_response(404, "svbench-fakeai: unknown path")),
    }

    let path = path.to_owned();
    let query = req.uri().query().map(str::to_owned);
    let (parts, mut body) = req.into_parts();
    let mut bytes = Vec::with_capacity(body.size_hint().exact().unwrap_or(0).min(1 << 20) as usize);
    while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        match frame {
            Ok(frame) => {
                if let Some(data) = frame.data_ref() {
                    bytes.extend_from_slice(data);
                }
            }
            // The client went away mid-request; nobody is left to answer.
            Err(_) => return Err(Abort),
        }
    }
    let received_at = tokio::time::Instant::now();
    let index = shared.count.fetch_add(1, Ordering::SeqCst);
    let _in_flight = InFlight::enter(&shared);

    let parsed: Option<Value> = serde_json::from_slice(&bytes).ok();
    let step = parsed.as_ref().and_then(|b| shared.script.choose(b));
    let model = shared
        .script
        .response_model
        .clone()
        .or_else(|| {
            parsed
                .as_ref()
                .and_then(|b| b.get("model"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let prompt_tokens = parsed.as_ref().map_or(0, prompt_tokens);
    let was_json = parsed.is_some();
    if shared.script.record_requests {
        let headers = parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        shared.recorded().push(RecordedRequest {
            index,
            path,
            query,
            headers,
            body: parsed.unwrap_or(Value::Null),
            received_at,
        });
    }
    if !was_json {
        return Ok(error_response(
            400,
            "svbench-fakeai: request body is not valid JSON",
        ));
    }
    let Some(mut step) = step else {
        shared.unmatched.fetch_add(1, Ordering::SeqCst);
        return Ok(error_response(
            400,
            "svbench-fakeai: no scripted step matched this request",
        ));
    };
    while let Step::Delay(duration, next) = step {
        tokio::time::sleep(duration).await;
        step = *next;
    }
    let ctx = Ctx {
        index,
        model: &model,
        prompt_tokens,
        call_ids: &shared.call_ids,
    };
    match render(step, &ctx) {
        Reply::Send(resp) => Ok(resp),
        Reply::Drop => Err(Abort),
        Reply::Reset => {
            reset.store(true, Ordering::SeqCst);
            Err(Abort)
        }
    }
}

/// Tokens of every message's text and tool-call arguments, at 4 bytes a token.
fn prompt_tokens(body: &Value) -> u64 {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return 0;
    };
    let bytes: usize = messages
        .iter()
        .map(|m| {
            let text = crate::script::message_text(m).map_or(0, |t| t.len());
            let calls = m
                .get("tool_calls")
                .and_then(Value::as_array)
                .map_or(0, |calls| {
                    calls
                        .iter()
                        .filter_map(|c| c.pointer("/function/arguments"))
                        .filter_map(Value::as_str)
                        .map(str::len)
                        .sum()
                });
            // A few tokens of per-message framing, as chat templates add.
            text + calls + 16
        })
        .sum();
    tokens(bytes)
}

fn models_response(script: &Script) -> Response<FakeBody> {
    let mut ids: Vec<&str> = script.rules.iter().filter_map(|r| r.model_name()).collect();
    ids.push("svbench-fake");
    ids.sort_unstable();
    ids.dedup();
    let data: Vec<Value> = ids
        .into_iter()
        .map(|id| {
            serde_json::json!({"id": id, "object": "model", "created": 1_700_000_000u64, "owned_by": "svbench-fakeai"})
        })
        .collect();
    json_response(
        200,
        serde_json::json!({"object": "list", "data": data}).to_string(),
    )
}

/// The TCP stream, able to close with a reset when a step asks for one.
struct ConnIo {
    stream: TcpStream,
    reset: Arc<AtomicBool>,
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            // SO_LINGER 0: close() sends RST instead of FIN and does not block.
            let _ = self.stream.set_zero_linger();
        }
    }
}

impl AsyncRead for ConnIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
