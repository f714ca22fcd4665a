//! `svbench eval e1` against an in-process fake OpenAI-compatible server on
//! loopback: artifacts, errors, retries, aborts, cache and resume.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;
use svbench_envs::e1::dataset::{load, DatasetSpec, SelectionRequest, SplitRequest};
use svbench_fakeai::{FakeServer, Rule, Script, Step};

const KEY: &str = "sk-test-s3cr3t-value";

/// A server that answers every E1 question correctly with confidence 0.9.
fn solver() -> Script {
    let gold = e1_gold_by_question("test");
    Script::from_fn(move |body: &Value| {
        let q = svbench_fakeai::last_user_text(body).unwrap_or_default();
        match gold.get(q.as_ref()) {
            Some(label) => Step::content(format!("{{\"label\":\"{label}\",\"confidence\":0.9}}")),
            None => Step::content("I do not know this flow."),
        }
    })
}

fn first_question() -> String {
    let mut qs: Vec<_> = load(
        &DatasetSpec::Embedded,
        &SplitRequest(Some("test".into())),
        &SelectionRequest {
            max_examples: Some(1),
            shuffle: false,
            seed: 0,
        },
    )
    .unwrap()
    .examples;
    qs.remove(0).question
}

fn eval(sb: &Sandbox, server: &FakeServer, extra: &[&str]) -> Output {
    let url = server.base_url();
    let mut args = vec![
        "eval",
        "e1",
        "--model",
        "fake-model",
        "--base-url",
        url.as_str(),
        "--api-key-env",
        "SVB_TEST_KEY",
        "--no-progress",
    ];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(&args)
        .current_dir(sb.path())
        .env("SVB_TEST_KEY", KEY)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// `svbench eval e1 --resume DIR --retry-errors` against `server`.
fn resume(sb: &Sandbox, dir: &Path, server: &FakeServer) -> Output {
    let url = server.base_url();
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args([
            "eval",
            "e1",
            "--resume",
            dir.to_str().unwrap(),
            "--retry-errors",
            "--base-url",
            url.as_str(),
            "--api-key-env",
            "SVB_TEST_KEY",
            "--no-progress",
            "--no-cache",
        ])
        .current_dir(sb.path())
        .env("SVB_TEST_KEY", KEY)
        .output()
        .unwrap()
}

fn run_dir(sb: &Sandbox, out: &Output) -> PathBuf {
    sb.path().join(stdout(out).lines().last().unwrap().trim())
}

/// No file of the run mentions the key.
fn assert_no_key(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert!(!text.contains(KEY), "key leaked into {}", path.display());
        }
    }
}

#[test]
fn correct_answers_produce_complete_artifacts_without_the_key() {
    let server = FakeServer::start(solver());
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &["--no-cache", "--run-id", "ok", "--concurrency", "4"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains(KEY) && !stdout(&out).contains(KEY));
    let dir = run_dir(&sb, &out);
    assert!(
        dir.ends_with("sv-env-network-logs--fake-model/ok"),
        "{}",
        dir.display()
    );
    let recs = results(&dir);
    assert_eq!(recs.len(), 80);
    for r in &recs {
        assert_eq!(r["parse"]["status"], "valid");
        assert_eq!(r["rewards"]["utility"], 1.0);
        assert_eq!(r["requests"][0]["attempts"], 1);
        assert_eq!(r["usage"]["requests"], 1);
        assert!(r["requests"][0]["latency_ms"].as_f64().unwrap() >= 0.0);
        assert!(r["requests"][0]["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
    }
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["status"], "completed");
    assert_eq!(meta["effective_model"], "fake-model");
    assert_eq!(meta["endpoint"]["base_url"], server.base_url());
    assert_eq!(meta["sampling_params"]["temperature"], 0.2);
    assert_eq!(meta["sampling_params"]["max_tokens"], 2048);
    assert_eq!(meta["concurrency"], 4);
    assert_eq!(meta["cache_mode"], "off");
    assert!(meta["baseline_type"].is_null());
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["metrics"]["detection"]["accuracy"], 1.0);
    assert_no_key(&dir);
    // The server saw the key in the Authorization header, seeds and the E1 prompt.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 80);
    assert!(server.peak_concurrency() <= 4);
    let auth = reqs[0].header("authorization").unwrap();
    assert_eq!(auth, format!("Bearer {KEY}"));
    assert!(reqs[0].body["seed"].is_u64());
    assert_eq!(reqs[0].body["messages"][0]["role"], "system");
}

