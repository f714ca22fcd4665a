//! Wire behaviour of every step type.

mod common;

use std::time::{Duration, Instant};

use common::{chat, post_chat, Outcome};
use serde_json::{json, Value};
use svbench_fakeai::{FakeServer, Script, Step, ToolCall};

fn answer(step: Step) -> Outcome {
    let server = FakeServer::start(Script::always(step));
    post_chat(server.addr(), &chat("gpt-test", "hello"))
}

#[test]
fn content_is_a_well_formed_completion() {
    let resp = answer(Step::content("Benign, 0.9")).response();
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    let v = resp.json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "gpt-test", "request model echoed");
    assert_eq!(v["system_fingerprint"], "fp_svbench_fakeai");
    assert!(v["id"]
        .as_str()
        .is_some_and(|id| id.starts_with("chatcmpl-")));
    let choice = &v["choices"][0];
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["message"]["content"], "Benign, 0.9");
    assert!(choice["message"].get("tool_calls").is_none());
    let usage = &v["usage"];
    let prompt = usage["prompt_tokens"].as_u64().expect("prompt_tokens");
    let completion = usage["completion_tokens"]
        .as_u64()
        .expect("completion_tokens");
    assert!(prompt > 0 && completion > 0);
    assert_eq!(usage["total_tokens"].as_u64(), Some(prompt + completion));
    assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 0);
}

#[test]
fn response_model_overrides_the_echo() {
    let server =
        FakeServer::start(Script::always(Step::content("x")).response_model("served-model-v2"));
    let v = post_chat(server.addr(), &chat("asked-model", "hi"))
        .response()
        .json();
    assert_eq!(v["model"], "served-model-v2");
}

#[test]
fn content_is_json_escaped() {
    let tricky = "line1\n\"quoted\" \\ back {\"label\": \"Malicious\"} é 🚀";
    let v = answer(Step::content(tricky)).response().json();
    assert_eq!(v["choices"][0]["message"]["content"], tricky);
}

#[test]
fn tool_calls_have_ids_null_content_and_finish_reason() {
    let server = FakeServer::start(Script::sequence([
        Step::tool_calls([
            ("run_kubelinter", r#"{"paths":["/cfg/a.yaml"]}"#),
            ("run_semgrep", "{not json"),
        ]),
        Step::ToolCalls(vec![ToolCall::new("opa_eval", "{}").with_id("fixed-id")]),
        Step::tool_call("run_kubelinter", "{}"),
    ]));
    let v = post_chat(server.addr(), &chat("m", "go")).response().json();
    let choice = &v["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], Value::Null);
    let calls = choice["message"]["tool_calls"]
        .as_array()
        .expect("tool_calls");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"], "call_0");
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "run_kubelinter");
    assert_eq!(
        calls[0]["function"]["arguments"], r#"{"paths":["/cfg/a.yaml"]}"#,
        "arguments are a string, sent verbatim"
    );
    assert_eq!(calls[1]["id"], "call_1");
    assert_eq!(calls[1]["function"]["arguments"], "{not json");

    let v = post_chat(server.addr(), &chat("m", "go")).response().json();
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["id"],
        "fixed-id"
    );
    let v = post_chat(server.addr(), &chat("m", "go")).response().json();
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["id"], "call_2",
        "ids keep counting across responses"
    );
}

#[test]
fn reasoning_content_and_openrouter_reasoning() {
    let v = answer(Step::reasoning("let me think", Some("Benign")))
        .response()
        .json();
    let msg = &v["choices"][0]["message"];
    assert_eq!(msg["reasoning_content"], "let me think");
    assert_eq!(msg["content"], "Benign");
    assert!(msg.get("reasoning").is_none());
    assert!(v["usage"]["completion_tokens_details"]["reasoning_tokens"].as_u64() > Some(0));

    let v = answer(Step::openrouter_reasoning("hmm", None))
        .response()
        .json();
    let msg = &v["choices"][0]["message"];
    assert_eq!(msg["reasoning"], "hmm");
    assert_eq!(msg["content"], Value::Null, "reasoning-only reply");
    assert!(msg.get("reasoning_content").is_none());
}

