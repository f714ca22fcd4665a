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

/// A run directory whose metadata names its model and baseline.
fn named_run(root: &Path, name: &str, model: &str, baseline: Option<&str>) -> PathBuf {
    let dir = run_dir(root, name);
    let mut meta = json!({"environment": "e1", "model": model, "run_id": name,
                          "reward_profile": "v1", "status": "completed",
                          "dataset": "embedded", "finished_at": format!("2025-01-0{}T00:00:00Z", name.len() % 9)});
    if let Some(b) = baseline {
        meta["baseline_name"] = json!(b);
    }
    std::fs::write(dir.join("metadata.json"), meta.to_string()).expect("write");
    dir
}

fn board(dir: &Path) -> Vec<Value> {
    serde_json::from_slice(&std::fs::read(dir.join("e1_scoreboard.json")).expect("board"))
        .expect("json")
}

#[test]
fn scoreboard_merges_replaces_sorts_and_checks() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = named_run(tmp.path(), "run-a", "zeta-model", None);
    let b = named_run(tmp.path(), "run-bb", "alpha-model", Some("heuristic"));
    let out_dir = tmp.path().join("boards");
    let od = out_dir.to_str().expect("utf-8");
    let (sa, sb) = (a.to_str().expect("utf-8"), b.to_str().expect("utf-8"));

    let out = svbench(&["scoreboard", "--env", "e1", sa, "--out-dir", od]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(board(&out_dir).len(), 1);
    // A second invocation adds the other run and keeps the first.
    let out = svbench(&["scoreboard", "--env", "e1", sb, "--out-dir", od]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entries = board(&out_dir);
    assert_eq!(entries.len(), 2);
    // Sorted by baseline: "heuristic" < "zeta-model" (baseline = model when unnamed).
    assert_eq!(entries[0]["baseline"], "heuristic");
    assert_eq!(entries[1]["baseline"], "zeta-model");
    // Numbers are numbers at full precision; intervals on the headline metrics.
    let e = &entries[1];
    assert!(
        (e["acc"].as_f64().expect("number") - 2.0 / 3.0).abs() < 1e-12,
        "{e}"
    );
    assert!(e["f1"].is_number() && e["ece"].is_number() && e["cost_acc"].is_number());
    assert!(
        e["ci95"]["acc"].is_array() && e["ci95"]["f1"].is_array(),
        "{e}"
    );
    assert_eq!(e["n"], 3);
    let md = std::fs::read_to_string(out_dir.join("e1_scoreboard.md")).expect("md");
    assert!(
        md.contains("| zeta-model |") && md.contains("0.667"),
        "{md}"
    );

    // Re-scoring a run replaces its entry; it is never duplicated.
    let out = svbench(&["scoreboard", "--env", "e1", sa, sb, "--out-dir", od]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(board(&out_dir).len(), 2);

    // --check passes on fresh entries, fails (6) after a hand edit.
    let out = svbench(&[
        "scoreboard",
        "--env",
        "e1",
        sa,
        sb,
        "--out-dir",
        od,
        "--check",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut edited = board(&out_dir);
    edited[1]["acc"] = json!(0.99);
    std::fs::write(
        out_dir.join("e1_scoreboard.json"),
        serde_json::to_string(&edited).expect("json"),
    )
    .expect("write");
    let out = svbench(&["scoreboard", "--env", "e1", sa, "--out-dir", od, "--check"]);
    assert_eq!(out.status.code(), Some(6));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("acc"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // --discover finds both runs under the root.
    let root = tmp.path().to_str().expect("utf-8");
    let out = svbench(&[
        "scoreboard",
        "--env",
        "e1",
        "--discover",
        root,
        "--out-dir",
        od,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(board(&out_dir).len(), 2);
}

#[test]
fn scoreboard_refuses_wrong_env_and_shared_run_ids() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = named_run(tmp.path(), "same", "m", None);
    let copy = tmp.path().join("copy");
    std::fs::create_dir_all(&copy).expect("mkdir");
    for f in ["metadata.json", "results.jsonl"] {
        std::fs::copy(a.join(f), copy.join(f)).expect("copy");
    }
    let od = tmp.path().join("boards");
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = vec!["scoreboard".into()];
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend([
            "--out-dir".to_string(),
            od.to_str().expect("utf-8").to_string(),
        ]);
        v
    };
    let run = |v: Vec<String>| svbench(&v.iter().map(String::as_str).collect::<Vec<_>>());
    let out = run(args(&["--env", "e2", a.to_str().expect("utf-8")]));
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(args(&[
        "--env",
        "e1",
        a.to_str().expect("utf-8"),
        copy.to_str().expect("utf-8"),
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("share run id"));
    let out = run(args(&["--env", "e5", a.to_str().expect("utf-8")]));
    assert_eq!(out.status.code(), Some(2));
    assert!(!od.join("e1_scoreboard.json").exists());
}

/// An E1 run whose examples are answered `labels[i]` against `golds[i]`
/// (reward 1 when right, 0 otherwise; "" = an errored sample).
fn compare_run(
    root: &Path,
    name: &str,
    model: &str,
    profile: &str,
    answers: &[(&str, &str)],
) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let meta = json!({"environment": "e1", "model": model, "run_id": name, "reward_profile": profile,
                      "status": "completed", "split": "test", "dataset_sha256": "abc", "max_tokens": 256});
    std::fs::write(dir.join("metadata.json"), meta.to_string()).expect("write");
    let mut lines = String::new();
    for (i, (gold, label)) in answers.iter().enumerate() {
        let mut r = record(i, gold, label, 0.8);
        r["reward"] = json!(if gold == label { 1.0 } else { 0.0 });
        r["rewards"] = json!({"utility": r["reward"]});
        r["reward_profile"] = json!(profile);
        if label.is_empty() {
            r["error"] = json!({"kind": "timeout", "message": "slow"});
            r["reward"] = Value::Null;
        }
        lines.push_str(&format!("{r}\n"));
    }
    std::fs::write(dir.join("results.jsonl"), lines).expect("write");
    dir
}

#[test]
fn compare_pairs_examples_and_tests_the_deltas() {
    let tmp = tempfile::tempdir().expect("tmp");
    let m = ("Malicious", "Malicious");
    let miss = ("Malicious", "Benign");
    // A right on 2 of 8; B right on 7 of 8 (b = 0, c = 5 for McNemar); one
    // example errored in B is left out.
    let a_answers = [m, m, miss, miss, miss, miss, miss, miss];
    let b_answers = [m, m, m, m, m, m, m, ("Malicious", "")];
    let a = compare_run(tmp.path(), "ra", "model-a", "v1", &a_answers);
    let b = compare_run(tmp.path(), "rb", "model-b", "v1", &b_answers);
    let out_path = tmp.path().join("cmp/a-vs-b.json");
    let out = svbench(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--bootstrap",
        "2000",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Value = serde_json::from_slice(&std::fs::read(&out_path).expect("json")).expect("json");
    assert_eq!(c["n_pairs"], 7);
    assert_eq!(c["n_excluded_errors"], 1);
    assert_eq!(c["exploratory"], false);
    let correct = c["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "correct")
        .expect("correct");
    assert!(
        (correct["mean_delta"].as_f64().unwrap() - 5.0 / 7.0).abs() < 1e-12,
        "{correct}"
    );
    assert_eq!(correct["mcnemar"]["b"], 0);
    assert_eq!(correct["mcnemar"]["c"], 5);
    // 2·P[X ≤ 0], X ~ Bin(5, ½) = 1/16.
    assert!((correct["mcnemar"]["p_value"].as_f64().unwrap() - 0.0625).abs() < 1e-12);
    assert_eq!(correct["sign_test"]["n_pos"], 5);
    assert!(correct["ci_low"].as_f64().unwrap() > 0.0, "{correct}");
    let reward = &c["metrics"][0];
    assert_eq!(reward["metric"], "reward");
    let deltas =
        std::fs::read_to_string(tmp.path().join("cmp/a-vs-b.deltas.jsonl")).expect("deltas");
    assert!(deltas.lines().count() >= 7 * 3, "{deltas}");
    let md = std::fs::read_to_string(tmp.path().join("cmp/a-vs-b.md")).expect("md");
    assert!(md.contains("| correct | 7 |"), "{md}");
}

#[test]
fn compare_refuses_unmatched_runs_unless_told() {
    let tmp = tempfile::tempdir().expect("tmp");
    let m = ("Malicious", "Malicious");
    let a = compare_run(tmp.path(), "ra", "model-a", "v1", &[m, m, m]);
    let other_profile = compare_run(tmp.path(), "rp", "model-a", "upstream", &[m, m, m]);
    let fewer = compare_run(tmp.path(), "rf", "model-b", "v1", &[m, m]);
    let (sa, sp, sf) = (
        a.to_str().unwrap(),
        other_profile.to_str().unwrap(),
        fewer.to_str().unwrap(),
    );

    let out = svbench(&["compare", sa, sp]);
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("reward_profile differs"));
    // Comparing reward designs is allowed when named.
    let out = svbench(&[
        "compare",
        sa,
        sp,
        "--vary",
        "reward_profile,reward_config_hash",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = svbench(&["compare", sa, sf]);
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("example sets differ"));
    let path = tmp.path().join("x.json");
    let out = svbench(&[
        "compare",
        sa,
        sf,
        "--allow-unmatched",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let c: Value = serde_json::from_slice(&std::fs::read(&path).expect("json")).expect("json");
    assert_eq!(c["exploratory"], true);
    assert_eq!(c["n_only_a"], 1);
    assert!(std::fs::read_to_string(tmp.path().join("x.md"))
        .unwrap()
        .contains("Exploratory"));

    let out = svbench(&["compare", sa, sf, "--vary", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
    let out = svbench(&["compare", sa, sa, "--metric", "f1_weighted"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn plots_are_written_unless_no_plots() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = run_dir(tmp.path(), "plots");
    let d = dir.to_str().expect("utf-8 path");
    let out = svbench(&["report", "--no-plots", d]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!dir.join("plots").exists());
    let md = std::fs::read_to_string(dir.join("report.md")).expect("md");
    assert!(!md.contains("## Plots"));
    let out = svbench(&["report", d]);
    assert_eq!(out.status.code(), Some(0));
    assert!(dir.join("plots/reliability.svg").is_file());
    let md = std::fs::read_to_string(dir.join("report.md")).expect("md");
    assert!(md.contains("](plots/reliability.svg)"), "{md}");
}