#[test]
fn retries_errors_and_reasoning_are_recorded_per_sample() {
    let q = first_question();
    let script = solver().rule(
        Rule::any()
            .when_user_contains(q.clone())
            .steps([Step::rate_limited("1"), Step::Truncated])
            .then(Step::Reasoning {
                reasoning: "thinking {\"label\":\"Benign\"}".into(),
                content: Some("{\"label\":\"Malicious\",\"confidence\":0.7}".into()),
                key: Default::default(),
            })
            .once_each(),
    );
    let server = FakeServer::start(script);
    let sb = Sandbox::new();
    let out = eval(&sb, &server, &["--no-cache", "-n", "3", "--run-id", "r"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = results(&run_dir(&sb, &out));
    let first = recs.iter().find(|r| r["question"] == q.as_str()).unwrap();
    assert_eq!(
        first["requests"][0]["attempts"], 3,
        "429, truncated body, then success"
    );
    assert_eq!(
        first["reasoning_content"][0],
        "thinking {\"label\":\"Benign\"}"
    );
    assert_eq!(
        first["predicted_label"], "Malicious",
        "reasoning is never parsed as the answer"
    );
}

#[test]
fn persistent_server_errors_are_recorded_not_scored() {
    let q = first_question();
    let script = solver().rule(
        Rule::any()
            .when_user_contains(q.clone())
            .then(Step::status(500)),
    );
    let server = FakeServer::start(script);
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "4",
            "--max-retries",
            "1",
            "--run-id",
            "e",
        ],
    );
    assert!(
        out.status.success(),
        "one error does not abort: {}",
        stderr(&out)
    );
    let dir = run_dir(&sb, &out);
    let recs = results(&dir);
    assert_eq!(recs.len(), 4);
    let bad = recs.iter().find(|r| r["question"] == q.as_str()).unwrap();
    assert!(bad["reward"].is_null());
    assert!(bad["completion"].is_null());
    assert_eq!(bad["error"]["kind"], "http_status");
    assert_eq!(bad["error"]["http_status"], 500);
    assert_eq!(bad["error"]["attempts"], 2);
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["counts"]["errored"], 1);
    assert_eq!(summary["n_examples"], 4);
    assert_eq!(
        summary["metrics"]["detection"]["accuracy"], 1.0,
        "errors are excluded, not wrong"
    );
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["counts"]["errored"], 1);

    // Resuming against another endpoint (a new server, another port) is
    // refused with a diff rather than mixing endpoints in one run.
    let healthy = FakeServer::start(solver());
    let resumed = resume(&sb, &dir, &healthy);
    assert_eq!(resumed.status.code(), Some(2), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("endpoint"),
        "{}",
        stderr(&resumed)
    );
}

#[test]
fn unauthorized_aborts_the_run_with_exit_4() {
    let server = FakeServer::start(Script::always(Step::status(401)));
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "5",
            "--concurrency",
            "1",
            "--run-id",
            "f",
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let dir = run_dir(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["status"], "aborted");
    assert!(meta["abort_reason"].as_str().unwrap().contains("fatal"));
    assert_eq!(results(&dir).len(), 1, "dispatch stops at the fatal error");
    assert_no_key(&dir);
    // The reason is said on stderr, not only in the artifacts.
    let (line, hint) = abort_lines(&out);
    assert!(
        line.contains("retrying cannot fix")
            && line.contains("1 of 5 samples failed")
            && line.contains("http_status (HTTP 401)"),
        "{line}"
    );
    assert!(
        hint.contains("refused the API key") && hint.contains("$SVB_TEST_KEY"),
        "{hint}"
    );
    assert!(!stderr(&out).contains(KEY), "key leaked to stderr");
}

/// The `error:` and `hint:` lines an aborted run prints on stderr.
fn abort_lines(out: &Output) -> (String, String) {
    let err = stderr(out);
    let line = |prefix: &str| {
        let found: Vec<&str> = err.lines().filter(|l| l.starts_with(prefix)).collect();
        assert_eq!(found.len(), 1, "one {prefix} line expected:\n{err}");
        found[0].to_string()
    };
    (line("error: run aborted"), line("hint: "))
}

