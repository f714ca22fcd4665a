//! Builds run directories by hand for report tests.
#![allow(dead_code)]

pub mod e4;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// A fixed generation time so outputs are byte-reproducible.
pub const TS: &str = "2025-01-02T03:04:05Z";

/// A complete svbench `metadata.json` for E1.
pub fn metadata(profile: &str) -> Value {
    let mut head = json!({
        "environment": "sv-env-network-logs",
        "env_version": "0.1.0",
        "model": "builtin:heuristic",
        "effective_model": "heuristic",
        "dataset": "embedded",
        "dataset_revision": "sha256:aa",
        "timestamp": "2025-01-01T00:00:00Z",
        "num_examples": 4,
        "git_commit": "abc1234",
        "python_version": null,
        "verifiers_version": null,
        "svbench_version": "0.1.0",
        "rustc_version": "rustc 1.85.0",
        "target": "x86_64-unknown-linux-gnu",
        "seed": 42,
        "temperature": 0.2,
        "max_tokens": 2048,
        "max_turns": 1,
        "tool_budget": 0,
        "include_tools": false,
        "tool_versions": {},
        "evaluation_type": "single-turn",
        "max_consecutive_errors": 3,
        "baseline_name": null,
        "baseline_type": "heuristic",
        "system_prompt_file": null,
        "system_prompt_sha256": "bb",
    });
    let tail = json!({
        "run_id": "20250101T000000Z-deadbeef",
        "status": "completed",
        "abort_reason": null,
        "started_at": "2025-01-01T00:00:00.000Z",
        "finished_at": "2025-01-01T00:01:00.000Z",
        "split": "test",
        "dataset_rows": 4,
        "dataset_warnings": [],
        "dataset_sha256": "cc",
        "selected_sha256": "dd",
        "dataset_file_sha256": null,
        "selection": {"mode": "first", "num_examples": 4, "rollouts_per_example": 1, "seed": 42},
        "rollouts_per_example": 1,
        "env_args": {},
        "reward_profile": profile,
        "reward_config_hash": "sha256:ee",
        "reward_weights": {"utility": 1.0, "calibration": 0.25, "format": 0.05},
        "reward_params": {"cost_fp": 0.25, "cost_fn": 1.0, "cost_abstain": 0.15,
                          "w_calibration": 0.25, "w_format": 0.05, "abstain_calibration": 0.75},
        "reward_config_file": null,
        "env_provenance": {},
        "replay_source": null,
        "sampling_params": {},
        "concurrency": 8,
        "cache_mode": "auto",
        "endpoint": null,
        "counts": {"planned": 4, "completed": 4, "errored": 0, "pending": 0},
        "argv": ["svbench", "eval", "e1"]
    });
    let m = head.as_object_mut().expect("object");
    for (k, v) in tail.as_object().expect("object") {
        m.insert(k.clone(), v.clone());
    }
    head
}

/// An E1 result line. `label` is `Malicious`/`Benign`/`Abstain`, or `""` for
/// an invalid answer; `conf` None makes it label-only.
pub fn e1_record(
    index: usize,
    gold: &str,
    label: &str,
    conf: Option<f64>,
    source: &str,
    profile: &str,
) -> Value {
    let (status, parsed, reason) = if label.is_empty() {
        ("invalid", Value::Null, json!("no_json_object"))
    } else if conf.is_none() {
        (
            "label_only",
            json!({"label": label, "confidence": null, "rationale": null, "format_ok": false}),
            json!("confidence_missing"),
        )
    } else {
        (
            "valid",
            json!({"label": label, "confidence": conf, "rationale": "r", "format_ok": true}),
            Value::Null,
        )
    };
    let reward = if label.is_empty() {
        0.0
    } else {
        1.0 + index as f64 / 10.0
    };
    json!({
        "index": index,
        "rollout_index": 0,
        "example_id": format!("ex{index:03}"),
        "split": "test",
        "question": "flow record",
        "prompt": [{"role": "system", "content": "sys"}, {"role": "user", "content": "flow record"}],
        "answer": gold,
        "info": {"meta": {"source": source, "scenario": format!("s{}", index % 2)}},
        "completion": "{}",
        "completion_messages": [],
        "reasoning_content": [],
        "parsed": parsed,
        "parse": {"status": status, "reason": reason, "format_ok": status == "valid"},
        "reward": reward,
        "rewards": {"utility": reward, "calibration": 0.5, "format": 1.0},
        "reward_profile": profile,
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "reasoning_tokens": 0,
                  "total_tokens": 15, "requests": 1, "cached_requests": 0},
        "requests": [{"turn": 0, "latency_ms": 12.5, "attempts": 1, "cached": index.is_multiple_of(3),
                      "finish_reason": "stop", "usage": {}, "response_model": null,
                      "system_fingerprint": null}],
        "latency_ms": 10.0 + index as f64,
        "turns": 1,
        "truncated": false,
        "tool_interactions": [],
        "tool_calls": 0,
        "tool_time_ms": 0.0,
        "error": null,
        "started_at": "2025-01-01T00:00:00.000Z",
        "finished_at": "2025-01-01T00:00:01.000Z",
        "predicted_label": label,
        "confidence": conf
    })
}

