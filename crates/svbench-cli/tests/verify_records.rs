//! `svbench report --verify`: records are evidence. Every record is checked
//! against the dataset its run recorded and re-scored from its stored
//! transcript; a forged reward, question, gold, completion, parse or tool
//! result is named by line, id and field. `eval --resume` refuses a kept
//! record whose row differs from the dataset's.

mod common;

use std::path::{Path, PathBuf};

use common::{read_json, results, stderr, Sandbox};
use serde_json::Value;

fn run(sb: &Sandbox, args: &[&str]) -> PathBuf {
    let out = sb.run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    sb.path()
        .join(stdout.lines().last().expect("run dir").trim())
}

/// A copy of `dir` named `name` whose results.jsonl records are edited.
fn forged(dir: &Path, name: &str, edit: impl Fn(usize, &mut Value)) -> PathBuf {
    let copy = dir.with_file_name(name);
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
        }
    }
    let lines: String = results(dir)
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            edit(i, &mut r);
            format!("{r}\n")
        })
        .collect();
    std::fs::write(copy.join("results.jsonl"), lines).unwrap();
    copy
}

/// An edit of one record.
type Edit = Box<dyn Fn(&mut Value)>;

fn verify(sb: &Sandbox, dir: &Path) -> (Option<i32>, String) {
    let out = sb.run(&["report", "--verify", dir.to_str().unwrap()]);
    (out.status.code(), stderr(&out))
}

fn assert_passes(sb: &Sandbox, dir: &Path, records: usize) {
    let (code, err) = verify(sb, dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(&format!("{records} record(s) match")), "{err}");
}

