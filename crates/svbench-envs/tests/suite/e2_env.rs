//! The E2 environment end to end (spec E2 §2, §5, §6, §7; §10 items 10 and
//! 22): prompt contents, no-answer scoring, the builtins, and a full scored
//! episode with a verified patch on public-mini row 0.

use crate::WrittenJson;
use serde_json::{json, Value};
use svbench_core::{Completion, Example, Message, ParseStatus, Role};
use svbench_envs::e2::env::{E2Args, E2Env};
use svbench_envs::e2::policy::builtin as e2_builtin;
use svbench_envs::environment::Environment;
use svbench_envs::policy::{Policy, ORACLE_LABEL};

/// Public-mini row 0 (`nginx-dummy.yaml`).
pub(crate) const ROW0_YAML: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx-dummy\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

pub(crate) const K: [&str; 5] = [
    "latest-tag",
    "no-read-only-root-fs",
    "run-as-non-root",
    "unset-cpu-requirements",
    "unset-memory-requirements",
];

fn sg(rule: &str) -> String {
    format!("yaml.kubernetes.security.{rule}.{rule}")
}

/// Row 0's seven labels as `info.violations` entries (upstream severities).
fn row0_violations() -> Vec<Value> {
    K.iter()
        .map(|r| json!({"tool": "kube-linter", "rule_id": r, "severity": "medium", "msg": "", "loc": ""}))
        .chain(
            ["run-as-non-root", "writable-filesystem-container"]
                .iter()
                .map(|r| json!({"tool": "semgrep", "rule_id": sg(r), "severity": "INFO", "msg": "", "loc": ""})),
        )
        .collect()
}

fn all7() -> Vec<String> {
    K.iter()
        .map(|r| format!("kube-linter/{r}"))
        .chain(
            ["run-as-non-root", "writable-filesystem-container"]
                .iter()
                .map(|r| format!("semgrep/{}", sg(r))),
        )
        .collect()
}

pub(crate) fn example(id: &str, question: &str, lang: &str, violations: Vec<Value>) -> Example {
    let info = json!({"info": {"violations": violations, "patch": null}, "meta": {"lang": lang}});
    Example {
        index: 0,
        id: id.into(),
        split: None,
        question: question.into(),
        answer: Value::Null,
        info: serde_json::value::RawValue::from_string(info.to_string()).expect("json"),
    }
}

pub(crate) fn row0() -> Example {
    example("row0", ROW0_YAML, "k8s", row0_violations())
}

const CLEAN_PVC: &str = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  namespace: apps\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n";

pub(crate) const TF_BUCKET: &str =
    "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"logs\"\n  acl    = \"public-read\"\n}\n";

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      hostNetwork: true\n      containers:\n      - name: api\n        image: registry.example/api:latest\n        securityContext:\n          privileged: true\n";

pub(crate) fn env(profile: &str, args: &[&str]) -> E2Env {
    E2Env::new(profile, None, E2Args::parse(args).expect("args")).expect("env")
}

pub(crate) fn answer(ids: &[String], patch: &str) -> String {
    json!({
        "violations": ids.iter().map(|id| json!({"id": id, "severity": "med"})).collect::<Vec<_>>(),
        "patch": patch,
        "confidence": 0.8,
    })
    .to_string()
}

pub(crate) fn approx(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-3,
        "{what}: {actual} != {expected}"
    );
}

/// Plays a policy through the episode the way the runner does (budget 3,
/// 5 turns), returning the transcript as recorded.
pub(crate) fn play(env: &E2Env, policy: &dyn Policy, ex: &Example) -> (Vec<Value>, usize) {
    let mut conversation = env.initial_messages(ex);
    let mut transcript = Vec::new();
    let mut episode = env.start_episode(ex);
    let mut calls_made = 0;
    for _turn in 0..5 {
        let Completion::Messages(mut msgs) = policy.respond(ex, 0, &conversation).expect("respond")
        else {
            panic!("builtins answer with messages")
        };
        let reply: Message =
            serde_json::from_value(msgs.pop().expect("one message")).expect("message");
        transcript.push(serde_json::to_value(&reply).expect("json"));
        let calls = reply.tool_calls.clone();
        conversation.push(reply);
        if calls.is_empty() {
            break;
        }
        for call in calls {
            let result = episode.call_tool(
                call["function"]["name"].as_str().expect("name"),
                call["function"]["arguments"].as_str().expect("arguments"),
            );
            calls_made += 1;
            let msg = Message {
                role: Role::Tool,
                content: Some(result.content),
                tool_calls: Vec::new(),
                tool_call_id: call["id"].as_str().map(str::to_owned),
            };
            transcript.push(serde_json::to_value(&msg).expect("json"));
            conversation.push(msg);
        }
    }
    (transcript, calls_made)
}

