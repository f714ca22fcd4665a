//! What a client may ask of episodes and what they may hold (issue 13 item
//! 2), built by multiplying units: many steps on one episode, many
//! episodes, reset budgets far over the limits. Through the router in
//! process; no timing.

use std::time::Duration;

use serde_json::{json, Value};
use svbench_serve::{EpisodeLimits, ServeConfig};

use crate::common::{expect_error, Http, TestApp, E1_VALID};

fn with_limits(limits: EpisodeLimits) -> ServeConfig {
    ServeConfig {
        episodes: limits,
        ..ServeConfig::default()
    }
}

/// An E2 tool call carrying `pad` bytes of content.
fn padded_call(pad: usize) -> Value {
    json!({"message": {"role": "assistant", "content": "p".repeat(pad), "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}]}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_budgets_over_the_limits_are_refused() {
    let s = TestApp::default();
    let limits = EpisodeLimits::default();
    for (field, flag, limit) in [
        ("max_turns", "--max-turns-limit", limits.max_turns),
        ("tool_budget", "--tool-budget-limit", limits.tool_budget),
    ] {
        for asked in [u64::from(limit) + 1, 1_000_000_000, u64::from(u32::MAX)] {
            let body = expect_error(
                s.post("/v1/envs/e2/episodes", &json!({"index": 0, field: asked}))
                    .await,
                400,
                "bad_request",
            );
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains(flag), "{message}");
            assert!(message.contains(&limit.to_string()), "{message}");
            assert_eq!(body["error"]["details"]["limit"], limit);
        }
        // At the limit is fine.
        s.reset("e2", &json!({"index": 0, field: limit})).await;
    }
    assert_eq!(s.state.episodes.live(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_steps_stop_at_the_episode_byte_limit() {
    let limits = EpisodeLimits {
        max_turns: 1000,
        tool_budget: 1000,
        max_message_bytes: 64 << 10,
        max_episode_bytes: 1 << 20,
        ..EpisodeLimits::default()
    };
    let s = TestApp::start(with_limits(limits));
    let id = s
        .reset(
            "e2",
            &json!({"index": 0, "max_turns": 1000, "tool_budget": 1000}),
        )
        .await;
    let step = format!("/v1/episodes/{id}/step");
    // Up to 1,000 steps of 32 KiB: a 1 MiB budget takes about 30.
    let mut accepted = 0;
    let mut refusal = None;
    for _ in 0..1000 {
        let r = s.post(&step, &padded_call(32 << 10)).await;
        if r.status() != 200 {
            refusal = Some(r);
            break;
        }
        accepted += 1;
        assert!(s.state.episodes.total_bytes() <= limits.max_episode_bytes);
    }
    let body = expect_error(
        refusal.expect("refused at the limit"),
        413,
        "episode_too_large",
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-episode-bytes"), "{message}");
    assert!((20..40).contains(&accepted), "{accepted} steps");
    // The refused step left the episode as it was: same turn.
    let v: Value = s.get(&format!("/v1/episodes/{id}")).await.json();
    assert_eq!(v["turn"], accepted);
    // A message over the per-step limit is refused whatever room is left.
    let other = s.reset("e2", &json!({"index": 1})).await;
    expect_error(
        s.post(
            &format!("/v1/episodes/{other}/step"),
            &padded_call(65 << 10),
        )
        .await,
        413,
        "payload_too_large",
    );
    // Deleting gives the bytes back.
    let before = s.state.episodes.total_bytes();
    assert_eq!(s.delete(&format!("/v1/episodes/{id}")).await.status(), 204);
    assert!(s.state.episodes.total_bytes() < before - (512 << 10));
}

/// Bytes one fresh E1 episode holds.
async fn e1_episode_bytes() -> usize {
    let s = TestApp::default();
    s.reset("e1", &json!({"index": 0})).await;
    s.state.episodes.total_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_episodes_stop_at_the_total_byte_limit() {
    let one = e1_episode_bytes().await;
    let limits = EpisodeLimits {
        max_episode_bytes: 4 * one,
        max_total_bytes: 10 * one,
        // Nothing idles long enough to be evicted.
        evict_idle_after: Duration::from_secs(3600),
        ..EpisodeLimits::default()
    };
    let s = TestApp::start(with_limits(limits));
    let mut ids = Vec::new();
    let mut refusal = None;
    for i in 0..1000 {
        let r = s
            .post("/v1/envs/e1/episodes", &json!({"index": i % 50}))
            .await;
        if r.status() != 201 {
            refusal = Some(r);
            break;
        }
        ids.push(
            r.json::<Value>()["episode_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        assert!(s.state.episodes.total_bytes() <= limits.max_total_bytes);
    }
    let r = refusal.expect("refused at the total");
    assert_eq!(r.headers()["retry-after"], "1");
    let body = expect_error(r, 503, "capacity_exhausted");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-total-episode-bytes"), "{message}");
    // Resets stop at 7/8 of the total: the rest is for steps.
    assert!((7..=9).contains(&ids.len()), "{} episodes", ids.len());
    // An ended episode makes room: it is evicted for the next reset, and a
    // late look at it says why.
    let first = &ids[0];
    let done: Value = s
        .post(
            &format!("/v1/episodes/{first}/step"),
            &json!({"message": {"role": "assistant", "content": E1_VALID}}),
        )
        .await
        .json();
    assert_eq!(done["done"], true);
    s.reset("e1", &json!({"index": 0})).await;
    let body = expect_error(
        s.get(&format!("/v1/episodes/{first}")).await,
        410,
        "episode_expired",
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("evicted"));
    let text = s.get("/metrics").await.text();
    assert!(
        text.contains("svbench_episode_evictions_total{reason=\"memory\"} 1"),
        "{text}"
    );
    assert!(text.contains("svbench_episode_bytes "), "{text}");
    assert!(s.state.episodes.total_bytes() <= limits.max_total_bytes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_episodes_are_evicted_least_recently_used_first() {
    let one = e1_episode_bytes().await;
    let limits = EpisodeLimits {
        max_episode_bytes: 2 * one,
        max_total_bytes: 5 * one,
        // Every episode is idle enough at once.
        evict_idle_after: Duration::ZERO,
        ..EpisodeLimits::default()
    };
    let s = TestApp::start(with_limits(limits));
    // 200 resets into room for about five: each evicts the oldest.
    let mut ids = Vec::new();
    for i in 0..200 {
        ids.push(s.reset("e1", &json!({"index": i % 50})).await);
        assert!(s.state.episodes.total_bytes() <= limits.max_total_bytes);
    }
    let live = s.state.episodes.live();
    assert!((3..=5).contains(&live), "{live} live");
    // The newest are the ones kept.
    for id in &ids[ids.len() - live..] {
        assert_eq!(s.get(&format!("/v1/episodes/{id}")).await.status(), 200);
    }
    expect_error(
        s.get(&format!("/v1/episodes/{}", ids[0])).await,
        410,
        "episode_expired",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_that_does_not_fit_in_the_total_is_a_503() {
    let one = e1_episode_bytes().await;
    let limits = EpisodeLimits {
        max_episode_bytes: 64 * one,
        max_total_bytes: 3 * one,
        evict_idle_after: Duration::from_secs(3600),
        ..EpisodeLimits::default()
    };
    let s = TestApp::start(with_limits(limits));
    let a = s.reset("e1", &json!({"index": 0})).await;
    s.reset("e1", &json!({"index": 1})).await;
    // Within its own budget, over what the server has left.
    let big = json!({"message": {"role": "assistant", "content": "x".repeat(2 * one)}});
    let body = expect_error(
        s.post(&format!("/v1/episodes/{a}/step"), &big).await,
        503,
        "capacity_exhausted",
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--max-total-episode-bytes"));
    assert!(s.state.episodes.total_bytes() <= limits.max_total_bytes);
    // The episode is unharmed and takes a normal answer.
    let v: Value = s
        .post(
            &format!("/v1/episodes/{a}/step"),
            &json!({"message": {"role": "assistant", "content": E1_VALID}}),
        )
        .await
        .json();
    assert_eq!(v["done"], true);
}