#[test]
fn status_with_retry_after_and_default_error_body() {
    let resp = answer(Step::rate_limited("7")).response();
    assert_eq!(resp.status, 429);
    assert_eq!(resp.header("retry-after"), Some("7"));
    let v = resp.json();
    assert_eq!(v["error"]["code"], "rate_limit_exceeded");
    assert!(v["error"]["message"].is_string());

    let resp = answer(Step::status(500)).response();
    assert_eq!(resp.status, 500);
    assert_eq!(resp.header("retry-after"), None);
    assert_eq!(resp.json()["error"]["type"], "server_error");

    let date = "Wed, 21 Oct 2015 07:28:00 GMT";
    let resp = answer(Step::Status {
        code: 503,
        retry_after: Some(date.into()),
        body: Some("overloaded".into()),
    })
    .response();
    assert_eq!(resp.status, 503);
    assert_eq!(resp.header("retry-after"), Some(date));
    assert_eq!(resp.text(), "overloaded");

    let resp = answer(Step::status(401)).response();
    assert_eq!(resp.status, 401);
    assert_eq!(resp.json()["error"]["code"], "invalid_api_key");
}

#[test]
fn delay_waits_then_answers() {
    let start = Instant::now();
    let v = answer(Step::delay(
        Duration::from_millis(300),
        Step::content("late"),
    ))
    .response()
    .json();
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert_eq!(v["choices"][0]["message"]["content"], "late");
}

#[test]
fn truncated_is_a_complete_message_with_cut_json() {
    let resp = answer(Step::Truncated).response();
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    let len: usize = resp
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .expect("length");
    assert_eq!(len, resp.body.len());
    assert!(resp.text().starts_with('{'));
    assert!(serde_json::from_slice::<Value>(&resp.body).is_err());
}

#[test]
fn incomplete_body_stops_short_of_content_length() {
    match answer(Step::IncompleteBody) {
        Outcome::Incomplete { declared, got } => {
            assert!(got > 0, "part of the body was sent");
            assert!(got < declared);
        }
        other => panic!("expected an incomplete body, got {other:?}"),
    }
}

#[test]
fn non_json_is_html() {
    let resp = answer(Step::NonJson).response();
    assert_eq!(resp.status, 200);
    assert!(resp
        .header("content-type")
        .is_some_and(|v| v.starts_with("text/html")));
    assert!(resp.text().starts_with("<html>"));
    assert!(serde_json::from_slice::<Value>(&resp.body).is_err());
}

#[test]
fn empty_choices_empty_and_null_content() {
    let v = answer(Step::EmptyChoices).response().json();
    assert_eq!(v["choices"], json!([]));

    let v = answer(Step::EmptyContent).response().json();
    assert_eq!(v["choices"][0]["message"]["content"], "");
    assert!(v["choices"][0]["message"].get("tool_calls").is_none());

    let v = answer(Step::NullContent).response().json();
    assert_eq!(v["choices"][0]["message"]["content"], Value::Null);
    assert!(v["choices"][0]["message"].get("tool_calls").is_none());
}

#[test]
fn length_sets_finish_reason() {
    let v = answer(Step::Length("{\"label\": \"Beni".into()))
        .response()
        .json();
    assert_eq!(v["choices"][0]["finish_reason"], "length");
    assert_eq!(v["choices"][0]["message"]["content"], "{\"label\": \"Beni");
}

#[test]
fn drop_connection_closes_without_a_response() {
    assert!(matches!(answer(Step::DropConnection), Outcome::Closed));
}

#[test]
fn reset_connection_resets() {
    assert!(matches!(answer(Step::ResetConnection), Outcome::Reset));
}

#[test]
fn raw_sends_status_headers_and_body_verbatim() {
    let resp = answer(Step::raw(
        418,
        [("x-custom", "yes"), ("content-type", "text/plain")],
        "short and stout",
    ))
    .response();
    assert_eq!(resp.status, 418);
    assert_eq!(resp.header("x-custom"), Some("yes"));
    assert_eq!(resp.header("content-type"), Some("text/plain"));
    assert_eq!(resp.text(), "short and stout");
}

#[test]
fn other_paths_and_methods() {
    let server = FakeServer::start(Script::always(Step::content("ok")));
    let resp = common::post(server.addr(), "/chat/completions", &[], &chat("m", "x")).response();
    assert_eq!(resp.status, 200, "path without /v1 is accepted");

    let resp = common::request(server.addr(), "GET", "/v1/models", &[], "").response();
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json()["object"], "list");

    let resp = common::post(server.addr(), "/v1/completions", &[], "{}").response();
    assert_eq!(resp.status, 404);
    let resp = common::request(server.addr(), "GET", "/v1/chat/completions", &[], "").response();
    assert_eq!(resp.status, 405);

    let resp = common::post(server.addr(), "/v1/chat/completions", &[], "{not json").response();
    assert_eq!(resp.status, 400);
    assert_eq!(
        server.request_count(),
        2,
        "chat requests only, malformed included"
    );
}
