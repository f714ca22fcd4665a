//! E1 metrics from outcomes: the invalid-aware upstream-named metrics (E1
//! §4.3), the same blocks computed upstream's way (§4.2, invalid dropped) and
//! the extras (§4.4). Zero denominators take upstream's values and are listed
//! as undefined (§4.5).

use crate::e1::report::summary::{
    E1Abstention, E1Calibration, E1ConfusionMatrix, E1Cost, E1Detection, E1Extras, E1Metrics,
    E1UpstreamConfusionMatrix, E1UpstreamMetrics,
};
use svbench_core::cost::{CostMatrix, Decision};
use svbench_core::metrics::{
    aurc_from_curve, aurc_upstream, f1_score, ratio, risk_coverage, CalibrationAccumulator,
    ConfidencePoint,
};

use super::outcome::{E1Sample, Prediction};

/// Upstream's weight of a miss.
pub const FN_COST_WEIGHT: f64 = 10.0;
/// Upstream's weight of a false alarm.
pub const FP_COST_WEIGHT: f64 = 1.0;

/// Outcome counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Malicious on malicious.
    pub tp: u64,
    /// Benign on benign.
    pub tn: u64,
    /// Malicious on benign.
    pub fp: u64,
    /// Benign on malicious.
    pub fn_: u64,
    /// Abstentions.
    pub abstain: u64,
    /// Invalid on malicious gold.
    pub invalid_malicious: u64,
    /// Invalid on benign gold.
    pub invalid_benign: u64,
    /// Label-only answers.
    pub label_only: u64,
}

impl Tally {
    /// Adds one sample.
    pub fn add(&mut self, s: &E1Sample) {
        self.add_weighted(s, 1);
    }

    /// Adds one sample `weight` times.
    pub fn add_weighted(&mut self, s: &E1Sample, weight: u64) {
        let cell = match (s.prediction, s.gold_malicious) {
            (Prediction::Malicious, true) => &mut self.tp,
            (Prediction::Malicious, false) => &mut self.fp,
            (Prediction::Benign, true) => &mut self.fn_,
            (Prediction::Benign, false) => &mut self.tn,
            (Prediction::Abstain, _) => &mut self.abstain,
            (Prediction::Invalid, true) => &mut self.invalid_malicious,
            (Prediction::Invalid, false) => &mut self.invalid_benign,
        };
        *cell += weight;
        if s.label_only {
            self.label_only += weight;
        }
    }

    /// Invalid outputs.
    pub fn invalid(&self) -> u64 {
        self.invalid_malicious + self.invalid_benign
    }

    /// Decided predictions n_d.
    pub fn decided(&self) -> u64 {
        self.tp + self.tn + self.fp + self.fn_
    }

    /// Scored predictions n_s = n_d + invalid.
    pub fn scored(&self) -> u64 {
        self.decided() + self.invalid()
    }

    /// All samples N.
    pub fn all(&self) -> u64 {
        self.scored() + self.abstain
    }

    /// The same counts with invalid outputs dropped (upstream's view).
    pub fn without_invalid(&self) -> Tally {
        Tally {
            invalid_malicious: 0,
            invalid_benign: 0,
            ..*self
        }
    }
}

/// The calibration point of a sample, if it has one: decided predictions
/// with their confidence, invalid outputs with confidence 1.0 and incorrect
/// (E1 §4.3); abstentions have none.
pub fn point(s: &E1Sample) -> Option<ConfidencePoint> {
    match s.prediction {
        Prediction::Malicious | Prediction::Benign => Some(ConfidencePoint::new(
            s.confidence,
            (s.prediction == Prediction::Malicious) == s.gold_malicious,
        )),
        Prediction::Invalid => Some(ConfidencePoint::new(1.0, false)),
        Prediction::Abstain => None,
    }
}

/// Collects the names of metrics whose denominator was zero.
#[derive(Debug, Default)]
pub struct Undefined(pub Vec<String>);

impl Undefined {
    fn value(&mut self, name: &str, v: Option<f64>, edge: f64) -> f64 {
        v.unwrap_or_else(|| {
            self.flag(name);
            edge
        })
    }

