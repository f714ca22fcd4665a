//! E4's metric set over a list of rows (E4 §8), from the shared primitives:
//! invalid answers are never dropped, and a ratio with a zero denominator
//! is `None` (`null` in the summary).

use crate::e4::report::summary::{
    E4Abstention, E4Confusion, E4ConfusionRow, E4Cost, E4MetricSet, E4UpstreamMetrics,
};
use svbench_core::cost::{TriageCall, TriageGold, TriageMatrix};
use svbench_core::metrics::{
    aurc_from_curve, f1_score, ratio, risk_coverage, CalibrationAccumulator, ConfidencePoint,
    RiskCoveragePoint,
};

use super::evidence::evidence;
use super::sample::{Call, E4Sample, Gold};

/// Upstream-era weight of a missed phishing email.
pub const FN_COST_WEIGHT: f64 = 10.0;
/// Upstream-era weight of a false alarm.
pub const FP_COST_WEIGHT: f64 = 1.0;

/// The confusion counts of a set of rows.
pub fn confusion<'a>(samples: impl IntoIterator<Item = &'a E4Sample>) -> E4Confusion {
    let mut c = E4Confusion::default();
    for s in samples {
        add(&mut c, s, 1);
    }
    c
}

/// Adds a row `weight` times.
pub fn add(c: &mut E4Confusion, s: &E4Sample, weight: u64) {
    let row = match s.gold {
        Gold::Phishing => &mut c.phishing,
        Gold::Legitimate => &mut c.legitimate,
        Gold::Abstain => &mut c.abstain,
    };
    let cell = match s.call {
        Call::Phishing => &mut row.phishing,
        Call::Legitimate => &mut row.legitimate,
        Call::Abstain => &mut row.abstain,
        Call::Invalid => &mut row.invalid,
    };
    *cell += weight;
    if s.label_only {
        c.label_only += weight;
    }
}

fn row_total(r: &E4ConfusionRow) -> u64 {
    r.phishing + r.legitimate + r.abstain + r.invalid
}

/// Rows counted.
pub fn total(c: &E4Confusion) -> u64 {
    row_total(&c.phishing) + row_total(&c.legitimate) + row_total(&c.abstain)
}

/// Detection rates on clear-cut rows: `[precision, recall, recall_strict,
/// f1, fnr, fpr]`. Invalid on gold Phishing is a miss; abstentions are set
/// aside except in `recall_strict`.
pub fn detection(c: &E4Confusion) -> [Option<f64>; 6] {
    let p = &c.phishing;
    let l = &c.legitimate;
    let (tp, fn_, fp, tn) = (
        p.phishing,
        p.legitimate + p.invalid,
        l.phishing,
        l.legitimate,
    );
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fn_);
    let f1 = match (precision, recall) {
        (Some(pr), Some(re)) => Some(f1_score(pr, re)),
        _ => None,
    };
    [
        precision,
        recall,
        ratio(tp, row_total(p)),
        f1,
        recall.map(|r| 1.0 - r),
        ratio(fp, fp + tn),
    ]
}

/// Correct labels over every row (Abstain on gold Abstain is correct).
pub fn accuracy(c: &E4Confusion) -> Option<f64> {
    ratio(
        c.phishing.phishing + c.legitimate.legitimate + c.abstain.abstain,
        total(c),
    )
}

/// The calibration point of a row: decided answers at their confidence
/// (a decided answer on gold Abstain is never correct), invalid answers at
/// 1.0 and wrong; abstentions have none.
pub fn point(s: &E4Sample) -> Option<ConfidencePoint> {
    match s.call {
        Call::Phishing | Call::Legitimate => {
            Some(ConfidencePoint::new(s.confidence, s.call.correct(s.gold)))
        }
        Call::Invalid => Some(ConfidencePoint::new(1.0, false)),
        Call::Abstain => None,
    }
}

/// The risk of the first curve point covering at least `coverage`.
pub fn risk_at_coverage(curve: &[RiskCoveragePoint], coverage: f64) -> Option<f64> {
    curve
        .iter()
        .find(|p| p.coverage >= coverage)
        .map(|p| p.risk)
}

fn triage(s: &E4Sample) -> (Option<TriageCall>, TriageGold) {
    let call = match s.call {
        Call::Phishing => Some(TriageCall::Positive),
        Call::Legitimate => Some(TriageCall::Negative),
        Call::Abstain => Some(TriageCall::Abstain),
        Call::Invalid => None,
    };
    let gold = match s.gold {
        Gold::Phishing => TriageGold::Positive,
        Gold::Legitimate => TriageGold::Negative,
        Gold::Abstain => TriageGold::Ambiguous,
    };
    (call, gold)
}