/// An errored E1 record.
pub fn errored_record(index: usize, gold: &str, kind: &str) -> Value {
    let mut v = e1_record(index, gold, "Benign", Some(0.5), "iot23", "v1");
    let m = v.as_object_mut().expect("object");
    m.insert("parse".into(), Value::Null);
    m.insert("parsed".into(), Value::Null);
    m.insert("reward".into(), Value::Null);
    m.insert("rewards".into(), json!({}));
    m.insert("completion".into(), Value::Null);
    m.insert("predicted_label".into(), json!(""));
    m.insert("confidence".into(), Value::Null);
    m.insert(
        "error".into(),
        json!({"kind": kind, "message": "boom", "http_status": 500, "attempts": 3, "retryable": true}),
    );
    m.insert("completion_error".into(), json!("boom"));
    v
}

/// A small mixed E1 run: decided, abstain, label-only, invalid and errored.
pub fn sample_records() -> Vec<Value> {
    vec![
        e1_record(0, "Malicious", "Malicious", Some(0.9), "iot23", "v1"),
        e1_record(1, "Malicious", "Benign", Some(0.7), "iot23", "v1"),
        e1_record(2, "Benign", "Malicious", Some(0.8), "cic-ids-2017", "v1"),
        e1_record(3, "Benign", "Benign", Some(0.6), "cic-ids-2017", "v1"),
        e1_record(4, "Malicious", "Abstain", Some(0.3), "iot23", "v1"),
        e1_record(5, "Benign", "Benign", None, "unsw-nb15", "v1"),
        e1_record(6, "Malicious", "", None, "unsw-nb15", "v1"),
        errored_record(7, "Benign", "timeout"),
    ]
}

/// Writes `metadata.json` and `results.jsonl` into a new directory under `root`.
pub fn write_run(root: &Path, name: &str, meta: &Value, records: &[Value]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("metadata.json"),
        serde_json::to_string_pretty(meta).expect("json"),
    )
    .expect("write");
    let mut lines = String::new();
    for r in records {
        lines.push_str(&serde_json::to_string(r).expect("json"));
        lines.push('\n');
    }
    std::fs::write(dir.join("results.jsonl"), lines).expect("write");
    dir
}

