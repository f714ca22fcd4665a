//! Scoring never blocks the server (issue 13 item 5): every score, row and
//! episode step runs on the bounded worker pool, and health checks and
//! metrics answer while it is saturated. The pool is held full with the
//! state's hook, deterministically, never with timing.

use serde_json::json;
use svbench_serve::ServeConfig;

use crate::common::{eventually, Http, TestServer, E1_VALID};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_while_the_worker_pool_is_saturated() {
    let s = TestServer::start(ServeConfig::default()).await;
    let e4 = s.rows("e4", 1).await.remove(0);
    let turns = s.state.worker_turns();
    s.state.hold_blocking_work();
    // Twice as many jobs as the pool has turns, of every kind that used to
    // run on the async threads too (E1 and E4 scores, a row).
    let mut jobs = Vec::new();
    for i in 0..2 * turns {
        let (path, body) = match i % 3 {
            0 => (
                "/v1/envs/e1/score".to_string(),
                Some(json!({"answer": "Benign", "completion": E1_VALID})),
            ),
            1 => (
                "/v1/envs/e4/score".to_string(),
                Some(json!({"example_id": e4["example_id"], "completion": "{}"})),
            ),
            _ => ("/v1/envs/e2/splits/test/rows/0".to_string(), None),
        };
        let (client, url) = (s.client.clone(), s.url(&path));
        jobs.push(tokio::spawn(async move {
            match body {
                Some(b) => client.post(url).json(&b).send().await,
                None => client.get(url).send().await,
            }
            .map(|r| r.status().as_u16())
        }));
    }
    let state = s.state.clone();
    assert!(
        eventually(|| state.paused_blocking_work() == turns).await,
        "the pool did not fill"
    );
    for _ in 0..20 {
        assert_eq!(s.get("/healthz").await.status(), 200);
        assert_eq!(s.get("/readyz").await.status(), 200);
        assert_eq!(s.get("/metrics").await.status(), 200);
    }
    // Still held: nothing got past the pool meanwhile.
    assert_eq!(s.state.paused_blocking_work(), turns);
    s.state.release_blocking_work();
    for j in jobs {
        assert_eq!(j.await.unwrap().unwrap(), 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_request_keeps_its_turn_until_its_work_ends() {
    let s = crate::common::TestApp::start(ServeConfig {
        request_timeout: std::time::Duration::from_millis(300),
        ..ServeConfig::default()
    });
    let turns = s.state.worker_turns();
    s.state.hold_blocking_work();
    let score = json!({"answer": "Benign", "completion": E1_VALID});
    // Every turn taken by a job that outlives its request (504).
    let mut first = Vec::new();
    for _ in 0..turns {
        let app = s.clone();
        let body = score.clone();
        first.push(tokio::spawn(async move {
            app.post("/v1/envs/e1/score", &body).await.status().as_u16()
        }));
    }
    for t in first {
        assert_eq!(t.await.unwrap(), 504);
    }
    assert_eq!(s.state.paused_blocking_work(), turns);
    // More requests, also timing out: none gets a turn while the first
    // jobs still run, so no more than `turns` jobs ever run at once.
    for _ in 0..2 * turns {
        assert_eq!(s.post("/v1/envs/e1/score", &score).await.status(), 504);
        assert_eq!(s.state.paused_blocking_work(), turns);
    }
    s.state.release_blocking_work();
    let state = s.state.clone();
    assert!(eventually(|| state.paused_blocking_work() == 0).await);
    assert_eq!(s.post("/v1/envs/e1/score", &score).await.status(), 200);
}
