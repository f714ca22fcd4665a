//! `svbench eval e1` end to end on the embedded data, files and replays.

mod common;

use std::path::PathBuf;

use common::*;
use serde_json::Value;

fn run_dir_of(out: &std::process::Output) -> PathBuf {
    let text = stdout(out);
    PathBuf::from(text.lines().last().expect("eval prints the run dir").trim())
}

#[test]
fn default_eval_runs_heuristic_on_embedded_test_split() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "--run-id", "t1"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("builtin:heuristic"),
        "says which default ran"
    );
    let dir = sb.path().join(run_dir_of(&out));
    assert!(
        dir.ends_with("outputs/evals/sv-env-network-logs--heuristic/t1"),
        "{}",
        dir.display()
    );
    for f in [
        "metadata.json",
        "results.jsonl",
        "summary.json",
        "report.md",
    ] {
        assert!(dir.join(f).is_file(), "missing {f}");
    }
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["status"], "completed");
    assert_eq!(meta["split"], "test");
    assert_eq!(meta["dataset"], "embedded");
    assert_eq!(meta["reward_profile"], "v1");
    assert_eq!(meta["effective_model"], "heuristic");
    let n = meta["num_examples"].as_u64().unwrap() as usize;
    assert_eq!(meta["counts"]["completed"].as_u64().unwrap() as usize, n);
    let recs = results(&dir);
    assert_eq!(recs.len(), n);
    for r in &recs {
        assert_eq!(r["split"], "test");
        assert!(r["reward"].is_number());
        assert_eq!(
            r["parse"]["status"], "valid",
            "heuristic output always parses"
        );
        assert_eq!(r["parse"]["format_ok"], true);
        let total: f64 = r["rewards"]["utility"].as_f64().unwrap()
            + 0.25 * r["rewards"]["calibration"].as_f64().unwrap()
            + 0.05 * r["rewards"]["format"].as_f64().unwrap();
        assert!((total - r["reward"].as_f64().unwrap()).abs() < 1e-12);
        assert!(r["predicted_label"].is_string());
    }
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["n_examples"].as_u64().unwrap() as usize, n);
}

#[test]
fn missing_dataset_is_a_data_error_and_creates_nothing() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "--dataset", "nope.jsonl"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("nope.jsonl"));
    assert!(!sb.path().join("outputs").exists());
}