// ------------------------------------------------------------------ prompt

#[test]
fn prompt_names_the_labelled_namespaces_and_holds_no_oracle_data() {
    let e = env("v1", &["show_catalog=false"]);
    let msgs = e.initial_messages(&row0());
    assert_eq!(msgs.len(), 2);
    let system = msgs[0].content.clone().expect("system");
    let user = msgs[1].content.clone().expect("user");
    assert!(user.starts_with("File path: manifest.yaml\n"), "{user}");
    assert!(user.contains("Labelled namespaces: kube-linter, semgrep"));
    assert!(user.contains(ROW0_YAML.trim_end()));
    assert!(system.contains("`kube-linter`, `semgrep`"));
    for id in all7() {
        let rule = id.split_once('/').expect("full id").1;
        assert!(!system.contains(rule), "oracle id {rule} in the prompt");
    }
    for host in ["/work/", "/home/", "/tmp/", "/etc/", "../"] {
        assert!(!system.contains(host) && !user.contains(host), "{host}");
    }
    for must in [
        "budget of 3",
        "at most 5",
        "namespace/rule",
        "empty `violations` list",
        "\"confidence\"",
        "document index",
        "unified diff",
    ] {
        assert!(system.contains(must), "missing {must:?}");
    }

    // With the catalogue shown, two items with the same namespaces but
    // different labels get the same system prompt: nothing oracle-derived.
    let e = env("v1", &[]);
    let other = example("x", CLEAN_PVC, "k8s", vec![]);
    let a = e.initial_messages(&row0())[0].content.clone();
    let b = e.initial_messages(&other)[0].content.clone();
    assert_eq!(a, b);
    assert!(a.expect("prompt").contains("kube-linter/latest-tag (med)"));
    // Live mode labels all three namespaces for k8s, opa for tf.
    let live = env("v1", &["oracle=live"]);
    let tf = example("tf", TF_BUCKET, "tf", vec![]);
    assert!(live.initial_messages(&row0())[1]
        .content
        .as_deref()
        .is_some_and(|u| u.contains("Labelled namespaces: kube-linter, semgrep, opa")));
    let user_tf = live.initial_messages(&tf)[1].content.clone().expect("user");
    assert!(user_tf.starts_with("File path: main.tf\nLabelled namespaces: opa\n"));
}

// ----------------------------------------------------------------- scoring

