//! `svbench eval e2` end to end: the embedded corpus with the builtins, a
//! tool-calling episode through the fake OpenAI-compatible server, resume,
//! and the upstream public-mini file when it is present.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::{json, Value};
use svbench_core::upstream_data;
use svbench_fakeai::{FakeServer, Rule, Script, Step};

fn run_dir_of(sb: &Sandbox, out: &Output) -> PathBuf {
    let text = stdout(out);
    sb.path()
        .join(text.lines().last().expect("eval prints the run dir").trim())
}

fn approx(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-3,
        "{what}: {actual} != {expected}"
    );
}

#[test]
fn default_eval_runs_tool_only_on_the_embedded_test_split() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:tool-only",
        "--run-id",
        "t1",
        "--no-progress",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    assert!(
        dir.ends_with("outputs/evals/sv-env-config-verification--tool-only/t1"),
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
    assert_eq!(meta["environment"], "sv-env-config-verification");
    assert_eq!(meta["dataset"], "embedded");
    assert_eq!(meta["split"], "test");
    let n = meta["num_examples"].as_u64().unwrap();
    assert!(n >= 40, "the whole embedded test split: {n}");
    assert_eq!(meta["dataset_rows"], n);
    assert_eq!(meta["max_turns"], 5);
    assert_eq!(meta["tool_budget"], 3);
    assert_eq!(meta["max_tokens"], 4096);
    assert_eq!(meta["include_tools"], true);
    assert_eq!(meta["evaluation_type"], "multi-turn");
    assert_eq!(meta["effective_model"], "tool-only");
    assert_eq!(meta["env_args"]["oracle"], "dataset");
    assert_eq!(meta["env_args"]["lang"], "all");
    assert_eq!(meta["env_args"]["include_tools"], true);
    assert!(meta["dataset_file_sha256"].is_null());
    assert_eq!(meta["dataset_sha256"].as_str().map(str::len), Some(64));
    assert_eq!(meta["selected_sha256"].as_str().map(str::len), Some(64));
    assert_eq!(
        meta["selected_sha256"], meta["dataset_sha256"],
        "all rows, source order"
    );
    for tool in ["kube-linter", "semgrep", "opa"] {
        assert_eq!(meta["tool_versions"][tool]["backend"], "native", "{tool}");
        assert!(meta["tool_versions"][tool]["version"].is_string(), "{tool}");
        assert!(meta["env_provenance"]["analyzer_versions"][tool].is_object());
    }
    let recs = results(&dir);
    assert_eq!(recs.len() as u64, n);
    let mut detection = 0.0;
    for r in &recs {
        assert_eq!(r["split"], "test");
        detection += r["rewards"]["detection"].as_f64().unwrap();
        assert!(r["reward"].is_number(), "{r}");
        assert!(r["error"].is_null(), "{r}");
        let interactions = r["tool_interactions"].as_array().expect("array");
        assert!(!interactions.is_empty(), "tool-only calls tools: {r}");
        assert!(interactions.len() <= 3, "within the budget");
        for t in interactions {
            assert!(t["tool"].as_str().unwrap().starts_with("run_"), "{t}");
            assert_eq!(t["ok"], true, "{t}");
        }
        assert_eq!(r["tool_calls"].as_u64(), Some(interactions.len() as u64));
    }
    // The corpus labels are what the native analyzers find.
    approx(detection / n as f64, 1.0, "tool-only mean detection");
    // The report carries E2's metrics (spec §6), never E1's: tool-only finds
    // every label, so the fair readings are perfect.
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["counts"]["scored"], n, "{summary}");
    let fq = &summary["metrics"]["finding_quality"];
    approx(
        fq["f1_weighted_positive_only"].as_f64().unwrap(),
        1.0,
        "f1_weighted_positive_only",
    );
    approx(
        summary["e2"]["micro"]["weighted"]["f1"].as_f64().unwrap(),
        1.0,
        "micro f1",
    );
    assert!(
        summary["metrics"]["tool_economy"]["mean_tool_calls"]
            .as_f64()
            .unwrap()
            > 0.0,
        "{summary}"
    );
    assert!(summary["validity"]["f1_weighted_strict"].is_number());
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for heading in [
        "## Finding quality",
        "## Tool economy",
        "## Severity breakdown",
    ] {
        assert!(report.contains(heading), "{report}");
    }
    assert!(!report.contains("not implemented"), "{report}");
    assert!(!report.contains("Accuracy"), "{report}");

    // The run's scoreboard entry (harness §5.1): E2 columns, E2 intervals.
    let out = sb.run(&["scoreboard", "--env", "e2", dir.to_str().unwrap()]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let board = read_json(&sb.path().join("outputs/scoreboards/e2_scoreboard.json"));
    let entry = &board[0];
    assert_eq!(entry["run_id"], "t1", "{board}");
    assert_eq!(entry["baseline"], "builtin:tool-only");
    approx(
        entry["micro_f1"].as_f64().unwrap(),
        1.0,
        "scoreboard micro_f1",
    );
    approx(
        entry["upstream_compat"]["f1_weighted_positive_only"]
            .as_f64()
            .unwrap(),
        1.0,
        "scoreboard f1_weighted_positive_only",
    );
    approx(
        entry["clean_pass_rate"].as_f64().unwrap(),
        1.0,
        "scoreboard clean_pass_rate",
    );
    assert!(entry["ci95"]["micro_f1"].is_array(), "{entry}");
    assert!(entry.get("accuracy").is_none(), "{entry}");
}

