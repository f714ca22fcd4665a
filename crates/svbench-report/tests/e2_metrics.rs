//! E2 report metrics (spec E2 §6, §10 item 19) on hand-built records whose
//! values are worked out by hand in the comments: upstream-named fields with
//! upstream's normalisation, the clean-record F1 quirk, micro and per-rule
//! values, and a report that needs no analyzer.

mod common;

use common::{metadata, redact_version, upstream_summary_schema, write_run, TS};
use serde_json::{json, Value};
use svbench_report::schema::schema;
use svbench_report::{report_run, ReportOptions};

const KL: &str = "kube-linter";

fn e2_metadata(baseline_type: &str) -> Value {
    let mut m = metadata("v1");
    let o = m.as_object_mut().expect("object");
    o.insert("environment".into(), json!("sv-env-config-verification"));
    o.insert("model".into(), json!(format!("builtin:{baseline_type}")));
    o.insert("baseline_type".into(), json!(baseline_type));
    o.insert("reward_params".into(), json!({}));
    m
}

fn ids(list: &[(&str, &str)]) -> Value {
    list.iter()
        .map(|(id, sev)| json!({"id": id, "severity": sev}))
        .collect()
}

/// One E2 record. `compat` holds the upstream compatibility fields,
/// `parsed` the environment's record.
fn record(index: usize, compat: Value, parsed: Value, tools: Value) -> Value {
    let calls = tools.as_array().map_or(0, Vec::len);
    let time: f64 = tools
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["duration_ms"].as_f64().unwrap_or(0.0))
        .sum();
    let total = parsed["rewards"]["v1"]["total"].as_f64().unwrap_or(0.0);
    let mut r = json!({
        "index": index, "rollout_index": 0, "example_id": format!("e2-{index}"),
        "split": "test", "question": "audit", "prompt": [], "answer": "",
        "info": {"meta": {}}, "completion": "{}", "completion_messages": [],
        "reasoning_content": [], "parsed": parsed,
        "parse": {"status": parsed["parse_status"], "reason": null, "format_ok": parsed["format_ok"]},
        "reward": total,
        "rewards": {"detection": parsed["rewards"]["v1"]["detection"], "patch": parsed["rewards"]["v1"]["patch"], "format": parsed["rewards"]["v1"]["format"]},
        "reward_profile": "v1",
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "reasoning_tokens": 0,
                  "total_tokens": 2, "requests": 1, "cached_requests": 0},
        "requests": [], "latency_ms": 5.0, "truncated": false, "turns": calls + 1,
        "tool_interactions": tools, "tool_calls": calls, "tool_time_ms": time,
        "error": null, "started_at": "2025-01-01T00:00:00.000Z",
        "finished_at": "2025-01-01T00:00:01.000Z",
    });
    let m = r.as_object_mut().expect("object");
    for (k, v) in compat.as_object().expect("object") {
        m.insert(k.clone(), v.clone());
    }
    r
}

#[allow(clippy::too_many_arguments)]
fn parsed(
    oracle: &[(&str, &str)],
    prediction: &[(&str, &str)],
    v1: [f64; 4],
    upstream_total: f64,
    format_ok: bool,
    status: &str,
    patch_status: &str,
) -> Value {
    json!({
        "lang": "k8s", "labelled_namespaces": [KL, "semgrep", "opa"], "oracle_mode": "dataset",
        "oracle": ids(oracle), "prediction": ids(prediction), "prediction_ignored": [],
        "format_ok": format_ok, "parse_status": status,
        "v1_patch": {"status": patch_status},
        "rewards": {
            "v1": {"detection": v1[0], "patch": v1[1], "format": v1[2], "total": v1[3]},
            "upstream": {"reward_config_auditing": upstream_total, "total": upstream_total},
        },
    })
}

