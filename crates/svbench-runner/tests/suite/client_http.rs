//! `ModelClient` against a scripted HTTP/1.1 server on 127.0.0.1:0
//! (harness §2.3–2.5, §11.1–11.4, §11.7, §11.9–11.11). Real sockets, so
//! real time: retry policies are shortened where waits are not the point.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use svbench_core::message::Message;
use svbench_runner::cache::{CacheMode, ResponseCache};
use svbench_runner::client::{
    route, CallFailure, ClientError, ClientSettings, Config, ModelClient, RetryEvent, RetryPolicy,
    Route, TurnRequest,
};
use svbench_runner::limits::{Limits, ProfileLimiter};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with one request.
#[derive(Debug, Clone)]
enum Step {
    /// Reply with this status, extra headers and body, after `delay`.
    Reply {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
        delay: Duration,
    },
    /// Close the connection without replying.
    Drop,
    /// Announce more body than is sent, then close.
    Truncate(String),
}

fn ok(content: &str) -> Step {
    json_reply(json!({
        "model": "served-model", "system_fingerprint": "fp_test",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    }))
}

fn json_reply(v: Value) -> Step {
    status(200, &v.to_string())
}

fn status(code: u16, body: &str) -> Step {
    Step::Reply {
        status: code,
        headers: Vec::new(),
        body: body.to_string(),
        delay: Duration::ZERO,
    }
}

fn with_header(step: Step, name: &'static str, value: &str) -> Step {
    match step {
        Step::Reply {
            status,
            mut headers,
            body,
            delay,
        } => {
            headers.push((name, value.to_string()));
            Step::Reply {
                status,
                headers,
                body,
                delay,
            }
        }
        other => other,
    }
}

fn delayed(step: Step, d: Duration) -> Step {
    match step {
        Step::Reply {
            status,
            headers,
            body,
            ..
        } => Step::Reply {
            status,
            headers,
            body,
            delay: d,
        },
        other => other,
    }
}

#[derive(Debug, Clone)]
struct Seen {
    headers: Vec<(String, String)>,
    body: Value,
    at: Instant,
}

#[derive(Debug)]
struct Fake {
    base_url: String,
    script: Mutex<VecDeque<Step>>,
    fallback: Step,
    seen: Mutex<Vec<Seen>>,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
}

impl Fake {
    async fn start(script: Vec<Step>) -> Arc<Fake> {
        Self::start_with_fallback(script, ok("fallback")).await
    }