#[test]
fn an_unreachable_endpoint_says_why_on_stderr_and_in_json() {
    // A loopback port nobody listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let sb = Sandbox::new();
    let args = [
        "-n",
        "6",
        "--concurrency",
        "1",
        "--max-retries",
        "0",
        "--run-id",
        "down",
    ];
    let out = eval_at(&sb, &url, &args);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let (line, hint) = abort_lines(&out);
    assert!(
        line.contains("3 errored samples in a row")
            && line.contains("3 of 6 samples failed")
            && line.contains("first error: connection: "),
        "{line}"
    );
    assert!(
        hint.contains(&format!("nothing answered at {url}"))
            && hint.contains("--resume")
            && hint.contains("--retry-errors"),
        "{hint}"
    );

    let mut json_args = args.to_vec();
    if let Some(run_id) = json_args.last_mut() {
        *run_id = "down-json";
    }
    json_args.push("--json");
    let out = eval_at(&sb, &url, &json_args);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["status"], "aborted");
    let abort = &v["abort"];
    assert_eq!(abort["cause"], "consecutive_errors");
    assert_eq!(abort["kind"], "connection");
    assert_eq!(abort["failed"], 3);
    assert_eq!(abort["total"], 6);
    assert!(abort["http_status"].is_null());
    assert!(
        abort["message"].as_str().unwrap().contains("onnect"),
        "{abort}"
    );
    assert!(abort["hint"].as_str().unwrap().contains(&url), "{abort}");
    // The same reason as metadata.json records.
    let meta = read_json(
        &sb.path()
            .join(v["run_dir"].as_str().unwrap())
            .join("metadata.json"),
    );
    assert_eq!(abort["reason"], meta["abort_reason"]);
}

#[test]
fn a_failing_server_says_its_status_and_where_to_look() {
    let server = FakeServer::start(Script::always(Step::status(500)));
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "4",
            "--concurrency",
            "1",
            "--max-retries",
            "0",
            "--max-consecutive-errors",
            "2",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let (line, hint) = abort_lines(&out);
    assert!(
        line.contains("2 of 4 samples failed") && line.contains("http_status (HTTP 500)"),
        "{line}"
    );
    assert!(hint.contains("failed (HTTP 500): see its logs"), "{hint}");
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["abort"]["http_status"], 500);
    assert_eq!(v["abort"]["failed"], 2);
}

#[test]
fn a_completed_run_prints_no_abort() {
    let server = FakeServer::start(solver());
    let sb = Sandbox::new();
    let out = eval(&sb, &server, &["--no-cache", "-n", "2", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("error:"), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["status"], "completed");
    assert!(v.get("abort").is_none(), "{v}");
}

#[test]
fn consecutive_errors_stop_early_and_resume_completes() {
    // Three 400s, then a healthy solver.
    let script = solver().rule(
        Rule::any()
            .steps([Step::status(400), Step::status(400), Step::status(400)])
            .once_each(),
    );
    let server = FakeServer::start(script);
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "10",
            "--concurrency",
            "1",
            "--max-consecutive-errors",
            "3",
            "--run-id",
            "c",
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let dir = run_dir(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["status"], "aborted");
    assert!(meta["abort_reason"]
        .as_str()
        .unwrap()
        .contains("3 consecutive"));
    assert_eq!(results(&dir).len(), 3);
    assert_eq!(server.request_count(), 3, "400s are not retried");

    // Resume against the (now healthy) endpoint: the errored samples are
    // redone and the rest run; one record per key wins.
    let out = resume(&sb, &dir, &server);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_json(&dir.join("metadata.json"))["status"], "completed");
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["counts"]["errored"], 0);
    assert_eq!(summary["n_examples"], 10);
    assert_eq!(server.request_count(), 13);
}

