//! Conformance of the native analyzers with real tool output (spec E2 §1.9):
//! every row of upstream `public_mini/e2.jsonl` (labels from kube-linter 0.7.6
//! and semgrep) is scanned the way the labels were built, and the distinct
//! `(tool, rule_id)` sets are compared. Prints the table; fails below the
//! targets (≥ 95 % of rows exact; every must rule precision and recall ≥ 0.95).
//! Skips with a notice when `../shared` is absent.

use std::collections::{BTreeMap, BTreeSet};
use svbench_core::upstream_data;

use svbench_scan::scan::{FileType, ScanOptions, Scanner, ToolSelection};
use svbench_scan::{kube_linter, semgrep, Tier, Tool};

/// The upstream mini set (see `svbench_core::upstream_data`).
const MINI: &str = "public_mini/e2.jsonl";

type RuleSet = BTreeSet<(String, String)>;

#[derive(Default)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

#[test]
fn native_analyzers_reproduce_the_upstream_labels() {
    let Some(text) = upstream_data::read(env!("CARGO_MANIFEST_DIR"), MINI) else {
        return;
    };
    let options = ScanOptions {
        tools: ToolSelection::Only([Tool::KubeLinter, Tool::Semgrep].into_iter().collect()),
        ..ScanOptions::default()
    };
    let mut scanner = Scanner::new(&options).expect("default scanner");

    let (mut rows, mut exact, mut multiset_exact) = (0usize, 0usize, 0usize);
    let mut per_rule: BTreeMap<(String, String), Counts> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let row: serde_json::Value = serde_json::from_str(line).expect("valid JSON row");
        let config = row["question"].as_str().expect("question is text");
        let (name, file_type) = match row["meta"]["lang"].as_str() {
            Some("tf") => ("main.tf", FileType::Tf),
            _ => ("manifest.yaml", FileType::K8s),
        };
        let report = scanner.scan(name, config.as_bytes(), file_type);
        let mut predicted_multi: BTreeMap<(String, String), usize> = BTreeMap::new();
        for f in &report.findings {
            *predicted_multi
                .entry((f.tool.as_str().to_owned(), f.rule_id.clone()))
                .or_default() += 1;
        }
        let mut label_multi: BTreeMap<(String, String), usize> = BTreeMap::new();
        for v in row["info"]["violations"].as_array().into_iter().flatten() {
            let key = (
                v["tool"].as_str().unwrap_or_default().to_owned(),
                v["rule_id"].as_str().unwrap_or_default().to_owned(),
            );
            *label_multi.entry(key).or_default() += 1;
        }
        let predicted: RuleSet = predicted_multi.keys().cloned().collect();
        let labels: RuleSet = label_multi.keys().cloned().collect();
        rows += 1;
        if predicted == labels {
            exact += 1;
        } else {
            mismatches.push(format!(
                "row {n} ({}): missing {:?}, extra {:?}",
                row["meta"]["source"].as_str().unwrap_or("?"),
                labels.difference(&predicted).collect::<Vec<_>>(),
                predicted.difference(&labels).collect::<Vec<_>>()
            ));
        }
        if predicted_multi == label_multi {
            multiset_exact += 1;
        }
        for key in predicted.union(&labels) {
            let c = per_rule.entry(key.clone()).or_default();
            match (predicted.contains(key), labels.contains(key)) {
                (true, true) => c.tp += 1,
                (true, false) => c.fp += 1,
                (false, true) => c.fn_ += 1,
                (false, false) => {}
            }
        }
    }

    eprintln!("| rule | TP | FP | FN | precision | recall |");
    eprintln!("|---|---|---|---|---|---|");
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    for ((tool, rule), c) in &per_rule {
        eprintln!(
            "| {tool}/{rule} | {} | {} | {} | {:.3} | {:.3} |",
            c.tp,
            c.fp,
            c.fn_,
            ratio(c.tp, c.tp + c.fp),
            ratio(c.tp, c.tp + c.fn_)
        );
    }
    eprintln!(
        "rows exact (distinct sets): {exact}/{rows}; rows exact with multiplicities: {multiset_exact}/{rows}"
    );
    for m in &mismatches {
        eprintln!("mismatch: {m}");
    }

    assert_eq!(rows, 100, "public_mini/e2.jsonl has 100 rows");
    assert!(exact * 100 >= rows * 95, "only {exact}/{rows} rows exact");
    let must: Vec<(Tool, &str)> = kube_linter::catalogue()
        .iter()
        .chain(semgrep::catalogue())
        .filter(|r| r.tier == Tier::Must)
        .map(|r| (r.tool, r.id))
        .collect();
    assert_eq!(must.len(), 28, "20 kube-linter + 8 semgrep must rules");
    for (tool, id) in must {
        let c = per_rule
            .get(&(tool.as_str().to_owned(), id.to_owned()))
            .unwrap_or_else(|| panic!("must rule {tool}/{id} never seen"));
        let (p, r) = (ratio(c.tp, c.tp + c.fp), ratio(c.tp, c.tp + c.fn_));
        assert!(
            p >= 0.95 && r >= 0.95,
            "{tool}/{id}: precision {p:.3}, recall {r:.3}"
        );
    }
}

/// Spec E2 §8.1 / §10.2: the upstream fixture `bad_pod.yaml` gives exactly
/// the five kube-linter ids of its oracle, and semgrep reports the writable
/// root filesystem at line 7 and the missing allowPrivilegeEscalation at
/// line 9 — not run-as-non-root, since the container sets runAsNonRoot.
#[test]
fn upstream_bad_pod_fixture() {
    let here = env!("CARGO_MANIFEST_DIR");
    let Some(yaml) = upstream_data::read(here, "e2/fixtures/bad_pod.yaml") else {
        return;
    };
    let Some(oracle) = upstream_data::read(here, "e2/oracle/bad_pod.json") else {
        return;
    };
    let oracle: Vec<serde_json::Value> = serde_json::from_str(&oracle).unwrap();
    let want: BTreeSet<String> = oracle
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    let mut scanner = Scanner::new(&ScanOptions::default()).unwrap();
    let report = scanner.scan("manifest.yaml", yaml.as_bytes(), FileType::K8s);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let kube_linter: BTreeSet<String> = report
        .findings
        .iter()
        .filter(|f| f.tool == Tool::KubeLinter)
        .map(|f| f.full_id())
        .collect();
    assert_eq!(kube_linter, want);
    let semgrep: Vec<(String, Option<usize>)> = report
        .findings
        .iter()
        .filter(|f| f.tool == Tool::Semgrep)
        .map(|f| (f.rule_id.clone(), f.line))
        .collect();
    assert_eq!(
        semgrep,
        [
            (
                "yaml.kubernetes.security.writable-filesystem-container.writable-filesystem-container".to_owned(),
                Some(7)
            ),
            (
                "yaml.kubernetes.security.allow-privilege-escalation.allow-privilege-escalation".to_owned(),
                Some(9)
            ),
        ]
    );
}
