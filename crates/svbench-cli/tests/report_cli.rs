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
    // Every file written is listed, the page and each plot included, and
    // each listed file exists.
    assert_eq!(
        lines[..3],
        [
            dir.join("summary.json").to_str().expect("utf-8"),
            dir.join("report.md").to_str().expect("utf-8"),
            dir.join("report.html").to_str().expect("utf-8"),
        ]
    );
    let plots: Vec<&&str> = lines.iter().filter(|l| l.ends_with(".svg")).collect();
    let on_disk = std::fs::read_dir(dir.join("plots")).expect("plots").count();
    assert!(!plots.is_empty() && plots.len() == on_disk, "{stdout}");
    assert!(lines.iter().all(|l| Path::new(l).is_file()), "{stdout}");

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
        (e["accuracy"].as_f64().expect("number") - 2.0 / 3.0).abs() < 1e-12,
        "{e}"
    );
    assert!(
        e["f1"].is_number()
            && e["ece"].is_number()
            && e["cost_weighted_accuracy"].is_number()
            && e["accuracy_non_abstained"].is_number(),
        "{e}"
    );
    assert!(
        e["ci95"]["accuracy"].is_array() && e["ci95"]["f1"].is_array(),
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
    edited[1]["accuracy"] = json!(0.99);
    std::fs::write(
        out_dir.join("e1_scoreboard.json"),
        serde_json::to_string(&edited).expect("json"),
    )
    .expect("write");
    let out = svbench(&["scoreboard", "--env", "e1", sa, "--out-dir", od, "--check"]);
    assert_eq!(out.status.code(), Some(6));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("accuracy"),
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
        .find(|m| m["metric"] == "accuracy")
        .expect("accuracy");
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
    assert!(md.contains("| accuracy | 7 |"), "{md}");
}