#[test]
fn full_episode_with_the_read_only_root_fs_patch_scores_the_5_2_row() {
    let patch = "--- a/manifest.yaml\n+++ b/manifest.yaml\n@@ -9 +9,3 @@\n-    image: nginx\n+    image: nginx\n+    securityContext:\n+      readOnlyRootFilesystem: true\n";
    let transcript = Completion::Messages(vec![
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c0", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}]}),
        json!({"role": "tool", "tool_call_id": "c0", "content": "{}"}),
        json!({"role": "assistant", "content": answer(&all7(), patch)}),
    ]);
    let e = env("v1", &[]);
    let scored = e.score(&row0(), &transcript).expect("scored");
    approx(
        scored.reward.component("detection").expect("d"),
        1.0,
        "detection",
    );
    approx(scored.reward.component("patch").expect("p"), 0.008, "patch");
    approx(scored.reward.component("format").expect("f"), 1.0, "format");
    approx(scored.reward.total, 1.054, "total");
    assert_eq!(scored.parse.status, ParseStatus::Valid);
    assert_eq!(scored.parse.format_ok, Some(true));

    let p = &scored.parsed();
    assert_eq!(p["labelled_namespaces"], json!(["kube-linter", "semgrep"]));
    assert_eq!(p["oracle_mode"], "dataset");
    assert_eq!(p["oracle"].as_array().map(Vec::len), Some(7));
    assert_eq!(p["prediction"].as_array().map(Vec::len), Some(7));
    assert!(p["oracle"]
        .as_array()
        .expect("oracle")
        .contains(&json!({"id": "kube-linter/unset-cpu-requirements", "severity": "low"})));
    assert_eq!(p["v1_patch"]["status"], "applied");
    assert_eq!(p["v1_patch"]["kind"], "unified_diff");
    // The upstream path applies the same diff and re-scans with
    // kube-linter only: `no-read-only-root-fs` is gone (bonus .6).
    assert_eq!(p["upstream_patch"]["status"], "applied");
    approx(
        p["upstream_patch"]["bonus"].as_f64().expect("bonus"),
        0.6,
        "upstream bonus",
    );
    approx(
        p["rewards"]["v1"]["total"].as_f64().expect("v1"),
        1.054,
        "parsed v1",
    );
    // upstream: F1 1 + bonus .6 + .05 → rca 1.65, format 1, no tool
    // observation in "{}".
    approx(
        p["rewards"]["upstream"]["total"].as_f64().expect("up"),
        1.70,
        "parsed upstream",
    );

    let c = &scored.compat();
    assert_eq!(c["valid_json"], true);
    assert_eq!(c["predicted_violations"].as_array().map(Vec::len), Some(7));
    assert_eq!(c["oracle_violations"].as_array().map(Vec::len), Some(7));
    assert_eq!(c["patch_applied"], true);
    let post: Vec<&str> = c["post_patch_violations"]
        .as_array()
        .expect("post")
        .iter()
        .filter_map(|v| v["id"].as_str())
        .collect();
    assert!(post.contains(
        &"semgrep/yaml.kubernetes.security.allow-privilege-escalation.allow-privilege-escalation"
    ));
    assert!(!post.contains(&"kube-linter/no-read-only-root-fs"));
    assert_eq!(c["fixture_type"], "k8s");
    assert_eq!(c["fixture_path"], "manifest.yaml");

    // The upstream profile picks its own scalar from the same evidence.
    let up = env("upstream", &[])
        .score(&row0(), &transcript)
        .expect("scored");
    approx(up.reward.total, 1.70, "upstream total");
    // Compat fields follow the active profile's patch path.
    assert_eq!(up.compat()["patch_applied"], true);
    let up_compat = up.compat();
    let up_post = up_compat["post_patch_violations"]
        .as_array()
        .expect("post")
        .iter()
        .filter_map(|v| v["id"].as_str())
        .collect::<Vec<_>>();
    assert!(up_post.iter().all(|id| id.starts_with("kube-linter/")));
    assert!(up_post.contains(&"kube-linter/latest-tag"));
    assert!(!up_post.contains(&"kube-linter/no-read-only-root-fs"));
}

#[test]
fn turn_limit_with_pending_calls_is_no_answer_even_on_a_clean_item() {
    let clean = example("pvc", CLEAN_PVC, "k8s", vec![]);
    // As the runner passes it: the pending message's content removed, its
    // tool calls kept.
    let transcript = Completion::Messages(vec![
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c0", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[]}"}}]}),
    ]);
    for profile in ["v1", "upstream"] {
        let s = env(profile, &[])
            .score(&clean, &transcript)
            .expect("scored");
        assert_eq!(s.parse.status, ParseStatus::NoAnswer, "{profile}");
        assert_eq!(s.reward.total, 0.0, "{profile}");
        assert!(s.reward.components.iter().all(|c| c.value == 0.0));
        assert_eq!(s.parsed()["parse_status"], "no_answer");
        assert_eq!(s.compat()["valid_json"], false);
        assert_eq!(s.compat()["predicted_violations"], json!([]));
    }
    // The same clean item answered with [] scores 1.05 under v1.
    let answered = Completion::assistant_text(answer(&[], ""));
    approx(
        env("v1", &[])
            .score(&clean, &answered)
            .expect("s")
            .reward
            .total,
        1.05,
        "clean []",
    );

    // Upstream's tool observation still reads the tool messages of a
    // no-answer episode.
    let tool_result = json!({"tool": "kube-linter", "findings": K.iter()
        .map(|r| json!({"tool": "kube-linter", "rule_id": r, "severity": "med"})).collect::<Vec<_>>()});
    let transcript = Completion::Messages(vec![
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c0", "type": "function",
            "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[]}"}}]}),
        json!({"role": "tool", "tool_call_id": "c0", "content": tool_result.to_string()}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "run_semgrep", "arguments": "{\"paths\":[]}"}}]}),
    ]);
    let s = env("upstream", &[])
        .score(&row0(), &transcript)
        .expect("scored");
    assert_eq!(s.parse.status, ParseStatus::NoAnswer);
    approx(
        s.reward.component("reward_config_auditing").expect("rca"),
        0.0,
        "rca",
    );
    approx(
        s.reward.component("tool_observation_reward").expect("tor"),
        1.0,
        "tor",
    );
    approx(s.reward.total, 0.2, "upstream no-answer total");
}

// ---------------------------------------------------------------- builtins

