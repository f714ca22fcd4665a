//! E1's summary types: upstream's `metrics` and `upstream_compat` blocks
//! and the svbench-only top-level `e1` object.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use svbench_core::metrics::RiskCoveragePoint;

/// E1 `metrics`: upstream's blocks, with invalid answers counted as errors rather than dropped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Metrics {
    /// Detection rates.
    pub detection: E1Detection,
    /// Calibration.
    pub calibration: E1Calibration,
    /// Upstream's 10/1 cost.
    pub cost: E1Cost,
    /// Abstention and selective risk.
    pub abstention: E1Abstention,
    /// Confusion counts, with cells for invalid answers on malicious and benign gold.
    pub confusion_matrix: E1ConfusionMatrix,
}

/// E1 metrics computed upstream's way (`upstream_compat`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1UpstreamMetrics {
    /// Detection rates.
    pub detection: E1Detection,
    /// Calibration.
    pub calibration: E1Calibration,
    /// Upstream's 10/1 cost.
    pub cost: E1Cost,
    /// Abstention and selective risk.
    pub abstention: E1Abstention,
    /// Upstream's confusion counts.
    pub confusion_matrix: E1UpstreamConfusionMatrix,
}

/// `detection` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Detection {
    /// True-positive rate (recall on malicious).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub tpr: f64,
    /// False-positive rate.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub fpr: f64,
    /// 1 − tpr.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub fnr: f64,
    /// Precision of Malicious calls.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub precision: f64,
    /// F1 of precision and tpr.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub f1: f64,
    /// Accuracy. In `metrics`: correct calls / scored samples, abstentions
    /// and invalid answers counting as not correct. In `upstream_compat`:
    /// upstream's, over non-abstained decided answers (equals
    /// `accuracy_non_abstained` there).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub accuracy: f64,
}

/// `calibration` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Calibration {
    /// Expected calibration error, 10 bins.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ece: f64,
    /// Brier score.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub brier: f64,
}

/// `cost` block (upstream's weights: FN 10, FP 1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Cost {
    /// Weight of a miss (10).
    #[schemars(range(min = 0.0))]
    pub fn_cost_weight: f64,
    /// Weight of a false alarm (1).
    #[schemars(range(min = 0.0))]
    pub fp_cost_weight: f64,
    /// Weighted error count.
    #[schemars(range(min = 0.0))]
    pub total_cost: f64,
    /// 1 − total_cost / (fn_cost_weight · n).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub cost_weighted_accuracy: f64,
}

/// `abstention` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Abstention {
    /// Share of abstentions.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub abstain_rate: f64,
    /// Correct calls / non-abstained samples (selective accuracy; invalid
    /// answers count as not correct in `metrics`).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub accuracy_non_abstained: f64,
    /// Upstream's AURC (τ = 0.00…1.00).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub aurc: f64,
}

/// E1 confusion matrix, with cells for invalid answers on malicious and benign gold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct E1ConfusionMatrix {
    /// Malicious on malicious.
    pub tp: u64,
    /// Benign on benign.
    pub tn: u64,
    /// Malicious on benign.
    pub fp: u64,
    /// Benign on malicious.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// Abstentions.
    pub abstain: u64,
    /// Invalid outputs.
    pub invalid: u64,
    /// Invalid outputs on malicious gold.
    pub invalid_malicious: u64,
    /// Invalid outputs on benign gold.
    pub invalid_benign: u64,
    /// Label-only outputs (counted as their label with confidence 0.0).
    pub label_only: u64,
}

/// Upstream's E1 confusion matrix.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct E1UpstreamConfusionMatrix {
    /// Malicious on malicious.
    pub tp: u64,
    /// Benign on benign.
    pub tn: u64,
    /// Malicious on benign.
    pub fp: u64,
    /// Benign on malicious.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// Abstentions.
    pub abstain: u64,
}

/// The top-level `e1` object: svbench's E1 metrics beyond upstream's blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Summary {
    /// Extras: standard AURC, risk–coverage, expected cost and utility, `invalid_rate`.
    pub extras: E1Extras,
    /// The v1 cost matrix behind `expected_cost_v1` and where it came from.
    pub cost_matrix_v1: CostMatrixRecord,
    /// Metrics per `meta.source` and per `meta.scenario`.
    pub groups: E1Groups,
    /// 95 % bootstrap intervals; null when no sample was scored.
    pub ci95: Option<E1Ci95>,
    /// Metrics of `metrics` whose denominator was zero: they hold upstream's
    /// edge values there (upstream's schema requires numbers) and are null
    /// in `headline`.
    pub undefined: Vec<String>,
}

/// E1 extras: standard AURC, the risk–coverage curve, expected cost and utility under the v1 cost matrix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Extras {
    /// Standard AURC over distinct confidences.
    pub aurc_standard: f64,
    /// Risk–coverage curve, descending threshold.
    pub risk_coverage: Vec<RiskCoveragePoint>,
    /// Mean cost under the v1 matrix, invalid charged cost_fn.
    pub expected_cost_v1: f64,
    /// 1 − expected_cost_v1 / cost_fn.
    pub expected_utility_v1: f64,
    /// Invalid outputs / scored samples.
    pub invalid_rate: f64,
}

/// A cost matrix as used by the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CostMatrixRecord {
    /// Cost of a false alarm.
    pub cost_fp: f64,
    /// Cost of a miss.
    pub cost_fn: f64,
    /// Cost of abstaining.
    pub cost_abstain: f64,
    /// Where the costs come from: `reward_params` (a `v1` run's
    /// constants), `env_provenance` (the `cost_matrix_v1` the environment
    /// recorded with a run of another profile) or `defaults` (a run that
    /// recorded neither, written before runs recorded their costs).
    pub source: String,
}

/// Per-group E1 metrics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Groups {
    /// By `meta.source` (missing → `unknown`).
    pub source: BTreeMap<String, E1Group>,
    /// By `meta.scenario` (missing → `unknown`).
    pub scenario: BTreeMap<String, E1Group>,
}

/// The full metric set of one group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Group {
    /// Scored samples in the group.
    pub n: u64,
    /// Upstream-named blocks (invalid-aware).
    pub metrics: E1Metrics,
    /// Extras.
    pub extras: E1Extras,
    /// Metrics with a zero denominator in this group.
    pub undefined: Vec<String>,
}

/// 95 % percentile-bootstrap intervals `[low, high]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Ci95 {
    /// Accuracy.
    pub accuracy: [f64; 2],
    /// F1.
    pub f1: [f64; 2],
    /// ECE.
    pub ece: [f64; 2],
    /// Brier score.
    pub brier: [f64; 2],
}
