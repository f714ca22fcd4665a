//! Request recording, counts, peak concurrency and shutdown.

mod common;

use std::net::TcpListener;
use std::time::Duration;

use common::{chat, post, post_chat, Outcome};
use svbench_fakeai::{FakeServer, Script, Step};

#[test]
fn records_headers_body_path_and_order() {
    let server = FakeServer::start(Script::always(Step::content("ok")));
    post(
        server.addr(),
        "/v1/chat/completions",
        &[
            ("Authorization", "Bearer sk-test-123"),
            ("X-Title", "svbench"),
        ],
        &chat("gpt-4o-mini", "first"),
    )
    .response();
    post(
        server.addr(),
        "/chat/completions",
        &[],
        &chat("o3", "second"),
    )
    .response();

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].index, 0);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-test-123"));
    assert_eq!(reqs[0].header("X-TITLE"), Some("svbench"));
    assert_eq!(reqs[0].model(), Some("gpt-4o-mini"));
    assert_eq!(reqs[0].last_user_text().as_deref(), Some("first"));
    assert_eq!(reqs[0].messages().len(), 2);
    assert_eq!(reqs[1].index, 1);
    assert_eq!(reqs[1].path, "/chat/completions");
    assert_eq!(reqs[1].header("authorization"), None);
    assert_eq!(reqs[1].body["model"], "o3");
    assert!(reqs[1].received_at >= reqs[0].received_at);
}

#[test]
fn recording_off_still_counts() {
    let server = FakeServer::start(Script::always(Step::content("ok")).record_requests(false));
    for _ in 0..3 {
        post_chat(server.addr(), &chat("m", "x")).response();
    }
    assert!(server.requests().is_empty());
    assert_eq!(server.request_count(), 3);
    assert_eq!(server.peak_concurrency(), 1);
}

#[test]
fn peak_concurrency_counts_requests_in_flight() {
    let server = FakeServer::start(Script::always(Step::delay(
        Duration::from_millis(800),
        Step::content("ok"),
    )));
    let addr = server.addr();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                s.spawn(move || {
                    post_chat(addr, &chat("m", &format!("q{i}")))
                        .response()
                        .status
                })
            })
            .collect();
        wait_until(|| server.in_flight() > 0);
        for h in handles {
            assert_eq!(h.join().expect("client thread"), 200);
        }
    });
    assert_eq!(server.peak_concurrency(), 8);
    assert_eq!(server.in_flight(), 0);
    assert_eq!(server.request_count(), 8);

    server.clear();
    assert_eq!(server.peak_concurrency(), 0);
    assert_eq!(server.request_count(), 0);
    assert!(server.requests().is_empty());
}

#[test]
fn requests_are_recorded_on_arrival_not_on_answer() {
    let server = FakeServer::start(Script::always(Step::delay(
        Duration::from_secs(2),
        Step::content("ok"),
    )));
    let addr = server.addr();
    let client = std::thread::spawn(move || post_chat(addr, &chat("m", "slow")).response().status);
    wait_until(|| server.requests().len() == 1);
    assert_eq!(server.in_flight(), 1, "recorded while still being answered");
    assert_eq!(client.join().expect("client"), 200);
}

#[test]
fn shutdown_frees_the_port_and_cuts_in_flight_requests() {
    let server = FakeServer::start(Script::always(Step::delay(
        Duration::from_secs(60),
        Step::content("never"),
    )));
    let addr = server.addr();
    let client = std::thread::spawn(move || post_chat(addr, &chat("m", "x")));
    wait_until(|| server.in_flight() == 1);
    let started = std::time::Instant::now();
    server.shutdown();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "shutdown is prompt"
    );
    assert!(matches!(
        client.join().expect("client"),
        Outcome::Closed | Outcome::Reset
    ));
    TcpListener::bind(addr).expect("the port is free again");
}

#[test]
fn drop_frees_the_port() {
    let server = FakeServer::start(Script::always(Step::content("ok")));
    let addr = server.addr();
    post_chat(addr, &chat("m", "x")).response();
    drop(server);
    TcpListener::bind(addr).expect("the port is free again");
}

#[test]
fn base_url_points_at_v1() {
    let server = FakeServer::start(Script::new());
    assert_eq!(
        server.base_url(),
        format!("http://127.0.0.1:{}/v1", server.addr().port())
    );
}

/// Polls `cond` every few milliseconds; fails the test after 10 s.
fn wait_until(cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "condition not reached in 10 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}
