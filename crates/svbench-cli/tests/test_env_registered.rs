//! `t-echo`, the test-only environment, registered in this build (feature
//! `test-env`): with nothing but its folder and its registry line it gets
//! `envs`, `eval`, `report` (Markdown, HTML, plots, run manifest), `scoreboard`,
//! `compare`, `data gen`, `bench` and `serve`. Run with
//! `cargo test -p svbench-cli --features test-env,bench --test test_env_registered`.
#![cfg(feature = "test-env")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

fn svbench(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(args)
        .output()
        .expect("run svbench");
    assert!(
        out.status.success(),
        "svbench {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The run directories under `root`, sorted.
fn runs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for env_dir in std::fs::read_dir(root).expect("root") {
        for run in std::fs::read_dir(env_dir.expect("entry").path()).expect("env dir") {
            out.push(run.expect("entry").path());
        }
    }
    out.sort();
    out
}

#[test]
fn the_test_environment_gets_the_whole_harness_by_registering_itself() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("evals");
    let root_s = root.to_str().expect("utf-8");

    assert!(text(&svbench(&["envs"])).contains("t-echo"));
    for model in ["builtin:oracle", "builtin:shout"] {
        svbench(&[
            "eval",
            "t-echo",
            "--model",
            model,
            "-n",
            "6",
            "--no-progress",
            "--output-dir",
            root_s,
        ]);
    }
    let dirs = runs(&root);
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    let mut accuracies = Vec::new();
    for dir in &dirs {
        let summary: Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).expect("summary"))
                .expect("json");
        assert_eq!(summary["environment"], "sv-env-test-echo");
        assert_eq!(summary["metrics"]["n"], 6, "{summary}");
        accuracies.push(summary["headline"][0]["value"].as_f64());
        let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
        assert!(md.contains("## Echo"), "{md}");
        let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
        assert!(html.contains("{\"grading\":\"t-echo\""));
        assert!(dir.join("plots/outcomes.svg").is_file());
        let results = std::fs::read_to_string(dir.join("results.jsonl")).expect("results");
        let first: Value =
            serde_json::from_str(results.lines().next().expect("a line")).expect("record");
        assert!(first["parsed"]["text"].is_string(), "{first}");
        assert!(first["echoed"].is_boolean(), "{first}");
        // The run manifest names it by its own short id and reward source.
        let manifest: Value = serde_json::from_slice(
            &std::fs::read(dir.join("run_manifest.json")).expect("run_manifest.json"),
        )
        .expect("json");
        assert_eq!(manifest["reward_config_id"], "t-echo:v1", "{manifest}");
        assert_eq!(manifest["reward_source"], "executable", "{manifest}");
    }
    // Registered is known: `--strict` takes its runs.
    let strict_out = tmp.path().join("strict");
    svbench(&[
        "report",
        "--strict",
        dirs[0].to_str().expect("utf-8"),
        "--out",
        strict_out.to_str().expect("utf-8"),
    ]);
    assert!(strict_out.join("summary.json").is_file());
    accuracies.sort_by(|a, b| a.partial_cmp(b).expect("numbers"));
    assert_eq!(accuracies, [Some(0.0), Some(1.0)]);

    // The scoreboard.
    let boards = tmp.path().join("boards");
    svbench(&[
        "scoreboard",
        "--env",
        "t-echo",
        "--discover",
        root_s,
        "--out-dir",
        boards.to_str().expect("utf-8"),
    ]);
    let board: Value = serde_json::from_slice(
        &std::fs::read(boards.join("t-echo_scoreboard.json")).expect("board json"),
    )
    .expect("json");
    assert_eq!(board.as_array().map(Vec::len), Some(2), "{board}");
    let md = std::fs::read_to_string(boards.join("t-echo_scoreboard.md")).expect("board md");
    assert!(md.contains("| baseline | model | n | accuracy"), "{md}");

    // compare, on the environment's metric.
    let cmp = tmp.path().join("cmp.json");
    svbench(&[
        "compare",
        dirs[0].to_str().expect("utf-8"),
        dirs[1].to_str().expect("utf-8"),
        "--bootstrap",
        "100",
        "--out",
        cmp.to_str().expect("utf-8"),
    ]);
    let cmp: Value = serde_json::from_slice(&std::fs::read(&cmp).expect("compare")).expect("json");
    assert!(cmp["metrics"].to_string().contains("\"accuracy\""), "{cmp}");

    // data gen and bench.
    let rows = text(&svbench(&[
        "data", "gen", "t-echo", "--split", "test", "-n", "3",
    ]));
    assert_eq!(rows.lines().count(), 3, "{rows}");
    let bench = text(&svbench(&["bench", "t-echo", "--completions", "1000"]));
    assert!(bench.contains("t-echo scoring: 1000 answers"), "{bench}");
}

/// One HTTP/1.1 request on loopback; the status and the JSON body.
fn http(addr: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let json = response
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, json)
}

#[test]
fn the_test_environment_is_served() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(["serve", "--bind", "127.0.0.1:0", "--envs", "t-echo"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("address line");
    let addr = line.trim().trim_start_matches("http://").to_string();
    let checks = std::panic::catch_unwind(|| {
        let (status, env) = http(&addr, "GET", "/v1/envs/t-echo", None);
        assert_eq!(status, 200, "{env}");
        let (status, rows) = http(&addr, "GET", "/v1/envs/t-echo/splits/test/rows", None);
        assert_eq!(status, 200, "{rows}");
        let (status, right) = http(
            &addr,
            "POST",
            "/v1/envs/t-echo/score",
            Some(&json!({"example_id": "echo-1", "completion": "bravo"})),
        );
        assert_eq!(status, 200, "{right}");
        assert_eq!(right["reward"], 1.0, "{right}");
        assert_eq!(right["parsed"]["text"], "bravo", "{right}");
        let (_, wrong) = http(
            &addr,
            "POST",
            "/v1/envs/t-echo/score",
            Some(&json!({"answer": "bravo", "completion": "BRAVO"})),
        );
        assert_eq!(wrong["reward"], 0.0, "{wrong}");
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = checks {
        std::panic::resume_unwind(panic);
    }
}
