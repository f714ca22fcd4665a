//! Every error code of §6 through the HTTP surface, as JSON bodies: through
//! the router in process, and the body limit over a socket too.

use axum::body::Body;
use axum::http::Request;
use serde_json::json;
use svbench_serve::ServeConfig;

use crate::common::{expect_error, request, Http, TestApp, TestServer, E1_VALID};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_resources_are_404_with_their_codes() {
    let s = TestApp::default();
    expect_error(s.get("/v1/envs/e9").await, 404, "unknown_env");
    expect_error(
        s.post(
            "/v1/envs/e9/score",
            &json!({"answer": "Benign", "completion": "x"}),
        )
        .await,
        404,
        "unknown_env",
    );
    expect_error(
        s.get("/v1/envs/e1/splits/nope/rows").await,
        404,
        "unknown_split",
    );
    expect_error(
        s.get("/v1/envs/e1/splits/test/rows/100000").await,
        404,
        "unknown_example",
    );
    expect_error(
        s.post(
            "/v1/envs/e1/score",
            &json!({"example_id": "no-such-id", "completion": E1_VALID}),
        )
        .await,
        404,
        "unknown_example",
    );
    expect_error(
        s.post("/v1/envs/e1/episodes", &json!({"example_id": "no-such-id"}))
            .await,
        404,
        "unknown_example",
    );
    expect_error(
        s.post(
            "/v1/envs/e2/episodes",
            &json!({"index": 0, "split": "nope"}),
        )
        .await,
        404,
        "unknown_split",
    );
    for r in [
        s.get("/v1/episodes/ep_nope").await,
        s.delete("/v1/episodes/ep_nope").await,
        s.post(
            "/v1/episodes/ep_nope/step",
            &json!({"message": {"role": "assistant", "content": "x"}}),
        )
        .await,
    ] {
        expect_error(r, 404, "episode_not_found");
    }
    // Routing errors are JSON too.
    expect_error(s.get("/v2/nothing").await, 404, "not_found");
    expect_error(
        s.send(request("PUT", "/v1/envs")).await,
        405,
        "method_not_allowed",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_400_naming_the_problem() {
    let s = TestApp::default();
    let raw = |content_type: &str, body: &'static str| {
        s.send(
            Request::post("/v1/envs/e1/score")
                .header("content-type", content_type)
                .body(Body::from(body))
                .expect("request"),
        )
    };
    let b = expect_error(
        raw("application/json", "{not json").await,
        400,
        "bad_request",
    );
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid JSON body"),
        "{b}"
    );
    let b = expect_error(
        s.post(
            "/v1/envs/e1/score",
            &json!({"answer": "Benign", "completion": "x", "bogus": 1}),
        )
        .await,
        400,
        "bad_request",
    );
    assert!(
        b["error"]["message"].as_str().unwrap().contains("bogus"),
        "{b}"
    );
    let b = expect_error(
        s.post("/v1/envs/e1/score", &json!({"answer": "Benign"}))
            .await,
        400,
        "bad_request",
    );
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .contains("completion"),
        "{b}"
    );
    expect_error(
        s.post(
            "/v1/envs/e1/score",
            &json!({"answer": "Benign", "completion": 5}),
        )
        .await,
        400,
        "bad_request",
    );
    // Neither example_id nor answer.
    expect_error(
        s.post("/v1/envs/e1/score", &json!({"completion": "x"}))
            .await,
        400,
        "bad_request",
    );
    expect_error(raw("text/plain", "{}").await, 400, "bad_request");
    expect_error(
        s.get("/v1/envs/e1/splits/test/rows?limit=1001").await,
        400,
        "bad_request",
    );
    expect_error(
        s.get("/v1/envs/e1/splits/test/rows?limit=ten").await,
        400,
        "bad_request",
    );
    expect_error(
        s.get("/v1/envs/e1/splits/test/rows?colour=red").await,
        400,
        "bad_request",
    );
    expect_error(
        s.get("/v1/envs/e1/splits/test/rows/minus-one").await,
        400,
        "bad_request",
    );
    expect_error(
        s.post(
            "/v1/envs/e1/score_batch",
            &json!({"items": [], "advantage": {"mode": "ppo", "group_size": 1}}),
        )
        .await,
        400,
        "bad_request",
    );
    expect_error(
        s.post("/v1/envs/e1/episodes", &json!({})).await,
        400,
        "bad_request",
    );
    expect_error(
        s.post("/v1/envs/e1/episodes", &json!({"index": 0, "seed": 3}))
            .await,
        400,
        "bad_request",
    );
    let id = s.reset("e1", &json!({"index": 0})).await;
    expect_error(
        s.post(
            &format!("/v1/episodes/{id}/step"),
            &json!({"message": {"role": "user", "content": "x"}}),
        )
        .await,
        400,
        "bad_request",
    );
    expect_error(
        s.post(&format!("/v1/episodes/{id}/step"), &json!({"msg": {}}))
            .await,
        400,
        "bad_request",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_env_args_are_400() {
    let s = TestApp::default();
    expect_error(
        s.post(
            "/v1/envs/e1/score",
            &json!({"answer": "Benign", "completion": "x", "env_args": {"lang": "k8s"}}),
        )
        .await,
        400,
        "invalid_env_args",
    );
    expect_error(
        s.post(
            "/v1/envs/e1/score",
            &json!({"answer": "Benign", "completion": "x", "reward_profile": "v9"}),
        )
        .await,
        400,
        "invalid_env_args",
    );
    expect_error(
        s.post(
            "/v1/envs/e2/episodes",
            &json!({"index": 0, "env_args": {"nope": true}}),
        )
        .await,
        400,
        "invalid_env_args",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_are_413() {
    let s = TestServer::start(ServeConfig {
        max_body: 1024,
        ..ServeConfig::default()
    })
    .await;
    let big = "x".repeat(4096);
    expect_error(
        s.post(
            "/v1/envs/e1/score",
            &json!({"answer": "Benign", "completion": big}),
        )
        .await,
        413,
        "payload_too_large",
    );
    // Without a Content-Length (chunked), the limit still holds.
    let mut req = String::from(
        "POST /v1/envs/e1/score HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
    );
    for _ in 0..8 {
        req.push_str(&format!("200\r\n{}\r\n", " ".repeat(512)));
    }
    req.push_str("0\r\n\r\n");
    let answer = crate::common::raw_request(&s.base, req.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"payload_too_large\""), "{answer}");
    // Under the limit: fine.
    let r = s
        .post(
            "/v1/envs/e1/score",
            &json!({"answer": "Benign", "completion": E1_VALID}),
        )
        .await;
    assert_eq!(r.status(), 200);
}

/// `GET /v1/envs` with a bearer token.
fn bearer(token: &str) -> Request<Body> {
    Request::get("/v1/envs")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::empty())
        .expect("request")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_token_guards_all_but_health() {
    let s = TestApp::start(ServeConfig {
        auth_token: Some("s3cret".into()),
        ..ServeConfig::default()
    });
    assert_eq!(s.get("/healthz").await.status(), 200);
    assert_eq!(s.get("/readyz").await.status(), 200);
    let r = s.get("/v1/envs").await;
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    expect_error(r, 401, "unauthorized");
    expect_error(s.get("/metrics").await, 401, "unauthorized");
    expect_error(s.send(bearer("wrong")).await, 401, "unauthorized");
    let r = s.send(bearer("s3cret")).await;
    assert_eq!(r.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_requests_time_out_with_504() {
    let s = TestApp::start(ServeConfig {
        request_timeout: std::time::Duration::from_millis(300),
        ..ServeConfig::default()
    });
    let id = s.reset("e1", &json!({"index": 0})).await;
    // Held steps never finish on their own: the timeout must answer.
    s.state.hold_episode_work();
    let r = s
        .post(
            &format!("/v1/episodes/{id}/step"),
            &json!({"message": {"role": "assistant", "content": E1_VALID}}),
        )
        .await;
    expect_error(r, 504, "timeout");
    s.state.release_episode_work();
    // The timed-out step released its lock: the episode steps normally.
    let r = s
        .post(
            &format!("/v1/episodes/{id}/step"),
            &json!({"message": {"role": "assistant", "content": E1_VALID}}),
        )
        .await;
    assert_eq!(r.status(), 200);
}
