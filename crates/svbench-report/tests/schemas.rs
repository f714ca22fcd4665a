//! Generated JSON Schemas: drift against `docs/schemas/` and validation of
//! produced artifacts (harness §4.3, §11 item 13).

mod common;

use std::path::PathBuf;

use common::{metadata, sample_records, upstream_summary_schema, write_run, TS};
use serde_json::Value;
use svbench_report::schema::{schema, schema_text, SCHEMA_NAMES};
use svbench_report::{report_run, ReportOptions};

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas")
}

#[test]
fn committed_schemas_match_the_types() {
    let update = std::env::var("SVBENCH_UPDATE_SCHEMAS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for name in SCHEMA_NAMES {
        let text = schema_text(name, &common::boards()).expect("known schema");
        let path = schema_dir().join(format!("{name}.schema.json"));
        if update {
            std::fs::create_dir_all(schema_dir()).expect("mkdir");
            std::fs::write(&path, &text).expect("write schema");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == text => {}
            _ => stale.push(path.display().to_string()),
        }
    }
    assert!(
        stale.is_empty(),
        "generated schemas differ from the committed ones: {stale:?}\n\
         regenerate with: SVBENCH_UPDATE_SCHEMAS=1 cargo test -p svbench-report --test schemas"
    );
}

fn validate(schema_name: &str, instance: &Value) {
    let s = schema(schema_name, &common::boards()).expect("schema");
    let validator = jsonschema::validator_for(&s).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "{schema_name} does not validate:\n{}",
        errors.join("\n")
    );
}

#[test]
fn produced_artifacts_validate() {
    let tmp = tempfile::tempdir().expect("tmp");
    let meta = metadata("v1");
    let recs = sample_records();
    let dir = write_run(tmp.path(), "run", &meta, &recs);
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::new(common::plugins)
    };
    let out = report_run(&dir, &opts).expect("report");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.summary_path.expect("summary")).expect("read"))
            .expect("json");
    validate("summary", &summary);
    validate("metadata", &meta);
    for r in &recs {
        validate("result", r);
    }
}

#[test]
fn schemas_reject_wrong_shapes() {
    let s = schema("summary", &common::boards()).expect("schema");
    let validator = jsonschema::validator_for(&s).expect("compiles");
    assert!(!validator.is_valid(&serde_json::json!({"environment": "x"})));
}

#[test]
fn unknown_schema_name() {
    assert!(schema("nope", &common::boards()).is_none());
}

#[test]
fn e1_summary_validates_against_upstream_shape() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::new(common::plugins)
    };
    let out = report_run(&dir, &opts).expect("report");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.summary_path.expect("summary")).expect("read"))
            .expect("json");
    let schema = upstream_summary_schema();
    let validator = jsonschema::validator_for(&schema).expect("draft-07 compiles");
    let errors: Vec<String> = validator
        .iter_errors(&summary)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let mut bad = summary.clone();
    bad["n_examples"] = serde_json::json!(0);
    assert!(!validator.is_valid(&bad));
}

#[test]
fn produced_manifest_validates() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut meta = metadata("v1");
    let hex = |c: char| c.to_string().repeat(64);
    meta["dataset_revision"] = Value::from(format!("sha256:{}", hex('a')));
    meta["dataset_sha256"] = Value::from(hex('a'));
    meta["reward_config_hash"] = Value::from(format!("sha256:{}", hex('e')));
    meta["git_sha"] = Value::from("0123456789abcdef0123456789abcdef01234567");
    let recs = sample_records();
    let dir = write_run(tmp.path(), "run", &meta, &recs);
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::new(common::plugins)
    };
    let out = report_run(&dir, &opts).expect("report");
    let path = out.manifest_path.expect("a manifest is written");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    validate("manifest", &manifest);
    assert!(svbench_report::manifest::validate_manifest(&manifest).is_empty());
    assert_eq!(manifest["reward_config_id"], "e1:v1");
    assert_eq!(manifest["git_sha"], meta["git_sha"]);
    // A builtin run: policy plus the svbench version that ran it.
    assert_eq!(
        manifest["model_revision_or_digest"],
        "builtin:heuristic+svbench-0.1.0"
    );

    // The hosted rule is part of the schema.
    let mut hosted = manifest.clone();
    hosted["platform_mode"] = Value::from("hosted");
    let problems = svbench_report::manifest::validate_manifest(&hosted);
    assert!(problems.iter().any(|p| p.contains("team")), "{problems:?}");
    for k in [
        "prime_run_id",
        "team",
        "compute_profile",
        "platform_image",
        "adapter_id",
    ] {
        hosted[k] = Value::from("x");
    }
    assert!(svbench_report::manifest::validate_manifest(&hosted).is_empty());
    hosted["team"] = Value::from("");
    assert!(!svbench_report::manifest::validate_manifest(&hosted).is_empty());
}

#[test]
fn runs_without_provenance_get_no_manifest() {
    // An upstream-style run: metadata without budgets or hashes.
    let tmp = tempfile::tempdir().expect("tmp");
    let meta = serde_json::json!({"environment": "e1", "model": "m", "run_id": "u"});
    let dir = write_run(tmp.path(), "run", &meta, &sample_records());
    let out = report_run(&dir, &ReportOptions::new(common::plugins)).expect("report");
    assert!(out.manifest_path.is_none());
    let gaps = out.manifest_gaps.expect("gaps named");
    assert!(
        gaps.missing.iter().any(|m| m == "dataset_revision"),
        "{gaps}"
    );
    assert!(!dir.join("run_manifest.json").exists());
}
