//! Conformance of the native semgrep rules against the real semgrep labels of
//! the upstream mini E2 set (spec E2 §1.9), semgrep namespace only.
//!
//! Gates: ≥ 95% of rows with exactly the labelled set of semgrep rule ids,
//! and precision and recall ≥ 0.95 for every rule. Multiset and line
//! agreement are printed as diagnostics. Skips with a notice when
//! `../shared` is absent.

use std::collections::{BTreeMap, BTreeSet};
use svbench_core::upstream_data;

use svbench_scan::{parse_documents, semgrep, Enabled, Limits};

/// The upstream mini set (see `svbench_core::upstream_data`).
const MINI: &str = "public_mini/e2.jsonl";

/// One row's semgrep matches as `(rule id, line)`, sorted (a multiset).
type Matches = Vec<(String, usize)>;

/// The labelled semgrep matches of a row (`loc` = `<path>:<line>`).
fn labelled(row: &serde_json::Value) -> Matches {
    let mut out: Matches = row["info"]["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["tool"] == "semgrep")
        .map(|v| {
            let id = v["rule_id"].as_str().expect("rule_id is text").to_owned();
            let line = v["loc"]
                .as_str()
                .and_then(|loc| loc.rsplit(':').next())
                .and_then(|l| l.parse().ok())
                .expect("semgrep loc ends in a line number");
            (id, line)
        })
        .collect();
    out.sort();
    out
}

/// The native matches for a row's config.
fn predicted(row: &serde_json::Value) -> Matches {
    let config = row["question"].as_str().expect("question is text");
    if row["meta"]["lang"] != "k8s" {
        // Native semgrep has no Terraform rules (spec E2 §1.2).
        return Vec::new();
    }
    let docs = parse_documents(config, &Limits::default());
    let analysis = semgrep::scan(
        "manifest.yaml",
        config,
        &docs,
        &Enabled::defaults(semgrep::catalogue()),
    );
    let mut out: Matches = analysis
        .findings
        .iter()
        .map(|f| {
            (
                f.rule_id.clone(),
                f.line.expect("semgrep findings have lines"),
            )
        })
        .collect();
    out.sort();
    out
}

fn ids(matches: &Matches) -> BTreeSet<&str> {
    matches.iter().map(|(id, _)| id.as_str()).collect()
}

fn id_counts(matches: &Matches) -> Vec<&str> {
    matches.iter().map(|(id, _)| id.as_str()).collect()
}

#[derive(Default)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }
    fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }
}

/// `n / d`, or 1 when there is nothing to measure.
#[allow(clippy::cast_precision_loss)]
fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 {
        1.0
    } else {
        n as f64 / d as f64
    }
}

#[test]
fn native_semgrep_reproduces_upstream_labels() {
    let Some(text) = upstream_data::read(env!("CARGO_MANIFEST_DIR"), MINI) else {
        return;
    };
    let mut per_rule: BTreeMap<String, Counts> = semgrep::catalogue()
        .iter()
        .map(|r| (r.id.to_owned(), Counts::default()))
        .collect();
    let (mut rows, mut exact, mut multiset, mut lines) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("valid JSON row");
        rows += 1;
        let (want, got) = (labelled(&row), predicted(&row));
        if row["meta"]["lang"] != "k8s" {
            assert!(want.is_empty(), "tf row with semgrep labels: {want:?}");
        }
        let (want_ids, got_ids) = (ids(&want), ids(&got));
        for id in want_ids.union(&got_ids) {
            let counts = per_rule.entry((*id).to_owned()).or_default();
            match (want_ids.contains(id), got_ids.contains(id)) {
                (true, true) => counts.tp += 1,
                (false, true) => counts.fp += 1,
                (true, false) => counts.fn_ += 1,
                (false, false) => {}
            }
        }
        exact += usize::from(want_ids == got_ids);
        multiset += usize::from(id_counts(&want) == id_counts(&got));
        lines += usize::from(want == got);
        if want != got {
            mismatches.push(format!(
                "{}\n    labels:    {want:?}\n    predicted: {got:?}",
                row["meta"]["source"]
            ));
        }
    }

    eprintln!("semgrep conformance over {rows} rows:");
    eprintln!("  row-exact rule sets: {exact}/{rows}");
    eprintln!("  multiset agreement:  {multiset}/{rows}");
    eprintln!("  line agreement:      {lines}/{rows}");
    eprintln!(
        "  {:<40} {:>4} {:>4} {:>4} {:>9} {:>7}",
        "rule", "tp", "fp", "fn", "precision", "recall"
    );
    let mut weak = Vec::new();
    for (id, c) in &per_rule {
        let short = id.rsplit('.').next().unwrap_or(id);
        eprintln!(
            "  {short:<40} {:>4} {:>4} {:>4} {:>9.3} {:>7.3}",
            c.tp,
            c.fp,
            c.fn_,
            c.precision(),
            c.recall()
        );
        if c.precision() < 0.95 || c.recall() < 0.95 {
            weak.push(short.to_owned());
        }
    }
    for m in &mismatches {
        eprintln!("  mismatch: {m}");
    }
    assert_eq!(rows, 100, "the mini set has 100 rows");
    assert!(
        exact * 100 >= rows * 95,
        "row-exact {exact}/{rows} below 95%"
    );
    assert!(
        weak.is_empty(),
        "rules below 0.95 precision or recall: {weak:?}"
    );
}
