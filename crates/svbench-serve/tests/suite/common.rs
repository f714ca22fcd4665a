//! A server per test and small request helpers.

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Client, Response, StatusCode};
use serde_json::Value;
use svbench_serve::{AppState, ServeConfig, ServeError, Server};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

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

    pub async fn get(&self, path: &str) -> Response {
        self.client.get(self.url(path)).send().await.expect("GET")
    }

    pub async fn post(&self, path: &str, body: &Value) -> Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("POST")
    }

    pub async fn delete(&self, path: &str) -> Response {
        self.client
            .delete(self.url(path))
            .send()
            .await
            .expect("DELETE")
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

    /// Starts an episode, returns its id.
    pub async fn reset(&self, env: &str, body: &Value) -> String {
        let r = self.post(&format!("/v1/envs/{env}/episodes"), body).await;
        assert_eq!(r.status(), StatusCode::CREATED);
        let v: Value = r.json().await.expect("json");
        v["episode_id"].as_str().expect("episode_id").to_string()
    }

    /// First rows of a split, answers included.
    pub async fn rows(&self, env: &str, limit: usize) -> Vec<Value> {
        let v: Value = self
            .get(&format!(
                "/v1/envs/{env}/splits/test/rows?limit={limit}&include_answer=true"
            ))
            .await
            .json()
            .await
            .expect("json");
        v["rows"].as_array().expect("rows").clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.signal_shutdown();
    }
}

/// Asserts an error answer: status, JSON body with the code, and returns the body.
pub async fn expect_error(r: Response, status: u16, code: &str) -> Value {
    assert_eq!(r.status().as_u16(), status, "status");
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert!(ct.starts_with("application/json"), "content type {ct}");
    let body: Value = r.json().await.expect("JSON error body");
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