/// Exit 6, naming the line, the example id and the field.
fn assert_names(sb: &Sandbox, dir: &Path, line: usize, field: &str) {
    let id = results(dir)[line - 1]["example_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, err) = verify(sb, dir);
    assert_eq!(code, Some(6), "{field}: {err}");
    let needle =
        format!("results.jsonl line {line} (example `{id}`, rollout 0): `{field}` differs");
    assert!(err.contains(&needle), "want {needle:?} in: {err}");
}

#[test]
fn e1_untouched_passes_and_every_forged_field_is_named() {
    let sb = Sandbox::new();
    let dir = run(
        &sb,
        &["eval", "e1", "-n", "20", "--no-progress", "--run-id", "r"],
    );
    assert_passes(&sb, &dir, 20);
    // The issue's forgery: every reward set to the maximum. `--check`
    // recomputes the summary from the records and cannot tell; `--verify`
    // re-scores them.
    let max = forged(&dir, "max", |_, r| {
        r["reward"] = Value::from(2.0);
        r["rewards"] = serde_json::json!({"utility": 1.0, "calibration": 1.0, "format": 1.0});
    });
    let first_lower = results(&dir)
        .iter()
        .position(|r| r["reward"].as_f64() != Some(2.0))
        .unwrap();
    assert_names(&sb, &max, first_lower + 1, "reward");
    // One forgery per field, on a late line of 20: the first differing
    // record is named, not merely "something changed".
    let gold_of = |r: &Value| r["answer"].as_str().unwrap().to_string();
    let other = |label: &str| {
        if label == "Malicious" {
            "Benign"
        } else {
            "Malicious"
        }
    };
    let cases: Vec<(&str, Edit)> = vec![
        (
            "reward",
            Box::new(|r| r["reward"] = Value::from(r["reward"].as_f64().unwrap() + 0.5)),
        ),
        (
            "rewards.utility",
            Box::new(|r| r["rewards"]["utility"] = Value::from(7.0)),
        ),
        (
            "question",
            Box::new(|r| r["question"] = Value::from("benign ping")),
        ),
        (
            "answer",
            Box::new(move |r| r["answer"] = Value::from(other(&gold_of(r)))),
        ),
        (
            "info.meta.scenario",
            Box::new(|r| r["info"]["meta"]["scenario"] = Value::from("x")),
        ),
        (
            "completion",
            Box::new(|r| r["completion"] = Value::from("{\"label\":\"Benign\"}")),
        ),
        (
            "parsed.label",
            Box::new(move |r| {
                let label = r["parsed"]["label"].as_str().unwrap().to_string();
                r["parsed"]["label"] = Value::from(other(&label));
            }),
        ),
        (
            // The transcript itself: a different answer re-scores differently.
            "reward",
            Box::new(move |r| {
                let gold = gold_of(r);
                let answer = format!("{{\"label\":\"{}\",\"confidence\":1.0}}", other(&gold));
                r["completion"] = Value::from(answer.clone());
                r["completion_messages"][0]["content"] = Value::from(answer);
            }),
        ),
    ];
    for (n, (field, edit)) in cases.iter().enumerate() {
        let target = 13;
        let dir = forged(&dir, &format!("f{n}"), |i, r| {
            if i == target {
                edit(r);
            }
        });
        let field = if *field == "info.meta.scenario" {
            // A row field outside question and answer is named as `info`.
            "info"
        } else {
            field
        };
        assert_names(&sb, &dir, target + 1, field);
    }
    // `--check` alone still passes on the forged run (it recomputes the
    // summary from the records); with `--verify` it fails.
    let out = sb.run(&["report", "--check", "--verify", max.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
}

#[test]
fn errored_records_carry_no_score_and_a_scored_record_needs_its_transcript() {
    let sb = Sandbox::new();
    let dir = run(
        &sb,
        &["eval", "e1", "-n", "8", "--no-progress", "--run-id", "r"],
    );
    let error = serde_json::json!({"kind": "timeout", "message": "m", "http_status": null,
                                   "attempts": 1, "retryable": true});
    // A timed-out sample has no transcript: verified as an error.
    let errored = forged(&dir, "errored", |i, r| {
        if i == 2 {
            r["error"] = error.clone();
            r["reward"] = Value::Null;
            r["rewards"] = serde_json::json!({});
            r["completion_messages"] = serde_json::json!([]);
        }
    });
    let (code, err) = verify(&sb, &errored);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("(7 re-scored, 1 errored)"), "{err}");
    // An errored record that keeps a reward is named.
    let scored_error = forged(&dir, "scored-error", |i, r| {
        if i == 2 {
            r["error"] = error.clone();
        }
    });
    assert_names(&sb, &scored_error, 3, "reward");
    // Hiding a bad answer as a scoring error is named too: its stored
    // transcript scores.
    let hidden = forged(&dir, "hidden", |i, r| {
        if i == 2 {
            r["error"] = serde_json::json!({"kind": "internal", "message": "m",
                "http_status": null, "attempts": 0, "retryable": false});
            r["reward"] = Value::Null;
            r["rewards"] = serde_json::json!({});
        }
    });
    assert_names(&sb, &hidden, 3, "error");
    // A scored record without its transcript cannot be re-scored.
    let bare = forged(&dir, "bare", |i, r| {
        if i == 5 {
            r["completion_messages"] = serde_json::json!([]);
        }
    });
    assert_names(&sb, &bare, 6, "completion_messages");
}

#[test]
fn e2_tool_results_are_replayed_and_e4_components_rescored() {
    let sb = Sandbox::new();
    let e2 = run(
        &sb,
        &[
            "eval",
            "e2",
            "-n",
            "20",
            "--model",
            "builtin:tool-only",
            "--no-progress",
            "--run-id",
            "t",
        ],
    );
    assert_passes(&sb, &e2, 20);
    let e2_upstream = run(
        &sb,
        &[
            "eval",
            "e2",
            "-n",
            "6",
            "--model",
            "builtin:tool-only",
            "--reward-profile",
            "upstream",
            "--no-progress",
            "--run-id",
            "u",
        ],
    );
    assert_passes(&sb, &e2_upstream, 6);
    // A tool result the model never got: re-running the call disagrees.
    let tool = forged(&e2, "tool", |i, r| {
        if i == 9 {
            r["completion_messages"][1]["content"] =
                Value::from("{\"tool\":\"kube-linter\",\"findings\":[]}");
        }
    });
    assert_names(&sb, &tool, 10, "completion_messages[1].content");
    let calls = forged(&e2, "calls", |i, r| {
        if i == 4 {
            r["tool_calls"] = Value::from(0);
        }
    });
    assert_names(&sb, &calls, 5, "tool_calls");
    let detection = forged(&e2, "detection", |i, r| {
        if i == 17 {
            r["rewards"]["detection"] = Value::from(1.0);
            r["rewards"]["patch"] = Value::from(1.0);
            r["reward"] = Value::from(2.05);
        }
    });
    assert_names(&sb, &detection, 18, "reward");

    let e4 = run(
        &sb,
        &["eval", "e4", "-n", "50", "--no-progress", "--run-id", "p"],
    );
    assert_passes(&sb, &e4, 50);
    let evidence = forged(&e4, "evidence", |i, r| {
        if i == 41 {
            r["rewards"]["utility"] = Value::from(-1.0);
        }
    });
    assert_names(&sb, &evidence, 42, "rewards.utility");
}

#[test]
fn inputs_that_differ_from_the_recorded_ones_are_refused() {
    let sb = Sandbox::new();
    let rows: String = results(&run(
        &sb,
        &["eval", "e1", "-n", "4", "--no-progress", "--run-id", "a"],
    ))
    .iter()
    .map(|r| {
        let mut row = r["info"].clone();
        row["question"] = r["question"].clone();
        row["answer"] = r["answer"].clone();
        format!("{row}\n")
    })
    .collect();
    let data = sb.write("rows.jsonl", &rows);
    let dir = run(
        &sb,
        &[
            "eval",
            "e1",
            "--dataset",
            "rows.jsonl",
            "--split",
            "all",
            "--no-progress",
            "--run-id",
            "b",
        ],
    );
    assert_passes(&sb, &dir, 4);
    std::fs::write(&data, rows.replacen("Zeek", "zeek", 1)).unwrap();
    let (code, err) = verify(&sb, &dir);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("dataset rows (dataset_sha256) differs"),
        "{err}"
    );
    std::fs::remove_file(&data).unwrap();
    let (code, err) = verify(&sb, &dir);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("rows.jsonl"), "{err}");
}

