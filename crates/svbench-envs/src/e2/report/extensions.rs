//! E2's svbench-only metrics (spec E2 §6 "Extensions"), read from each
//! record's `parsed` object: the v1 sets (normalised prediction and oracle
//! with catalogue severities), both profiles' components and the v1 patch
//! outcome. Nothing is re-parsed and no analyzer is consulted.

use std::collections::{BTreeMap, BTreeSet};

use crate::e2::report::record::RuleFinding;
use crate::e2::report::summary::{E2Micro, E2Prf, E2RuleStats, E2UpstreamStats, E2V1Stats};

use super::upstream::{severity, weight};
use crate::e2::report::record::E2Fields;
use svbench_report::read::RecordView;

/// Findings of a `parsed` list as id → catalogue weight (entries without
/// an id skipped).
fn id_set(list: &[RuleFinding]) -> BTreeMap<String, f64> {
    list.iter()
        .filter(|e| !e.id.is_empty())
        .map(|e| (e.id.clone(), weight(severity(Some(&e.severity)))))
        .collect()
}

/// Pooled TP/FP/FN, weighted and by count.
#[derive(Debug, Clone, Copy, Default)]
pub struct MicroAcc {
    w: [f64; 3],
    u: [f64; 3],
}

impl MicroAcc {
    /// Adds one record's sets; returns its counts `[tp, fp, fn]`.
    fn add(
        &mut self,
        oracle: &BTreeMap<String, f64>,
        predicted: &BTreeMap<String, f64>,
    ) -> [u32; 3] {
        let mut counts = [0u32; 3];
        for (id, w) in predicted {
            let k = usize::from(!oracle.contains_key(id)); // 0 tp, 1 fp
            self.w[k] += w;
            counts[k] += 1;
        }
        for (id, w) in oracle {
            if !predicted.contains_key(id) {
                self.w[2] += w;
                counts[2] += 1;
            }
        }
        for (u, c) in self.u.iter_mut().zip(counts) {
            *u += f64::from(c);
        }
        counts
    }

    /// The pooled scores.
    pub fn micro(&self) -> E2Micro {
        E2Micro {
            weighted: pooled(self.w),
            unweighted: pooled(self.u),
        }
    }
}

/// Precision, recall and F1 of pooled counts; each `None` on a zero
/// denominator.
pub fn pooled([tp, fp, fn_]: [f64; 3]) -> E2Prf {
    let share = |num: f64, den: f64| (den > 0.0).then(|| num / den);
    E2Prf {
        tp,
        fp,
        fn_,
        precision: share(tp, tp + fp),
        recall: share(tp, tp + fn_),
        f1: micro_f1(tp, fp, fn_),
    }
}

/// 2·TP / (2·TP + FP + FN): the harmonic mean of pooled precision and
/// recall, defined whenever there is any finding to count.
pub fn micro_f1(tp: f64, fp: f64, fn_: f64) -> Option<f64> {
    let den = 2.0 * tp + fp + fn_;
    (den > 0.0).then(|| 2.0 * tp / den)
}

/// Mean of the values seen, `None` when there were none.
#[derive(Debug, Clone, Copy, Default)]
struct MeanAcc {
    sum: f64,
    n: u64,
}

impl MeanAcc {
    fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v.filter(|x| x.is_finite()) {
            self.sum += v;
            self.n += 1;
        }
    }
    fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

fn rate(num: u64, den: u64) -> Option<f64> {
    svbench_core::metrics::ratio(num, den)
}

/// Accumulates the extensions over scored records of one profile.
#[derive(Debug, Clone, Default)]
pub struct ExtensionsAcc {
    /// Pooled scores (records with a `parsed` object).
    pub micro: MicroAcc,
    rules: BTreeMap<String, [u64; 3]>,
    n: u64,
    v1_reward: MeanAcc,
    v1_detection: MeanAcc,
    v1_patch: MeanAcc,
    strict_format: u64,
    clean: u64,
    clean_pass: u64,
    patch_given: u64,
    patch_status: BTreeMap<String, u64>,
    invalid: u64,
    no_answer: u64,
    budget_exhausted: u64,
    up_reward: MeanAcc,
    up_components: BTreeMap<String, MeanAcc>,
}