#[test]
fn malformed_row_names_file_and_line() {
    let sb = Sandbox::new();
    sb.write(
        "bad.jsonl",
        "{\"question\":\"q1\",\"answer\":\"Benign\"}\n{\"question\":\"q2\"}\n",
    );
    let out = sb.run(&["eval", "e1", "--dataset", "bad.jsonl"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("bad.jsonl:2"), "{}", stderr(&out));
    assert!(stderr(&out).contains("answer"), "{}", stderr(&out));

    sb.write("gold.jsonl", "{\"question\":\"q1\",\"answer\":2}\n");
    let out = sb.run(&["eval", "e1", "--dataset", "gold.jsonl"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("gold.jsonl:1"), "{}", stderr(&out));
}

#[test]
fn rows_without_split_load_whole_unless_a_split_is_requested() {
    let sb = Sandbox::new();
    sb.write(
        "plain.jsonl",
        "{\"question\":\"tcp 1→23\",\"answer\":true}\n{\"question\":\"udp 1→53\",\"answer\":0}\n",
    );
    let out = sb.run(&["eval", "e1", "--dataset", "plain.jsonl", "--run-id", "a"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = sb.path().join(run_dir_of(&out));
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["split"], "all");
    assert_eq!(meta["num_examples"], 2);
    let recs = results(&dir);
    assert_eq!(recs[0]["answer"], "Malicious");
    assert_eq!(recs[1]["answer"], "Benign");

    let out = sb.run(&["eval", "e1", "--dataset", "plain.jsonl", "--split", "test"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("plain.jsonl:1"), "{}", stderr(&out));
}

#[test]
fn usage_errors_exit_2() {
    let sb = Sandbox::new();
    for args in [
        vec!["eval", "e1", "--env-arg", "x=1"],
        vec!["eval", "e9"],
        vec!["eval", "e1", "--reward-profile", "v7"],
        vec!["eval", "e1", "--model", "builtin:nope"],
        vec!["eval", "e1", "--model", "gpt-4o-mini"],
        vec!["eval", "e1", "--run-id", "bad/id"],
        // Selection flags the environment cannot take are usage errors too,
        // whatever the dataset.
        vec!["eval", "e1", "--split", "tset"],
        vec!["eval", "e1", "-n", "0"],
        vec!["eval", "e1", "-r", "0"],
        vec![
            "eval",
            "e1",
            "--dataset",
            "synthetic:1:5",
            "--split",
            "tset",
        ],
        vec!["eval", "e1", "--dataset", "nope.jsonl", "-n", "0"],
    ] {
        let out = sb.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    assert!(!sb.path().join("outputs").exists());
}

#[test]
fn unknown_split_and_zero_examples_say_what_is_accepted() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "--split", "tset"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unknown split `tset` (E1 splits: train, dev, test, ood, all)"),
        "{}",
        stderr(&out)
    );
    let out = sb.run(&["eval", "e1", "-n", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("at least 1"), "{}", stderr(&out));
}

#[test]
fn an_empty_default_split_names_the_splits_the_file_has() {
    let sb = Sandbox::new();
    let row = |q: &str, split: &str| {
        format!(
            "{{\"question\":\"{q}\",\"answer\":\"Benign\",\"meta\":{{\"split\":\"{split}\"}}}}\n"
        )
    };
    let text: String = (0..3)
        .map(|i| row(&format!("tcp {i}"), "train"))
        .chain([row("udp 9", "dev")])
        .collect();
    sb.write("train.jsonl", &text);
    let out = sb.run(&["eval", "e1", "--dataset", "train.jsonl"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("train.jsonl: no rows in split `test`; the file has: train (3), dev (1)"),
        "{err}"
    );
    assert!(
        err.contains("hint: pass --split train or --split dev (or --split all for every row)"),
        "{err}"
    );
    assert!(!sb.path().join("outputs").exists());
    // As the hint says.
    let out = sb.run(&["eval", "e1", "--dataset", "train.jsonl", "--split", "train"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn existing_run_dir_is_refused() {
    let sb = Sandbox::new();
    assert!(sb
        .run(&["eval", "e1", "-n", "3", "--run-id", "x"])
        .status
        .success());
    let out = sb.run(&["eval", "e1", "-n", "3", "--run-id", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn shuffle_and_seed_drive_selection() {
    let sb = Sandbox::new();
    let sel = |seed: &str, id: &str| {
        let out = sb.run(&[
            "eval",
            "e1",
            "-n",
            "5",
            "--shuffle",
            "--seed",
            seed,
            "--run-id",
            id,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        read_json(&sb.path().join(run_dir_of(&out)).join("metadata.json"))["selected_sha256"]
            .clone()
    };
    assert_eq!(sel("1", "a"), sel("1", "b"));
    assert_ne!(sel("1", "c"), sel("2", "d"));
}

#[test]
fn reward_config_override_is_recorded() {
    let sb = Sandbox::new();
    sb.write("r.toml", "[v1]\ncost_fp = 0.5\n");
    let out = sb.run(&[
        "eval",
        "e1",
        "-n",
        "4",
        "--reward-config",
        "r.toml",
        "--run-id",
        "rc",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = read_json(&sb.path().join(run_dir_of(&out)).join("metadata.json"));
    assert_eq!(meta["reward_params"]["cost_fp"], 0.5);
    assert_eq!(meta["reward_config_file"]["path"], "r.toml");
    assert!(meta["reward_config_hash"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));

    sb.write("bad.toml", "[v1]\ncost_fp = 5.0\n");
    let out = sb.run(&["eval", "e1", "--reward-config", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn weights_whose_total_can_overflow_are_refused_before_any_sample() {
    let sb = Sandbox::new();
    // Each weight is finite; the largest possible total (1 + 1e308 + 1e308)
    // is not, so a sample's total would be recorded as `null`.
    sb.write(
        "huge.toml",
        "[v1]\nw_calibration = 1e308\nw_format = 1e308\n",
    );
    let out = sb.run(&[
        "eval",
        "e1",
        "--reward-config",
        "huge.toml",
        "--run-id",
        "h",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("largest possible total reward is not finite") && err.contains("`format`"),
        "{err}"
    );
    assert!(!sb.path().join("evals").exists(), "nothing is created");
}

#[test]
fn replay_rescoring_matches_the_original_run() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "--run-id", "orig"]);
    assert!(out.status.success());
    let orig = sb.path().join(run_dir_of(&out));
    let replay = format!("builtin:replay:{}", orig.join("results.jsonl").display());
    let out = sb.run(&["eval", "e1", "--model", &replay, "--run-id", "again"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let again = sb.path().join(run_dir_of(&out));
    assert!(again
        .to_string_lossy()
        .contains("sv-env-network-logs--replay"));
    let a = results(&orig);
    let b = results(&again);
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["example_id"], y["example_id"]);
        assert_eq!(x["reward"], y["reward"]);
        assert_eq!(x["parse"], y["parse"]);
    }
    let meta = read_json(&again.join("metadata.json"));
    assert_eq!(meta["baseline_type"], "replay");
    assert!(meta["replay_source"]["sha256"].is_string());
}

#[test]
fn replay_accepts_upstream_string_completions_and_reports_missing_ids() {
    let sb = Sandbox::new();
    sb.write(
        "d.jsonl",
        "{\"question\":\"q1\",\"answer\":\"Malicious\",\"meta\":{\"hash\":\"h1\"}}\n\
         {\"question\":\"q2\",\"answer\":\"Benign\",\"meta\":{\"hash\":\"h2\"}}\n",
    );
    // Upstream results: completion is a string; matched here by index.
    sb.write(
        "up.jsonl",
        "{\"index\":0,\"completion\":\"```json\\n{\\\"label\\\":\\\"Malicious\\\",\\\"confidence\\\":0.9}\\n```\"}\n\
         {\"index\":1,\"completion\":\"no idea\"}\n",
    );
    let out = sb.run(&[
        "eval",
        "e1",
        "--dataset",
        "d.jsonl",
        "--model",
        "builtin:replay:up.jsonl",
        "--run-id",
        "u",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = results(&sb.path().join(run_dir_of(&out)));
    assert_eq!(recs[0]["parse"]["status"], "valid");
    assert_eq!(recs[0]["predicted_label"], "Malicious");
    assert_eq!(recs[1]["parse"]["status"], "invalid");
    assert_eq!(recs[1]["parse"]["reason"], "no_json_object");
    assert_eq!(recs[1]["reward"], 0.0);

    sb.write(
        "short.jsonl",
        "{\"example_id\":\"h1\",\"completion\":\"x\"}\n",
    );
    let out = sb.run(&[
        "eval",
        "e1",
        "--dataset",
        "d.jsonl",
        "--model",
        "builtin:replay:short.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("h2"),
        "lists the missing id: {}",
        stderr(&out)
    );
}

#[test]
fn resume_after_a_torn_write_redoes_only_missing_samples() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "-n", "20", "--run-id", "full"]);
    assert!(out.status.success());
    let full = sb.path().join(run_dir_of(&out));

    let out = sb.run(&["eval", "e1", "-n", "20", "--run-id", "cut"]);
    assert!(out.status.success());
    let cut = sb.path().join(run_dir_of(&out));
    // Simulate a crash: keep 7 records plus half of the 8th, status running.
    let text = std::fs::read_to_string(cut.join("results.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut torn = lines[..7].join("\n");
    torn.push('\n');
    torn.push_str(&lines[7][..lines[7].len() / 2]);
    std::fs::write(cut.join("results.jsonl"), torn).unwrap();
    std::fs::remove_file(cut.join("summary.json")).unwrap();
    let mut meta = read_json(&cut.join("metadata.json"));
    meta["status"] = Value::from("running");
    std::fs::write(cut.join("metadata.json"), meta.to_string()).unwrap();

    let out = sb.run(&["eval", "e1", "--resume", cut.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("truncated 1"), "{}", stderr(&out));
    let recs = results(&cut);
    assert_eq!(recs.len(), 20, "exactly one record per key");
    let mut ids: Vec<_> = recs
        .iter()
        .map(|r| r["example_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20);
    let meta = read_json(&cut.join("metadata.json"));
    assert_eq!(meta["status"], "completed");
    // Same metrics as the uninterrupted run.
    let a = read_json(&full.join("summary.json"));
    let b = read_json(&cut.join("summary.json"));
    assert_eq!(a["metrics"], b["metrics"]);

    // Contradicting flags are refused with a diff.
    let out = sb.run(&[
        "eval",
        "e1",
        "--resume",
        cut.to_str().unwrap(),
        "--seed",
        "7",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("seed"), "{}", stderr(&out));
}

#[test]
fn several_models_run_one_after_another() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e1",
        "-n",
        "3",
        "--model",
        "builtin:heuristic",
        "--model",
        "builtin:oracle",
        "--run-id",
        "multi",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dirs: Vec<_> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(dirs.len(), 2, "one run directory per model");
    assert!(dirs[0].contains("--heuristic/multi"));
    assert!(dirs[1].contains("--oracle/multi"));
    for d in dirs {
        assert_eq!(results(&sb.path().join(d)).len(), 3);
    }
}

/// A finished 5-sample run whose results.jsonl is then rewritten by `edit`.
fn run_with_edited_results(
    sb: &Sandbox,
    id: &str,
    edit: impl Fn(Vec<String>) -> Vec<String>,
) -> PathBuf {
    let out = sb.run(&["eval", "e1", "-n", "5", "--run-id", id]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = sb.path().join(run_dir_of(&out));
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let lines = edit(text.lines().map(str::to_string).collect());
    std::fs::write(dir.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}

#[test]
fn resume_and_report_refuse_foreign_duplicated_and_damaged_records() {
    let sb = Sandbox::new();
    let foreign = run_with_edited_results(&sb, "foreign", |mut lines| {
        let mut rec: Value = serde_json::from_str(&lines[0]).unwrap();
        rec["example_id"] = Value::from("not-in-the-selection");
        lines.push(rec.to_string());
        lines
    });
    let duplicate = run_with_edited_results(&sb, "dup", |mut lines| {
        lines.push(lines[1].clone());
        lines
    });
    let damaged = run_with_edited_results(&sb, "damaged", |mut lines| {
        lines[2] = "{\"example_id\": oops".into();
        lines
    });
    for (dir, needle) in [
        (
            &foreign,
            "line 6: sample `not-in-the-selection` rollout 0 is not in this run's selection",
        ),
        (&duplicate, "line 6 records sample"),
        (&damaged, "line 3 is not a valid result record"),
    ] {
        let before = std::fs::read(dir.join("results.jsonl")).unwrap();
        let out = sb.run(&["eval", "e1", "--resume", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{needle}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(dir.join("results.jsonl")).unwrap(),
            before,
            "a refused resume leaves results.jsonl alone"
        );
        assert_eq!(
            read_json(&dir.join("metadata.json"))["counts"]["completed"],
            5
        );
    }
    // The report refuses what the run directory alone proves wrong: a
    // duplicate, a damaged line, more samples than planned.
    for dir in [&foreign, &duplicate, &damaged] {
        for check in [true, false] {
            let mut args = vec!["report", dir.to_str().unwrap()];
            if check {
                args.insert(1, "--check");
            }
            let out = sb.run(&args);
            assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        }
    }
    let out = sb.run(&["report", "--check", duplicate.to_str().unwrap()]);
    assert!(
        stderr(&out).contains("line 1 already recorded it without error")
            || stderr(&out).contains("line 2 already recorded it without error"),
        "{}",
        stderr(&out)
    );
    // A foreign record that does not push the count past `planned` (as in a
    // partial run) is refused by the report too: the run recorded its
    // selection in selected_ids.jsonl.
    let swapped = run_with_edited_results(&sb, "swapped", |mut lines| {
        let mut rec: Value = serde_json::from_str(&lines[0]).unwrap();
        rec["example_id"] = Value::from("from-another-run");
        lines[0] = rec.to_string();
        lines
    });
    let out = sb.run(&["report", "--check", swapped.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("line 1: sample `from-another-run` rollout 0 is not in this run's selection"),
        "{}",
        stderr(&out)
    );
    // A run directory from before the file existed is checked without it.
    std::fs::remove_file(swapped.join("selected_ids.jsonl")).unwrap();
    let out = sb.run(&["report", swapped.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_row_over_the_maximum_row_size_is_refused_naming_file_and_line() {
    let sb = Sandbox::new();
    // Good rows of each environment, then one single-line row of 17 MiB
    // (past the 16 MiB maximum): refused once the limit is read.
    for env in ["e1", "e4"] {
        let good = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../../datasets/{env}/test.jsonl")),
        )
        .unwrap();
        let mut text: String = good.lines().take(30).map(|l| format!("{l}\n")).collect();
        text.push_str(&format!(
            "{{\"question\": \"q\", \"answer\": \"{}\"}}\n",
            "x".repeat(17 << 20)
        ));
        let name = format!("{env}-big.jsonl");
        sb.write(&name, &text);
        drop(text);
        let out = sb.run(&[
            "eval",
            env,
            "--dataset",
            &name,
            "--split",
            "all",
            "--run-id",
            env,
        ]);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{name}:31")) && err.contains("maximum row size of 16 MiB"),
            "{env}: {err}"
        );
    }
}