    fn flag(&mut self, name: &str) {
        if !self.0.iter().any(|n| n == name) {
            self.0.push(name.to_string());
        }
    }
}

/// The detection block from counts; invalid outputs on malicious gold count
/// as misses, and `accuracy` is correct calls over all samples, abstentions
/// and invalid outputs counting as not correct (upstream's values:
/// [`upstream_detection`]).
pub fn detection(t: &Tally, und: &mut Undefined) -> E1Detection {
    let accuracy = und.value("accuracy", ratio(t.tp + t.tn, t.all()), 0.0);
    let recall = ratio(t.tp, t.tp + t.fn_ + t.invalid_malicious);
    let tpr = und.value("tpr", recall, 0.0);
    let fnr = match recall {
        Some(r) => 1.0 - r,
        None => und.value("fnr", None, 1.0),
    };
    let precision_v = ratio(t.tp, t.tp + t.fp);
    let precision = und.value("precision", precision_v, 0.0);
    let fpr = und.value("fpr", ratio(t.fp, t.fp + t.tn), 0.0);
    if precision_v.is_none() || recall.is_none() {
        und.flag("f1");
    }
    E1Detection {
        tpr,
        fpr,
        fnr,
        precision,
        f1: f1_score(precision, tpr),
        accuracy,
    }
}

/// Correct calls over non-abstained samples (invalid outputs count as not
/// correct), the selective accuracy.
pub fn accuracy_non_abstained(t: &Tally) -> Option<f64> {
    ratio(t.tp + t.tn, t.scored())
}

/// Upstream's detection block: invalid outputs dropped, `accuracy` over
/// non-abstained answers.
pub fn upstream_detection(t: &Tally, und: &mut Undefined) -> E1Detection {
    let t = t.without_invalid();
    E1Detection {
        accuracy: accuracy_non_abstained(&t).unwrap_or(0.0),
        ..detection(&t, und)
    }
}

/// The calibration block from an accumulator over the calibration points.
pub fn calibration(cal: &CalibrationAccumulator, und: &mut Undefined) -> E1Calibration {
    E1Calibration {
        ece: und.value("ece", cal.ece(), 0.0),
        brier: und.value("brier", cal.brier(), 0.0),
    }
}

/// The cost block: FN weight 10 (invalid on malicious is a miss), FP weight
/// 1 (invalid on benign costs an analyst look).
pub fn cost(t: &Tally, und: &mut Undefined) -> E1Cost {
    let misses = (t.fn_ + t.invalid_malicious) as f64;
    let alarms = (t.fp + t.invalid_benign) as f64;
    let total_cost = FN_COST_WEIGHT * misses + FP_COST_WEIGHT * alarms;
    let n = t.scored();
    let cwa = if n == 0 {
        und.value("cost_weighted_accuracy", None, 1.0)
    } else {
        1.0 - total_cost / (FN_COST_WEIGHT * n as f64)
    };
    E1Cost {
        fn_cost_weight: FN_COST_WEIGHT,
        fp_cost_weight: FP_COST_WEIGHT,
        total_cost,
        cost_weighted_accuracy: cwa,
    }
}

/// Everything computed for one set of samples.
#[derive(Debug, Clone, PartialEq)]
pub struct E1Computed {
    /// Invalid-aware upstream-named metrics.
    pub metrics: E1Metrics,
    /// The same blocks with invalid outputs dropped.
    pub upstream: E1UpstreamMetrics,
    /// Extras.
    pub extras: E1Extras,
    /// Names of metrics with a zero denominator.
    pub undefined: Vec<String>,
    /// Counts.
    pub tally: Tally,
}

