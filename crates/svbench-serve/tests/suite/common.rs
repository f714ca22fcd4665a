//! Two ways to reach the routes, with one request API ([`Http`]): the
//! router in process through `tower::ServiceExt::oneshot` ([`TestApp`], for
//! everything a socket adds nothing to), and a server per test on
//! 127.0.0.1:0 ([`TestServer`], for connection behaviour, the background
//! sweeper and shutdown).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Request, Response, StatusCode};
use axum::Router;
use reqwest::Client;
use serde::de::DeserializeOwned;
use serde_json::Value;
use svbench_serve::{router, AppState, ServeConfig, ServeError, Server};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// An answer read whole, whichever way it came.
#[derive(Debug)]
pub struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Reply {
    /// Reads an in-process answer.
    pub async fn of(response: Response<Body>) -> Self {
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .expect("the whole body");
        Self {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    /// Reads an answer that came over the socket.
    pub async fn of_socket(response: reqwest::Response) -> Self {
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.expect("the whole body");
        Self {
            status,
            headers,
            body,
        }
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The body as JSON; panics, showing it, when it is not.
    pub fn json<T: DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: not JSON: {}", self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A request without a body.
pub fn request(method: &str, path: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .body(Body::empty())
        .expect("request")
}

/// A POST with a JSON body.
pub fn post_json(path: &str, body: &Value) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request")
}

/// Requests to the routes; paths start at `/`.
pub trait Http {
    /// Sends one request and reads the whole answer.
    fn send(&self, request: Request<Body>) -> impl Future<Output = Reply> + Send;

    async fn get(&self, path: &str) -> Reply {
        self.send(request("GET", path)).await
    }

    async fn post(&self, path: &str, body: &Value) -> Reply {
        self.send(post_json(path, body)).await
    }

    async fn delete(&self, path: &str) -> Reply {
        self.send(request("DELETE", path)).await
    }

    /// Starts an episode, returns its id.
    async fn reset(&self, env: &str, body: &Value) -> String {
        let r = self.post(&format!("/v1/envs/{env}/episodes"), body).await;
        assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text());
        let v: Value = r.json();
        v["episode_id"].as_str().expect("episode_id").to_string()
    }

    /// First rows of a split, answers included.
    async fn rows(&self, env: &str, limit: usize) -> Vec<Value> {
        let v: Value = self
            .get(&format!(
                "/v1/envs/{env}/splits/test/rows?limit={limit}&include_answer=true"
            ))
            .await
            .json();
        v["rows"].as_array().expect("rows").clone()
    }
}

/// The router over a loaded state, called in process: no socket, no
/// sweeper (expiry is still seen on access), no shutdown.
#[derive(Clone)]
pub struct TestApp {
    pub state: Arc<AppState>,
    app: Router,
}

impl TestApp {
    /// Builds the state, loads the environments as `run` does before it is
    /// ready, and the router over it.
    pub fn start(config: ServeConfig) -> Self {
        let state = Arc::new(AppState::new(config));
        state.load().expect("the environments load");
        let app = router(Arc::clone(&state));
        Self { state, app }
    }

    /// With the default configuration.
    pub fn default() -> Self {
        Self::start(ServeConfig::default())
    }
}

impl Http for TestApp {
    fn send(&self, request: Request<Body>) -> impl Future<Output = Reply> + Send {
        let app = self.app.clone();
        async move { Reply::of(app.oneshot(request).await.expect("infallible")).await }
    }
}

/// A running server with its state and a way to stop it.
pub struct TestServer {
    pub base: String,
    pub state: Arc<AppState>,
    pub client: Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServeError>>>,
}

/// Polls at most this many times (bounded waits, never timed assertions).
pub const POLLS: usize = 600;
pub const POLL_EVERY: Duration = Duration::from_millis(50);

impl TestServer {
    /// Starts a server and waits until `/readyz` answers 200.
    pub async fn start(config: ServeConfig) -> Self {
        let server = Server::bind("127.0.0.1:0", config).await.expect("bind");
        let addr = server.local_addr().expect("address");
        let state = server.state();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async {
            let _ = rx.await;
        }));
        let client = Client::builder().no_proxy().build().expect("client");
        let s = Self {
            base: format!("http://{addr}"),
            state,
            client,
            stop: Some(tx),
            task: Some(task),
        };
        for _ in 0..POLLS {
            if let Ok(r) = s.client.get(s.url("/readyz")).send().await {
                if r.status() == StatusCode::OK {
                    return s;
                }
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
        panic!("server did not become ready");
    }

    /// With the default configuration.
    pub async fn default() -> Self {
        Self::start(ServeConfig::default()).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends the shutdown signal.
    pub fn signal_shutdown(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }

    /// Signals shutdown and waits for the server to return.
    pub async fn shutdown(mut self) -> Result<(), ServeError> {
        self.signal_shutdown();
        let task = self.task.take().expect("running");
        task.await.expect("server task")
    }
}

impl Http for TestServer {
    fn send(&self, request: Request<Body>) -> impl Future<Output = Reply> + Send {
        let (parts, body) = request.into_parts();
        let request = self
            .client
            .request(parts.method, self.url(&parts.uri.to_string()))
            .headers(parts.headers);
        async move {
            let body = axum::body::to_bytes(body, usize::MAX)
                .await
                .expect("request body");
            Reply::of_socket(request.body(body).send().await.expect("request sent")).await
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.signal_shutdown();
    }
}

/// Asserts an error answer: status, JSON body with the code, and returns the body.
pub fn expect_error(r: Reply, status: u16, code: &str) -> Value {
    assert_eq!(r.status().as_u16(), status, "status: {}", r.text());
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert!(ct.starts_with("application/json"), "content type {ct}");
    let body: Value = r.json();
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
    assert!(body["error"].get("details").is_some(), "{body}");
    body
}

/// Polls `cond` up to [`POLLS`] times.
pub async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..POLLS {
        if cond() {
            return true;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    cond()
}

/// A valid E1 answer.
pub const E1_VALID: &str = r#"{"label":"Malicious","confidence":0.8}"#;

/// Sends raw bytes on a fresh connection and reads until the server closes it.
pub async fn raw_request(base: &str, bytes: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(bytes).await.expect("write");
    let mut out = Vec::new();
    // The server may close before reading everything; what it sent counts.
    let _ = stream.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}
