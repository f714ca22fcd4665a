//! Non-finite values in E4's summary blocks. Only absurd recorded numbers
//! (a confidence of 1e308, rewards or evidence scores whose sum overflows)
//! produce them, and JSON cannot carry them: each becomes null, or 0.0
//! where the field is an upstream-named number, with a warning naming it.

use crate::e4::report::summary::{E4EvidenceStats, E4MetricSet, E4Metrics, E4UpstreamMetrics};

use svbench_report::build::guard as guard_number;

/// Nulls a non-finite svbench-only value, with a warning.
fn guard_opt(name: &str, v: &mut Option<f64>, w: &mut Vec<String>) {
    if v.is_some_and(|x| !x.is_finite()) {
        w.push(format!(
            "{name} was not a finite number and is written as null"
        ));
        *v = None;
    }
}

/// Nulls an interval with a non-finite bound, with a warning.
fn guard_pair(name: &str, v: &mut Option<[f64; 2]>, w: &mut Vec<String>) {
    if v.is_some_and(|r| r.iter().any(|x| !x.is_finite())) {
        w.push(format!(
            "{name} was not a finite interval and is written as null"
        ));
        *v = None;
    }
}

/// Guards E4's `metrics`: the means, every metric set and the intervals.
pub fn guard_metrics(m: &mut E4Metrics, w: &mut Vec<String>) {
    guard_opt("metrics.reward", &mut m.reward, w);
    for (k, v) in &mut m.components {
        guard_opt(&format!("metrics.components.{k}"), v, w);
    }
    guard_set("metrics", &mut m.all, w);
    let g = &mut m.groups;
    for (kind, map) in [
        ("phishing_type", &mut g.phishing_type),
        ("difficulty", &mut g.difficulty),
        ("family", &mut g.family),
        ("gold", &mut g.gold),
    ] {
        for (k, group) in map.iter_mut() {
            guard_set(&format!("metrics.groups.{kind}.{k}"), &mut group.metrics, w);
        }
    }
    if let Some(ci) = &mut m.ci95 {
        for (name, pair) in [
            ("accuracy", &mut ci.accuracy),
            ("f1", &mut ci.f1),
            ("ece", &mut ci.ece),
            ("brier", &mut ci.brier),
            ("reward_mean", &mut ci.reward_mean),
            ("evidence_f1", &mut ci.evidence_f1),
        ] {
            guard_pair(&format!("metrics.ci95.{name}"), pair, w);
        }
    }
}

fn guard_set(prefix: &str, s: &mut E4MetricSet, w: &mut Vec<String>) {
    let a = &mut s.abstention;
    let c = &mut s.cost;
    let fields: [(&str, &mut Option<f64>); 17] = [
        ("precision", &mut s.precision),
        ("recall", &mut s.recall),
        ("recall_strict", &mut s.recall_strict),
        ("f1", &mut s.f1),
        ("fnr", &mut s.fnr),
        ("fpr", &mut s.fpr),
        ("accuracy", &mut s.accuracy),
        ("ece", &mut s.ece),
        ("brier", &mut s.brier),
        ("abstention.abstain_rate", &mut a.abstain_rate),
        (
            "abstention.abstain_on_ambiguous",
            &mut a.abstain_on_ambiguous,
        ),
        ("abstention.over_abstention", &mut a.over_abstention),
        ("aurc_standard", &mut s.aurc_standard),
        ("risk_at_coverage_0.8", &mut s.risk_at_coverage_0_8),
        ("risk_at_coverage_0.9", &mut s.risk_at_coverage_0_9),
        ("cost.expected_cost_v1", &mut c.expected_cost_v1),
        ("cost.expected_utility_v1", &mut c.expected_utility_v1),
    ];
    for (name, v) in fields {
        guard_opt(&format!("{prefix}.{name}"), v, w);
    }
    guard_opt(
        &format!("{prefix}.cost.cost_weighted_accuracy"),
        &mut c.cost_weighted_accuracy,
        w,
    );
    guard_number(&format!("{prefix}.cost.total_cost"), &mut c.total_cost, w);
    let curve_ok = s
        .risk_coverage
        .iter()
        .all(|p| p.threshold.is_finite() && p.coverage.is_finite() && p.risk.is_finite());
    if !curve_ok {
        w.push(format!(
            "{prefix}.risk_coverage had a point that was not finite and is written empty"
        ));
        s.risk_coverage.clear();
    }
    guard_evidence(&format!("{prefix}.evidence"), &mut s.evidence.all, w);
    for (source, stats) in &mut s.evidence.by_gold_source {
        guard_evidence(
            &format!("{prefix}.evidence.by_gold_source.{source}"),
            stats,
            w,
        );
    }
}