#[test]
fn oracle_builtin_scores_at_least_one_everywhere() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "config-verification",
        "--model",
        "builtin:oracle",
        "-n",
        "12",
        "--shuffle",
        "--no-progress",
        "--json",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let line: Value = serde_json::from_str(stdout(&out).trim()).expect("--json line");
    let dir = sb.path().join(line["run_dir"].as_str().unwrap());
    let recs = results(&dir);
    assert_eq!(recs.len(), 12);
    for r in &recs {
        let reward = r["reward"].as_f64().expect("reward");
        assert!(reward >= 1.0, "oracle reward {reward}: {r}");
        assert_eq!(r["parse"]["status"], "valid");
    }
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["selection"]["mode"], "shuffle");
    // Reports name it an upper bound, never a baseline (spec E2 §7).
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["e2"]["policy_label"], "oracle (upper bound)");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("oracle (upper bound)"), "{report}");
}

#[test]
fn env_args_budgets_and_lang_are_applied_and_recorded() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "sv-env-config-verification",
        "--model",
        "builtin:tool-only",
        "--env-arg",
        "lang=tf",
        "--oracle",
        "live",
        "--max-turns",
        "3",
        "--tool-budget",
        "1",
        "-n",
        "3",
        "--no-progress",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["env_args"]["lang"], "tf");
    assert_eq!(meta["env_args"]["oracle"], "live");
    assert_eq!(meta["env_provenance"]["oracle"], "live");
    assert_eq!(meta["max_turns"], 3);
    assert_eq!(meta["tool_budget"], 1);
    for r in results(&dir) {
        assert_eq!(r["info"]["meta"]["lang"], "tf", "{r}");
        let n = r["tool_interactions"].as_array().unwrap().len();
        assert!(n <= 2, "budget 1 (+ one refused call at most): {n}");
    }
}