fn records() -> Vec<Value> {
    vec![
        // R0 (k8s). Oracle after the primary rule: latest-tag med,
        // run-as-non-root med, unset-cpu low (semgrep dropped). Predicted:
        // latest-tag, run-as-non-root (via `tool`/`rule_id` with the `run_`
        // alias), host-network high; opa dropped; bare `latest-tag` gets the
        // prefix (a duplicate). TPw 1.2, FPw 1.0, FNw 0.3 → P 6/11, R 4/5,
        // F1 24/37; counts 2/1/1 → 2/3 each. Patch applied: post ids
        // unset-cpu and new-rule → fixed weight 1.2 of 1.5, 2 fixed, 1 new.
        record(
            0,
            json!({
                "fixture_type": "k8s", "valid_json": true, "patch": "--- a\n", "patch_applied": true,
                "oracle_violations": ids(&[("kube-linter/latest-tag", "med"), ("kube-linter/run-as-non-root", "medium"),
                    ("kube-linter/unset-cpu-requirements", "low"), ("semgrep/x", "med")]),
                "predicted_violations": [
                    {"id": "kube-linter/latest-tag", "severity": "medium"},
                    {"tool": "run_kubelinter", "rule_id": "run-as-non-root", "severity": "high"},
                    {"id": "kube-linter/host-network", "severity": "high"},
                    {"id": "opa/GEN_001", "severity": "low"},
                    {"id": "latest-tag", "severity": "critical"}],
                "post_patch_violations": ids(&[("kube-linter/unset-cpu-requirements", "low"),
                    ("kube-linter/new-rule", "med"), ("semgrep/x", "med")]),
            }),
            parsed(
                &[
                    ("kube-linter/latest-tag", "med"),
                    ("kube-linter/run-as-non-root", "med"),
                    ("kube-linter/unset-cpu-requirements", "low"),
                    ("semgrep/x", "med"),
                ],
                &[
                    ("kube-linter/latest-tag", "med"),
                    ("kube-linter/run-as-non-root", "med"),
                    ("kube-linter/host-network", "high"),
                ],
                [0.5, 0.2, 1.0, 0.65],
                0.75,
                true,
                "valid",
                "applied",
            ),
            json!([{"turn": 0, "tool": "run_kubelinter", "duration_ms": 2.0, "ok": true, "error": null},
                   {"turn": 1, "tool": "run_opa", "duration_ms": 1.0, "ok": true, "error": null}]),
        ),
        // R1: clean, answered `[]` — F1 0 in the averages, a clean pass.
        record(
            1,
            json!({"fixture_type": "k8s", "valid_json": true, "patch": "", "patch_applied": false,
                   "oracle_violations": [], "predicted_violations": [], "post_patch_violations": []}),
            parsed(&[], &[], [1.0, 0.0, 1.0, 1.05], 0.05, true, "valid", "none"),
            json!([]),
        ),
        // R2: clean, one invented (unprefixed) id — a false positive on clean.
        record(
            2,
            json!({"fixture_type": "k8s", "valid_json": true, "patch": "", "patch_applied": false,
                   "oracle_violations": [], "predicted_violations": [{"id": "latest-tag", "severity": "low"}],
                   "post_patch_violations": []}),
            parsed(
                &[],
                &[("kube-linter/latest-tag", "med")],
                [0.0, 0.0, 0.0, 0.0],
                0.1,
                false,
                "valid",
                "none",
            ),
            json!([]),
        ),
        // R3 (tf, primary semgrep): opa dropped, terraform-x listed twice
        // (high then low: last wins, low). Predicted it → P = R = F1 = 1.
        // A patch given but not applied.
        record(
            3,
            json!({"fixture_type": "tf", "valid_json": true, "patch": "x", "patch_applied": false,
                   "oracle_violations": ids(&[("opa/TF_001", "high"), ("semgrep/terraform-x", "critical"), ("semgrep/terraform-x", "low")]),
                   "predicted_violations": ids(&[("semgrep/terraform-x", "high")]),
                   "post_patch_violations": []}),
            parsed(
                &[("opa/TF_001", "high"), ("semgrep/terraform-x", "low")],
                &[("semgrep/terraform-x", "low")],
                [0.5, 0.0, 1.0, 0.55],
                1.1,
                true,
                "valid",
                "preservation_failed",
            ),
            json!([]),
        ),
        // R4: errored — excluded from every metric, an empty prediction in
        // f1_weighted_strict.
        {
            let mut r = record(4, json!({"fixture_type": "k8s"}), json!(null), json!([]));
            let m = r.as_object_mut().expect("object");
            m.insert(
                "error".into(),
                json!({"kind": "timeout", "message": "slow"}),
            );
            m.insert("reward".into(), json!(null));
            m.insert("rewards".into(), json!({}));
            m.insert("parse".into(), json!(null));
            r
        },
        // R5: turn limit with a refused call: no answer on a positive item.
        record(
            5,
            json!({"fixture_type": "k8s", "valid_json": false, "patch": "", "patch_applied": false,
                   "oracle_violations": ids(&[("kube-linter/privileged-container", "high")]),
                   "predicted_violations": [], "post_patch_violations": []}),
            parsed(
                &[("kube-linter/privileged-container", "high")],
                &[],
                [0.0, 0.0, 0.0, 0.0],
                0.0,
                false,
                "no_answer",
                "none",
            ),
            json!([{"turn": 0, "tool": "run_semgrep", "duration_ms": 0.0, "ok": false, "error": "budget_exhausted"}]),
        ),
    ]
}

