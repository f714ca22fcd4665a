//! `run_manifest.json` written by `eval` (fresh and resumed) and `report`,
//! and `svbench manifest validate` (harness §1.2, §5.4).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;
use svbench_fakeai::{FakeServer, Script, Step};

fn run_dir_of(sb: &Sandbox, out: &std::process::Output) -> PathBuf {
    let text = stdout(out);
    sb.path()
        .join(text.lines().last().expect("eval prints the run dir").trim())
}

fn manifest(dir: &Path) -> Value {
    read_json(&dir.join("run_manifest.json"))
}

fn sha256_of(path: &Path) -> String {
    svbench_core::canonical::sha256_hex(&std::fs::read(path).expect("read"))
}

#[test]
fn builtin_run_writes_a_manifest_from_its_metadata() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e1",
        "-n",
        "5",
        "--run-id",
        "m1",
        "--notes",
        "first look",
        "--budget-group",
        "g1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let m = manifest(&dir);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(m["run_id"], "m1");
    assert_eq!(m["run_id"], meta["run_id"]);
    assert_eq!(m["timestamp_utc"], meta["timestamp"]);
    assert_eq!(m["environment_id"], "sv-env-network-logs");
    assert_eq!(m["environment_version"], meta["env_version"]);
    assert_eq!(m["dataset_id"], "embedded");
    assert_eq!(m["dataset_revision"], meta["dataset_revision"]);
    assert_eq!(m["split"], "test");
    assert_eq!(m["model_id"], "heuristic");
    assert_eq!(
        m["model_revision_or_digest"],
        format!("builtin:heuristic+svbench-{}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(m["reward_config_id"], "e1:v1");
    assert_eq!(m["reward_config_hash"], meta["reward_config_hash"]);
    assert_eq!(m["reward_source"], "executable");
    assert_eq!(m["sampling_params"], meta["sampling_params"]);
    assert_eq!(m["seed"], 42);
    assert_eq!(m["platform_mode"], "local");
    assert_eq!(m["trainer"], "none");
    assert_eq!(m["max_steps"], 0);
    for k in [
        "rollouts_per_example",
        "max_tokens",
        "max_turns",
        "tool_budget",
    ] {
        assert_eq!(m[k], meta[k], "{k}");
    }
    assert_eq!(m["notes"], "first look");
    assert_eq!(m["budget_group"], "g1");
    assert!(
        m.get("team").is_none(),
        "hosted fields absent for local runs"
    );
    // The full build commit, or `unknown` for a build without git.
    let sha = m["git_sha"].as_str().unwrap();
    assert!(
        sha == "unknown"
            || (sha.len() == 40 && sha.starts_with(meta["git_commit"].as_str().unwrap())),
        "{sha}"
    );
    // A build without git (e.g. from a source tarball) records null.
    match meta["git_sha"].as_str() {
        Some(full) => assert_eq!(sha, full),
        None => assert_eq!(sha, "unknown"),
    }
    // Paths are relative to the manifest and exist; output hashes match.
    for (k, name) in [
        ("metrics_summary_path", "summary.json"),
        ("results_jsonl_path", "results.jsonl"),
        ("metadata_json_path", "metadata.json"),
    ] {
        assert_eq!(m[k], name);
        assert!(dir.join(m[k].as_str().unwrap()).is_file(), "{k}");
    }
    let outputs = m["output_artifacts"].as_array().unwrap();
    let roles: Vec<&str> = outputs
        .iter()
        .map(|a| a["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles[..5],
        ["results", "metadata", "summary", "report", "report_html"]
    );
    assert!(roles.len() > 5, "plots are listed");
    assert!(roles[5..].iter().all(|r| *r == "plot"), "{roles:?}");
    for a in outputs {
        let p = dir.join(a["path"].as_str().unwrap());
        assert_eq!(
            a["sha256"].as_str().unwrap(),
            sha256_of(&p),
            "{}",
            p.display()
        );
    }
    let inputs = m["input_artifacts"].as_array().unwrap();
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["role"], "dataset");
    assert_eq!(inputs[0]["sha256"], meta["dataset_sha256"]);

    let v = sb.run(&[
        "manifest",
        "validate",
        dir.join("run_manifest.json").to_str().unwrap(),
    ]);
    assert_eq!(v.status.code(), Some(0), "{}{}", stdout(&v), stderr(&v));
    assert!(stdout(&v).starts_with("✓ "), "{}", stdout(&v));
}

#[test]
fn report_regenerates_the_manifest_and_resume_rewrites_it() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "-n", "6", "--run-id", "r1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let first = manifest(&dir);

    std::fs::remove_file(dir.join("run_manifest.json")).unwrap();
    let rep = sb.run(&["report", dir.to_str().unwrap()]);
    assert!(rep.status.success(), "{}", stderr(&rep));
    assert!(
        stdout(&rep).contains("run_manifest.json"),
        "{}",
        stdout(&rep)
    );
    let again = manifest(&dir);
    for k in [
        "run_id",
        "git_sha",
        "dataset_revision",
        "model_revision_or_digest",
        "reward_config_hash",
    ] {
        assert_eq!(first[k], again[k], "{k}");
    }

    // Crash after 3 records: resume finishes the run and rewrites the
    // manifest over the completed results.
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let kept: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("results.jsonl"), kept).unwrap();
    std::fs::remove_file(dir.join("run_manifest.json")).unwrap();
    let mut meta = read_json(&dir.join("metadata.json"));
    meta["status"] = Value::from("running");
    std::fs::write(dir.join("metadata.json"), meta.to_string()).unwrap();
    let out = sb.run(&["eval", "e1", "--resume", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let resumed = manifest(&dir);
    let results = resumed["output_artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["role"] == "results")
        .unwrap();
    assert_eq!(
        results["sha256"].as_str().unwrap(),
        sha256_of(&dir.join("results.jsonl"))
    );
    assert_eq!(resumed["run_id"], "r1");

    // `report --out` writes paths relative to the manifest's directory.
    let rep = sb.run(&["report", dir.to_str().unwrap(), "--out", "elsewhere/r1"]);
    assert!(rep.status.success(), "{}", stderr(&rep));
    let moved_dir = sb.path().join("elsewhere/r1");
    let moved = manifest(&moved_dir);
    assert_eq!(moved["metrics_summary_path"], "summary.json");
    let meta_rel = moved["metadata_json_path"].as_str().unwrap();
    assert!(meta_rel.starts_with("../../outputs/"), "{meta_rel}");
    assert!(moved_dir.join(meta_rel).is_file());
}

#[test]
fn a_trained_model_records_its_trainer_and_steps_and_compare_checks_them() {
    let sb = Sandbox::new();
    let flags = |id: &'static str, trainer: &'static str, steps: &'static str| {
        let mut a = vec!["eval", "e1", "-n", "4", "--run-id", id];
        if !trainer.is_empty() {
            a.extend(["--trainer", trainer, "--max-steps", steps]);
        }
        a
    };
    let out = sb.run(&flags("g1", "grpo", "40"));
    assert!(out.status.success(), "{}", stderr(&out));
    let grpo = run_dir_of(&sb, &out);
    let m = manifest(&grpo);
    assert_eq!(m["trainer"], "grpo");
    assert_eq!(m["max_steps"], 40);

    // `none` is what an untrained model records; steps need a trainer.
    for bad in [
        flags("x", "none", "3"),
        vec!["eval", "e1", "-n", "4", "--max-steps", "3"],
        flags("x", "ppo", "3"),
    ] {
        let out = sb.run(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
    }

    // A different trainer or step count is a parity field of compare.
    let out = sb.run(&flags("d1", "distillation", "40"));
    assert!(out.status.success(), "{}", stderr(&out));
    let distilled = run_dir_of(&sb, &out);
    let (a, b) = (grpo.to_str().unwrap(), distilled.to_str().unwrap());
    let out = sb.run(&["compare", a, b]);
    // 5: the runs do not match.
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(stderr(&out).contains("trainer differs"), "{}", stderr(&out));
    let out = sb.run(&["compare", a, b, "--vary", "trainer"]);
    assert!(out.status.success(), "{}", stderr(&out));

    // Resume refuses a changed training record.
    let mut meta = read_json(&grpo.join("metadata.json"));
    meta["status"] = Value::from("running");
    std::fs::write(grpo.join("metadata.json"), meta.to_string()).unwrap();
    let out = sb.run(&[
        "eval",
        "e1",
        "--resume",
        a,
        "--trainer",
        "grpo",
        "--max-steps",
        "41",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("training: run has grpo for 40 steps, now grpo for 41 steps"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn model_run_records_the_observed_response_model_and_fingerprint() {
    let server = FakeServer::start(Script::always(Step::content(
        "{\"label\":\"Benign\",\"confidence\":0.6}",
    )));
    let sb = Sandbox::new();
    let url = server.base_url();
    let out = Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args([
            "eval",
            "e1",
            "--model",
            "fake-model",
            "--base-url",
            url.as_str(),
            "--api-key-env",
            "SVB_TEST_KEY",
            "--no-progress",
            "--no-cache",
            "-n",
            "3",
            "--run-id",
            "fm",
        ])
        .current_dir(sb.path())
        .env("SVB_TEST_KEY", "sk-test")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let m = manifest(&dir);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(m["model_id"], "fake-model");
    // svbench-fakeai echoes the request model and reports a fixed fingerprint.
    assert_eq!(
        m["model_revision_or_digest"],
        "fake-model+fp_svbench_fakeai"
    );
    assert_eq!(m["sampling_params"], meta["sampling_params"]);
    assert!(!m["sampling_params"].as_object().unwrap().is_empty());
    let v = sb.run(&[
        "manifest",
        "validate",
        dir.join("run_manifest.json").to_str().unwrap(),
    ]);
    assert_eq!(v.status.code(), Some(0), "{}{}", stdout(&v), stderr(&v));
}

#[test]
fn validate_rejects_bad_manifests_with_reasons() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "-n", "2", "--run-id", "v1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let good = manifest(&dir);

    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("dataset_revision");
    let mut bad_enum = good.clone();
    bad_enum["trainer"] = Value::from("ppo");
    let mut hosted = good.clone();
    for (k, v) in [
        ("platform_mode", "hosted"),
        ("prime_run_id", "p-1"),
        ("compute_profile", "a100x1"),
        ("platform_image", "img:1"),
        ("adapter_id", "ad-1"),
    ] {
        hosted[k] = Value::from(v);
    }
    let mut hosted_ok = hosted.clone();
    hosted_ok["team"] = Value::from("red");
    let files = [
        ("missing.json", missing.to_string()),
        ("enum.json", bad_enum.to_string()),
        ("hosted.json", hosted.to_string()),
        ("hosted_ok.json", hosted_ok.to_string()),
        ("broken.json", "{\"run_id\":".to_string()),
    ];
    for (name, text) in &files {
        sb.write(name, text);
    }
    let good_path = dir.join("run_manifest.json");
    let v = sb.run(&[
        "manifest",
        "validate",
        good_path.to_str().unwrap(),
        "missing.json",
        "enum.json",
        "hosted.json",
        "hosted_ok.json",
        "broken.json",
        "absent.json",
    ]);
    assert_eq!(v.status.code(), Some(6), "{}{}", stdout(&v), stderr(&v));
    let text = stdout(&v);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[0].starts_with("✓ "), "{text}");
    assert!(
        lines[1].starts_with("✗ missing.json: ") && lines[1].contains("dataset_revision"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("✗ enum.json: ")
            && lines[2].contains("ppo")
            && lines[2].contains("/trainer"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("✗ hosted.json: ") && lines[3].contains("team"),
        "{text}"
    );
    assert_eq!(lines[4], "✓ hosted_ok.json", "{text}");
    assert!(
        lines[5].starts_with("✗ broken.json: not valid JSON"),
        "{text}"
    );
    assert!(lines[6].starts_with("✗ absent.json: cannot read"), "{text}");

    // An empty hosted field fails as well.
    hosted_ok["team"] = Value::from("");
    sb.write("hosted_empty.json", &hosted_ok.to_string());
    let v = sb.run(&["manifest", "validate", "hosted_empty.json"]);
    assert_eq!(v.status.code(), Some(6));
    assert!(stdout(&v).contains("team"), "{}", stdout(&v));

    // No path is a usage error.
    let v = sb.run(&["manifest", "validate"]);
    assert_eq!(v.status.code(), Some(2));
}

/// A reader that goes away (`svbench … | head -1`) ends the command quietly
/// with exit 0, never with a panic: both for line-by-line output
/// (`manifest validate`) and for streamed output (`data gen` to stdout).
#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e1", "-n", "2", "--run-id", "pipe"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = run_dir_of(&sb, &out).join("run_manifest.json");
    let manifest = manifest.to_str().unwrap();
    // Far more output than a pipe buffers, so the writer meets the closed end.
    let many: Vec<&str> = std::iter::repeat_n(manifest, 4000).collect();
    let validate: Vec<&str> = [&["manifest", "validate"][..], &many].concat();
    let gen = ["data", "gen", "e1", "--split", "test", "-n", "3000"];
    for args in [validate, gen.to_vec()] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_svbench"))
            .args(&args)
            .current_dir(sb.path())
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn svbench");
        let mut first = [0u8; 8];
        child
            .stdout
            .take()
            .unwrap()
            .read_exact(&mut first)
            .expect("some output before the reader leaves");
        // The read end is dropped here: the pipe is closed.
        let out = child.wait_with_output().expect("wait");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{}: {err}", args[0]);
        assert!(!err.contains("panicked"), "{}: {err}", args[0]);
    }
}

#[test]
fn training_config_and_budget_hashes_are_recorded_and_a_budget_difference_is_no_match() {
    // A tiny model trained 8 tokens a step and a real one trained 48 tokens
    // a step share trainer and steps; only the budget hash tells them apart.
    let sb = Sandbox::new();
    let (config_a, config_b, budget_a, budget_b) = (
        "a".repeat(64),
        "b".repeat(64),
        "c".repeat(64),
        "D".repeat(64),
    );
    let run = |id: &str, config: &str, budget: &str| {
        let out = sb.run(&[
            "eval",
            "e1",
            "-n",
            "4",
            "--run-id",
            id,
            "--trainer",
            "grpo",
            "--max-steps",
            "40",
            "--training-config-sha256",
            config,
            "--training-budget-sha256",
            budget,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        run_dir_of(&sb, &out)
    };
    let a = run("a", &config_a, &budget_a);
    let m = manifest(&a);
    assert_eq!(m["training_config_sha256"], config_a.as_str());
    assert_eq!(m["training_budget_sha256"], budget_a.as_str());

    // Two variants of one study: other learning settings, the same budget.
    let b = run("b", &config_b, &budget_a);
    let (pa, pb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = sb.run(&["compare", pa, pb]);
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("training_config_sha256 differs"),
        "{}",
        stderr(&out)
    );
    let out = sb.run(&["compare", pa, pb, "--vary", "training_config_sha256"]);
    assert!(out.status.success(), "{}", stderr(&out));

    // Another budget is no match even when the config hash is varied.
    let c = run("c", &config_b, &budget_b);
    let out = sb.run(&[
        "compare",
        pa,
        c.to_str().unwrap(),
        "--vary",
        "training_config_sha256",
    ]);
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("training_budget_sha256 differs"),
        "{}",
        stderr(&out)
    );

    // Not a hash, or a hash without --trainer: usage errors.
    for bad in [
        vec![
            "eval",
            "e1",
            "-n",
            "4",
            "--trainer",
            "grpo",
            "--max-steps",
            "1",
            "--training-config-sha256",
            "abc",
        ],
        vec![
            "eval",
            "e1",
            "-n",
            "4",
            "--training-budget-sha256",
            &budget_a,
        ],
    ] {
        let out = sb.run(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
    }
}