#[test]
fn resume_refuses_a_kept_record_whose_row_was_edited() {
    let sb = Sandbox::new();
    let dir = run(
        &sb,
        &["eval", "e1", "-n", "12", "--no-progress", "--run-id", "r"],
    );
    for (field, line) in [("question", 4usize), ("answer", 9), ("info", 12)] {
        // Keep the first `line` records, one of them edited; the rest would
        // be re-run by the resume.
        let copy = forged(&dir, &format!("resume-{field}"), |i, r| {
            if i + 1 == line {
                match field {
                    "question" => r["question"] = Value::from("edited"),
                    "answer" => {
                        let gold = r["answer"].as_str().unwrap();
                        r["answer"] = Value::from(if gold == "Benign" {
                            "Malicious"
                        } else {
                            "Benign"
                        });
                    }
                    _ => r["info"]["meta"]["scenario"] = Value::from("edited"),
                }
                r["reward"] = Value::from(9.0);
            }
        });
        let text = std::fs::read_to_string(copy.join("results.jsonl")).unwrap();
        let kept: String = text.lines().take(line).map(|l| format!("{l}\n")).collect();
        std::fs::write(copy.join("results.jsonl"), &kept).unwrap();
        let mut meta = read_json(&copy.join("metadata.json"));
        meta["status"] = Value::from("interrupted");
        std::fs::write(copy.join("metadata.json"), meta.to_string()).unwrap();
        let out = sb.run(&[
            "eval",
            "e1",
            "--resume",
            copy.to_str().unwrap(),
            "--no-progress",
        ]);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("line {line}: the record of sample"))
                && err.contains(&format!("its `{field}` differs")),
            "{field}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(copy.join("results.jsonl")).unwrap(),
            kept,
            "a refused resume leaves results.jsonl alone"
        );
    }
}