/// Upstream's summary schema as harness §4.1 describes it (draft-07, E1
/// and E2 `metrics` branches; no `additionalProperties` restriction). A transcription, not a
/// copy: the upstream file is not vendored.
pub fn upstream_summary_schema() -> Value {
    let unit = serde_json::json!({"type": "number", "minimum": 0, "maximum": 1});
    let count = serde_json::json!({"type": "integer", "minimum": 0});
    let number = serde_json::json!({"type": "number"});
    let e1_metrics = serde_json::json!({
        "type": "object",
        "required": ["detection", "calibration", "cost", "abstention"],
        "properties": {
            "detection": {
                "type": "object",
                "required": ["tpr", "fpr", "fnr", "precision", "f1", "accuracy"],
                "properties": {"tpr": unit, "fpr": unit, "fnr": unit,
                               "precision": unit, "f1": unit, "accuracy": unit}
            },
            "calibration": {
                "type": "object",
                "required": ["ece", "brier"],
                "properties": {"ece": unit, "brier": unit}
            },
            "cost": {
                "type": "object",
                "required": ["fn_cost_weight", "fp_cost_weight", "total_cost", "cost_weighted_accuracy"],
                "properties": {"fn_cost_weight": {"type": "number"}, "fp_cost_weight": {"type": "number"},
                               "total_cost": {"type": "number"}, "cost_weighted_accuracy": unit}
            },
            "abstention": {
                "type": "object",
                "required": ["abstain_rate", "accuracy_non_abstained"],
                "properties": {"abstain_rate": unit, "accuracy_non_abstained": unit, "aurc": unit}
            },
            "confusion_matrix": {
                "type": "object",
                "properties": {"tp": count, "tn": count, "fp": count, "fn": count, "abstain": count}
            }
        }
    });
    let e2_metrics = serde_json::json!({
        "type": "object",
        "required": ["finding_quality", "patch", "tool_economy"],
        "properties": {
            "finding_quality": {
                "type": "object",
                "required": ["precision_weighted", "recall_weighted", "f1_weighted"],
                "properties": {"precision_weighted": unit, "recall_weighted": unit, "f1_weighted": unit,
                               "precision_unweighted": unit, "recall_unweighted": unit, "f1_unweighted": unit,
                               "f1_weighted_positive_only": unit, "f1_unweighted_positive_only": unit}
            },
            "patch": {
                "type": "object",
                "properties": {"patch_provided_rate": unit, "patch_success_rate": unit, "patch_fix_rate": unit,
                               "mean_violations_fixed": number, "new_violations_introduced": number}
            },
            "tool_economy": {
                "type": "object",
                "properties": {
                    "mean_tool_calls": number, "mean_tool_time_ms": number, "calls_per_finding": number,
                    "tool_distribution": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "properties": {"calls": {"type": "integer"}, "time_ms": number}
                        }
                    }
                }
            },
            "episode": {
                "type": "object",
                "properties": {"format_valid_rate": number, "mean_turns": number,
                               "clean_pass_rate": number, "false_positive_rate_on_clean": number}
            }
        }
    });
    let level = serde_json::json!({
        "type": "object",
        "properties": {"total": count, "found": count, "fixed": count}
    });
    serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "required": ["environment", "version", "run_id", "timestamp", "model", "n_examples", "metrics"],
        "properties": {
            "environment": {"enum": ["sv-env-network-logs", "sv-env-config-verification"]},
            "version": {"type": "string", "pattern": "^\\d+\\.\\d+\\.\\d+$"},
            "run_id": {"type": "string"},
            "timestamp": {"type": "string", "format": "date-time"},
            "model": {"type": "string"},
            "dataset": {"type": "string"},
            "n_examples": {"type": "integer", "minimum": 1},
            "metadata": {
                "type": "object",
                "properties": {
                    "git_sha": {"type": "string"},
                    "env_version": {"type": "string"},
                    "python_version": {"type": "string"},
                    "verifiers_version": {"type": "string"},
                    "seed": {"type": "integer"}
                }
            },
            "metrics": {"oneOf": [e1_metrics, e2_metrics]},
            "severity_breakdown": {
                "type": "object",
                "properties": {"high": level, "med": level, "low": level}
            }
        }
    })
}

/// `report.md` with this build's version replaced by `[version]`, so that
/// snapshots do not change with every release.
pub fn redact_version(md: &str) -> String {
    let line = concat!("| svbench (report) | `", env!("CARGO_PKG_VERSION"), "` |");
    assert_eq!(md.matches(line).count(), 1, "{line} in\n{md}");
    md.replace(line, "| svbench (report) | `[version]` |")
}

/// The registered environments' report plugins, by canonical name.
pub fn plugins(name: &str) -> Option<svbench_report::plugin::Registered> {
    svbench_envs::registry::report_plugin(name)
}

/// The environments with a scoreboard among [`plugins`], as the registry
/// lists them.
pub fn boards() -> Vec<svbench_report::plugin::Registered> {
    use svbench_core::identity::{CONFIG_VERIFICATION, NETWORK_LOGS, PHISHING_DETECTION};
    [&NETWORK_LOGS, &CONFIG_VERIFICATION, &PHISHING_DETECTION]
        .into_iter()
        .filter_map(|id| plugins(id.name))
        .collect()
}
