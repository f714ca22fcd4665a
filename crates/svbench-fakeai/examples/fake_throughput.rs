//! Measures the fake server alone: how many chat completions per second it
//! answers to a reqwest client at concurrency 64 (a benchmark, not a test).
//!
//! `cargo run --release -p svbench-fakeai --example fake_throughput [-- REQUESTS CONCURRENCY]`

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use svbench_fakeai::{last_user_text, FakeServer, Script, Step};

fn main() {
    let mut args = std::env::args().skip(1);
    let total: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let concurrency: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);

    // A computed answer, as the E1 benchmark will use.
    let server = FakeServer::start(
        Script::from_fn(|body| {
            let q = last_user_text(body).unwrap_or_default();
            let label = if q.contains("nmap") {
                "Malicious"
            } else {
                "Benign"
            };
            Step::content(format!(r#"{{"label": "{label}", "confidence": 0.9}}"#))
        })
        .record_requests(false),
    );
    let url = format!("{}/chat/completions", server.base_url());
    let question = "Log entry: 2024-05-01T12:00:00Z 10.0.0.5:51234 -> 10.0.0.9:443 tcp \
                    duration=0.2s bytes=1240 state=SF service=ssl. Classify it.";
    let body = json!({
        "model": "fake",
        "messages": [
            {"role": "system", "content": "You are a network security analyst. Answer in JSON."},
            {"role": "user", "content": question}
        ],
        "max_tokens": 2048,
        "temperature": 0.2
    })
    .to_string();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    runtime.block_on(async {
        let client = reqwest::Client::new();
        let mut workers = Vec::new();
        for _ in 0..concurrency {
            let (client, url, body, next) =
                (client.clone(), url.clone(), body.clone(), Arc::clone(&next));
            workers.push(tokio::spawn(async move {
                while next.fetch_add(1, Ordering::Relaxed) < total {
                    let resp = client
                        .post(&url)
                        .body(body.clone())
                        .send()
                        .await
                        .expect("request");
                    assert_eq!(resp.status(), 200);
                    resp.bytes().await.expect("body");
                }
            }));
        }
        for w in workers {
            w.await.expect("worker");
        }
    });
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{total} requests at concurrency {concurrency} in {secs:.2} s: {:.0} req/s over {} connections (peak in flight {})",
        total as f64 / secs,
        server.connection_count(),
        server.peak_concurrency()
    );
}
