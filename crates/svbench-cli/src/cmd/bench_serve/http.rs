//! The load generator's HTTP/1.1 client: requests, keep-alive connections,
//! latency percentiles.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Limits;

pub(super) fn post(path: &str, body: &Value) -> Vec<u8> {
    let body = body.to_string();
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body.as_bytes());
    req
}

pub(super) async fn wait_ready(addr: &str) -> anyhow::Result<()> {
    for _ in 0..600 {
        if let Ok(mut conn) = Conn::connect(addr).await {
            if let Ok((200, _)) = conn
                .request(b"GET /readyz HTTP/1.1\r\nhost: bench\r\n\r\n")
                .await
            {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bail!("the server did not become ready in 30 s")
}

pub(super) async fn rows(addr: &str, env: &str) -> anyhow::Result<Vec<Value>> {
    let mut conn = Conn::connect(addr).await?;
    let req = format!(
        "GET /v1/envs/{env}/splits/test/rows?limit=1000&include_answer=true HTTP/1.1\r\nhost: bench\r\n\r\n"
    );
    let (status, body) = conn.request(req.as_bytes()).await?;
    if status != 200 {
        bail!("rows of {env}: HTTP {status}");
    }
    let v: Value = serde_json::from_slice(&body)?;
    Ok(v["rows"].as_array().cloned().unwrap_or_default())
}

pub(super) struct LoadResult {
    pub(super) latencies_ms: Vec<f64>,
    pub(super) errors: usize,
    pub(super) seconds: f64,
}

/// `limits.connections` connections share one request counter until
/// `limits.requests` are sent or `limits.max_seconds` pass.
pub(super) async fn load(
    addr: &str,
    requests: &[Vec<u8>],
    limits: Limits,
) -> anyhow::Result<LoadResult> {
    let requests: Arc<Vec<Vec<u8>>> = Arc::new(requests.to_vec());
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(limits.max_seconds);
    let mut tasks = Vec::with_capacity(limits.connections);
    for _ in 0..limits.connections {
        let (requests, next, addr) = (Arc::clone(&requests), Arc::clone(&next), addr.to_string());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            let mut conn = Conn::connect(&addr).await.ok();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= limits.requests || Instant::now() >= deadline {
                    break;
                }
                let Some(c) = conn.as_mut() else {
                    errors += 1;
                    conn = Conn::connect(&addr).await.ok();
                    continue;
                };
                let t = Instant::now();
                match c.request(&requests[i % requests.len()]).await {
                    Ok((200, _)) => latencies.push(t.elapsed().as_secs_f64() * 1e3),
                    Ok(_) => errors += 1,
                    Err(_) => {
                        errors += 1;
                        conn = Conn::connect(&addr).await.ok();
                    }
                }
            }
            (latencies, errors)
        }));
    }
    let mut out = LoadResult {
        latencies_ms: Vec::new(),
        errors: 0,
        seconds: 0.0,
    };
    for t in tasks {
        let (l, e) = t.await.context("client task")?;
        out.latencies_ms.extend(l);
        out.errors += e;
    }
    out.seconds = started.elapsed().as_secs_f64();
    out.latencies_ms.sort_by(f64::total_cmp);
    Ok(out)
}

pub(super) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A keep-alive HTTP/1.1 connection with just enough parsing for the
/// server's answers (`content-length` bodies).
pub(super) struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub(super) async fn connect(addr: &str) -> anyhow::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            buf: Vec::with_capacity(16 * 1024),
        })
    }

    pub(super) async fn request(&mut self, req: &[u8]) -> anyhow::Result<(u16, Vec<u8>)> {
        self.stream.write_all(req).await?;
        // Read until the end of the head.
        let head_end = loop {
            if let Some(p) = find(&self.buf, b"\r\n\r\n") {
                break p + 4;
            }
            self.fill().await?;
        };
        let head = std::str::from_utf8(&self.buf[..head_end]).context("response head")?;
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .context("status line")?;
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse().ok())
                    .flatten()
            })
            .unwrap_or(0);
        while self.buf.len() < head_end + length {
            self.fill().await?;
        }
        let body = self.buf[head_end..head_end + length].to_vec();
        self.buf.drain(..head_end + length);
        Ok((status, body))
    }

    async fn fill(&mut self) -> anyhow::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk).await?;
        if n == 0 {
            bail!("connection closed");
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