    async fn start_with_fallback(script: Vec<Step>, fallback: Step) -> Arc<Fake> {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let fake = Arc::new(Fake {
            base_url: format!("http://{addr}/v1"),
            script: Mutex::new(script.into()),
            fallback,
            seen: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        });
        let f = Arc::clone(&fake);
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let f = Arc::clone(&f);
                tokio::spawn(async move { f.serve(sock).await });
            }
        });
        fake
    }

    async fn serve(&self, sock: TcpStream) {
        let mut r = BufReader::new(sock);
        let mut headers = Vec::new();
        let mut len = 0usize;
        let mut line = String::new();
        if r.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        loop {
            line.clear();
            if r.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
                if k == "content-length" {
                    len = v.parse().unwrap_or(0);
                }
                headers.push((k, v));
            }
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).await.is_err() {
            return;
        }
        self.seen.lock().unwrap().push(Seen {
            headers,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            at: Instant::now(),
        });
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        let step = self
            .script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| self.fallback.clone());
        let mut sock = r.into_inner();
        match step {
            Step::Reply {
                status,
                headers,
                body,
                delay,
            } => {
                tokio::time::sleep(delay).await;
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body.as_bytes()).await;
            }
            Step::Drop => {}
            Step::Truncate(body) => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len() + 100
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body.as_bytes()).await;
            }
        }
        let _ = sock.shutdown().await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn requests(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

fn settings() -> ClientSettings {
    ClientSettings {
        request_timeout: Duration::from_secs(10),
        max_tokens: 256,
        temperature: Some(0.0),
        top_p: None,
        run_seed: 42,
        cache_mode: CacheMode::Off,
    }
}

/// Retries in milliseconds, same count as the specified policy.
fn fast() -> RetryPolicy {
    RetryPolicy {
        base: Duration::from_millis(1),
        cap: Duration::from_millis(5),
        ..RetryPolicy::default()
    }
}

fn ad_hoc(fake: &Fake, model: &str, key_env: Option<&str>) -> Route {
    route(model, &Config::builtin(), Some(&fake.base_url), key_env).expect("route")
}

fn client(fake: &Fake, model: &str) -> ModelClient {
    client_with(ad_hoc(fake, model, None), settings())
}

fn client_with(route: Route, settings: ClientSettings) -> ModelClient {
    let limiter = Arc::new(ProfileLimiter::new(&route.profile, route.limits));
    ModelClient::new(route, settings, limiter, None)
        .expect("client")
        .with_retry_policy(fast())
}

fn msgs() -> Vec<Message> {
    vec![Message::system("sys"), Message::user("question")]
}

fn turn<'a>(messages: &'a [Message], id: &'a str) -> TurnRequest<'a> {
    TurnRequest {
        messages,
        tools: &[],
        example_id: id,
        rollout_index: 0,
        turn: 0,
    }
}

fn sample_error(r: Result<svbench_runner::client::TurnResponse, CallFailure>) -> CallFailure {
    r.expect_err("expected a failure")
}

#[tokio::test]
async fn success_records_everything() {
    let fake = Fake::start(vec![json_reply(json!({
        "model": "served-model", "system_fingerprint": "fp_x",
        "choices": [{"finish_reason": "stop", "message": {
            "role": "assistant", "content": "answer", "reasoning_content": "thinking..."}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29,
                  "completion_tokens_details": {"reasoning_tokens": 4}}
    }))])
    .await;
    let c = client(&fake, "served-model");
    let m = msgs();
    let r = c.complete(turn(&m, "ex1")).await.expect("ok");
    assert_eq!(r.message.content.as_deref(), Some("answer"));
    assert_eq!(r.reasoning.as_deref(), Some("thinking..."));
    assert!(!r.truncated);
    let rec = &r.record;
    assert_eq!((rec.turn, rec.attempts, rec.cached), (0, 1, false));
    assert_eq!(rec.finish_reason.as_deref(), Some("stop"));
    assert_eq!(rec.usage.prompt_tokens, 20);
    assert_eq!(rec.usage.reasoning_tokens, 4);
    assert_eq!(rec.usage.requests, 1);
    assert_eq!(rec.response_model.as_deref(), Some("served-model"));
    assert_eq!(rec.system_fingerprint.as_deref(), Some("fp_x"));
    assert!(rec.latency_ms > 0.0);
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    let b = &seen[0].body;
    assert_eq!(b["model"], "served-model");
    assert_eq!(
        b["messages"][1],
        json!({"role": "user", "content": "question"})
    );
    assert_eq!(b["max_tokens"], 256);
    assert_eq!(b["temperature"], 0.0);
    assert!(b["seed"].is_u64());
    // No key variable: no auth header.
    assert!(!seen[0].headers.iter().any(|(k, _)| k == "authorization"));
    assert_eq!(c.stats().requests, 1);
    assert_eq!(c.endpoint().profile, "ad-hoc");
    assert_eq!(c.endpoint().base_url, fake.base_url);
    assert_eq!(c.effective_model(), "served-model");
}

#[tokio::test]
async fn key_is_sent_as_bearer_and_never_shown() {
    let var = "SVBENCH_TEST_CLIENT_KEY_A";
    let secret = "sk-test-0123456789abcdef";
    std::env::set_var(var, secret);
    let fake = Fake::start(vec![
        ok("hi"),
        status(
            401,
            &format!(r#"{{"error":{{"message":"Incorrect API key provided: {secret}"}}}}"#),
        ),
    ])
    .await;
    let c = client_with(ad_hoc(&fake, "m", Some(var)), settings());
    let m = msgs();
    c.complete(turn(&m, "a")).await.expect("ok");
    let auth = fake.seen()[0]
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .map(|(_, v)| v.clone());
    assert_eq!(auth.as_deref(), Some(format!("Bearer {secret}").as_str()));
    // Debug output of the client and its parts never contains the key.
    let dbg = format!("{c:?} {:?} {:?}", c.route(), c.route().api_key());
    assert!(!dbg.contains(secret), "{dbg}");
    // A 401 whose body echoes the key: fatal, one attempt, key scrubbed.
    let f = sample_error(c.complete(turn(&m, "b")).await);
    let CallFailure::Fatal(e) = &f else {
        panic!("401 must be fatal: {f:?}")
    };
    assert_eq!(
        (e.http_status, e.attempts, e.retryable),
        (Some(401), 1, false)
    );
    assert!(e.message.contains(var), "{}", e.message);
    let all = format!("{f:?} {}", serde_json::to_string(e).expect("json"));
    assert!(!all.contains(secret), "{all}");
    assert!(all.contains("[REDACTED]"), "{all}");
}

#[tokio::test]
async fn custom_auth_header_sends_the_raw_key() {
    let var = "SVBENCH_TEST_CLIENT_KEY_B";
    std::env::set_var(var, "raw-key");
    let fake = Fake::start(vec![]).await;
    let toml = format!(
        "[profiles.az]\nbase_url = \"{}\"\napi_key_env = \"{var}\"\nauth_header = \"api-key\"\nheaders = {{ \"X-Title\" = \"svbench\" }}\n",
        fake.base_url
    );
    let cfg = Config::from_toml_str(&toml, Path::new("t.toml")).expect("config");
    let r = route("m@az", &cfg, None, None).expect("route");
    let c = client_with(r, settings());
    c.complete(turn(&msgs(), "a")).await.expect("ok");
    let h = &fake.seen()[0].headers;
    assert!(h.contains(&("api-key".into(), "raw-key".into())), "{h:?}");
    assert!(h.contains(&("x-title".into(), "svbench".into())), "{h:?}");
    assert!(!h.iter().any(|(k, _)| k == "authorization"));
}

#[tokio::test]
async fn missing_key_variable_is_a_clear_error() {
    let fake = Fake::start(vec![]).await;
    let r = ad_hoc(&fake, "m", Some("SVBENCH_TEST_UNSET_KEY_VAR_C"));
    let limiter = Arc::new(ProfileLimiter::unlimited("ad-hoc"));
    let err = ModelClient::new(r, settings(), limiter, None).expect_err("missing key");
    assert!(matches!(err, ClientError::Route(_)));
    let msg = err.to_string();
    assert!(msg.contains("SVBENCH_TEST_UNSET_KEY_VAR_C"), "{msg}");
    assert!(
        msg.contains("set SVBENCH_TEST_UNSET_KEY_VAR_C or pass --api-key-env"),
        "{msg}"
    );
    assert_eq!(fake.requests(), 0);
}

#[tokio::test]
async fn rate_limit_with_retry_after_then_success_pauses_the_profile() {
    let fake = Fake::start(vec![
        with_header(
            status(429, r#"{"error":{"message":"slow down"}}"#),
            "retry-after",
            "1",
        ),
        ok("after the pause"),
    ])
    .await;
    let route = ad_hoc(&fake, "m", None);
    let limiter = Arc::new(ProfileLimiter::unlimited("ad-hoc"));
    let c = ModelClient::new(route, settings(), Arc::clone(&limiter), None)
        .expect("client")
        .with_retry_policy(fast());
    let m = msgs();
    let start = Instant::now();
    let call = c.complete(turn(&m, "a"));
    let watcher = async {
        // While the 429's pause is in force, the whole profile is paused.
        loop {
            if limiter.paused_until().is_some() {
                return true;
            }
            if start.elapsed() > Duration::from_secs(5) {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let (r, saw_pause) = tokio::join!(call, watcher);
    let r = r.expect("success after 429");
    assert!(saw_pause, "profile was never paused");
    assert_eq!(r.record.attempts, 2);
    assert_eq!(r.message.content.as_deref(), Some("after the pause"));
    let seen = fake.seen();
    assert!(seen[1].at - seen[0].at >= Duration::from_secs(1));
    let s = c.stats();
    assert_eq!((s.requests, s.retries, s.rate_limited), (2, 1, 1));
}

#[tokio::test]
async fn retry_after_above_300_seconds_fails_as_rate_limited() {
    let fake = Fake::start(vec![with_header(status(429, "{}"), "retry-after", "301")]).await;
    let c = client(&fake, "m");
    let CallFailure::Sample(e) = sample_error(c.complete(turn(&msgs(), "a")).await) else {
        panic!("sample error expected")
    };
    assert_eq!(e.kind, "rate_limited");
    assert_eq!((e.http_status, e.attempts), (Some(429), 1));
}

#[tokio::test]
async fn three_500s_then_success() {
    let fake = Fake::start(vec![
        status(500, "oops"),
        status(502, "bad gateway"),
        status(503, ""),
        ok("fine"),
    ])
    .await;
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let c = client(&fake, "m").with_retry_observer(Arc::new(move |e: &RetryEvent| {
        sink.lock().unwrap().push(e.clone())
    }));
    let r = c.complete(turn(&msgs(), "a")).await.expect("ok");
    assert_eq!(r.record.attempts, 4);
    assert_eq!(c.stats().retries, 3);
    let events = events.lock().unwrap().clone();
    let summary: Vec<(u32, Option<u16>)> =
        events.iter().map(|e| (e.attempt, e.http_status)).collect();
    assert_eq!(summary, [(1, Some(500)), (2, Some(502)), (3, Some(503))]);
    assert!(events
        .iter()
        .all(|e| e.example_id == "a" && e.kind == "http_status"));
    // Waits stay within the (shortened) jitter bounds.
    let p = fast();
    assert!(events.iter().all(|e| e.retry_in <= p.ceiling(e.attempt)));
}

#[tokio::test]
async fn persistent_500_is_an_http_status_error_after_7_attempts() {
    let fake = Fake::start_with_fallback(vec![], status(500, "always broken")).await;
    let c = client(&fake, "m");
    let CallFailure::Sample(e) = sample_error(c.complete(turn(&msgs(), "a")).await) else {
        panic!("sample error expected")
    };
    assert_eq!(e.kind, "http_status");
    assert_eq!(e.http_status, Some(500));
    assert_eq!(e.attempts, 7);
    assert!(e.retryable);
    assert!(e.message.contains("always broken"), "{}", e.message);
    assert_eq!(fake.requests(), 7);
}

#[tokio::test]
async fn fatal_and_sample_statuses_are_not_retried() {
    for (code, body, fatal, kind) in [
        (401, "{}", true, "http_status"),
        (403, "{}", true, "http_status"),
        (
            404,
            r#"{"error":{"message":"model not found"}}"#,
            true,
            "http_status",
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 4096 tokens","code":"context_length_exceeded"}}"#,
            false,
            "context_length",
        ),
        (
            400,
            r#"{"error":{"message":"bad request"}}"#,
            false,
            "http_status",
        ),
        (422, "unprocessable", false, "http_status"),
    ] {
        let fake = Fake::start(vec![status(code, body)]).await;
        let c = client(&fake, "m");
        let f = sample_error(c.complete(turn(&msgs(), "a")).await);
        assert_eq!(matches!(f, CallFailure::Fatal(_)), fatal, "{code}: {f:?}");
        let e = f.error();
        assert_eq!(
            (e.kind.as_str(), e.http_status, e.attempts),
            (kind, Some(code), 1)
        );
        assert!(!e.retryable);
        assert_eq!(fake.requests(), 1);
    }
}

#[tokio::test]
async fn timeouts_are_retried_then_recorded() {
    let slow = delayed(ok("late"), Duration::from_secs(3));
    let fake = Fake::start(vec![slow.clone(), ok("in time")]).await;
    let mut s = settings();
    s.request_timeout = Duration::from_millis(500);
    let c = client_with(ad_hoc(&fake, "m", None), s);
    let r = c
        .complete(turn(&msgs(), "a"))
        .await
        .expect("second attempt");
    assert_eq!(r.record.attempts, 2);

    let fake = Fake::start_with_fallback(vec![], slow).await;
    let c = client_with(ad_hoc(&fake, "m", None), s).with_retry_policy(RetryPolicy {
        max_retries: 1,
        ..fast()
    });
    let e = sample_error(c.complete(turn(&msgs(), "a")).await);
    assert_eq!(e.error().kind, "timeout");
    assert_eq!(e.error().attempts, 2);
    assert_eq!(e.error().http_status, None);
}

#[tokio::test]
async fn malformed_bodies_are_retried_then_recorded() {
    let fake = Fake::start(vec![
        status(200, "this is not json"),
        json_reply(json!({"choices": []})),
        json_reply(json!({"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]})),
        json_reply(json!({"choices": [{"message": {"content": null, "reasoning_content": "only thinking"}}]})),
        Step::Truncate(r#"{"choices": [{"message": {"content": "cut"#.into()),
        ok("finally"),
    ])
    .await;
    let c = client(&fake, "m");
    let r = c.complete(turn(&msgs(), "a")).await.expect("ok eventually");
    assert_eq!(r.record.attempts, 6);
    assert_eq!(r.message.content.as_deref(), Some("finally"));

    let fake = Fake::start_with_fallback(vec![], json_reply(json!({"choices": []}))).await;
    let c = client(&fake, "m");
    let e = sample_error(c.complete(turn(&msgs(), "a")).await);
    let e = e.error();
    assert_eq!(e.kind, "malformed_response");
    assert_eq!(
        (e.attempts, e.http_status, e.retryable),
        (7, Some(200), true)
    );
}

#[tokio::test]
async fn dropped_connections_are_connection_errors() {
    let fake = Fake::start(vec![Step::Drop, ok("back")]).await;
    let c = client(&fake, "m");
    let r = c.complete(turn(&msgs(), "a")).await.expect("retried");
    assert_eq!(r.record.attempts, 2);

    let fake = Fake::start_with_fallback(vec![], Step::Drop).await;
    let c = client(&fake, "m").with_retry_policy(RetryPolicy {
        max_retries: 2,
        ..fast()
    });
    let e = sample_error(c.complete(turn(&msgs(), "a")).await);
    assert_eq!(e.error().kind, "connection");
    assert_eq!(e.error().attempts, 3);
}

#[tokio::test]
async fn refused_connection_is_a_connection_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    drop(listener);
    let r = route("m", &Config::builtin(), Some(&url), None).expect("route");
    let c = client_with(r, settings()).with_retry_policy(RetryPolicy {
        max_retries: 1,
        ..fast()
    });
    let e = sample_error(c.complete(turn(&msgs(), "a")).await);
    assert_eq!(e.error().kind, "connection");
}

#[tokio::test]
async fn length_and_tool_calls_and_tools_in_the_body() {
    let fake = Fake::start(vec![
        json_reply(
            json!({"choices": [{"finish_reason": "tool_calls", "message": {
            "content": null, "tool_calls": [{"id": "call_9", "type": "function",
            "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"a.yaml\"]}"}}]}}]}),
        ),
        json_reply(json!({"choices": [{"finish_reason": "length", "message": {
            "content": null, "reasoning_content": "ran out"}}]})),
    ])
    .await;
    let c = client(&fake, "m");
    let tools = vec![
        json!({"type": "function", "function": {"name": "run_kubelinter",
        "description": "lint", "parameters": {"type": "object"}}}),
    ];
    let m = msgs();
    let t = TurnRequest {
        tools: &tools,
        ..turn(&m, "a")
    };
    let r = c.complete(t).await.expect("tool call");
    assert_eq!(r.message.content, None);
    assert_eq!(r.message.tool_calls[0]["id"], "call_9");
    assert_eq!(r.record.finish_reason.as_deref(), Some("tool_calls"));
    // The follow-up turn carries the assistant tool call and the tool reply.
    let mut m2 = m.clone();
    m2.push(r.message.clone());
    let mut tool_msg = Message::text(svbench_core::message::Role::Tool, "no findings");
    tool_msg.tool_call_id = Some("call_9".into());
    m2.push(tool_msg);
    let r = c
        .complete(TurnRequest {
            tools: &tools,
            turn: 1,
            ..turn(&m2, "a")
        })
        .await
        .expect("length reply");
    assert!(r.truncated);
    assert_eq!(r.message.content, None);
    assert_eq!(r.reasoning.as_deref(), Some("ran out"));
    assert_eq!(r.record.turn, 1);
    let seen = fake.seen();
    assert_eq!(seen[0].body["tools"], json!(tools));
    assert_eq!(seen[0].body["tool_choice"], "auto");
    let sent = &seen[1].body["messages"];
    assert_eq!(sent[2]["tool_calls"][0]["id"], "call_9");
    assert_eq!(
        sent[3],
        json!({"role": "tool", "content": "no findings", "tool_call_id": "call_9"})
    );
    // The seed is constant across a sample's turns.
    assert_eq!(seen[0].body["seed"], seen[1].body["seed"]);
}

#[tokio::test]
async fn reasoning_models_are_sent_the_reasoning_shape() {
    let fake = Fake::start(vec![]).await;
    let mut s = settings();
    s.temperature = Some(0.2);
    s.top_p = Some(0.9);
    for model in ["o3", "o4-mini", "gpt-5-mini", "gpt-4o-mini"] {
        let c = client_with(ad_hoc(&fake, model, None), s);
        c.complete(turn(&msgs(), "a")).await.expect("ok");
        let params = c.sampling_params();
        let body = fake.seen().last().expect("request").body.clone();
        if model == "gpt-4o-mini" {
            assert_eq!(body["max_tokens"], 256);
            assert_eq!(body["temperature"], 0.2);
            assert_eq!(body["top_p"], 0.9);
            assert_eq!(params["temperature"], 0.2);
        } else {
            assert_eq!(body["max_completion_tokens"], 256, "{model}");
            assert!(body.get("temperature").is_none(), "{model}");
            assert!(body.get("top_p").is_none(), "{model}");
            assert!(body.get("max_tokens").is_none(), "{model}");
            assert!(!params.contains_key("temperature"), "{model}");
            assert_eq!(params["max_completion_tokens"], 256);
        }
    }
}

#[tokio::test]
async fn seed_follows_send_seed() {
    let fake = Fake::start(vec![]).await;
    let toml = format!(
        "[profiles.on]\nbase_url = \"{0}\"\n[profiles.off]\nbase_url = \"{0}\"\nsend_seed = false\n",
        fake.base_url
    );
    let cfg = Config::from_toml_str(&toml, Path::new("t.toml")).expect("config");
    let on = client_with(route("m@on", &cfg, None, None).expect("on"), settings());
    let off = client_with(route("m@off", &cfg, None, None).expect("off"), settings());
    let m = msgs();
    on.complete(turn(&m, "ex-7")).await.expect("ok");
    off.complete(turn(&m, "ex-7")).await.expect("ok");
    let seen = fake.seen();
    let expect = svbench_runner::client::derive_seed(42, "ex-7", 0);
    assert_eq!(seen[0].body["seed"], json!(expect));
    assert!(seen[1].body.get("seed").is_none());
    assert_eq!(on.sampling_params()["seed"], true);
    assert_eq!(off.sampling_params()["seed"], false);
}

#[tokio::test]
async fn cache_hits_make_no_request_at_temperature_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = Arc::new(ResponseCache::open(&dir.path().join("c.sqlite")).expect("cache"));
    let fake = Fake::start(vec![ok("first"), ok("second"), ok("third"), ok("fourth")]).await;
    let mk = |temperature: Option<f64>, mode: CacheMode| {
        let r = ad_hoc(&fake, "m", None);
        let limiter = Arc::new(ProfileLimiter::unlimited("ad-hoc"));
        let s = ClientSettings {
            temperature,
            cache_mode: mode,
            ..settings()
        };
        ModelClient::new(r, s, limiter, Some(Arc::clone(&cache))).expect("client")
    };
    let m = msgs();
    let c = mk(Some(0.0), CacheMode::Auto);
    let a = c.complete(turn(&m, "a")).await.expect("miss");
    let b = c.complete(turn(&m, "a")).await.expect("hit");
    assert_eq!(fake.requests(), 1);
    assert!(!a.record.cached && b.record.cached);
    assert_eq!(b.record.attempts, 0);
    assert_eq!(b.record.usage.cached_requests, 1);
    assert_eq!(a.message, b.message);
    assert_eq!(a.record.usage.prompt_tokens, b.record.usage.prompt_tokens);
    assert_eq!(a.record.response_model, b.record.response_model);
    assert_eq!(c.stats().cache_hits, 1);
    // Another rollout is another key.
    let other = TurnRequest {
        rollout_index: 1,
        ..turn(&m, "a")
    };
    c.complete(other).await.expect("miss");
    assert_eq!(fake.requests(), 2);
    // Under auto, temperature > 0 neither reads nor writes.
    let warm = mk(Some(0.7), CacheMode::Auto);
    warm.complete(turn(&m, "a")).await.expect("no cache");
    warm.complete(turn(&m, "a")).await.expect("no cache");
    assert_eq!(fake.requests(), 4);
    // --no-cache requests even when an entry exists.
    let off = mk(Some(0.0), CacheMode::Off);
    off.complete(turn(&m, "a")).await.expect("no cache");
    assert_eq!(fake.requests(), 5);
    assert_eq!(off.stats().cache_hits, 0);
}

#[tokio::test]
async fn profile_max_concurrency_caps_requests_in_flight() {
    let fake =
        Fake::start_with_fallback(vec![], delayed(ok("x"), Duration::from_millis(100))).await;
    let toml = format!(
        "[profiles.p]\nbase_url = \"{}\"\nmax_concurrency = 2\n",
        fake.base_url
    );
    let cfg = Config::from_toml_str(&toml, Path::new("t.toml")).expect("config");
    let r = route("m@p", &cfg, None, None).expect("route");
    assert_eq!(
        r.limits,
        Limits {
            max_concurrency: Some(2),
            ..Limits::default()
        }
    );
    let c = Arc::new(client_with(r, settings()));
    let mut handles = Vec::new();
    for i in 0..8 {
        let c = Arc::clone(&c);
        handles.push(tokio::spawn(async move {
            let m = msgs();
            let id = format!("ex{i}");
            c.complete(turn(&m, &id)).await.map(|_| ())
        }));
    }
    for h in handles {
        h.await.expect("task").expect("ok");
    }
    assert_eq!(fake.requests(), 8);
    assert!(fake.peak.load(Ordering::SeqCst) <= 2);
}

#[test]
fn the_client_and_its_futures_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>(_: &T) {}
    send_sync::<ModelClient>();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let fake = Fake::start(vec![]).await;
        let c = client(&fake, "m");
        let m = msgs();
        let fut = c.complete(turn(&m, "a"));
        send(&fut);
        fut.await.expect("ok");
    });
}