#[test]
fn usage_errors_exit_2_and_create_nothing() {
    let sb = Sandbox::new();
    for args in [
        &["eval", "e2"][..],
        &["eval", "e2", "--env-arg", "nope=1"][..],
        &["eval", "e2", "--env-arg", "oracle=maybe"][..],
        &["eval", "e2", "--oracle", "sometimes"][..],
        &["eval", "e2", "--model", "builtin:heuristic"][..],
        &["eval", "e1", "--oracle", "live"][..],
        &["eval", "e1", "--tool-budget", "2"][..],
        &["eval", "e2", "--model", "builtin:oracle", "--split", "ood"][..],
        &["eval", "e2", "--model", "builtin:oracle", "-n", "0"][..],
    ] {
        let out = sb.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    assert!(!sb.path().join("outputs").exists());
}

#[test]
fn synthetic_dataset_and_resume() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:tool-only",
        "--dataset",
        "synthetic:7:4",
        "--split",
        "dev",
        "--run-id",
        "syn",
        "--no-progress",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["split"], "dev");
    assert_eq!(meta["num_examples"], 4);
    let recs = results(&dir);
    assert_eq!(recs.len(), 4);

    // Drop two records and resume: only they are re-run.
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(dir.join("results.jsonl"), format!("{}\n", kept.join("\n"))).unwrap();
    let mut meta = meta;
    meta["status"] = Value::from("running");
    std::fs::write(dir.join("metadata.json"), meta.to_string()).unwrap();
    let out = sb.run(&[
        "eval",
        "e2",
        "--resume",
        dir.to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(results(&dir).len(), 4);
    assert_eq!(read_json(&dir.join("metadata.json"))["status"], "completed");

    // Contradicting env args are refused.
    let out = sb.run(&[
        "eval",
        "e2",
        "--resume",
        dir.to_str().unwrap(),
        "--oracle",
        "live",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("env_args"), "{}", stderr(&out));
}

/// Public-mini row 0 (`nginx-dummy.yaml`) with its seven upstream labels.
const ROW0_YAML: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx-dummy\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

const KUBE: [&str; 5] = [
    "latest-tag",
    "no-read-only-root-fs",
    "run-as-non-root",
    "unset-cpu-requirements",
    "unset-memory-requirements",
];
const SEMGREP: [&str; 2] = ["run-as-non-root", "writable-filesystem-container"];

fn sg(rule: &str) -> String {
    format!("yaml.kubernetes.security.{rule}.{rule}")
}

fn row0_file(sb: &Sandbox) -> PathBuf {
    let violations: Vec<Value> = KUBE
        .iter()
        .map(|r| json!({"tool": "kube-linter", "rule_id": r, "severity": "medium", "msg": "", "loc": ""}))
        .chain(SEMGREP.iter().map(
            |r| json!({"tool": "semgrep", "rule_id": sg(r), "severity": "INFO", "msg": "", "loc": ""}),
        ))
        .collect();
    let row = json!({"id": "row0", "question": ROW0_YAML,
        "info": {"violations": violations, "patch": null}, "meta": {"lang": "k8s"}});
    sb.write("row0.jsonl", &format!("{row}\n"))
}

fn final_answer() -> String {
    let ids: Vec<String> = KUBE
        .iter()
        .map(|r| format!("kube-linter/{r}"))
        .chain(SEMGREP.iter().map(|r| format!("semgrep/{}", sg(r))))
        .collect();
    let patch = "--- a/manifest.yaml\n+++ b/manifest.yaml\n@@ -9 +9,3 @@\n-    image: nginx\n+    image: nginx\n+    securityContext:\n+      readOnlyRootFilesystem: true\n";
    json!({
        "violations": ids.iter().map(|id| json!({"id": id, "severity": "med"})).collect::<Vec<_>>(),
        "patch": patch,
        "confidence": 0.8,
    })
    .to_string()
}

fn eval_model(sb: &Sandbox, server: &FakeServer, dataset: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args([
            "eval",
            "e2",
            "--model",
            "fake-model",
            "--base-url",
            server.base_url().as_str(),
            "--api-key-env",
            "",
            "--no-cache",
            "--no-progress",
            "--dataset",
            dataset.to_str().unwrap(),
        ])
        .current_dir(sb.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn model_episode_tool_call_then_answer_with_a_verified_patch() {
    let sb = Sandbox::new();
    let dataset = row0_file(&sb);
    let script = Script::new()
        .rule(
            Rule::any()
                .when_last_role("tool")
                .then(Step::content(final_answer())),
        )
        .rule(Rule::any().then(Step::tool_call(
            "run_kubelinter",
            r#"{"paths":["manifest.yaml"]}"#,
        )));
    let server = FakeServer::start(script);
    let out = eval_model(&sb, &server, &dataset);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);

    // The model was offered the three tools and saw the tool result.
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "tool call turn + answer turn");
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .expect("tools sent")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(tools, ["run_kubelinter", "run_semgrep", "run_opa"]);
    let second = requests[1].messages();
    let tool_msg = second.last().expect("messages");
    assert_eq!(tool_msg["role"], "tool");
    assert!(
        tool_msg["content"].as_str().unwrap().contains("latest-tag"),
        "{tool_msg}"
    );

    let recs = results(&dir);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert!(r["error"].is_null(), "{r}");
    assert_eq!(r["turns"], 2);
    // Transcript: assistant tool call, tool result, final answer.
    let msgs = r["completion_messages"].as_array().expect("messages");
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["assistant", "tool", "assistant"], "{r}");
    assert_eq!(
        msgs[0]["tool_calls"][0]["function"]["name"],
        "run_kubelinter"
    );
    assert_eq!(msgs[1]["tool_call_id"], msgs[0]["tool_calls"][0]["id"]);
    assert_eq!(r["completion"], Value::from(final_answer()));
    let ti = r["tool_interactions"].as_array().expect("interactions");
    assert_eq!(ti.len(), 1);
    assert_eq!(ti[0]["tool"], "run_kubelinter");
    assert_eq!(ti[0]["ok"], true);
    assert_eq!(r["tool_calls"], 1);

    // Rewards (spec E2 §5.2 row): detection 1, format 1, patch bonus.
    assert_eq!(r["parse"]["status"], "valid");
    assert_eq!(r["parse"]["format_ok"], true);
    assert_eq!(r["reward_profile"], "v1");
    approx(
        r["rewards"]["detection"].as_f64().unwrap(),
        1.0,
        "detection",
    );
    approx(r["rewards"]["format"].as_f64().unwrap(), 1.0, "format");
    approx(r["rewards"]["patch"].as_f64().unwrap(), 0.008, "patch");
    approx(r["reward"].as_f64().unwrap(), 1.054, "total");
    // Patch outcome, both in `parsed` and the upstream-compatible fields.
    assert_eq!(r["parsed"]["v1_patch"]["status"], "applied", "{r}");
    assert_eq!(r["parsed"]["v1_patch"]["kind"], "unified_diff");
    assert_eq!(r["patch_applied"], true);
    let post: Vec<&str> = r["post_patch_violations"]
        .as_array()
        .expect("post")
        .iter()
        .filter_map(|v| v["id"].as_str())
        .collect();
    assert!(
        !post.contains(&"kube-linter/no-read-only-root-fs"),
        "{post:?}"
    );
    assert_eq!(r["predicted_violations"].as_array().map(Vec::len), Some(7));
    assert_eq!(r["oracle_violations"].as_array().map(Vec::len), Some(7));
    assert_eq!(r["fixture_type"], "k8s");

    // Metadata: model endpoint, E2 sampling defaults (no temperature).
    let meta = read_json(&dir.join("metadata.json"));
    assert!(meta["temperature"].is_null(), "{meta}");
    assert_eq!(meta["max_tokens"], 4096);
    assert!(meta["endpoint"]["base_url"].is_string());
}

#[test]
fn public_mini_with_dataset_oracle_tool_only_detects_well() {
    let Some(file) = upstream_data::path(env!("CARGO_MANIFEST_DIR"), "public_mini/e2.jsonl") else {
        return;
    };
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:tool-only",
        "--dataset",
        file.to_str().unwrap(),
        "--split",
        "all",
        "--oracle",
        "dataset",
        "--no-progress",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["split"], "all");
    assert!(meta["dataset_file_sha256"].is_string());
    let recs = results(&dir);
    assert!(!recs.is_empty());
    let detection: Vec<f64> = recs
        .iter()
        .map(|r| r["rewards"]["detection"].as_f64().expect("detection"))
        .collect();
    let mean = detection.iter().sum::<f64>() / detection.len() as f64;
    eprintln!(
        "public_mini e2: {} rows, tool-only mean detection {mean:.4}",
        recs.len()
    );
    assert!(mean >= 0.9, "tool-only mean detection {mean}");
}

