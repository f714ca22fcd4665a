//! Metric primitives shared by every environment's report: confusion counts,
//! precision/recall/F1 with upstream's zero-denominator rules, ECE, Brier,
//! risk–coverage and AURC, the percentile bootstrap, and plain statistics.
//!
//! Definitions are those of E1 §4.2 and §4.4 (the spec defines them once for
//! every environment). Functions whose result has a zero denominator return
//! `None`; callers substitute the upstream edge-case value and list the metric
//! as undefined (E1 §4.5). Every sum runs in input order, as upstream's does,
//! so values agree with upstream within 1e-12.

pub mod binary;
pub mod bootstrap;
pub mod calibration;
pub mod paired;
pub mod selective;
pub mod stats;

pub use binary::{f1_score, ratio, BinaryCounts};
pub use bootstrap::{bootstrap, bootstrap_level, quantile_linear, BootstrapConfig};
pub use calibration::{brier, ece, ece_bin, CalibrationAccumulator, ECE_BINS};
pub use paired::{
    binomial_half_cdf, mcnemar, paired_bootstrap_ci, sign_test, two_sided_binomial, McNemar,
    SignTest,
};
pub use selective::{
    aurc_from_curve, aurc_standard, aurc_upstream, risk_coverage, RiskCoveragePoint,
};
pub use stats::{max, mean, min, percentile, population_std};

/// A scored prediction seen by calibration and selective-risk metrics: the
/// stated confidence and whether the prediction was correct.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidencePoint {
    /// Stated probability that the prediction is correct.
    pub confidence: f64,
    /// Whether the prediction was correct.
    pub correct: bool,
}

impl ConfidencePoint {
    /// A point with the given confidence and correctness.
    pub fn new(confidence: f64, correct: bool) -> Self {
        Self {
            confidence,
            correct,
        }
    }
}