impl ExtensionsAcc {
    /// Adds one scored record; returns its finding counts `[tp, fp, fn]`
    /// on the v1 sets. Records without `parsed` (written by another tool)
    /// count in `n` only and return `None`.
    pub fn add(&mut self, r: &RecordView<E2Fields>) -> Option<[u32; 3]> {
        self.n += 1;
        if tool_errors(r).any(|e| e == "budget_exhausted") {
            self.budget_exhausted += 1;
        }
        let p = r.env.parsed.as_deref()?;
        let oracle = id_set(&p.oracle);
        let predicted = id_set(&p.prediction);
        let counts = self.micro.add(&oracle, &predicted);
        let ids: BTreeSet<&String> = oracle.keys().chain(predicted.keys()).collect();
        for id in ids {
            let c = self.rules.entry(id.clone()).or_default();
            match (predicted.contains_key(id), oracle.contains_key(id)) {
                (true, true) => c[0] += 1,
                (true, false) => c[1] += 1,
                _ => c[2] += 1,
            }
        }

        let v1 = &p.rewards.v1;
        self.v1_reward.add(v1.total);
        self.v1_detection.add(v1.detection);
        self.v1_patch.add(v1.patch);
        let up = &p.rewards.upstream;
        for (k, v) in up.components() {
            self.up_components
                .entry(k.to_string())
                .or_default()
                .add(Some(v));
        }
        self.up_reward.add(up.total);
        self.strict_format += u64::from(p.format_ok);
        if oracle.is_empty() {
            self.clean += 1;
            // An answer that did not parse reports nothing, but it is not a
            // clean pass: the model never said the config is clean.
            let valid = r
                .parse
                .as_ref()
                .is_some_and(|p| p.status == svbench_core::ParseStatus::Valid);
            self.clean_pass += u64::from(valid && predicted.is_empty());
        }
        // Absent in hand-built records: no patch.
        let status = match p.v1_patch.status.as_str() {
            "" => "none",
            s => s,
        };
        if status != "none" {
            self.patch_given += 1;
            *self.patch_status.entry(status.to_string()).or_default() += 1;
        }
        match p.parse_status.as_str() {
            "invalid" => self.invalid += 1,
            "no_answer" => self.no_answer += 1,
            _ => {}
        }
        Some(counts)
    }

    /// Record-level counts per rule.
    pub fn per_rule(&self) -> BTreeMap<String, E2RuleStats> {
        self.rules
            .iter()
            .map(|(id, &[tp, fp, fn_])| {
                (
                    id.clone(),
                    E2RuleStats {
                        tp,
                        fp,
                        fn_,
                        precision: rate(tp, tp + fp),
                        recall: rate(tp, tp + fn_),
                        support: tp + fn_,
                    },
                )
            })
            .collect()
    }

    /// The v1 profile's block.
    pub fn v1(&self) -> E2V1Stats {
        let applied = self.patch_status.get("applied").copied().unwrap_or(0);
        let preservation = self
            .patch_status
            .get("preservation_failed")
            .copied()
            .unwrap_or(0);
        E2V1Stats {
            mean_reward: self.v1_reward.mean(),
            mean_detection: self.v1_detection.mean(),
            mean_patch: self.v1_patch.mean(),
            strict_format_rate: rate(self.strict_format, self.n),
            clean_pass_rate: rate(self.clean_pass, self.clean),
            patch_provided_rate: rate(self.patch_given, self.n),
            patch_applied_rate: rate(applied, self.patch_given),
            preservation_failure_rate: rate(preservation, self.patch_given),
            patch_status: self.patch_status.clone(),
            parse_failure_rate: rate(self.invalid, self.n),
            no_answer_rate: rate(self.no_answer, self.n),
            budget_exhausted_rate: rate(self.budget_exhausted, self.n),
        }
    }

    /// The upstream profile's block.
    pub fn upstream(&self) -> E2UpstreamStats {
        E2UpstreamStats {
            mean_reward: self.up_reward.mean(),
            components: self
                .up_components
                .iter()
                .map(|(k, m)| (k.clone(), m.mean()))
                .collect(),
        }
    }
}

/// The `error` codes of a record's tool interactions.
fn tool_errors(r: &RecordView<E2Fields>) -> impl Iterator<Item = &str> {
    r.tool_interactions
        .iter()
        .flatten()
        .filter_map(|i| i.error.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(status: &str) -> RecordView<E2Fields> {
        serde_json::from_value(serde_json::json!({
            "parsed": {"v1_patch": {"status": status}, "parse_status": "valid"}
        }))
        .expect("record view")
    }

    #[test]
    fn too_large_patches_are_counted_given_and_not_applied() {
        let mut acc = ExtensionsAcc::default();
        for s in ["too_large", "too_large", "applied", "none"] {
            acc.add(&record(s));
        }
        let v1 = acc.v1();
        assert_eq!(v1.patch_status.get("too_large"), Some(&2));
        assert_eq!(v1.patch_provided_rate, Some(0.75));
        assert_eq!(v1.patch_applied_rate, Some(1.0 / 3.0));
        assert_eq!(v1.preservation_failure_rate, Some(0.0));
    }

    #[test]
    fn an_invalid_answer_on_a_clean_config_is_not_a_clean_pass() {
        let clean = |status: &str| -> RecordView<E2Fields> {
            serde_json::from_value(serde_json::json!({
                "parse": {"status": status, "reason": null, "format_ok": status == "valid"},
                "parsed": {"oracle": [], "prediction": [], "parse_status": status}
            }))
            .expect("record view")
        };
        let mut acc = ExtensionsAcc::default();
        acc.add(&clean("valid"));
        acc.add(&clean("invalid"));
        assert_eq!(acc.v1().clean_pass_rate, Some(0.5));
    }
}
