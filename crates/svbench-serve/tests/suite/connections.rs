//! Slow, idle and excess connections (issue 13 item 6), on loopback. Waits
//! are bounded correctness checks with wide margins, not timings: each
//! limit is 1 s and a connection must be closed within 30 s.

use std::time::Duration;

use std::sync::atomic::Ordering;

use svbench_serve::{ConnLimits, ServeConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::TestServer;

/// How long a connection may take to be closed before the test fails.
const BOUND: Duration = Duration::from_secs(30);

fn limits(header: u64, idle: u64, max: usize) -> ServeConfig {
    ServeConfig {
        connections: ConnLimits {
            header_read_timeout: Duration::from_secs(header),
            idle_timeout: Duration::from_secs(idle),
            max_connections: max,
            health_connections: 0,
        },
        ..ServeConfig::default()
    }
}

/// Sends a request on a fresh connection and reads the answer's first
/// bytes (within [`BOUND`]); empty when the server closed without one.
async fn ask(s: &TestServer, head: &str) -> String {
    let mut c = connect(s).await;
    if c.write_all(head.as_bytes()).await.is_err() {
        return String::new();
    }
    closed_within_bound(&mut c).await.unwrap_or_default()
}

async fn connect(s: &TestServer) -> TcpStream {
    TcpStream::connect(s.base.trim_start_matches("http://"))
        .await
        .expect("connect")
}

/// Reads until the server closes the connection (EOF or reset), within
/// [`BOUND`]; what was read, or `None` if it stayed open.
async fn closed_within_bound(stream: &mut TcpStream) -> Option<String> {
    let mut out = Vec::new();
    let read = tokio::time::timeout(BOUND, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&out).into_owned())
}

#[tokio::test]
async fn a_slow_request_head_is_cut_off() {
    let s = TestServer::start(limits(1, 60, 64)).await;
    let mut stream = connect(&s).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("write");
    // One header byte at a time, slower than the head timeout allows in
    // total, and never the blank line that ends the head.
    let trickle = async {
        for _ in 0..120 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            if stream.write_all(b"X").await.is_err() {
                return true;
            }
        }
        false
    };
    assert!(
        tokio::time::timeout(BOUND + BOUND, trickle)
            .await
            .unwrap_or(false),
        "a client trickling its head stayed connected"
    );
}

#[tokio::test]
async fn idle_connections_are_closed() {
    let s = TestServer::start(limits(60, 1, 64)).await;
    // Connected, sent nothing.
    let mut silent = connect(&s).await;
    // Keep-alive: one request answered, then idle.
    let mut kept = connect(&s).await;
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("write");
    let answered = closed_within_bound(&mut kept).await;
    let answered = answered.expect("the idle keep-alive connection was not closed");
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    assert!(
        closed_within_bound(&mut silent).await.is_some(),
        "a connection that sent nothing was not closed"
    );
}