#[test]
fn oracle_builtin_reaches_detection_1_and_is_labelled_an_upper_bound() {
    for (args, items) in [
        (
            vec![],
            vec![row0(), example("pvc", CLEAN_PVC, "k8s", vec![])],
        ),
        (
            vec!["oracle=live"],
            vec![
                row0(),
                example("pvc", CLEAN_PVC, "k8s", vec![]),
                example("tf", TF_BUCKET, "tf", vec![]),
                example("dep", DEPLOYMENT, "k8s", vec![]),
            ],
        ),
    ] {
        let e = env("v1", &args);
        let policy = e2_builtin("oracle", &e).expect("oracle");
        assert_eq!(policy.name(), "oracle");
        assert_eq!(policy.label(), ORACLE_LABEL);
        assert_eq!(ORACLE_LABEL, "oracle (upper bound)");
        for ex in &items {
            let completion = policy
                .respond(ex, 0, &e.initial_messages(ex))
                .expect("answer");
            let s = e.score(ex, &completion).expect("scored");
            approx(s.reward.component("detection").expect("d"), 1.0, &ex.id);
            approx(s.reward.component("format").expect("f"), 1.0, &ex.id);
        }
    }
}

#[test]
fn tool_only_calls_the_tools_and_reaches_detection_1_under_the_live_oracle() {
    let e = env("v1", &["oracle=live"]);
    let policy = e2_builtin("tool-only", &e).expect("tool-only");
    assert!(policy.interactive());
    for ex in [
        row0(),
        example("dep", DEPLOYMENT, "k8s", vec![]),
        example("tf", TF_BUCKET, "tf", vec![]),
        example("pvc", CLEAN_PVC, "k8s", vec![]),
    ] {
        let (transcript, calls) = play(&e, policy.as_ref(), &ex);
        let expected_calls = if ex.id == "tf" { 1 } else { 3 };
        assert_eq!(calls, expected_calls, "{}", ex.id);
        let s = e
            .score(&ex, &Completion::Messages(transcript))
            .expect("scored");
        approx(s.reward.component("detection").expect("d"), 1.0, &ex.id);
        assert_eq!(s.compat()["patch_applied"], false);
        if ex.id != "pvc" {
            assert!(
                !s.parsed()["prediction"].as_array().expect("p").is_empty(),
                "{}",
                ex.id
            );
        }
    }
    // Under the dataset oracle it measures agreement with the labels:
    // native kube-linter and semgrep agree with row 0's seven labels.
    let e = env("v1", &[]);
    let policy = e2_builtin("tool-only", &e).expect("tool-only");
    let (transcript, calls) = play(&e, policy.as_ref(), &row0());
    assert_eq!(calls, 2);
    let s = e
        .score(&row0(), &Completion::Messages(transcript))
        .expect("scored");
    approx(
        s.reward.component("detection").expect("d"),
        1.0,
        "row0 dataset",
    );
    assert!(e2_builtin("heuristic", &e).is_err());
}

// ------------------------------------------------------------------ loader

