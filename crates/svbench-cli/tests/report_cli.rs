//! `svbench report`: written paths on stdout, `--check`, schemas and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

fn svbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run svbench")
}

fn record(index: usize, gold: &str, label: &str, conf: f64) -> Value {
    json!({
        "index": index, "rollout_index": 0, "example_id": format!("ex{index}"),
        "answer": gold, "info": {"meta": {"source": "iot23", "scenario": "S0"}},
        "parse": {"status": "valid", "reason": null, "format_ok": true},
        "parsed": {"label": label, "confidence": conf, "rationale": null, "format_ok": true},
        "predicted_label": label, "confidence": conf,
        "reward": 1.0, "rewards": {"utility": 1.0}, "reward_profile": "v1",
        "latency_ms": 5.0
    })
}

/// A minimal run directory (upstream-shaped metadata is accepted when not strict).
fn run_dir(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let meta = json!({"environment": "e1", "model": "m", "run_id": name, "reward_profile": "v1",
                      "status": "completed"});
    std::fs::write(dir.join("metadata.json"), meta.to_string()).expect("write");
    let lines: String = [
        record(0, "Malicious", "Malicious", 0.9),
        record(1, "Benign", "Malicious", 0.6),
        record(2, "Benign", "Benign", 0.8),
    ]
    .iter()
    .map(|r| format!("{r}\n"))
    .collect();
    std::fs::write(dir.join("results.jsonl"), lines).expect("write");
    dir
}

#[test]
fn report_prints_written_paths_and_check_detects_edits() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = run_dir(tmp.path(), "r1");
    let d = dir.to_str().expect("utf-8 path");
    let out = svbench(&["report", d]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        vec![
            dir.join("summary.json").to_str().expect("utf-8"),
            dir.join("report.md").to_str().expect("utf-8")
        ]
    );

    let ok = svbench(&["report", "--check", d]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(ok.stdout.is_empty());

    let path = dir.join("summary.json");
    let mut s: Value = serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    s["metrics"]["calibration"]["brier"] = json!(0.5);
    std::fs::write(&path, s.to_string()).expect("write");
    let bad = svbench(&["report", "--check", d]);
    assert_eq!(bad.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/metrics/calibration/brier"));
}

#[test]
fn exit_codes_and_schemas() {
    let tmp = tempfile::tempdir().expect("tmp");
    let missing = tmp.path().join("nope");
    let out = svbench(&["report", missing.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hint:"));

    let a = run_dir(tmp.path(), "a");
    let b = run_dir(tmp.path(), "b");
    let out = svbench(&[
        "report",
        "--out",
        tmp.path().join("o").to_str().expect("utf-8"),
        a.to_str().expect("utf-8"),
        b.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));

    let out = svbench(&["report", "--bootstrap", "0", a.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));

    // Strict mode rejects the partial metadata.
    let out = svbench(&["report", "--strict", a.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(3));

    for name in ["summary", "metadata", "result"] {
        let out = svbench(&["report", "--print-schema", name]);
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).expect("schema is JSON");
        assert_eq!(v["type"], "object", "{name}");
    }
}

#[test]
fn bootstrap_flags_are_recorded() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = run_dir(tmp.path(), "r");
    let d = dir.to_str().expect("utf-8");
    let out = svbench(&["report", "--bootstrap", "50", "--bootstrap-seed", "7", d]);
    assert_eq!(out.status.code(), Some(0));
    let s: Value = serde_json::from_slice(&std::fs::read(dir.join("summary.json")).expect("read"))
        .expect("json");
    assert_eq!(s["bootstrap"], json!({"resamples": 50, "seed": 7}));
    // --check reuses the recorded settings.
    assert_eq!(svbench(&["report", "--check", d]).status.code(), Some(0));
}