/// One definition per name: with abstentions and an invalid answer in the
/// run, `accuracy` is the same number in summary.json, report.md, the
/// scoreboard and compare; the selective one is `accuracy_non_abstained`.
#[test]
fn accuracy_is_one_number_across_report_scoreboard_and_compare() {
    let tmp = tempfile::tempdir().expect("tmp");
    let m = ("Malicious", "Malicious");
    let b = ("Benign", "Benign");
    let abstain = ("Malicious", "Abstain");
    let wrong = ("Benign", "Malicious");
    // 3 right of 8; 5 answered (3 right): accuracy 3/8, selective 3/5.
    let answers = [m, b, m, abstain, abstain, abstain, wrong, wrong];
    let a = compare_run(tmp.path(), "ra", "model-a", "v1", &answers);
    let other = compare_run(tmp.path(), "rb", "model-b", "v1", &[m; 8]);
    let (sa, sb) = (a.to_str().unwrap(), other.to_str().unwrap());
    assert_eq!(svbench(&["report", sa]).status.code(), Some(0));
    let s: Value = serde_json::from_slice(&std::fs::read(a.join("summary.json")).unwrap()).unwrap();
    let headline = |name: &str| headline_entry(&s, name)["value"].as_f64().unwrap();
    let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
    assert!(close(headline("accuracy"), 3.0 / 8.0));
    assert!(close(headline("accuracy_non_abstained"), 3.0 / 5.0));
    assert!(close(
        s["metrics"]["detection"]["accuracy"].as_f64().unwrap(),
        3.0 / 8.0
    ));
    let md = std::fs::read_to_string(a.join("report.md")).unwrap();
    assert!(md.contains("| accuracy | 0.3750 |"), "{md}");

    let od = tmp.path().join("boards");
    let out = svbench(&[
        "scoreboard",
        "--env",
        "e1",
        sa,
        "--out-dir",
        od.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let e = &board(&od)[0];
    assert!(close(e["accuracy"].as_f64().unwrap(), 3.0 / 8.0), "{e}");
    assert!(close(
        e["accuracy_non_abstained"].as_f64().unwrap(),
        3.0 / 5.0
    ));

    let out_path = tmp.path().join("cmp.json");
    let out = svbench(&["compare", sa, sb, "--out", out_path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    let acc = c["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "accuracy")
        .expect("accuracy");
    assert!(close(acc["mean_a"].as_f64().unwrap(), 3.0 / 8.0), "{acc}");
}

/// A metric without a denominator is null in JSON and n/a in text, never 0.
#[test]
fn undefined_metrics_are_null_and_n_a() {
    let tmp = tempfile::tempdir().expect("tmp");
    let abstain = ("Malicious", "Abstain");
    let dir = compare_run(tmp.path(), "r", "m", "v1", &[abstain, abstain]);
    let d = dir.to_str().unwrap();
    assert_eq!(svbench(&["report", d]).status.code(), Some(0));
    let s: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let value = |name: &str| headline_entry(&s, name)["value"].clone();
    assert!(value("accuracy_non_abstained").is_null());
    assert!(value("f1").is_null());
    assert_eq!(value("accuracy"), json!(0.0));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("| accuracy_non_abstained | n/a |"), "{md}");
    assert!(!md.contains("| accuracy_non_abstained | 0.0000 |"), "{md}");
    let od = tmp.path().join("boards");
    assert_eq!(
        svbench(&[
            "scoreboard",
            "--env",
            "e1",
            d,
            "--out-dir",
            od.to_str().unwrap()
        ])
        .status
        .code(),
        Some(0)
    );
    let e = &board(&od)[0];
    assert!(e["accuracy_non_abstained"].is_null(), "{e}");
    let md = std::fs::read_to_string(od.join("e1_scoreboard.md")).unwrap();
    assert!(md.contains("n/a"), "{md}");
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

/// Runs `eval e2 --model builtin:oracle` with `extra` arguments into `out`
/// and returns the run directory.
fn e2_oracle_run(out: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec![
        "eval",
        "e2",
        "--model",
        "builtin:oracle",
        "--no-progress",
        "--output-dir",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let run = svbench(&args);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8(run.stdout).expect("utf-8");
    PathBuf::from(stdout.lines().last().expect("run dir").trim())
}

/// The `headline` entry of metric `name` (panics when absent).
fn headline_entry<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["headline"]
        .as_array()
        .and_then(|h| h.iter().find(|m| m["name"] == name))
        .unwrap_or_else(|| panic!("no headline metric {name}: {summary}"))
}

fn headline_value(summary: &Value, name: &str) -> Option<f64> {
    headline_entry(summary, name)["value"].as_f64()
}

/// E2's headline says true things: the oracle scores micro F1 1.0 overall
/// and per fixture type, also on a Terraform-only run, where upstream's
/// averaged field sees no oracle finding and reads 0; the scoreboard leads
/// with the same number.
#[test]
fn e2_oracle_headline_is_perfect_also_on_terraform_only() {
    let tmp = tempfile::tempdir().expect("tmp");
    let all = e2_oracle_run(&tmp.path().join("all"), &[]);
    let tf = e2_oracle_run(&tmp.path().join("tf"), &["--env-arg", "lang=tf"]);
    let read = |dir: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).expect("summary"))
            .expect("json")
    };
    let (s_all, s_tf) = (read(&all), read(&tf));
    assert_eq!(headline_value(&s_all, "micro_f1"), Some(1.0), "{s_all}");
    assert_eq!(headline_value(&s_all, "micro_f1_k8s"), Some(1.0));
    assert_eq!(headline_value(&s_all, "micro_f1_tf"), Some(1.0));
    // Upstream's averaged field is well below 1 for the oracle itself.
    assert!(s_all["metrics"]["finding_quality"]["f1_weighted"].as_f64() < Some(0.9));
    assert_eq!(headline_value(&s_tf, "micro_f1"), Some(1.0), "{s_tf}");
    assert!(s_tf["e2"]["micro"]["unweighted"]["tp"].as_f64() > Some(0.0));
    assert_eq!(
        s_tf["metrics"]["finding_quality"]["f1_weighted"],
        json!(0.0)
    );
    let md = std::fs::read_to_string(tf.join("report.md")).expect("md");
    assert!(md.contains("| micro_f1 | 1.0000 |"), "{md}");
    assert!(md.contains("## Upstream-compatible fields"), "{md}");

    let od = tmp.path().join("boards");
    let out = svbench(&[
        "scoreboard",
        "--env",
        "e2",
        all.to_str().expect("utf-8"),
        tf.to_str().expect("utf-8"),
        "--out-dir",
        od.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entries: Vec<Value> =
        serde_json::from_slice(&std::fs::read(od.join("e2_scoreboard.json")).expect("board"))
            .expect("json");
    assert_eq!(entries.len(), 2);
    for e in &entries {
        assert_eq!(e["micro_f1"], json!(1.0), "{e}");
        assert_eq!(e["micro_f1_by_lang"]["tf"], json!(1.0), "{e}");
        // The oracle gives no patch: undefined, not 0.
        assert!(e["patch_success"].is_null(), "{e}");
        assert!(e["upstream_compat"]["f1_weighted"].is_number(), "{e}");
    }
}

/// Without `--out-dir` the board goes under `outputs/`, not the cwd root.
#[test]
fn scoreboard_defaults_under_outputs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = run_dir(tmp.path(), "r");
    let out = Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(["scoreboard", "--env", "e1", dir.to_str().expect("utf-8")])
        .current_dir(tmp.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("run svbench");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tmp
        .path()
        .join("outputs/scoreboards/e1_scoreboard.json")
        .is_file());
    assert!(!tmp.path().join("bench").exists());
}

/// `scoreboard --env` names E4 by any of its spellings: two real E4 runs
/// (the indicators policy and the oracle) become an E4 board on which the
/// oracle is marked as an upper bound; a board-less environment is refused
/// with the list of boards.
#[test]
fn scoreboard_takes_e4_runs_and_marks_the_oracle() {
    let tmp = tempfile::tempdir().expect("tmp");
    let in_tmp = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_svbench"))
            .args(args)
            .current_dir(tmp.path())
            .env("NO_COLOR", "1")
            .env_remove("SVBENCH_CONFIG")
            .output()
            .expect("run svbench")
    };
    for policy in ["builtin:indicators", "builtin:oracle"] {
        let out = in_tmp(&["eval", "e4", "--model", policy, "-n", "6", "--no-progress"]);
        assert!(
            out.status.success(),
            "{policy}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = in_tmp(&[
        "scoreboard",
        "--env",
        "phishing-detection",
        "--discover",
        "outputs/evals",
        "--out-dir",
        "boards",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let board: Vec<Value> = serde_json::from_slice(
        &std::fs::read(tmp.path().join("boards/e4_scoreboard.json")).expect("board"),
    )
    .expect("json");
    assert_eq!(board.len(), 2, "{board:?}");
    let by_model = |m: &str| {
        board
            .iter()
            .find(|e| e["model"] == m)
            .unwrap_or_else(|| panic!("no entry of {m}: {board:?}"))
    };
    let oracle = by_model("builtin:oracle");
    assert_eq!(oracle["policy_label"], "oracle (upper bound)");
    assert_eq!(oracle["accuracy"], 1.0);
    assert_eq!(by_model("builtin:indicators")["policy_label"], Value::Null);
    let md = std::fs::read_to_string(tmp.path().join("boards/e4_scoreboard.md")).expect("md");
    assert!(
        md.contains("builtin:oracle — **oracle (upper bound)**"),
        "{md}"
    );
    let out = in_tmp(&[
        "scoreboard",
        "--env",
        "e4",
        "--discover",
        "outputs/evals",
        "--out-dir",
        "boards",
        "--check",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = in_tmp(&["scoreboard", "--env", "e3", "outputs/evals"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("scoreboards exist for e1, e2 and e4"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