fn close(actual: &Value, expected: f64, what: &str) {
    let a = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {actual}"));
    assert!(
        (a - expected).abs() < 1e-9,
        "{what}: got {a}, expected {expected}"
    );
}

fn run_summary(baseline: &str) -> (Value, String) {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e2_metadata(baseline), &records());
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::new(common::plugins)
    };
    report_run(&dir, &opts).expect("report");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).expect("summary"))
            .expect("json");
    let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
    (summary, md)
}

#[test]
fn upstream_named_fields_follow_upstream_definitions() {
    let (s, _) = run_summary("tool-only");
    let m = &s["metrics"];
    let q = &m["finding_quality"];
    // Scored records: R0, R1, R2, R3, R5 (n = 5).
    close(
        &q["precision_weighted"],
        (6.0 / 11.0 + 1.0) / 5.0,
        "precision_weighted",
    );
    close(&q["recall_weighted"], (0.8 + 1.0) / 5.0, "recall_weighted");
    close(&q["f1_weighted"], (24.0 / 37.0 + 1.0) / 5.0, "f1_weighted");
    close(
        &q["precision_unweighted"],
        (2.0 / 3.0 + 1.0) / 5.0,
        "precision_unweighted",
    );
    close(
        &q["recall_unweighted"],
        (2.0 / 3.0 + 1.0) / 5.0,
        "recall_unweighted",
    );
    close(
        &q["f1_unweighted"],
        (2.0 / 3.0 + 1.0) / 5.0,
        "f1_unweighted",
    );
    // Positive records: R0, R3, R5.
    close(
        &q["f1_weighted_positive_only"],
        (24.0 / 37.0 + 1.0) / 3.0,
        "f1w positive",
    );
    close(&q["f1_unweighted_positive_only"], 5.0 / 9.0, "f1u positive");

    let p = &m["patch"];
    close(&p["patch_provided_rate"], 0.4, "patch_provided_rate");
    close(&p["patch_success_rate"], 0.5, "patch_success_rate");
    close(&p["patch_fix_rate"], 0.8, "patch_fix_rate");
    close(&p["mean_violations_fixed"], 2.0, "mean_violations_fixed");
    close(
        &p["new_violations_introduced"],
        1.0,
        "new_violations_introduced",
    );

    let t = &m["tool_economy"];
    close(&t["mean_tool_calls"], 3.0 / 5.0, "mean_tool_calls");
    close(&t["mean_tool_time_ms"], 3.0 / 5.0, "mean_tool_time_ms");
    // Predicted list lengths as written: 5 + 0 + 1 + 1 + 0.
    close(&t["calls_per_finding"], 3.0 / 7.0, "calls_per_finding");
    let d = &t["tool_distribution"];
    assert_eq!(d["kube-linter"]["calls"], json!(1));
    assert_eq!(d["opa"]["calls"], json!(1));
    assert_eq!(d["semgrep"]["calls"], json!(1));
    close(&d["kube-linter"]["time_ms"], 2.0, "kube-linter time");

    let e = &m["episode"];
    close(&e["format_valid_rate"], 0.8, "format_valid_rate");
    // turns = tool calls + 1: 3, 1, 1, 1, 2.
    close(&e["mean_turns"], 1.6, "mean_turns");
    close(&e["clean_pass_rate"], 0.5, "clean_pass_rate");
    close(&e["false_positive_rate_on_clean"], 0.5, "fpr on clean");

    assert_eq!(
        s["severity_breakdown"],
        json!({"high": {"total": 2, "found": 0, "fixed": 0},
               "low": {"total": 2, "found": 1, "fixed": 0},
               "med": {"total": 2, "found": 2, "fixed": 2}})
    );
    close(
        &s["validity"]["f1_weighted_strict"],
        (24.0 / 37.0 + 1.0) / 6.0,
        "f1_weighted_strict",
    );
    assert!(s["upstream_compat"].is_null());
}

