//! Response cache throughput, measured, not asserted (DESIGN: speed targets
//! are benchmarks). Run it with
//!
//! ```text
//! cargo test --release -p svbench-runner --test cache_throughput -- --ignored --nocapture
//! ```
//!
//! It prints keys/s, puts/s and gets/s (hits and misses, one thread and
//! several) for 100,000 realistic single-turn requests.

use std::sync::Arc;
use std::thread;
use std::time::Instant;

use serde_json::{json, Value};
use svbench_runner::cache::ResponseCache;

const N: usize = 100_000;
const BASE_URL: &str = "http://127.0.0.1:8000/v1";

/// A request body of E1's size: system prompt, one flow record, sampling.
fn body(n: usize) -> Value {
    json!({
        "model": "Qwen/Qwen3-4B-Instruct-2507",
        "messages": [
            {"role": "system", "content": "You are a network security analyst. ".repeat(20)},
            {"role": "user", "content": format!(
                "ts=1700000000.{n} proto=tcp src=10.0.{}.{} sport=51234 dst=192.0.2.7 dport=443 \
                 duration=1.25 orig_bytes=512 resp_bytes=2048 conn_state=SF history=ShADadFf",
                n % 250, n % 200)}
        ],
        "temperature": 0,
        "max_tokens": 512,
        "seed": n as u32,
        "top_k": 20
    })
}

fn response(n: usize) -> Value {
    json!({
        "id": format!("chatcmpl-{n}"),
        "object": "chat.completion",
        "model": "Qwen/Qwen3-4B-Instruct-2507",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": "{\"label\": \"Malicious\", \"confidence\": 0.87, \"rationale\": \"beaconing to a rare host\"}"
        }}],
        "usage": {"prompt_tokens": 310, "completion_tokens": 31, "total_tokens": 341}
    })
}

fn rate(label: &str, count: usize, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{label:<34} {count:>7} in {secs:>6.2} s = {:>9.0}/s",
        count as f64 / secs
    );
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn cache_throughput() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("responses.sqlite");
    let cache = Arc::new(ResponseCache::open(&path).expect("open"));
    let bodies: Vec<Value> = (0..N).map(body).collect();
    let responses: Vec<Value> = (0..N).map(response).collect();

    let started = Instant::now();
    let keys: Vec<String> = bodies
        .iter()
        .map(|b| ResponseCache::key(BASE_URL, b, 0))
        .collect();
    rate("key()", N, started);

    let started = Instant::now();
    for k in &keys {
        assert!(cache.get(k).expect("get").is_none());
    }
    rate("get, miss, 1 thread", N, started);

    let started = Instant::now();
    for (k, r) in keys.iter().zip(&responses) {
        cache.put(k, r, BASE_URL, "qwen").expect("put");
    }
    rate("put, 1 thread", N, started);

    let started = Instant::now();
    for k in &keys {
        assert!(cache.get(k).expect("get").is_some());
    }
    rate("get, hit, 1 thread", N, started);

    let threads = 4;
    let keys = Arc::new(keys);
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (cache, keys) = (cache.clone(), keys.clone());
            thread::spawn(move || {
                for k in keys.iter().skip(t).step_by(threads) {
                    assert!(cache.get(k).expect("get").is_some());
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    rate("get, hit, 4 threads", N, started);

    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (cache, keys) = (cache.clone(), keys.clone());
            let responses: Vec<Value> = (t..N).step_by(threads).map(response).collect();
            thread::spawn(move || {
                for (k, r) in keys.iter().skip(t).step_by(threads).zip(&responses) {
                    cache.put(k, r, BASE_URL, "qwen").expect("put");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    rate("put (replace), 4 threads", N, started);

    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    eprintln!("file: {:.1} MB for {N} entries", size as f64 / 1e6);
}