/// `--env-arg backend=external`: the tools and the live oracle run the
/// binaries on PATH (fakes using shell builtins only), the backend and the
/// binaries' versions are recorded, and a missing binary exits 2 naming it.
#[test]
fn external_backend_runs_the_binaries_and_is_recorded() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let bin = sb.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let report = r#"{"Checks":[],"Reports":[{"Diagnostic":{"Message":"resource shares the host IPC namespace"},"Check":"host-ipc","Remediation":"x","Object":{"Metadata":{"FilePath":"manifest.yaml"},"K8sObject":{"Namespace":"","Name":"x","GroupVersionKind":{"Group":"","Version":"v1","Kind":"Pod"}}}}],"Summary":{"ChecksStatus":"Failed","KubeLinterVersion":"v0.7.6"}}"#;
    for (name, body) in [
        (
            "kube-linter",
            format!("[ \"$1\" = version ] && {{ echo v0.7.6; exit 0; }}\necho '{report}'\nexit 1"),
        ),
        (
            "semgrep",
            "[ \"$1\" = --version ] && { echo 1.50.0; exit 0; }\necho '{\"results\":[],\"errors\":[]}'"
                .to_owned(),
        ),
        (
            "opa",
            "[ \"$1\" = version ] && { echo 'Version: 0.60.0'; exit 0; }\nwhile read -r _; do :; done\necho '{}'"
                .to_owned(),
        ),
    ] {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    sb.write("rules.yaml", "rules: []\n");
    let run = |path: &Path| {
        Command::new(env!("CARGO_BIN_EXE_svbench"))
            .args([
                "eval",
                "e2",
                "--model",
                "builtin:tool-only",
                "--oracle",
                "live",
                "--env-arg",
                "lang=k8s",
                "--env-arg",
                "backend=external",
                "--env-arg",
                "semgrep_config=rules.yaml",
                "-n",
                "2",
                "--no-progress",
            ])
            .current_dir(sb.path())
            .env("NO_COLOR", "1")
            .env("PATH", path)
            .output()
            .unwrap()
    };
    let out = run(&bin);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["env_args"]["backend"], "external");
    assert_eq!(meta["env_args"]["semgrep_config"], "rules.yaml");
    for (tool, version) in [
        ("kube-linter", "v0.7.6"),
        ("semgrep", "1.50.0"),
        ("opa", "Version: 0.60.0"),
    ] {
        let expected = json!({"backend": "external", "version": version});
        assert_eq!(meta["env_provenance"]["analyzer_versions"][tool], expected);
        assert_eq!(meta["tool_versions"][tool], expected);
    }
    for r in results(&dir) {
        // The live labels are the fake's one finding.
        let labels = r["info"]["info"]["violations"].as_array().unwrap();
        assert_eq!(labels.len(), 1, "{r}");
        assert_eq!(labels[0]["rule_id"], "host-ipc");
        approx(
            r["rewards"]["detection"].as_f64().unwrap(),
            1.0,
            "detection",
        );
        for t in r["tool_interactions"].as_array().unwrap() {
            assert_eq!(t["ok"], true, "{t}");
        }
    }

    let empty = sb.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = run(&empty);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("kube-linter"), "{}", stderr(&out));
}