#[test]
fn clean_record_answered_empty_scores_zero_in_the_averages() {
    let tmp = tempfile::tempdir().expect("tmp");
    let recs = vec![records().swap_remove(1)];
    let dir = write_run(tmp.path(), "run", &e2_metadata("tool-only"), &recs);
    report_run(&dir, &ReportOptions::new(common::plugins)).expect("report");
    let s: Value = serde_json::from_slice(&std::fs::read(dir.join("summary.json")).expect("read"))
        .expect("json");
    close(
        &s["metrics"]["finding_quality"]["f1_weighted"],
        0.0,
        "f1_weighted",
    );
    close(
        &s["metrics"]["episode"]["clean_pass_rate"],
        1.0,
        "clean_pass_rate",
    );
    close(&s["e2"]["v1"]["mean_detection"], 1.0, "v1 detection");
    // The headline does not punish the right answer: nothing to find and
    // nothing found leaves micro F1 undefined (null, n/a), not 0.
    let headline = |name: &str| {
        s["headline"]
            .as_array()
            .and_then(|h| h.iter().find(|m| m["name"] == name))
            .map(|m| m["value"].clone())
            .unwrap_or_else(|| panic!("headline {name}"))
    };
    assert!(headline("micro_f1").is_null());
    assert!(headline("micro_precision").is_null());
    close(&headline("clean_pass_rate"), 1.0, "headline clean pass");
    let md = std::fs::read_to_string(dir.join("report.md")).expect("md");
    assert!(md.contains("| micro_f1 | n/a |"), "{md}");
    assert!(md.contains("## Upstream-compatible fields"), "{md}");
    assert!(
        md.contains("a clean record correctly answered `[]` scores F1 0"),
        "{md}"
    );
}

#[test]
fn micro_per_rule_and_profile_extensions() {
    let (s, md) = run_summary("tool-only");
    let e2 = &s["e2"];
    // Weighted: TP 1.2 + 0.3, FP 1.0 + 0.6, FN 0.9 + 1.0 + 1.0.
    let w = &e2["micro"]["weighted"];
    close(&w["tp"], 1.5, "micro tp");
    close(&w["fp"], 1.6, "micro fp");
    close(&w["fn"], 2.9, "micro fn");
    close(&w["f1"], 0.4, "micro f1 weighted");
    close(&e2["micro"]["unweighted"]["f1"], 0.5, "micro f1 unweighted");

    let rules = &e2["per_rule"];
    assert_eq!(
        rules["kube-linter/latest-tag"],
        json!({"tp": 1, "fp": 1, "fn": 0, "precision": 0.5, "recall": 1.0, "support": 1})
    );
    assert_eq!(
        rules["kube-linter/host-network"],
        json!({"tp": 0, "fp": 1, "fn": 0, "precision": 0.0, "recall": null, "support": 0})
    );
    assert_eq!(
        rules["opa/TF_001"],
        json!({"tp": 0, "fp": 0, "fn": 1, "precision": null, "recall": 0.0, "support": 1})
    );
    assert_eq!(rules.as_object().expect("object").len(), 8);

    let v1 = &e2["v1"];
    // (0.65 + 1.05 + 0 + 0.55 + 0) / 5
    close(&v1["mean_reward"], 0.45, "v1 mean reward");
    close(&v1["mean_detection"], 0.4, "v1 detection");
    close(&v1["mean_patch"], 0.04, "v1 patch");
    // R0, R1, R3.
    close(&v1["strict_format_rate"], 0.6, "strict format");
    close(&v1["clean_pass_rate"], 0.5, "v1 clean pass");
    close(&v1["patch_provided_rate"], 0.4, "v1 patch provided");
    close(&v1["patch_applied_rate"], 0.5, "v1 patch applied");
    close(&v1["preservation_failure_rate"], 0.5, "preservation");
    close(&v1["no_answer_rate"], 0.2, "no answer");
    close(&v1["budget_exhausted_rate"], 0.2, "budget exhausted");
    close(&e2["upstream"]["mean_reward"], 0.4, "upstream mean reward");
    assert_eq!(e2["by_lang"]["k8s"]["n"], json!(4));
    assert_eq!(e2["by_lang"]["tf"]["n"], json!(1));
    close(
        &e2["by_lang"]["tf"]["metrics"]["finding_quality"]["f1_weighted"],
        1.0,
        "tf f1",
    );
    assert!(e2["ci95"]["f1_weighted"].is_array());
    // One of the two provided patches applied: every resample lies in [0, 1].
    let ps = &e2["ci95"]["patch_success_rate"];
    assert!(
        ps[0].as_f64().unwrap() >= 0.0 && ps[1].as_f64().unwrap() <= 1.0,
        "{ps}"
    );
    assert!(e2["policy_label"].is_null());

    for heading in [
        "## Finding quality",
        "## Pooled scores",
        "## Patch",
        "## Tool economy",
        "## Episode",
        "## Severity breakdown",
        "## Per rule",
        "## By fixture type",
        "f1_weighted_strict",
    ] {
        assert!(md.contains(heading), "report.md lacks {heading}:\n{md}");
    }
    assert!(!md.contains("not implemented"), "{md}");
}