#[test]
fn loader_reads_upstream_rows_and_names_bad_lines() {
    use svbench_envs::e2::dataset::{load, relabel_live, DatasetSpec};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rows.jsonl");
    let rows = [
        json!({"question": ROW0_YAML, "info": {"violations": row0_violations(), "patch": null}, "meta": {"lang": "k8s"}}),
        json!({"prompt": TF_BUCKET, "info": {"violations": []}, "meta": {"lang": "tf"}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, &text).expect("write");
    let loaded = load(&DatasetSpec::File(path.clone()), None).expect("loads");
    assert_eq!(loaded.provenance.split, "all");
    assert_eq!(loaded.examples.len(), 2);
    assert_eq!(loaded.examples[1].question, TF_BUCKET);
    assert!(loaded.provenance.file_sha256.is_some());
    let e = env("v1", &[]);
    let (_, ns) = e.labelled_namespaces(&loaded.examples[1]);
    assert_eq!(
        ns.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        ["semgrep"]
    );
    assert!(load(&DatasetSpec::File(path.clone()), Some("test")).is_err());

    let live = env("v1", &["oracle=live"]);
    let mut examples = loaded.examples.clone();
    assert_eq!(relabel_live(&mut examples, &live), 0, "native relabelling");
    let info = examples[1].info_value();
    assert_eq!(info["info"]["labelled_namespaces"], json!(["opa"]));
    assert!(info["info"]["violations"]
        .as_array()
        .is_some_and(|v| v.iter().any(|f| f["rule_id"] == "TF_003")));

    std::fs::write(&path, format!("{text}{{\"question\": 3}}\n")).expect("write");
    let err = load(&DatasetSpec::File(path.clone()), None).expect_err("bad row");
    assert!(err.to_string().contains(":3:"), "{err}");
    assert_eq!(
        DatasetSpec::parse("embedded").unwrap(),
        DatasetSpec::Embedded
    );
}

#[test]
fn public_mini_loads_whole_with_upstream_namespaces() {
    let Some(path) =
        svbench_core::upstream_data::path(env!("CARGO_MANIFEST_DIR"), "public_mini/e2.jsonl")
    else {
        return;
    };
    use svbench_envs::e2::dataset::{load, DatasetSpec};
    let loaded = load(&DatasetSpec::File(path), None).expect("loads");
    assert_eq!(loaded.examples.len(), 100);
    let e = env("v1", &[]);
    let oracle = e2_builtin("oracle", &e).expect("oracle");
    for ex in loaded.examples.iter().take(10) {
        let c = oracle.respond(ex, 0, &[]).expect("answer");
        approx(
            e.score(ex, &c)
                .expect("scored")
                .reward
                .component("detection")
                .expect("d"),
            1.0,
            &ex.id,
        );
    }
}

/// E2 rows from the embedded test split (project rows, with ids).
fn e2_project_rows(n: usize) -> Vec<serde_json::Value> {
    svbench_envs::e2::dataset::EMBEDDED[2]
        .1
        .lines()
        .take(n)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn e2_load_err(rows: &[String]) -> String {
    use svbench_envs::e2::dataset::load_text;
    load_text(&(rows.join("\n") + "\n"), "rows.jsonl".into(), Some("all"))
        .expect_err("refused")
        .to_string()
}

#[test]
fn e2_an_empty_split_names_the_splits_the_rows_carry() {
    use svbench_core::example::DatasetError;
    use svbench_envs::e2::dataset::load_text;
    let text: String = e2_project_rows(3)
        .into_iter()
        .zip(["train", "dev", "train"])
        .map(|(mut row, split)| {
            row["meta"]["split"] = split.into();
            row.to_string() + "\n"
        })
        .collect();
    let err = load_text(&text, "rows.jsonl".into(), None).expect_err("no test rows");
    assert_eq!(
        err.to_string(),
        "rows.jsonl: no rows in split `test`; the file has: train (2), dev (1)"
    );
    assert!(
        matches!(&err, DatasetError::EmptySplit { split, present, .. }
            if split == "test" && present.len() == 2),
        "{err:?}"
    );
    assert_eq!(
        load_text(&text, "rows.jsonl".into(), Some("train"))
            .expect("train rows")
            .examples
            .len(),
        2
    );
}

#[test]
fn e2_rows_need_unique_ids_and_single_keys_and_accept_a_bom() {
    use svbench_envs::e2::dataset::load_text;
    let rows = e2_project_rows(3);
    let text: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    // A BOM before line 1 is accepted.
    let bom = format!("\u{feff}{}\n", text.join("\n"));
    let loaded = load_text(&bom, "rows.jsonl".into(), Some("all")).expect("BOM accepted");
    assert_eq!(loaded.examples[0].id, rows[0]["id"].as_str().unwrap());
    // A project row without `id`.
    let mut no_id = rows[1].clone();
    no_id.as_object_mut().unwrap().remove("id");
    let msg = e2_load_err(&[text[0].clone(), no_id.to_string()]);
    assert!(
        msg.contains("rows.jsonl:2:") && msg.contains("missing field `id`"),
        "{msg}"
    );
    // Two rows with one id.
    let mut dup = rows[2].clone();
    dup["id"] = rows[0]["id"].clone();
    let msg = e2_load_err(&[text[0].clone(), text[1].clone(), dup.to_string()]);
    assert!(
        msg.contains("rows.jsonl:3:") && msg.contains("duplicate id") && msg.contains("line 1"),
        "{msg}"
    );
    // A repeated key.
    let repeated = text[1].replacen('{', "{\"id\":\"x\",", 1);
    let msg = e2_load_err(&[text[0].clone(), repeated]);
    assert!(
        msg.contains("rows.jsonl:2:") && msg.contains("duplicate key `id`"),
        "{msg}"
    );
    // A wrong-typed split.
    let mut bad_split = rows[1].clone();
    bad_split["meta"]["split"] = serde_json::json!(7);
    let msg = e2_load_err(&[bad_split.to_string()]);
    assert!(
        msg.contains("rows.jsonl:1:") && msg.contains("`meta.split` has the wrong type"),
        "{msg}"
    );
}
