//! E4's evidence block (E4 §8): precision, recall and F1 of the quoted
//! evidence over the rows where evidence is scored, overall and per
//! `gold_source`. Rows where it is not applicable are left out.

use std::collections::BTreeMap;

use crate::e4::report::summary::{E4CategoryRecall, E4Evidence, E4EvidenceStats};
use svbench_core::metrics::{mean, ratio};

use super::sample::{E4Sample, EvidenceRow};

/// The evidence block of `samples`.
pub fn evidence(samples: &[&E4Sample]) -> E4Evidence {
    let mut by_source: BTreeMap<&str, Vec<&EvidenceRow>> = BTreeMap::new();
    let mut all = Vec::new();
    for s in samples {
        if let Some(e) = &s.evidence {
            all.push(e);
            by_source.entry(&s.gold_source).or_default().push(e);
        }
    }
    E4Evidence {
        all: stats(&all),
        by_gold_source: by_source
            .into_iter()
            .map(|(k, rows)| (k.to_string(), stats(&rows)))
            .collect(),
    }
}

/// Evidence statistics of applicable rows.
pub fn stats(rows: &[&EvidenceRow]) -> E4EvidenceStats {
    let items: u64 = rows.iter().map(|r| r.items).sum();
    let matched: u64 = rows.iter().map(|r| r.matched).sum();
    let valid: u64 = rows.iter().map(|r| r.valid).sum();
    let relevant: u64 = rows.iter().map(|r| r.relevant.len() as u64).sum();
    let recalled: u64 = rows.iter().map(|r| r.recalled()).sum();
    let precisions: Vec<f64> = rows.iter().filter_map(|r| r.precision()).collect();
    let recalls: Vec<f64> = rows.iter().filter_map(|r| r.recall()).collect();
    let f1s: Vec<f64> = rows.iter().map(|r| r.f1).collect();
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_category: BTreeMap<String, E4CategoryRecall> = BTreeMap::new();
    for r in rows {
        for reason in &r.invalid_reasons {
            *reasons.entry(reason.clone()).or_default() += 1;
        }
        for span in &r.relevant {
            let c = by_category.entry(span.category.clone()).or_default();
            c.gold += 1;
            c.recalled += u64::from(span.recalled);
        }
    }
    for c in by_category.values_mut() {
        c.recall = ratio(c.recalled, c.gold);
    }
    E4EvidenceStats {
        rows: rows.len() as u64,
        items,
        precision_micro: ratio(matched, items),
        precision_macro: mean(&precisions),
        recall_micro: ratio(recalled, relevant),
        recall_macro: mean(&recalls),
        f1: mean(&f1s),
        grounding_rate: ratio(valid, items),
        invalid_item_reasons: reasons,
        mean_items: ratio(items, rows.len() as u64),
        recall_by_category: by_category,
    }
}
