//! `svbench eval --few-shot K`: worked examples from the train split with
//! the oracle's answers before every prompt — what the endpoint receives,
//! what metadata records, and how resume, scoreboards and compare tell a
//! few-shot run from a zero-shot one.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;
use svbench_fakeai::{FakeServer, Script, Step};

fn run_dir(sb: &Sandbox, out: &Output) -> PathBuf {
    sb.path().join(stdout(out).lines().last().unwrap().trim())
}

fn eval_model(sb: &Sandbox, server: &FakeServer, extra: &[&str]) -> Output {
    let url = server.base_url();
    let mut args = vec![
        "eval",
        "e1",
        "--model",
        "fake-model",
        "--base-url",
        url.as_str(),
        "--no-progress",
        "--no-cache",
    ];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(&args)
        .current_dir(sb.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn the_endpoint_sees_k_train_examples_with_oracle_answers_before_each_task() {
    let test_gold = e1_gold_by_question("test");
    let train_gold = e1_gold_by_question("train");
    let answers = test_gold.clone();
    let server = FakeServer::start(Script::from_fn(move |body: &Value| {
        let q = svbench_fakeai::last_user_text(body).unwrap_or_default();
        let label = answers.get(q.as_ref()).map_or("Benign", String::as_str);
        Step::content(format!("{{\"label\":\"{label}\",\"confidence\":0.9}}"))
    }));
    let sb = Sandbox::new();
    let out = eval_model(
        &sb,
        &server,
        &["--few-shot", "3", "--split", "test", "-n", "5"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = run_dir(&sb, &out);

    let meta = read_json(&dir.join("metadata.json"));
    let shots = &meta["few_shot"];
    assert_eq!(shots["k"], 3);
    assert_eq!(shots["split"], "train");
    assert_eq!(shots["answers"], "builtin:oracle");
    assert_eq!(shots["example_ids"].as_array().unwrap().len(), 3);
    assert_eq!(shots["sha256"].as_str().unwrap().len(), 64);

    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    let first = requests[0].messages().to_vec();
    // system, then three (user, assistant) pairs, then the task.
    let roles: Vec<&str> = first.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
    for pair in first[1..7].chunks(2) {
        let question = pair[0]["content"].as_str().unwrap();
        let label = train_gold
            .get(question)
            .unwrap_or_else(|| panic!("a worked example not from train: {question}"));
        assert!(!test_gold.contains_key(question), "a test row shown");
        let answer: Value = serde_json::from_str(pair[1]["content"].as_str().unwrap()).unwrap();
        assert_eq!(answer["label"], label.as_str(), "the oracle's answer");
    }
    // Every task gets the same worked examples; its own flow comes last.
    let recs = results(&dir);
    for (request, rec) in requests.iter().zip(&recs) {
        assert_eq!(request.messages()[..7], first[..7]);
        assert!(test_gold.contains_key(request.last_user_text().unwrap().as_ref()));
        assert_eq!(
            rec["prompt"].as_array().unwrap().len(),
            8,
            "records keep the prompt sent"
        );
    }
}

#[test]
fn few_shot_refuses_the_train_split_and_too_many_examples() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "--few-shot", "2", "--split", "train"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot evaluate split `train`"),
        "{}",
        stderr(&out)
    );
    let out = sb.run(&["eval", "e1", "--few-shot", "2", "--split", "all"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = sb.run(&["eval", "e1", "--few-shot", "17", "--split", "test"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("0..=16"), "{}", stderr(&out));
    // Nothing was written by a refused run.
    assert!(!sb.path().join("outputs").exists());
}

fn heuristic(sb: &Sandbox, id: &str, extra: &[&str]) -> PathBuf {
    let mut args = vec!["eval", "e1", "--split", "test", "-n", "6", "--run-id", id];
    args.extend_from_slice(extra);
    let out = sb.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    sb.path().join(text.lines().last().unwrap().trim())
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn resume_scoreboard_and_compare_keep_few_shot_runs_apart() {
    let sb = Sandbox::new();
    let zero = heuristic(&sb, "zero", &[]);
    let two = heuristic(&sb, "two", &["--few-shot", "2"]);
    assert!(read_json(&zero.join("metadata.json"))
        .get("few_shot")
        .is_none());

    // Resume with another K is a contradiction.
    let out = sb.run(&["eval", "e1", "--resume", path(&two), "--few-shot", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("few_shot: run has 2, flag says 3"),
        "{}",
        stderr(&out)
    );

    // One scoreboard row each, the few-shot one named for its K.
    let boards = sb.path().join("boards");
    for run in [&zero, &two] {
        let out = sb.run(&[
            "scoreboard",
            "--env",
            "e1",
            path(run),
            "--out-dir",
            path(&boards),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let board = read_json(&boards.join("e1_scoreboard.json"));
    let names: Vec<&str> = board
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["baseline"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"builtin:heuristic"), "{names:?}");
    assert!(names.contains(&"builtin:heuristic (2-shot)"), "{names:?}");

    // Zero-shot against few-shot is not a matched comparison...
    let out = sb.run(&["compare", path(&zero), path(&two)]);
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("few_shot differs"),
        "{}",
        stderr(&out)
    );
    // ...unless the number of worked examples is what is varied.
    let out = sb.run(&["compare", path(&zero), path(&two), "--vary", "few_shot"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
