//! `svbench bench serve`: a load test of `svbench serve` over loopback.
//! Starts the server as a second process (this binary, `serve --bind
//! 127.0.0.1:0`), drives it with keep-alive HTTP/1.1 over several
//! connections from one client thread, prints requests/s, latency
//! percentiles and errors per scenario, and stops the server. Asserts
//! nothing.

use crate::out::outln;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::exit;

mod http;
use http::{load, percentile, post, rows, wait_ready, Conn};

/// Limits of one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Requests per scenario at most.
    pub requests: usize,
    /// Connections (one request in flight on each).
    pub connections: usize,
    /// Seconds per scenario at most.
    pub max_seconds: f64,
    /// Slow-loris clients held open while health checks are timed (0 skips
    /// the scenario).
    pub slow_clients: usize,
    /// Connections opened with half a request head and dropped, in batches,
    /// before the server's resident memory is read again (0 skips).
    pub dropped_connections: usize,
}

/// Kills the server when the benchmark ends, however it ends.
struct ServerProcess(Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the benchmark; returns the exit code.
pub fn run(limits: Limits) -> anyhow::Result<u8> {
    if limits.requests == 0 || limits.connections == 0 || limits.max_seconds <= 0.0 {
        return Err(exit::usage(
            "--requests, --connections and --max-seconds must be positive",
        ));
    }
    let exe = std::env::current_exe().context("locating the svbench binary")?;
    let mut child = Command::new(exe)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting `svbench serve`")?;
    let stdout = child.stdout.take().context("server stdout")?;
    let server = ServerProcess(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .context("reading the server's address")?;
    let addr = line
        .trim()
        .strip_prefix("http://")
        .with_context(|| format!("unexpected first line from the server: `{}`", line.trim()))?
        .to_string();
    // The client gets one thread; the server keeps the other cores.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the client runtime")?;
    let pid = server.0.id();
    let outcome = runtime.block_on(async {
        drive(&addr, pid, limits).await?;
        if limits.slow_clients > 0 {
            slow_loris(&addr, pid, limits).await?;
        }
        if limits.dropped_connections > 0 {
            dropped(&addr, pid, limits.dropped_connections).await?;
        }
        anyhow::Ok(())
    });
    drop(server);
    outcome?;
    Ok(exit::OK)
}

async fn drive(addr: &str, pid: u32, limits: Limits) -> anyhow::Result<()> {
    wait_ready(addr).await?;
    let e1 = rows(addr, "e1").await?;
    let e2 = rows(addr, "e2").await?;
    let answers = [
        r#"{"label":"Malicious","confidence":0.8}"#,
        "```json\n{\"label\": \"Benign\", \"confidence\": 0.6}\n```",
        "I cannot decide.",
    ];
    let by_id: Vec<Vec<u8>> = e1
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let body =
                json!({"example_id": r["example_id"], "completion": answers[i % answers.len()]});
            post("/v1/envs/e1/score", &body)
        })
        .collect();
    let inline: Vec<Vec<u8>> = e1
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let body = json!({"answer": r["answer"], "info": r["info"],
                "completion": [{"role": "assistant", "content": answers[i % answers.len()]}]});
            post("/v1/envs/e1/score", &body)
        })
        .collect();
    let e2_requests: Vec<Vec<u8>> = e2
        .iter()
        .filter_map(|r| {
            let completion = e2_completion(r)?;
            Some(post(
                "/v1/envs/e2/score",
                &json!({"example_id": r["example_id"], "completion": completion}),
            ))
        })
        .collect();
    if e2_requests.is_empty() {
        bail!("no E2 row with findings to build a completion from");
    }
    outln!(
        "serve load test: server on {addr}, client on one thread, {} connections, at most {} requests or {:.0} s per scenario",
        limits.connections, limits.requests, limits.max_seconds
    )?;
    for (label, requests) in [
        ("e1 score by example_id", &by_id),
        ("e1 score inline answer", &inline),
        ("e2 score by example_id (findings + patch)", &e2_requests),
    ] {
        // Warm-up: connections, caches, the server's allocator.
        let warm = Limits {
            requests: (limits.requests / 10).clamp(1, 2_000),
            ..limits
        };
        load(addr, requests, warm).await?;
        let r = load(addr, requests, limits).await?;
        outln!(
            "serve {label}: {} requests in {:.3} s = {:.0} req/s; latency p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms; errors {}; server RSS after {:.1} MB",
            r.latencies_ms.len() + r.errors,
            r.seconds,
            (r.latencies_ms.len() + r.errors) as f64 / r.seconds,
            percentile(&r.latencies_ms, 0.50),
            percentile(&r.latencies_ms, 0.90),
            percentile(&r.latencies_ms, 0.99),
            r.errors,
            rss_mb(pid)
        )?;
    }
    Ok(())
}