/// Computes every E1 metric of `samples` (in input order) with the v1 cost
/// matrix `matrix` for `expected_cost_v1`.
pub fn compute(samples: &[E1Sample], matrix: &CostMatrix) -> E1Computed {
    let mut tally = Tally::default();
    let mut points = Vec::with_capacity(samples.len());
    let mut decided_points = Vec::with_capacity(samples.len());
    let mut cal = CalibrationAccumulator::new();
    let mut cal_decided = CalibrationAccumulator::new();
    let mut cost_sum = 0.0;
    for s in samples {
        tally.add(s);
        if let Some(p) = point(s) {
            cal.add(p);
            points.push(p);
            if s.prediction != Prediction::Invalid {
                cal_decided.add(p);
                decided_points.push(p);
            }
        }
        cost_sum += matrix.cost(v1_decision(s));
    }

    let mut und = Undefined::default();
    let det = detection(&tally, &mut und);
    let calib = calibration(&cal, &mut und);
    let aurc = und.value("aurc", aurc_upstream(&points), 0.0);
    let curve = risk_coverage(&points);
    let aurc_standard = if points.is_empty() {
        und.value("aurc_standard", None, 0.0)
    } else {
        aurc_from_curve(&curve)
    };
    let cost_block = cost(&tally, &mut und);
    let abstain_rate = und.value("abstain_rate", ratio(tally.abstain, tally.all()), 0.0);
    let accuracy_non_abstained = und.value(
        "accuracy_non_abstained",
        accuracy_non_abstained(&tally),
        0.0,
    );
    let invalid_rate = und.value("invalid_rate", ratio(tally.invalid(), tally.all()), 0.0);
    let n_all = tally.all();
    let expected_cost_v1 = if n_all == 0 {
        und.value("expected_cost_v1", None, 0.0)
    } else {
        cost_sum / n_all as f64
    };
    if n_all == 0 {
        und.flag("expected_utility_v1");
    }
    let expected_utility_v1 = 1.0 - expected_cost_v1 / matrix.cost_fn;

    let metrics = E1Metrics {
        detection: det.clone(),
        calibration: calib,
        cost: cost_block,
        abstention: E1Abstention {
            abstain_rate,
            accuracy_non_abstained,
            aurc,
        },
        confusion_matrix: E1ConfusionMatrix {
            tp: tally.tp,
            tn: tally.tn,
            fp: tally.fp,
            fn_: tally.fn_,
            abstain: tally.abstain,
            invalid: tally.invalid(),
            invalid_malicious: tally.invalid_malicious,
            invalid_benign: tally.invalid_benign,
            label_only: tally.label_only,
        },
    };
    let upstream = upstream_metrics(&tally, &cal_decided, &decided_points);
    E1Computed {
        metrics,
        upstream,
        extras: E1Extras {
            aurc_standard,
            risk_coverage: curve,
            expected_cost_v1,
            expected_utility_v1,
            invalid_rate,
        },
        undefined: und.0,
        tally,
    }
}

/// Upstream's values: invalid outputs dropped, abstentions set aside.
fn upstream_metrics(
    tally: &Tally,
    cal_decided: &CalibrationAccumulator,
    decided_points: &[ConfidencePoint],
) -> E1UpstreamMetrics {
    let t = tally.without_invalid();
    // Upstream's view has its own zero denominators; they are not listed.
    let mut und = Undefined::default();
    let det = upstream_detection(tally, &mut und);
    E1UpstreamMetrics {
        calibration: calibration(cal_decided, &mut und),
        cost: cost(&t, &mut und),
        abstention: E1Abstention {
            abstain_rate: ratio(t.abstain, t.all()).unwrap_or(0.0),
            accuracy_non_abstained: det.accuracy,
            aurc: aurc_upstream(decided_points).unwrap_or(0.0),
        },
        detection: det,
        confusion_matrix: E1UpstreamConfusionMatrix {
            tp: t.tp,
            tn: t.tn,
            fp: t.fp,
            fn_: t.fn_,
            abstain: t.abstain,
        },
    }
}

/// The v1 cost-matrix decision of a sample; invalid outputs are charged as a
/// miss (cost_fn) whatever the gold.
pub fn v1_decision(s: &E1Sample) -> Decision {
    match (s.prediction, s.gold_malicious) {
        (Prediction::Malicious, true) | (Prediction::Benign, false) => Decision::Correct,
        (Prediction::Malicious, false) => Decision::FalsePositive,
        (Prediction::Benign, true) | (Prediction::Invalid, _) => Decision::FalseNegative,
        (Prediction::Abstain, _) => Decision::Abstain,
    }
}
