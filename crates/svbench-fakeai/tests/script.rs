//! Rule matching, queue order, fallthrough and the fallback.

mod common;

use common::{chat, post_chat};
use serde_json::{json, Value};
use svbench_fakeai::{last_user_text, FakeServer, Rule, Script, Step};

fn content(server: &FakeServer, body: &str) -> String {
    let v = post_chat(server.addr(), body).response().json();
    v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_else(|| panic!("no content in {v}"))
        .to_owned()
}

fn status(server: &FakeServer, body: &str) -> u16 {
    post_chat(server.addr(), body).response().status
}

#[test]
fn rules_match_by_model_and_last_user_text() {
    let server = FakeServer::start(
        Script::new()
            .rule(
                Rule::model("gpt-a")
                    .when_user_contains("port 22")
                    .then(Step::content("a22")),
            )
            .rule(Rule::model("gpt-a").then(Step::content("a")))
            .rule(
                Rule::any()
                    .when_user_contains("port 22")
                    .then(Step::content("any22")),
            )
            .fallback(|_| Step::content("fallback")),
    );
    assert_eq!(content(&server, &chat("gpt-a", "conn on port 22")), "a22");
    assert_eq!(content(&server, &chat("gpt-a", "conn on port 80")), "a");
    assert_eq!(content(&server, &chat("gpt-b", "conn on port 22")), "any22");
    assert_eq!(
        content(&server, &chat("gpt-b", "conn on port 80")),
        "fallback"
    );
}

#[test]
fn last_user_message_wins_and_other_roles_do_not_count() {
    let body = json!({
        "model": "m",
        "messages": [
            {"role": "system", "content": "needle in system"},
            {"role": "user", "content": "old needle"},
            {"role": "assistant", "content": "needle in assistant"},
            {"role": "user", "content": [{"type": "text", "text": "fresh "}, {"type": "text", "text": "question"}]}
        ]
    })
    .to_string();
    let server = FakeServer::start(
        Script::new()
            .rule(
                Rule::any()
                    .when_user_contains("needle")
                    .then(Step::content("user-needle")),
            )
            .rule(
                Rule::any()
                    .when_user_contains("fresh question")
                    .then(Step::content("parts")),
            )
            .fallback(|_| Step::content("none")),
    );
    assert_eq!(
        content(&server, &body),
        "parts",
        "content-part arrays are joined"
    );

    let server = FakeServer::start(
        Script::new()
            .rule(
                Rule::any()
                    .when_any_message_contains("in assistant")
                    .then(Step::content("any")),
            )
            .fallback(|_| Step::content("none")),
    );
    assert_eq!(content(&server, &body), "any");
}

#[test]
fn last_role_distinguishes_turns() {
    let first = chat("m", "audit this config");
    let second = json!({
        "model": "m",
        "messages": [
            {"role": "user", "content": "audit this config"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_0", "content": "[]"}
        ]
    })
    .to_string();
    let server = FakeServer::start(
        Script::new()
            .rule(
                Rule::any()
                    .when_last_role("tool")
                    .then(Step::content("final")),
            )
            .rule(
                Rule::any()
                    .when_last_role("user")
                    .then(Step::tool_call("run_kubelinter", "{}")),
            ),
    );
    let v = post_chat(server.addr(), &first).response().json();
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(content(&server, &second), "final");
}

#[test]
fn queue_is_consumed_in_order_then_last_step_repeats() {
    let server = FakeServer::start(Script::sequence([
        Step::rate_limited("1"),
        Step::status(500),
        Step::content("third"),
    ]));
    let body = chat("m", "q");
    assert_eq!(status(&server, &body), 429);
    assert_eq!(status(&server, &body), 500);
    assert_eq!(content(&server, &body), "third");
    assert_eq!(content(&server, &body), "third");
    assert_eq!(content(&server, &body), "third");
}

#[test]
fn exhausted_rule_can_fall_through() {
    let server = FakeServer::start(
        Script::new()
            .rule(
                Rule::any()
                    .when_user_contains("flaky")
                    .steps([Step::status(503), Step::status(502)])
                    .once_each(),
            )
            .fallback(|_| Step::content("recovered")),
    );
    let body = chat("m", "a flaky one");
    assert_eq!(status(&server, &body), 503);
    assert_eq!(status(&server, &body), 502);
    assert_eq!(content(&server, &body), "recovered");
    assert_eq!(content(&server, &body), "recovered");
}

#[test]
fn separate_rules_keep_separate_queues() {
    let server = FakeServer::start(
        Script::new()
            .rule(
                Rule::any()
                    .when_user_contains("ex-1")
                    .steps([Step::status(500), Step::content("one")]),
            )
            .rule(
                Rule::any()
                    .when_user_contains("ex-2")
                    .steps([Step::status(500), Step::content("two")]),
            ),
    );
    assert_eq!(status(&server, &chat("m", "ex-1")), 500);
    assert_eq!(status(&server, &chat("m", "ex-2")), 500);
    assert_eq!(content(&server, &chat("m", "ex-2")), "two");
    assert_eq!(content(&server, &chat("m", "ex-1")), "one");
}

#[test]
fn fallback_computes_from_the_request_body() {
    let server = FakeServer::start(Script::from_fn(|body: &Value| {
        let question = last_user_text(body).unwrap_or_default();
        let label = if question.contains("nmap") {
            "Malicious"
        } else {
            "Benign"
        };
        Step::content(format!(r#"{{"label":"{label}","confidence":0.9}}"#))
    }));
    assert!(content(&server, &chat("m", "nmap scan from 10.0.0.5")).contains("Malicious"));
    assert!(content(&server, &chat("m", "dns lookup")).contains("Benign"));
}

#[test]
fn unmatched_requests_get_a_400_and_are_counted() {
    let server =
        FakeServer::start(Script::new().rule(Rule::model("only-this").then(Step::content("x"))));
    let resp = post_chat(server.addr(), &chat("other", "hi")).response();
    assert_eq!(resp.status, 400);
    let msg = resp.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(msg.starts_with("svbench-fakeai: no scripted step"), "{msg}");
    assert_eq!(server.unmatched_count(), 1);
    assert_eq!(server.request_count(), 1);
}

#[test]
fn models_endpoint_lists_rule_models() {
    let server = FakeServer::start(
        Script::new()
            .rule(Rule::model("gpt-x").then(Step::content("x")))
            .rule(Rule::model("qwen/qwen3-8b").then(Step::content("y"))),
    );
    let v = common::request(server.addr(), "GET", "/models", &[], "")
        .response()
        .json();
    let ids: Vec<&str> = v["data"].as_array().map_or(vec![], |d| {
        d.iter().filter_map(|m| m["id"].as_str()).collect()
    });
    assert_eq!(ids, ["gpt-x", "qwen/qwen3-8b", "svbench-fake"]);
}
