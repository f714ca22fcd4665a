//! Episode lifecycle under pressure: TTL expiry, the capacity cap, busy and
//! finished episodes, clients that go away, and draining at shutdown.
//! Slow requests are made deterministic with the state's hold hook, never
//! with timing. Through the router in process, but for the background
//! sweeper, clients that disconnect and shutdown, which need a server.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use svbench_serve::{AppState, ServeConfig};

use crate::common::{
    eventually, expect_error, post_json, Http, Reply, TestApp, TestServer, E1_VALID, POLLS,
    POLL_EVERY,
};

fn final_e1() -> Value {
    json!({"message": {"role": "assistant", "content": E1_VALID}})
}

fn tool_call() -> Value {
    json!({"message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}]}})
}

fn final_e2() -> Value {
    json!({"message": {"role": "assistant",
        "content": "{\"violations\": [], \"patch\": \"\", \"confidence\": 0.5}"}})
}

fn quick_ttl() -> ServeConfig {
    ServeConfig {
        episode_ttl: Duration::from_secs(1),
        sweep_interval: Duration::from_millis(100),
        ..ServeConfig::default()
    }
}

/// Waits until `n` requests are paused by the hold hook.
async fn paused(state: &Arc<AppState>, n: usize) {
    let state = Arc::clone(state);
    assert!(
        eventually(|| state.paused_episode_work() == n).await,
        "{n} paused requests expected"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_episodes_expire_with_410() {
    let s = TestServer::start(quick_ttl()).await;
    let id = s.reset("e1", &json!({"index": 0})).await;
    let state = s.state.clone();
    assert!(eventually(|| state.episodes.live() == 0).await, "not swept");
    expect_error(
        s.post(&format!("/v1/episodes/{id}/step"), &final_e1())
            .await,
        410,
        "episode_expired",
    );
    expect_error(
        s.get(&format!("/v1/episodes/{id}")).await,
        410,
        "episode_expired",
    );
    expect_error(
        s.delete(&format!("/v1/episodes/{id}")).await,
        410,
        "episode_expired",
    );
    let text = s.get("/metrics").await.text();
    assert!(
        text.contains("svbench_episode_evictions_total{reason=\"ttl\"} 1"),
        "{text}"
    );
    assert!(text.contains("outcome=\"expired\"} 1"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expiry_is_seen_before_the_sweeper_runs() {
    // In process there is no sweeper: expiry is seen on access alone.
    let s = TestApp::start(ServeConfig {
        episode_ttl: Duration::from_secs(1),
        ..ServeConfig::default()
    });
    let id = s.reset("e1", &json!({"index": 0})).await;
    let mut status = 0;
    for _ in 0..POLLS {
        status = s.get(&format!("/v1/episodes/{id}")).await.status().as_u16();
        if status != 200 {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    assert_eq!(status, 410);
    expect_error(
        s.post(&format!("/v1/episodes/{id}/step"), &final_e1())
            .await,
        410,
        "episode_expired",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_answers_503_with_retry_after() {
    let s = TestApp::start(ServeConfig {
        max_episodes: 2,
        ..ServeConfig::default()
    });
    let a = s.reset("e1", &json!({"index": 0})).await;
    s.reset("e1", &json!({"index": 1})).await;
    let r = s.post("/v1/envs/e1/episodes", &json!({"index": 2})).await;
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
    expect_error(r, 503, "capacity_exhausted");
    assert_eq!(s.state.episodes.live(), 2);
    assert_eq!(s.delete(&format!("/v1/episodes/{a}")).await.status(), 204);
    s.reset("e1", &json!({"index": 2})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_steps_get_409_busy() {
    let s = TestApp::default();
    let id = s.reset("e2", &json!({"index": 0})).await;
    s.state.hold_episode_work();
    let first = {
        let app = s.clone();
        let step = post_json(&format!("/v1/episodes/{id}/step"), &tool_call());
        tokio::spawn(async move { app.send(step).await })
    };
    paused(&s.state, 1).await;
    expect_error(
        s.post(&format!("/v1/episodes/{id}/step"), &final_e2())
            .await,
        409,
        "episode_busy",
    );
    s.state.release_episode_work();
    let r = first.await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json();
    assert_eq!(v["turn"], 1);
    assert_eq!(v["done"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steps_after_the_end_get_409_done() {
    let s = TestApp::default();
    let id = s.reset("e1", &json!({"index": 0})).await;
    assert_eq!(
        s.post(&format!("/v1/episodes/{id}/step"), &final_e1())
            .await
            .status(),
        200
    );
    expect_error(
        s.post(&format!("/v1/episodes/{id}/step"), &final_e1())
            .await,
        409,
        "episode_done",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_limit_with_pending_calls_truncates() {
    let s = TestApp::default();
    let id = s.reset("e2", &json!({"index": 0, "max_turns": 1})).await;
    let v: Value = s
        .post(&format!("/v1/episodes/{id}/step"), &tool_call())
        .await
        .json();
    assert_eq!(v["done"], true);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["reward"]["parse"]["status"], "no_answer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_go_away_leak_neither_episodes_nor_locks() {
    let s = TestServer::start(quick_ttl()).await;
    let id = s.reset("e2", &json!({"index": 0})).await;

    // A step whose client disconnects while it is paused.
    s.state.hold_episode_work();
    let step = {
        let (client, url) = (s.client.clone(), s.url(&format!("/v1/episodes/{id}/step")));
        tokio::spawn(async move { client.post(url).json(&tool_call()).send().await })
    };
    paused(&s.state, 1).await;
    step.abort();
    let _ = step.await;
    s.state.release_episode_work();
    // The lock comes back: the episode takes its final answer.
    let mut status = 0;
    for _ in 0..POLLS {
        status = s
            .post(&format!("/v1/episodes/{id}/step"), &final_e2())
            .await
            .status()
            .as_u16();
        if status != 409 {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    assert_eq!(status, 200);
    assert_eq!(s.state.episodes.live(), 1);

    // A reset whose client disconnects before the answer.
    s.state.hold_episode_work();
    let reset = {
        let (client, url) = (s.client.clone(), s.url("/v1/envs/e2/episodes"));
        tokio::spawn(async move { client.post(url).json(&json!({"index": 1})).send().await })
    };
    paused(&s.state, 1).await;
    reset.abort();
    let _ = reset.await;
    s.state.release_episode_work();
    // Whatever was created is evicted by its TTL like any idle episode.
    let state = s.state.clone();
    assert!(
        eventually(|| state.episodes.live() == 0).await,
        "episodes leaked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_in_flight_requests_then_exits() {
    let mut s = TestServer::default().await;
    let id = s.reset("e1", &json!({"index": 0})).await;
    s.state.hold_episode_work();
    let step = {
        let (client, url) = (s.client.clone(), s.url(&format!("/v1/episodes/{id}/step")));
        tokio::spawn(async move { client.post(url).json(&final_e1()).send().await })
    };
    paused(&s.state, 1).await;
    s.signal_shutdown();
    // Stopped accepting: new connections are refused.
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut refused = false;
    for _ in 0..POLLS {
        if tokio::net::TcpStream::connect(&addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    assert!(refused, "still accepting after the shutdown signal");
    s.state.release_episode_work();
    let r = Reply::of_socket(step.await.unwrap().unwrap()).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json();
    assert_eq!(v["done"], true);
    let state = s.state.clone();
    s.shutdown().await.expect("clean exit");
    assert_eq!(state.episodes.live(), 0, "episodes dropped at exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_gives_up_on_stragglers_after_the_grace() {
    let s = TestServer::start(ServeConfig {
        shutdown_grace: Duration::from_millis(200),
        ..ServeConfig::default()
    })
    .await;
    let id = s.reset("e1", &json!({"index": 0})).await;
    s.state.hold_episode_work();
    let step = {
        let (client, url) = (s.client.clone(), s.url(&format!("/v1/episodes/{id}/step")));
        tokio::spawn(async move { client.post(url).json(&final_e1()).send().await })
    };
    paused(&s.state, 1).await;
    let state = s.state.clone();
    s.shutdown().await.expect("exits after the grace");
    // `run` returned although a request is still held: the process exits.
    state.release_episode_work();
    drop(step);
}