/// The v1 cost of a row; an invalid answer is charged `cost_fn`.
pub fn v1_cost(s: &E4Sample, m: &TriageMatrix) -> f64 {
    match triage(s) {
        (Some(call), gold) => m.cost(call, gold),
        (None, _) => m.binary.cost_fn,
    }
}

fn cost(c: &E4Confusion, cost_sum: f64, m: &TriageMatrix) -> E4Cost {
    let p = &c.phishing;
    let l = &c.legitimate;
    let misses = (p.legitimate + p.invalid) as f64;
    let alarms = (l.phishing + l.invalid) as f64;
    let total_cost = FN_COST_WEIGHT * misses + FP_COST_WEIGHT * alarms;
    let scored = row_total(p) - p.abstain + row_total(l) - l.abstain;
    let n = total(c);
    let expected = (n > 0).then(|| cost_sum / n as f64);
    E4Cost {
        expected_cost_v1: expected,
        expected_utility_v1: expected.map(|e| 1.0 - e / m.binary.cost_fn),
        total_cost,
        cost_weighted_accuracy: (scored > 0)
            .then(|| 1.0 - total_cost / (FN_COST_WEIGHT * scored as f64)),
    }
}

fn abstention(c: &E4Confusion) -> E4Abstention {
    let abstained = c.phishing.abstain + c.legitimate.abstain + c.abstain.abstain;
    E4Abstention {
        abstain_rate: ratio(abstained, total(c)),
        abstain_on_ambiguous: ratio(c.abstain.abstain, row_total(&c.abstain)),
        over_abstention: ratio(
            c.phishing.abstain + c.legitimate.abstain,
            row_total(&c.phishing) + row_total(&c.legitimate),
        ),
    }
}

/// Every E4 metric of `samples` (sums in input order).
pub fn metric_set(samples: &[&E4Sample], m: &TriageMatrix) -> E4MetricSet {
    let c = confusion(samples.iter().copied());
    let mut cal = CalibrationAccumulator::new();
    let mut points = Vec::with_capacity(samples.len());
    let mut cost_sum = 0.0;
    for s in samples {
        if let Some(p) = point(s) {
            cal.add(p);
            points.push(p);
        }
        cost_sum += v1_cost(s, m);
    }
    let curve = risk_coverage(&points);
    let [precision, recall, recall_strict, f1, fnr, fpr] = detection(&c);
    E4MetricSet {
        confusion: c,
        precision,
        recall,
        recall_strict,
        f1,
        fnr,
        fpr,
        accuracy: accuracy(&c),
        ece: cal.ece(),
        brier: cal.brier(),
        abstention: abstention(&c),
        aurc_standard: (!points.is_empty()).then(|| aurc_from_curve(&curve)),
        risk_at_coverage_0_8: risk_at_coverage(&curve, 0.8),
        risk_at_coverage_0_9: risk_at_coverage(&curve, 0.9),
        risk_coverage: curve,
        cost: cost(&c, cost_sum, m),
        evidence: evidence(samples),
        evidence_na_rows: samples.iter().filter(|s| s.evidence.is_none()).count() as u64,
    }
}

/// The metrics computed upstream's way: rows without a parsed label are
/// dropped, abstentions count only in `abstain_rate`, and undefined rates
/// take upstream's edge values (0, and 1 for `fnr`).
pub fn upstream(samples: &[&E4Sample]) -> E4UpstreamMetrics {
    let kept: Vec<&E4Sample> = samples
        .iter()
        .copied()
        .filter(|s| s.call != Call::Invalid)
        .collect();
    let c = confusion(kept.iter().copied());
    let [precision, recall, _, f1, _, fpr] = detection(&c);
    let mut cal = CalibrationAccumulator::new();
    kept.iter()
        .filter(|s| s.call.decided())
        .filter_map(|s| point(s))
        .for_each(|p| cal.add(p));
    E4UpstreamMetrics {
        n: kept.len() as u64,
        accuracy: accuracy(&c).unwrap_or(0.0),
        precision: precision.unwrap_or(0.0),
        recall: recall.unwrap_or(0.0),
        f1: f1.unwrap_or(0.0),
        fnr: recall.map_or(1.0, |r| 1.0 - r),
        fpr: fpr.unwrap_or(0.0),
        brier: cal.brier().unwrap_or(0.0),
        abstain_rate: abstention(&c).abstain_rate.unwrap_or(0.0),
    }
}
