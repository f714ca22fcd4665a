//! The YAML model on the upstream mini E2 configs (labels from real kube-linter
//! 0.7.6). Skips with a notice when `../shared` is absent.

use svbench_core::upstream_data;

use svbench_scan::{parse_documents, Limits};

/// The upstream mini set (see `svbench_core::upstream_data`).
const MINI: &str = "public_mini/e2.jsonl";

/// Every document parses, except in rows for which kube-linter reported
/// nothing — there it dropped the undecodable documents too (Helm templates
/// such as `cell: {{cell}}`, whose flow-mapping key go-yaml v2 rejects).
#[test]
fn upstream_mini_configs_parse_where_kube_linter_decoded_them() {
    let Some(text) = upstream_data::read(env!("CARGO_MANIFEST_DIR"), MINI) else {
        return;
    };
    let (mut rows, mut docs_ok, mut docs_err) = (0, 0, 0);
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("valid JSON row");
        if row["meta"]["lang"] != "k8s" {
            continue;
        }
        rows += 1;
        let config = row["question"].as_str().expect("question is text");
        let kube_linter_findings = row["info"]["violations"].as_array().map_or(0, |v| {
            v.iter().filter(|f| f["tool"] == "kube-linter").count()
        });
        for doc in parse_documents(config, &Limits::default()) {
            match doc.result {
                Ok(node) => {
                    docs_ok += 1;
                    assert!(node.as_mapping().is_some(), "{}", row["meta"]["source"]);
                }
                Err(e) => {
                    docs_err += 1;
                    assert_eq!(
                        kube_linter_findings, 0,
                        "{}: document {:?} failed ({e}) but kube-linter reported findings",
                        row["meta"]["source"], doc.doc_index
                    );
                }
            }
        }
    }
    eprintln!("{rows} k8s rows: {docs_ok} documents parsed, {docs_err} undecodable");
    assert!(rows > 0 && docs_ok > 0);
}
