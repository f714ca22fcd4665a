//! Slow, idle and excess connections (issue 13 item 6), on loopback. Waits
//! are bounded correctness checks with wide margins, not timings: each
//! limit is 1 s and a connection must be closed within 30 s.

use std::time::Duration;

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
        },
        ..ServeConfig::default()
    }
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

#[tokio::test]
async fn connections_beyond_the_cap_are_refused() {
    let s = TestServer::start(limits(60, 60, 2)).await;
    // The readiness probe's pooled connection may still be open: keep
    // opening idle connections until one is refused.
    let mut held = Vec::new();
    let mut refused = None;
    for _ in 0..4 {
        let mut c = connect(&s).await;
        c.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("write");
        let mut buf = vec![0u8; 4096];
        let n = tokio::time::timeout(BOUND, c.read(&mut buf))
            .await
            .expect("an answer")
            .unwrap_or(0);
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        if text.starts_with("HTTP/1.1 503") {
            refused = Some((c, text));
            break;
        }
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        held.push(c);
    }
    let (mut c, text) = refused.expect("no connection was refused at the cap");
    assert!(text.contains("capacity_exhausted"), "{text}");
    assert!(held.len() <= 2, "{} connections held", held.len());
    assert!(closed_within_bound(&mut c).await.is_some());
    assert!(
        s.state
            .connections
            .refused
            .load(std::sync::atomic::Ordering::Relaxed)
            >= 1
    );
    // A slot freed is a slot served.
    drop(held);
    let mut served = false;
    for _ in 0..crate::common::POLLS {
        let mut c = connect(&s).await;
        c.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .expect("write");
        if closed_within_bound(&mut c)
            .await
            .is_some_and(|t| t.starts_with("HTTP/1.1 200"))
        {
            served = true;
            break;
        }
        tokio::time::sleep(crate::common::POLL_EVERY).await;
    }
    assert!(served, "closed connections did not free their slots");
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
