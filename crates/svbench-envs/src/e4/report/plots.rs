//! E4 plots: the reliability diagram and risk–coverage curve shared with
//! E1, per-family detection and evidence bars, and evidence precision
//! against recall per gold source.

use crate::e4::report::summary::E4Metrics;
use svbench_core::metrics::CalibrationAccumulator;

use crate::e4::report::compute::point;
use crate::e4::report::E4Sample;
use svbench_report::plots::bars::{grouped_bars, Series};
use svbench_report::plots::calibration::{reliability, risk_coverage};
use svbench_report::plots::Plot;

/// `reliability`, `risk_coverage`, `by_family` and `evidence`.
pub fn plots(samples: &[E4Sample], m: &E4Metrics) -> Vec<Plot> {
    let mut cal = CalibrationAccumulator::new();
    for p in samples.iter().filter_map(point) {
        cal.add(p);
    }
    vec![
        reliability(&cal),
        risk_coverage(&m.all.risk_coverage),
        by_family(m),
        evidence(m),
    ]
}

/// An undefined value is drawn as absent.
fn v(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}

/// Accuracy, strict recall and evidence F1 per template family.
pub fn by_family(m: &E4Metrics) -> Plot {
    let groups = &m.groups.family;
    let keys: Vec<String> = groups.keys().cloned().collect();
    let col = |f: fn(&crate::e4::report::summary::E4MetricSet) -> Option<f64>| {
        groups.values().map(|g| v(f(&g.metrics))).collect()
    };
    let series = [
        Series {
            label: "accuracy",
            values: col(|x| x.accuracy),
        },
        Series {
            label: "recall_strict",
            values: col(|x| x.recall_strict),
        },
        Series {
            label: "evidence F1",
            values: col(|x| x.evidence.all.f1),
        },
    ];
    grouped_bars(
        "by_family",
        "Accuracy, strict recall and evidence F1 per family",
        "value",
        &keys,
        &series,
        2,
        "No family in the summary.",
    )
}

/// Evidence precision, recall and F1, overall and per gold source.
pub fn evidence(m: &E4Metrics) -> Plot {
    let e = &m.all.evidence;
    let mut keys = vec!["all".to_string()];
    let mut stats = vec![&e.all];
    for (k, s) in &e.by_gold_source {
        keys.push(k.clone());
        stats.push(s);
    }
    let rows = if e.all.rows == 0 { Vec::new() } else { keys };
    let series = [
        Series {
            label: "precision (micro)",
            values: stats.iter().map(|s| v(s.precision_micro)).collect(),
        },
        Series {
            label: "recall (micro)",
            values: stats.iter().map(|s| v(s.recall_micro)).collect(),
        },
        Series {
            label: "F1 (mean)",
            values: stats.iter().map(|s| v(s.f1)).collect(),
        },
    ];
    grouped_bars(
        "evidence",
        "Evidence precision and recall by gold source",
        "value",
        &rows,
        &series,
        2,
        "No email where evidence is scored.",
    )
}
