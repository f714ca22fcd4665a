//! `headline`: the metrics a report, a scoreboard and `compare` lead with,
//! in svbench's definitions. One name means one quantity everywhere; a
//! value is `None` (null, `n/a`) where its denominator is zero.

use svbench_core::summary::HeadlineMetric;

/// How reports name a run's policy when it is not a baseline: the oracle
/// builtins (`baseline_type` `oracle`) are upper bounds.
pub fn policy_label(baseline_type: Option<&str>) -> Option<String> {
    (baseline_type == Some("oracle")).then(|| svbench_core::ORACLE_LABEL.to_string())
}

/// A headline metric: non-finite values and intervals become `None`.
pub fn metric(
    name: &str,
    value: Option<f64>,
    ci95: Option<[f64; 2]>,
    definition: &str,
) -> HeadlineMetric {
    HeadlineMetric {
        name: name.to_string(),
        value: value.filter(|v| v.is_finite()),
        ci95: ci95.filter(|r| r.iter().all(|x| x.is_finite())),
        definition: definition.to_string(),
    }
}