fn guard_evidence(prefix: &str, e: &mut E4EvidenceStats, w: &mut Vec<String>) {
    let fields: [(&str, &mut Option<f64>); 7] = [
        ("precision_micro", &mut e.precision_micro),
        ("precision_macro", &mut e.precision_macro),
        ("recall_micro", &mut e.recall_micro),
        ("recall_macro", &mut e.recall_macro),
        ("f1", &mut e.f1),
        ("grounding_rate", &mut e.grounding_rate),
        ("mean_items", &mut e.mean_items),
    ];
    for (name, v) in fields {
        guard_opt(&format!("{prefix}.{name}"), v, w);
    }
    for (category, r) in &mut e.recall_by_category {
        guard_opt(
            &format!("{prefix}.recall_by_category.{category}.recall"),
            &mut r.recall,
            w,
        );
    }
}

/// Guards `upstream_compat`: upstream-named numbers stay numbers (0.0).
pub fn guard_upstream(u: &mut E4UpstreamMetrics, w: &mut Vec<String>) {
    let fields: [(&str, &mut f64); 8] = [
        ("accuracy", &mut u.accuracy),
        ("precision", &mut u.precision),
        ("recall", &mut u.recall),
        ("f1", &mut u.f1),
        ("fnr", &mut u.fnr),
        ("fpr", &mut u.fpr),
        ("brier", &mut u.brier),
        ("abstain_rate", &mut u.abstain_rate),
    ];
    for (name, v) in fields {
        guard_number(&format!("upstream_compat.{name}"), v, w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svbench_core::metrics::RiskCoveragePoint;

    #[test]
    fn non_finite_values_become_null_or_zero_with_a_warning() {
        let mut m = E4Metrics {
            reward: Some(f64::INFINITY),
            ..E4Metrics::default()
        };
        m.all.brier = Some(f64::NAN);
        m.all.f1 = Some(0.5);
        m.all.cost.total_cost = f64::INFINITY;
        m.all.risk_coverage.push(RiskCoveragePoint {
            threshold: 1.0,
            coverage: 1.0,
            risk: f64::NAN,
            n_covered: 1,
        });
        m.all
            .evidence
            .by_gold_source
            .entry("annotated".into())
            .or_default()
            .f1 = Some(f64::NEG_INFINITY);
        let mut w = Vec::new();
        guard_metrics(&mut m, &mut w);
        assert_eq!(m.reward, None);
        assert_eq!(m.all.brier, None);
        assert_eq!(m.all.f1, Some(0.5));
        assert_eq!(m.all.cost.total_cost, 0.0);
        assert!(m.all.risk_coverage.is_empty());
        assert_eq!(m.all.evidence.by_gold_source["annotated"].f1, None);
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(w.iter().any(|x| x.starts_with("metrics.brier was not")));
        assert!(w
            .iter()
            .any(|x| x.starts_with("metrics.evidence.by_gold_source.annotated.f1")));

        let mut u = E4UpstreamMetrics {
            brier: f64::INFINITY,
            f1: 0.25,
            ..E4UpstreamMetrics::default()
        };
        let mut w = Vec::new();
        guard_upstream(&mut u, &mut w);
        assert_eq!((u.brier, u.f1), (0.0, 0.25));
        assert_eq!(
            w,
            ["upstream_compat.brier was not a finite number and is written as 0.0"]
        );
    }
}
