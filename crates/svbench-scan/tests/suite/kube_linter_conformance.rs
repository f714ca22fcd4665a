//! Native kube-linter against the real kube-linter 0.7.6 labels of the
//! upstream mini E2 set (spec E2 §1.9). Skips with a notice when
//! `../shared` is absent.

use std::collections::{BTreeMap, BTreeSet};
use svbench_core::upstream_data;

use svbench_scan::kube_linter::{catalogue, lint};
use svbench_scan::{parse_documents, Enabled, Limits, Tier};

/// The upstream mini set (see `svbench_core::upstream_data`).
const MINI: &str = "public_mini/e2.jsonl";

/// Rule id → occurrences.
type Counts = BTreeMap<String, usize>;

fn labelled(row: &serde_json::Value) -> Counts {
    let mut counts = Counts::new();
    for v in row["info"]["violations"].as_array().into_iter().flatten() {
        if v["tool"] == "kube-linter" {
            if let Some(id) = v["rule_id"].as_str() {
                *counts.entry(id.to_owned()).or_default() += 1;
            }
        }
    }
    counts
}

fn predicted(config: &str) -> Counts {
    let docs = parse_documents(config, &Limits::default());
    let analysis = lint("manifest.yaml", &docs, &Enabled::defaults(catalogue()));
    let mut counts = Counts::new();
    for f in analysis.findings {
        *counts.entry(f.rule_id).or_default() += 1;
    }
    counts
}

#[derive(Default)]
struct RuleStats {
    tp: usize,
    fp: usize,
    fn_: usize,
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        1.0
    } else {
        #[allow(clippy::cast_precision_loss)]
        let r = num as f64 / den as f64;
        r
    }
}

#[test]
fn native_kube_linter_reproduces_upstream_labels() {
    let Some(text) = upstream_data::read(env!("CARGO_MANIFEST_DIR"), MINI) else {
        return;
    };
    let (mut rows, mut exact, mut multiset) = (0usize, 0usize, 0usize);
    let mut stats: BTreeMap<String, RuleStats> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let row: serde_json::Value = serde_json::from_str(line).expect("valid JSON row");
        if row["meta"]["lang"] != "k8s" {
            continue;
        }
        rows += 1;
        let config = row["question"].as_str().expect("question is text");
        let want = labelled(&row);
        let got = predicted(config);
        let want_set: BTreeSet<&String> = want.keys().collect();
        let got_set: BTreeSet<&String> = got.keys().collect();
        for id in want_set.union(&got_set) {
            let s = stats.entry((*id).clone()).or_default();
            match (want_set.contains(id), got_set.contains(id)) {
                (true, true) => s.tp += 1,
                (false, true) => s.fp += 1,
                (true, false) => s.fn_ += 1,
                (false, false) => {}
            }
        }
        if want_set == got_set {
            exact += 1;
        }
        if want == got {
            multiset += 1;
        } else {
            mismatches.push(format!(
                "row {i} ({}): want {want:?}, got {got:?}",
                row["meta"]["source"]
            ));
        }
    }
    eprintln!("kube-linter conformance over {rows} k8s rows:");
    eprintln!(
        "  exact rule sets: {exact}/{rows} ({:.1}%)",
        100.0 * ratio(exact, rows)
    );
    eprintln!("  exact multisets (diagnostic): {multiset}/{rows}");
    eprintln!(
        "  {:<34} {:>4} {:>4} {:>4} {:>9} {:>7}",
        "rule", "tp", "fp", "fn", "precision", "recall"
    );
    for (id, s) in &stats {
        eprintln!(
            "  {id:<34} {:>4} {:>4} {:>4} {:>9.3} {:>7.3}",
            s.tp,
            s.fp,
            s.fn_,
            ratio(s.tp, s.tp + s.fp),
            ratio(s.tp, s.tp + s.fn_)
        );
    }
    for m in &mismatches {
        eprintln!("  mismatch: {m}");
    }
    assert!(rows > 0);
    assert!(
        ratio(exact, rows) >= 0.95,
        "only {exact}/{rows} rows have the exact kube-linter rule set"
    );
    for rule in catalogue().iter().filter(|r| r.tier == Tier::Must) {
        let s = stats
            .get(rule.id)
            .expect("every must rule occurs in the labels");
        let (p, r) = (ratio(s.tp, s.tp + s.fp), ratio(s.tp, s.tp + s.fn_));
        assert!(
            p >= 0.95 && r >= 0.95,
            "{}: precision {p:.3}, recall {r:.3}",
            rule.id
        );
    }
}