/// Holds every general slot with a request in flight: score requests
/// paused on the worker pool by the state's hold hook (the pool's turns,
/// then requests queued for a turn). Returns their tasks.
async fn busy_slots(s: &TestServer, n: usize) -> Vec<tokio::task::JoinHandle<String>> {
    s.state.hold_blocking_work();
    let mut tasks = Vec::new();
    for _ in 0..n {
        let mut c = connect(s).await;
        let body = r#"{"answer":"Benign","completion":"{\"label\":\"Benign\",\"confidence\":1}"}"#;
        c.write_all(
            format!(
                "POST /v1/envs/e1/score HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
                 content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .expect("write");
        tasks.push(tokio::spawn(async move {
            closed_within_bound(&mut c).await.unwrap_or_default()
        }));
    }
    let state = s.state.clone();
    let turns = n.min(state.worker_turns());
    assert!(
        crate::common::eventually(|| state.paused_blocking_work() == turns).await,
        "the score requests did not reach the pool"
    );
    tasks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_are_refused_when_all_are_busy() {
    let s = TestServer::start(limits(60, 60, 2)).await;
    // The readiness probe's pooled connection is idle: it gives its slot.
    let busy = busy_slots(&s, 2).await;
    let text = ask(&s, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(text.contains("capacity_exhausted"), "{text}");
    assert!(s.state.connections.refused.load(Ordering::Relaxed) >= 1);
    // A slot freed is a slot served.
    s.state.release_blocking_work();
    for t in busy {
        let answer = t.await.expect("task");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    let text = ask(
        &s,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_slots_answer_when_every_slot_is_busy() {
    let mut config = limits(60, 60, 2);
    config.connections.health_connections = 2;
    let s = TestServer::start(config).await;
    let busy = busy_slots(&s, 2).await;
    for path in ["/healthz", "/readyz", "/metrics"] {
        let text = ask(&s, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n")).await;
        assert!(text.starts_with("HTTP/1.1 200"), "{path}: {text}");
    }
    // Anything else on a health slot is refused.
    let text = ask(&s, "GET /v1/envs HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(text.contains("capacity_exhausted"), "{text}");
    assert!(s.state.connections.health.load(Ordering::Relaxed) >= 4);
    s.state.release_blocking_work();
    for t in busy {
        assert!(t.await.expect("task").starts_with("HTTP/1.1 200"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_half_open_sockets_does_not_starve_health_checks() {
    // Timeouts far away: only eviction at the cap can free the slots.
    let mut config = limits(600, 600, 16);
    config.connections.health_connections = 2;
    let s = TestServer::start(config).await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut flood = Vec::new();
    let mut answered = 0;
    // 40 rounds of 25 half-open sockets (1,000 in all, 25 × the cap)
    // opened, some silent and some with half a head; a health check on a
    // fresh connection after each round.
    for round in 0..40 {
        for i in 0..25 {
            let mut c = TcpStream::connect(&addr).await.expect("connect");
            if i % 2 == 0 {
                let _ = c.write_all(b"GET /healthz HTT").await;
            }
            flood.push(c);
        }
        let text = ask(
            &s,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert!(text.starts_with("HTTP/1.1 200"), "round {round}: {text}");
        answered += 1;
        // Old sockets are dropped as new ones come: at most 200 held.
        if flood.len() > 200 {
            flood.drain(..25);
        }
    }
    assert_eq!(answered, 40);
    assert!(s.state.connections.evicted.load(Ordering::Relaxed) >= 900);
    // Open connections stay near the cap, not the flood's size.
    let open = s.state.connections.open.load(Ordering::Relaxed);
    assert!(open <= 16 + 2 + 25, "{open} open");
}

#[tokio::test]
async fn a_declared_oversized_body_is_refused_before_it_is_read() {
    // A request timeout far away: only the declared length can answer.
    let mut config = limits(600, 600, 64);
    config.request_timeout = Duration::from_secs(600);
    let s = TestServer::start(config).await;
    for path in ["/v1/envs/e1/score", "/v1/envs/e2/episodes", "/nowhere"] {
        let mut c = connect(&s).await;
        c.write_all(
            format!(
                "POST {path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n\
                 content-length: 1000000000\r\n\r\n{{\"answer\":"
            )
            .as_bytes(),
        )
        .await
        .expect("write");
        // The body never comes: the answer must not wait for it.
        let text = closed_within_bound(&mut c)
            .await
            .expect("the connection was held for the body");
        assert!(text.starts_with("HTTP/1.1 413"), "{path}: {text}");
        assert!(text.contains("payload_too_large"), "{text}");
        assert!(text.contains("1000000000"), "{text}");
        assert!(
            text.to_ascii_lowercase().contains("connection: close"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn idle_and_slow_clients_do_not_stretch_shutdown() {
    let mut config = limits(600, 600, 64);
    config.shutdown_grace = Duration::from_secs(600);
    let s = TestServer::start(config).await;
    let _idle = connect(&s).await;
    let mut slow = connect(&s).await;
    slow.write_all(b"POST /v1/envs/e1/score HTTP/1.1\r\nHost: x\r\nContent-Le")
        .await
        .expect("write");
    // Both connections are open on the server before the signal.
    let open = crate::common::eventually(|| {
        s.state
            .connections
            .open
            .load(std::sync::atomic::Ordering::Relaxed)
            >= 2
    })
    .await;
    assert!(open);
    let stopped = tokio::time::timeout(BOUND, s.shutdown()).await;
    assert!(
        matches!(stopped, Ok(Ok(()))),
        "shutdown waited for idle clients"
    );
    assert!(closed_within_bound(&mut slow).await.is_some());
}
