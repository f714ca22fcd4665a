//! `headline`: the metrics a report, a scoreboard and `compare` lead with,
//! in svbench's definitions. One name means one quantity everywhere; a
//! value is `None` (null, `n/a`) where its denominator is zero.

use svbench_core::summary::HeadlineMetric;

/// How reports name a run's policy when it is not a baseline: the oracle
/// builtins (`baseline_type` `oracle`) are upper bounds.
pub fn policy_label(baseline_type: Option<&str>) -> Option<String> {
    (baseline_type == Some("oracle")).then(|| svbench_core::ORACLE_LABEL.to_string())
}

/// A headline metric: non-finite values and intervals become `None`, and
/// an undefined value has no interval (resamples of a zero denominator say
/// nothing about it).
pub fn metric(
    name: &str,
    value: Option<f64>,
    ci95: Option<[f64; 2]>,
    definition: &str,
) -> HeadlineMetric {
    let value = value.filter(|v| v.is_finite());
    HeadlineMetric {
        name: name.to_string(),
        value,
        ci95: value.and(ci95.filter(|r| r.iter().all(|x| x.is_finite()))),
        definition: definition.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undefined_metric_has_no_interval() {
        // F1 of a policy that never calls the positive class: no value, and
        // the resampled zeros are not its interval.
        let m = metric("f1", None, Some([0.0, 0.0]), "F1");
        assert_eq!((m.value, m.ci95), (None, None));
        let m = metric("f1", Some(f64::NAN), Some([0.1, 0.2]), "F1");
        assert_eq!((m.value, m.ci95), (None, None));
        let m = metric("f1", Some(0.5), Some([0.4, f64::INFINITY]), "F1");
        assert_eq!((m.value, m.ci95), (Some(0.5), None));
        let m = metric("f1", Some(0.5), Some([0.4, 0.6]), "F1");
        assert_eq!(m.ci95, Some([0.4, 0.6]));
    }
}
