//! The server driven by an async client (reqwest, as the runner uses), on a
//! dedicated thread and on the caller's runtime with a paused clock.

use std::time::Duration;

use serde_json::{json, Value};
use svbench_fakeai::{FakeServer, Script, Step};

fn chat(model: &str, user: &str) -> String {
    json!({"model": model, "messages": [{"role": "user", "content": user}]}).to_string()
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("reqwest client")
}

async fn send(
    client: &reqwest::Client,
    server: &FakeServer,
    body: String,
) -> reqwest::Result<reqwest::Response> {
    client
        .post(format!("{}/chat/completions", server.base_url()))
        .header("content-type", "application/json")
        .bearer_auth("sk-fake")
        .body(body)
        .send()
        .await
}

async fn content(client: &reqwest::Client, server: &FakeServer, body: String) -> String {
    let resp = send(client, server, body).await.expect("request succeeds");
    assert_eq!(resp.status(), 200);
    let v: Value = serde_json::from_str(&resp.text().await.expect("body")).expect("JSON body");
    v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn dedicated_server_from_an_async_test() {
    let server = FakeServer::start(Script::always(Step::content("hello")));
    let c = client();
    assert_eq!(content(&c, &server, chat("m", "x")).await, "hello");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-fake")
    );
    // Dropping inside an async test joins the server thread without deadlock.
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_connections_are_reused_under_concurrency() {
    let server = FakeServer::start(
        Script::always(Step::delay(Duration::from_millis(200), Step::content("ok")))
            .record_requests(false),
    );
    let c = client();
    let mut tasks = Vec::new();
    for round in 0..2 {
        for i in 0..16 {
            let c = c.clone();
            let url = format!("{}/chat/completions", server.base_url());
            tasks.push(tokio::spawn(async move {
                c.post(url)
                    .body(chat("m", &format!("{round}-{i}")))
                    .send()
                    .await
                    .map(|r| r.status())
            }));
        }
        for t in tasks.drain(..) {
            assert_eq!(t.await.expect("task").expect("request"), 200);
        }
    }
    assert_eq!(server.request_count(), 32);
    assert_eq!(server.peak_concurrency(), 16);
    assert!(
        server.connection_count() <= 16,
        "second round reused the first round's connections"
    );
}

#[tokio::test]
async fn broken_connections_are_client_errors() {
    let c = client();
    for step in [Step::DropConnection, Step::ResetConnection] {
        let server = FakeServer::start(Script::always(step.clone()));
        let err = send(&c, &server, chat("m", "x"))
            .await
            .expect_err("no response");
        assert!(!err.is_timeout() && !err.is_status(), "{step:?}: {err:?}");
    }

    let server = FakeServer::start(Script::always(Step::IncompleteBody));
    let resp = send(&c, &server, chat("m", "x"))
        .await
        .expect("headers arrive");
    assert_eq!(resp.status(), 200);
    assert!(resp.text().await.is_err(), "the body read fails");

    let server = FakeServer::start(Script::always(Step::Truncated));
    let text = send(&c, &server, chat("m", "x"))
        .await
        .expect("response")
        .text()
        .await
        .expect("body");
    assert!(serde_json::from_str::<Value>(&text).is_err());

    // The client recovers on a fresh connection afterwards.
    let server = FakeServer::start(Script::sequence([
        Step::DropConnection,
        Step::content("back"),
    ]));
    assert!(send(&c, &server, chat("m", "x")).await.is_err());
    assert_eq!(content(&c, &server, chat("m", "x")).await, "back");
}

#[tokio::test(start_paused = true)]
async fn paused_clock_delay_beats_the_client_timeout() {
    let server = FakeServer::start_on_current_runtime(Script::always(Step::delay(
        Duration::from_secs(300),
        Step::content("too late"),
    )));
    let c = client();
    let start = tokio::time::Instant::now();
    let real = std::time::Instant::now();
    let err = send(&c, &server, chat("m", "x"))
        .await
        .expect_err("times out");
    assert!(err.is_timeout(), "{err:?}");
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_secs(120) && waited < Duration::from_secs(300),
        "{waited:?}"
    );
    assert!(
        real.elapsed() < Duration::from_secs(10),
        "virtual time, not real time"
    );
}

#[tokio::test(start_paused = true)]
async fn paused_clock_retry_after_gap_is_recorded_in_virtual_time() {
    let server = FakeServer::start_on_current_runtime(Script::sequence([
        Step::rate_limited("7"),
        Step::content("ok"),
    ]));
    let c = client();
    let resp = send(&c, &server, chat("m", "x"))
        .await
        .expect("429 response");
    assert_eq!(resp.status(), 429);
    let wait: u64 = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After seconds");
    tokio::time::sleep(Duration::from_secs(wait)).await;
    assert_eq!(content(&c, &server, chat("m", "x")).await, "ok");

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let gap = reqs[1].received_at - reqs[0].received_at;
    assert!(
        gap >= Duration::from_secs(7) && gap < Duration::from_secs(8),
        "{gap:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn paused_clock_many_quick_requests_do_not_trip_timeouts() {
    // A same-runtime server answers before the paused clock can jump to the
    // client's timeout, request after request.
    let server = FakeServer::start_on_current_runtime(Script::always(Step::content("ok")));
    let c = client();
    let start = tokio::time::Instant::now();
    for i in 0..50 {
        assert_eq!(content(&c, &server, chat("m", &i.to_string())).await, "ok");
    }
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "no timeout fired: {:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn current_runtime_server_shuts_down() {
    let server = FakeServer::start_on_current_runtime(Script::always(Step::content("ok")));
    let addr = server.addr();
    let c = client();
    assert_eq!(content(&c, &server, chat("m", "x")).await, "ok");
    server.shutdown();
    // The listener closes once the runtime polls the server task again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        tokio::task::yield_now().await;
        if std::net::TcpListener::bind(addr).is_ok() {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "port still bound");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
