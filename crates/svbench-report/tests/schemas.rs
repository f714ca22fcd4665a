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
        let text = schema_text(name).expect("known schema");
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
    let s = schema(schema_name).expect("schema");
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
        ..ReportOptions::default()
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
    let s = schema("summary").expect("schema");
    let validator = jsonschema::validator_for(&s).expect("compiles");
    assert!(!validator.is_valid(&serde_json::json!({"environment": "x"})));
}

#[test]
fn unknown_schema_name() {
    assert!(schema("nope").is_none());
}

#[test]
fn e1_summary_validates_against_upstream_shape() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::default()
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