/// Resident memory of a process in MB (Linux `/proc`; `NaN` elsewhere).
fn rss_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// `limits.slow_clients` connections send a request head one byte per
/// second (reconnecting when the server closes them) while `/healthz` is
/// timed, on one keep-alive connection and on a fresh connection each time.
async fn slow_loris(addr: &str, pid: u32, limits: Limits) -> anyhow::Result<()> {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let closed = Arc::new(AtomicUsize::new(0));
    let open = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::with_capacity(limits.slow_clients);
    for i in 0..limits.slow_clients {
        let (stop, closed, open, addr) = (
            Arc::clone(&stop),
            Arc::clone(&closed),
            Arc::clone(&open),
            addr.to_string(),
        );
        tasks.push(tokio::spawn(async move {
            // Spread the starts over a second.
            tokio::time::sleep(Duration::from_millis((i % 1000) as u64)).await;
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut c) = TcpStream::connect(&addr).await else {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                open.fetch_add(1, Ordering::Relaxed);
                let mut ok = c
                    .write_all(b"POST /v1/envs/e1/score HTTP/1.1\r\nhost: bench\r\nx-slow: ")
                    .await
                    .is_ok();
                while ok && !stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    ok = c.write_all(b"a").await.is_ok();
                }
                open.fetch_sub(1, Ordering::Relaxed);
                if !ok {
                    closed.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    // Let every slow client connect.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(limits.max_seconds);
    let mut kept = Conn::connect(addr).await?;
    let (mut warm, mut fresh, mut errors) = (Vec::new(), Vec::new(), 0usize);
    let health = b"GET /healthz HTTP/1.1\r\nhost: bench\r\n\r\n";
    let mut n = 0u64;
    while Instant::now() < until {
        let t = Instant::now();
        match kept.request(health).await {
            Ok((200, _)) => warm.push(t.elapsed().as_secs_f64() * 1e3),
            _ => {
                errors += 1;
                kept = Conn::connect(addr).await?;
            }
        }
        if n.is_multiple_of(10) {
            let t = Instant::now();
            match Conn::connect(addr).await {
                Ok(mut c) => match c.request(health).await {
                    Ok((200, _)) => fresh.push(t.elapsed().as_secs_f64() * 1e3),
                    _ => errors += 1,
                },
                Err(_) => errors += 1,
            }
        }
        n += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let held = open.load(Ordering::Relaxed);
    let rss = rss_mb(pid);
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.abort();
    }
    warm.sort_by(f64::total_cmp);
    fresh.sort_by(f64::total_cmp);
    outln!(
        "serve healthz under {} slow-loris clients ({held} connected at the end, {} closed by the server in {:.0} s): \
         keep-alive p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} requests); new connection p50 {:.3} ms, p99 {:.3} ms ({}); errors {errors}; server RSS {rss:.1} MB",
        limits.slow_clients,
        closed.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64() + 2.0,
        percentile(&warm, 0.50),
        percentile(&warm, 0.99),
        warm.last().copied().unwrap_or(f64::NAN),
        warm.len(),
        percentile(&fresh, 0.50),
        percentile(&fresh, 0.99),
        fresh.len(),
    )?;
    Ok(())
}

/// Opens `total` connections in batches of 1,000 held at once, each with
/// half a request head, drops them, and reads the server's RSS before,
/// at the peak and after.
async fn dropped(addr: &str, pid: u32, total: usize) -> anyhow::Result<()> {
    // The slow clients' connections are gone once the server notices.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_mb(pid);
    let mut peak = before;
    let mut done = 0usize;
    let mut refused = 0usize;
    while done < total {
        let batch = (total - done).min(1000);
        let mut held = Vec::with_capacity(batch);
        for _ in 0..batch {
            match TcpStream::connect(addr).await {
                Ok(mut c) => {
                    if c.write_all(b"GET /healthz HTTP/1.1\r\nhost: bench\r\nx-half: ")
                        .await
                        .is_err()
                    {
                        refused += 1;
                    }
                    held.push(c);
                }
                Err(_) => refused += 1,
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        peak = peak.max(rss_mb(pid));
        drop(held);
        done += batch;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = rss_mb(pid);
    tokio::time::sleep(Duration::from_secs(10)).await;
    let settled = rss_mb(pid);
    outln!(
        "serve RSS around {total} dropped connections (batches of 1,000 held, half a head each; {refused} failed to connect or write): \
         before {before:.1} MB, peak {peak:.1} MB, 2 s after {after:.1} MB, 12 s after {settled:.1} MB"
    )?;
    Ok(())
}

/// An E2 answer naming the row's labelled findings, with a unified diff that
/// touches the first `image:` line (k8s) so scoring applies a patch and
/// re-scans; `None` for rows without findings.
fn e2_completion(row: &Value) -> Option<String> {
    let violations = row.pointer("/info/info/violations")?.as_array()?;
    if violations.is_empty() {
        return None;
    }
    let ids: Vec<Value> = violations
        .iter()
        .filter_map(|v| {
            Some(json!({"id": format!("{}/{}", v["tool"].as_str()?, v["rule_id"].as_str()?), "severity": "med"}))
        })
        .collect();
    let prompt = row.pointer("/prompt/1/content")?.as_str()?;
    let config = prompt.split("```").nth(1)?.split_once('\n')?.1;
    let patch = config
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("image:") || l.trim_start().starts_with("- image:"))
        .map(|(i, l)| {
            let indent = l.len() - l.trim_start().len() + usize::from(l.trim_start().starts_with("- ")) * 2;
            let pad = " ".repeat(indent);
            format!(
                "--- a/manifest.yaml\n+++ b/manifest.yaml\n@@ -{n} +{n},3 @@\n-{l}\n+{l}\n+{pad}securityContext:\n+{pad}  readOnlyRootFilesystem: true\n",
                n = i + 1
            )
        })
        .unwrap_or_default();
    Some(json!({"violations": ids, "patch": patch, "confidence": 0.8}).to_string())
}