#[test]
fn envs_lists_every_environment_with_profiles_tools_and_budgets() {
    let sb = Sandbox::new();
    let out = sb.run(&["envs", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let envs = v["envs"].as_array().expect("envs");
    let names: Vec<&str> = envs.iter().map(|e| e["name"].as_str().unwrap()).collect();
    let registered: Vec<&str> = svbench_envs::registry::REGISTRY
        .iter()
        .map(|e| e.name())
        .collect();
    assert_eq!(names, registered);
    assert_eq!(names[1], "sv-env-config-verification");
    let e2 = &envs[1];
    assert_eq!(
        (e2["max_turns"].as_u64(), e2["tool_budget"].as_u64()),
        (Some(5), Some(3))
    );
    let upstream = e2["reward_profiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "upstream")
        .expect("upstream profile");
    let comps: Vec<(String, f64)> = upstream["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["weight"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        comps,
        [
            ("reward_config_auditing".to_string(), 1.0),
            ("format_reward".to_string(), 0.05),
            ("tool_observation_reward".to_string(), 0.2)
        ]
    );
    assert_eq!(
        e2["builtin_policies"],
        serde_json::json!(["oracle", "tool-only", "replay:FILE"])
    );
    assert_eq!(e2["generators"], serde_json::json!(["sv-synth-e2"]));
    let text = sb.run(&["envs", "e1"]);
    assert!(
        stdout(&text).contains("reward_asymmetric_cost × 0.5"),
        "{}",
        stdout(&text)
    );
    let unknown = sb.run(&["envs", "e9"]);
    assert_eq!(unknown.status.code(), Some(2));
}

/// Issue 13 item 4: under `--oracle live`, a config the analyzers cannot
/// scan (a billion-laughs or too-deep manifest) is a recorded per-sample
/// error, excluded from the metrics and counted — it used to be labelled
/// clean, and `tool-only` scored 1.05 on it.
#[test]
fn live_oracle_records_an_unscannable_config_as_an_error_not_clean() {
    let sb = Sandbox::new();
    let mut laughs = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..8 {
        let p = i - 1;
        laughs.push_str(&format!(
            "  l{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"
        ));
    }
    let deep = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: deep\n  annotations:\n    a: {}{}\n",
        "[".repeat(600),
        "]".repeat(600)
    );
    let rows: String = [
        ("row0", ROW0_YAML.to_owned()),
        ("laughs", laughs),
        ("deep", deep),
    ]
    .into_iter()
    .map(|(id, q)| {
        format!(
            "{}\n",
            json!({"id": id, "question": q,
                       "info": {"violations": [], "patch": null}, "meta": {"lang": "k8s"}})
        )
    })
    .collect();
    let dataset = sb.write("live.jsonl", &rows);
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:tool-only",
        "--oracle",
        "live",
        "--dataset",
        dataset.to_str().unwrap(),
        "--max-consecutive-errors",
        "0",
        "--no-progress",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let dir = run_dir_of(&sb, &out);
    let records = results(&dir);
    assert_eq!(records.len(), 3);
    for r in &records {
        let id = r["example_id"].as_str().unwrap();
        if id == "row0" {
            assert!(r["error"].is_null(), "{r}");
            approx(r["rewards"]["detection"].as_f64().unwrap(), 1.0, id);
        } else {
            let message = r["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("live oracle"), "{id}: {r}");
            assert!(r["reward"].is_null(), "{id}: {r}");
            assert!(r["info"]["info"]["oracle_error"].is_string(), "{id}: {r}");
        }
    }
    let summary = read_json(&dir.join("summary.json"));
    let text = summary.to_string();
    assert!(
        text.contains("\"errored\":2"),
        "two errored samples counted: {summary:#}"
    );
}

/// `builtin:replay:FILE` on E2 re-executes the recorded tool calls through
/// the environment, within its turn limit and tool budget; replay records
/// keyed by `id` match; duplicates are an error naming both lines; records
/// matching nothing are a warning.
#[test]
fn replay_re_executes_recorded_tool_calls_within_the_limits() {
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:tool-only",
        "-n",
        "2",
        "--run-id",
        "src",
        "--no-progress",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let src = run_dir_of(&sb, &out);
    let original = results(&src);
    assert!(original.iter().all(|r| r["tool_calls"].as_u64() > Some(0)));
    let replay_file = src.join("results.jsonl");
    let replay = format!("builtin:replay:{}", replay_file.display());

    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        &replay,
        "-n",
        "2",
        "--run-id",
        "rp",
        "--no-progress",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let replayed = results(&run_dir_of(&sb, &out));
    for (a, b) in original.iter().zip(&replayed) {
        assert_eq!(a["example_id"], b["example_id"]);
        assert_eq!(b["turns"], a["turns"], "turns come from the replayed loop");
        assert_eq!(
            b["tool_calls"], a["tool_calls"],
            "tool calls are executed again"
        );
        assert_eq!(
            b["tool_interactions"].as_array().map(Vec::len),
            a["tool_interactions"].as_array().map(Vec::len)
        );
        assert_eq!(b["reward"], a["reward"]);
    }

    // The environment's limits apply: one turn leaves the recorded tool
    // calls pending, so the sample ends with no answer and runs no tool.
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        &replay,
        "-n",
        "2",
        "--max-turns",
        "1",
        "--run-id",
        "rp1",
        "--no-progress",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for r in results(&run_dir_of(&sb, &out)) {
        assert_eq!(r["turns"], 1);
        assert_eq!(r["tool_calls"], 0);
        assert_eq!(r["truncated"], true);
        assert_eq!(r["parse"]["status"], "no_answer");
    }

    // Records keyed by `id` only match; a record matching nothing warns.
    let text = std::fs::read_to_string(&replay_file).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for l in &mut lines {
        let obj = l.as_object_mut().unwrap();
        let id = obj.remove("example_id").unwrap();
        obj.remove("index");
        obj.insert("id".into(), id);
    }
    let mut stray = lines[0].clone();
    stray["id"] = json!("not-selected");
    lines.push(stray);
    let by_id: Vec<String> = lines.iter().map(Value::to_string).collect();
    sb.write("by_id.jsonl", &(by_id.join("\n") + "\n"));
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:replay:by_id.jsonl",
        "-n",
        "2",
        "--run-id",
        "rp2",
        "--no-progress",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 replay record(s) match no selected sample (lines 3)"),
        "{}",
        stderr(&out)
    );

    // Two usable records for one sample: an error naming both lines.
    let mut dup = by_id[..2].to_vec();
    dup.push(by_id[0].clone());
    sb.write("dup.jsonl", &(dup.join("\n") + "\n"));
    let out = sb.run(&[
        "eval",
        "e2",
        "--model",
        "builtin:replay:dup.jsonl",
        "-n",
        "2",
        "--run-id",
        "rp3",
        "--no-progress",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("dup.jsonl:3: duplicate replay record")
            && stderr(&out).contains("line 1 has it too"),
        "{}",
        stderr(&out)
    );
}