#[test]
fn identical_rerun_at_temperature_zero_is_served_from_the_cache() {
    let server = FakeServer::start(solver());
    let sb = Sandbox::new();
    sb.write(
        "svbench.toml",
        &format!(
            "[defaults]\ncache_path = \"{}\"\n",
            sb.path().join("cache.sqlite").display()
        ),
    );
    let out = eval(
        &sb,
        &server,
        &["-n", "10", "--temperature", "0", "--run-id", "c1"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.request_count(), 10);
    let out = eval(
        &sb,
        &server,
        &["-n", "10", "--temperature", "0", "--run-id", "c2"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.request_count(), 10, "the rerun made zero requests");
    let dir = run_dir(&sb, &out);
    for r in results(&dir) {
        assert_eq!(r["requests"][0]["cached"], true);
        assert_eq!(r["usage"]["cached_requests"], 1);
    }
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["cache_mode"], "auto");
    let cache = std::fs::read(sb.path().join("cache.sqlite")).unwrap();
    assert!(
        !String::from_utf8_lossy(&cache).contains(KEY),
        "no key in the cache"
    );

    // --no-cache goes to the network again.
    let out = eval(
        &sb,
        &server,
        &[
            "-n",
            "10",
            "--temperature",
            "0",
            "--no-cache",
            "--run-id",
            "c3",
        ],
    );
    assert!(out.status.success());
    assert_eq!(server.request_count(), 20);
}

#[test]
fn routing_and_key_errors_exit_2_before_anything_happens() {
    let sb = Sandbox::new();
    for (args, env_key) in [
        (vec!["eval", "e1", "--model", "mystery-model"], true),
        (vec!["eval", "e1", "--model", "gpt-4o-mini"], false),
        (vec!["eval", "e1", "--model", "x@nowhere"], true),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_svbench"));
        cmd.args(&args)
            .current_dir(sb.path())
            .env_remove("OPENAI_API_KEY");
        if env_key {
            cmd.env("OPENAI_API_KEY", KEY);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    assert!(!sb.path().join("outputs").exists());
}

#[test]
fn tool_calls_go_through_the_multi_turn_loop() {
    // E1 offers no tools and a tool budget of 0: a call gets a
    // `budget_exhausted` tool message, and the model's next turn answers.
    let script = solver().rule(
        Rule::any()
            .when_last_role("user")
            .then(Step::tool_call("lookup_ip", "{\"ip\": \"10.0.0.1\"}")),
    );
    let server = FakeServer::start(script);
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "2",
            "--max-turns",
            "2",
            "--concurrency",
            "1",
            "--run-id",
            "t",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = results(&run_dir(&sb, &out));
    for r in &recs {
        assert_eq!(r["turns"], 2);
        assert_eq!(r["tool_calls"], 1);
        let ti = &r["tool_interactions"][0];
        assert_eq!(ti["tool"], "lookup_ip");
        assert_eq!(ti["ok"], false);
        assert_eq!(ti["error"], "budget_exhausted");
        assert_eq!(ti["arguments"]["ip"], "10.0.0.1");
        assert_eq!(r["parse"]["status"], "valid", "the second turn answered");
        let msgs = r["completion_messages"].as_array().unwrap();
        assert_eq!(
            msgs.len(),
            3,
            "assistant tool call, tool result, final answer"
        );
        assert_eq!(msgs[1]["role"], "tool");
        assert_eq!(msgs[1]["tool_call_id"], msgs[0]["tool_calls"][0]["id"]);
    }
    // The second request of a sample carried the tool message.
    let second = &server.requests()[1];
    let msgs = second.messages();
    assert_eq!(msgs.last().unwrap()["role"], "tool");
    assert!(msgs.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .contains("budget_exhausted"));

    // With E1's default single turn, a pending tool call ends the sample
    // with no answer (scored behaviour, not an error).
    let out = eval(&sb, &server, &["--no-cache", "-n", "1", "--run-id", "t1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = results(&run_dir(&sb, &out));
    assert_eq!(recs[0]["parse"]["status"], "no_answer");
    assert_eq!(recs[0]["truncated"], true);
    assert_eq!(recs[0]["reward"], 0.0);
    assert!(recs[0]["error"].is_null());
}

#[test]
fn reasoning_only_replies_are_malformed_and_recorded_as_errors() {
    let server = FakeServer::start(Script::always(Step::reasoning("only thoughts", None)));
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "1",
            "--max-retries",
            "1",
            "--run-id",
            "m",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = results(&run_dir(&sb, &out));
    assert_eq!(recs[0]["error"]["kind"], "malformed_response");
    assert_eq!(recs[0]["error"]["attempts"], 2);
    assert!(recs[0]["reward"].is_null());
}

#[test]
fn timeouts_and_empty_replies_are_retried_then_recorded() {
    let q = first_question();
    let script = solver()
        .rule(Rule::any().when_user_contains(q.clone()).then(Step::delay(
            std::time::Duration::from_secs(5),
            Step::content("late"),
        )))
        .rule(Rule::any().then(Step::EmptyContent));
    let server = FakeServer::start(script);
    let sb = Sandbox::new();
    let out = eval(
        &sb,
        &server,
        &[
            "--no-cache",
            "-n",
            "2",
            "--max-retries",
            "1",
            "--request-timeout",
            "0.3",
            "--max-consecutive-errors",
            "0",
            "--run-id",
            "to",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = run_dir(&sb, &out);
    let recs = results(&dir);
    let slow = recs.iter().find(|r| r["question"] == q.as_str()).unwrap();
    assert_eq!(slow["error"]["kind"], "timeout");
    assert_eq!(slow["error"]["attempts"], 2);
    let empty = recs.iter().find(|r| r["question"] != q.as_str()).unwrap();
    assert_eq!(empty["error"]["kind"], "malformed_response");
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["counts"]["errored"], 2);
    assert_eq!(summary["errors_by_kind"]["timeout"], 1);
    assert_eq!(summary["errors_by_kind"]["malformed_response"], 1);
}

/// `svbench eval e1` with `--base-url URL` (and the key variable set).
fn eval_at(sb: &Sandbox, url: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "eval",
        "e1",
        "--model",
        "fake-model",
        "--base-url",
        url,
        "--api-key-env",
        "SVB_TEST_KEY",
        "--no-progress",
        "--no-cache",
    ];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(&args)
        .current_dir(sb.path())
        .env("SVB_TEST_KEY", KEY)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Every file under `dir`, recursively, as lossy text.
fn all_text_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(all_text_under(&path));
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            out.push((path, text));
        }
    }
    out
}

#[test]
fn base_url_query_is_sent_after_the_path_and_its_secret_never_recorded() {
    const QSECRET: &str = "q-s3cr3t-in-the-query";
    let server = FakeServer::start(solver());
    let sb = Sandbox::new();
    let url = format!(
        "{}?api-key={QSECRET}&api-version=2024-06-01",
        server.base_url()
    );
    let out = eval_at(&sb, &url, &["-n", "3", "--run-id", "q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains(QSECRET) && !stdout(&out).contains(QSECRET));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(
        reqs[0].query.as_deref(),
        Some(format!("api-key={QSECRET}&api-version=2024-06-01").as_str())
    );
    assert_eq!(
        reqs[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let dir = run_dir(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(
        meta["endpoint"]["base_url"],
        format!(
            "{}?api-key=REDACTED&api-version=2024-06-01",
            server.base_url()
        )
    );
    for (path, text) in all_text_under(&dir) {
        assert!(
            !text.contains(QSECRET),
            "secret leaked into {}",
            path.display()
        );
    }
}

#[test]
fn base_url_userinfo_is_refused_with_a_hint_and_never_echoed() {
    let server = FakeServer::start(solver());
    let sb = Sandbox::new();
    let url = server
        .base_url()
        .replacen("http://", "http://alice:PW-s3cr3t@", 1);
    let out = eval_at(&sb, &url, &["-n", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--api-key-env"), "{err}");
    assert!(
        !err.contains("PW-s3cr3t") && !err.contains("alice"),
        "{err}"
    );
    assert_eq!(server.request_count(), 0);
    assert!(!sb.path().join("outputs").exists());
}

#[test]
fn every_query_value_and_key_looking_path_segment_is_kept_out_of_every_file() {
    const CODE: &str = "c0de-4ll0ws-access";
    const QKEY: &str = "sk-q1u2e3r4y5";
    const PKEY: &str = "sk-p1a2t3h4k5e6y7";
    let server = FakeServer::start(solver());
    let sb = Sandbox::new();
    let cache = sb.path().join("xdg-cache");
    let run = |url: &str, id: &str| {
        Command::new(env!("CARGO_BIN_EXE_svbench"))
            .args([
                "eval",
                "e1",
                "--model",
                "fake-model",
                "--base-url",
                url,
                "--api-key-env",
                "SVB_TEST_KEY",
                "--no-progress",
                "-n",
                "3",
                "--run-id",
                id,
            ])
            .current_dir(sb.path())
            .env("SVB_TEST_KEY", KEY)
            .env("XDG_CACHE_HOME", &cache)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    // Query values under names that do not look secret: sent, recorded as
    // REDACTED (the API version, allow-listed, is kept); the response cache
    // (on here) records the same form.
    let url = format!(
        "{}?code={CODE}&x={QKEY}&api-version=2024-06-01",
        server.base_url()
    );
    let out = run(&url, "q");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        server.requests()[0].query.as_deref(),
        Some(format!("code={CODE}&x={QKEY}&api-version=2024-06-01").as_str())
    );
    let dir = run_dir(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(
        meta["endpoint"]["base_url"],
        format!(
            "{}?code=REDACTED&x=REDACTED&api-version=2024-06-01",
            server.base_url()
        )
    );
    // A key in the path: the fake server knows no such path (404, the run
    // aborts), and the key is in no message either.
    let url = format!("{}/key/{PKEY}", server.base_url());
    let out = run(&url, "p");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let dir = run_dir(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(
        meta["endpoint"]["base_url"],
        format!("{}/key/REDACTED", server.base_url())
    );
    let printed = format!("{}{}", stderr(&out), stdout(&out));
    let mut files = all_text_under(sb.path());
    files.push((PathBuf::from("stdout+stderr"), printed));
    assert!(files.iter().any(|(p, _)| p.ends_with("responses.sqlite")));
    for (path, text) in files {
        for secret in [CODE, QKEY, PKEY] {
            assert!(
                !text.contains(secret),
                "{secret} leaked into {}",
                path.display()
            );
        }
    }
}