#[test]
fn oracle_runs_are_labelled_an_upper_bound() {
    let (s, md) = run_summary("oracle");
    assert_eq!(s["e2"]["policy_label"], json!("oracle (upper bound)"));
    assert!(md.contains("oracle (upper bound)"), "{md}");
}

#[test]
fn e2_summary_validates_against_the_schema() {
    let (s, _) = run_summary("tool-only");
    let schema = schema("summary", &common::boards()).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("compiles");
    let errors: Vec<String> = validator
        .iter_errors(&s)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn e2_summary_validates_against_upstream_shape() {
    let (s, _) = run_summary("tool-only");
    let schema = upstream_summary_schema();
    let validator = jsonschema::validator_for(&schema).expect("draft-07 compiles");
    let errors: Vec<String> = validator
        .iter_errors(&s)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let mut bad = s.clone();
    bad["metrics"]["finding_quality"]["f1_weighted"] = json!(1.5);
    assert!(!validator.is_valid(&bad));
}

#[test]
fn odd_values_never_fail_the_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let odd = json!({
        "index": 0, "rollout_index": 0, "example_id": "odd", "reward": 0.0, "rewards": {},
        "predicted_violations": "not a list", "oracle_violations": [1, "x", {"severity": "high"}],
        "patch": 7, "patch_applied": "yes", "valid_json": null, "fixture_type": 3,
        "tool_interactions": {"tool": "run_opa"}, "tool_calls": "two", "turns": "many",
        "parsed": {"oracle": "nope", "prediction": [null], "rewards": []},
    });
    let dir = write_run(tmp.path(), "run", &e2_metadata("tool-only"), &[odd]);
    let out = report_run(&dir, &ReportOptions::new(common::plugins)).expect("report");
    assert!(out.summary.is_some());
}

#[test]
fn e2_plots_are_written_and_linked() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e2_metadata("tool-only"), &records());
    let out = report_run(&dir, &ReportOptions::new(common::plugins)).expect("report");
    let md = std::fs::read_to_string(&out.report_path).expect("report.md");
    for name in [
        "per_rule",
        "severity",
        "tool_distribution",
        "reward",
        "reward_components",
        "latency",
    ] {
        let svg = std::fs::read_to_string(dir.join("plots").join(format!("{name}.svg")))
            .expect("plot written");
        assert!(
            svg.starts_with("<svg") && svg.ends_with("</svg>\n"),
            "{name}"
        );
        assert!(md.contains(&format!("](plots/{name}.svg)")), "{name}");
    }
    assert_eq!(out.plot_paths.len(), 6);
    let severity = std::fs::read_to_string(dir.join("plots/severity.svg")).expect("svg");
    assert!(severity.contains(">high<") && severity.contains(">found<"));
}

/// report.md of the hand-built E2 run, whole, as a reviewed snapshot
/// (docs/testing.md).
#[test]
fn report_md_snapshot() {
    let (_, md) = run_summary("tool-only");
    insta::assert_snapshot!("e2_report_md", redact_version(&md));
}
