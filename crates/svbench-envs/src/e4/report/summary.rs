//! E4 summary types (spec E4 §8): the `metrics` object of a phishing-triage
//! run and its `upstream_compat` block.
//!
//! E4 has no upstream summary schema, so `metrics` takes the shape other
//! environments share, `{reward, components, ...}`, with E4's metrics
//! flattened beside them. A ratio whose denominator is zero is `null`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use svbench_core::metrics::RiskCoveragePoint;

/// E4 `metrics`: reward means, the full metric set over every scored row,
/// the same set per group, and bootstrap intervals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Metrics {
    /// Mean reward over scored records.
    pub reward: Option<f64>,
    /// Component → mean value over the records carrying it.
    pub components: BTreeMap<String, Option<f64>>,
    /// The metrics over every scored row.
    #[serde(flatten)]
    pub all: E4MetricSet,
    /// The same metrics per `phishing_type`, `difficulty`, `family` and gold label.
    pub groups: E4Groups,
    /// 95 % bootstrap intervals; null when no row was scored.
    pub ci95: Option<E4Ci95>,
    /// The v1 cost matrix behind `cost.expected_cost_v1` and where it came from.
    pub cost_matrix_v1: E4CostMatrixRecord,
}

/// Every E4 metric of one set of rows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4MetricSet {
    /// Gold × predicted counts, with label-only answers counted apart.
    pub confusion: E4Confusion,
    /// Phishing calls that were right, over gold Phishing/Legitimate rows.
    pub precision: Option<f64>,
    /// TP / (TP + FN + invalid on gold Phishing): abstentions set aside.
    pub recall: Option<f64>,
    /// TP / every gold Phishing row: abstentions and invalid answers are misses.
    pub recall_strict: Option<f64>,
    /// F1 of `precision` and `recall`.
    pub f1: Option<f64>,
    /// 1 − `recall`.
    pub fnr: Option<f64>,
    /// FP / (FP + TN); invalid answers raise no alarm.
    pub fpr: Option<f64>,
    /// Label equals gold over every row (invalid answers are wrong).
    pub accuracy: Option<f64>,
    /// Expected calibration error, 10 bins, over decided answers (invalid at
    /// confidence 1.0, wrong).
    pub ece: Option<f64>,
    /// Brier score over the same answers.
    pub brier: Option<f64>,
    /// Abstention rates.
    pub abstention: E4Abstention,
    /// Risk–coverage over decided answers, descending threshold.
    pub risk_coverage: Vec<RiskCoveragePoint>,
    /// Standard AURC of `risk_coverage`.
    pub aurc_standard: Option<f64>,
    /// Risk at the first curve point covering at least 80 % of the answers.
    #[serde(rename = "risk_at_coverage_0.8")]
    pub risk_at_coverage_0_8: Option<f64>,
    /// Risk at the first curve point covering at least 90 % of the answers.
    #[serde(rename = "risk_at_coverage_0.9")]
    pub risk_at_coverage_0_9: Option<f64>,
    /// Costs.
    pub cost: E4Cost,
    /// Evidence quality over the rows where evidence is scored.
    pub evidence: E4Evidence,
    /// Rows where evidence was not applicable (left out of `evidence`).
    pub evidence_na_rows: u64,
}

/// One gold row of the confusion matrix: predicted label → count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct E4ConfusionRow {
    /// Predicted Phishing.
    pub phishing: u64,
    /// Predicted Legitimate.
    pub legitimate: u64,
    /// Predicted Abstain.
    pub abstain: u64,
    /// No usable label.
    pub invalid: u64,
}

/// The 3 × 4 confusion counts (gold rows × predicted columns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct E4Confusion {
    /// Gold Phishing.
    pub phishing: E4ConfusionRow,
    /// Gold Legitimate.
    pub legitimate: E4ConfusionRow,
    /// Gold Abstain (genuinely ambiguous).
    pub abstain: E4ConfusionRow,
    /// Answers with a label but no usable confidence (counted in their
    /// label's cell at confidence 0.0).
    pub label_only: u64,
}

/// Abstention rates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Abstention {
    /// Abstentions over every row.
    pub abstain_rate: Option<f64>,
    /// Gold-Abstain rows answered Abstain, over gold-Abstain rows.
    pub abstain_on_ambiguous: Option<f64>,
    /// Gold Phishing/Legitimate rows answered Abstain, over those rows.
    pub over_abstention: Option<f64>,
}

/// Costs: the v1 triage matrix and upstream-era 10/1 weights.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Cost {
    /// Mean v1 cost over every row, invalid answers charged `cost_fn`.
    pub expected_cost_v1: Option<f64>,
    /// 1 − expected_cost_v1 / cost_fn.
    pub expected_utility_v1: Option<f64>,
    /// 10·(FN + invalid on Phishing) + 1·(FP + invalid on Legitimate).
    pub total_cost: f64,
    /// 1 − total_cost / (10 · decided-or-invalid Phishing/Legitimate rows).
    pub cost_weighted_accuracy: Option<f64>,
}

/// The v1 triage cost matrix as used by the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4CostMatrixRecord {
    /// Legitimate on gold Phishing.
    pub cost_fn: f64,
    /// Phishing on gold Legitimate.
    pub cost_fp: f64,
    /// Abstain on a clear-cut row.
    pub cost_abstain: f64,
    /// Phishing on gold Abstain.
    pub cost_amb_phishing: f64,
    /// Legitimate on gold Abstain.
    pub cost_amb_legitimate: f64,
    /// Where the costs come from: `reward_params` (a `v1` run's
    /// constants), `env_provenance` (the `cost_matrix_v1` the environment
    /// recorded with a run of another profile) or `defaults` (a run that
    /// recorded neither, written before runs recorded their costs).
    pub source: String,
}

/// Evidence quality over every applicable row and per `gold_source`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Evidence {
    /// Every applicable row.
    #[serde(flatten)]
    pub all: E4EvidenceStats,
    /// The same per `gold_source` (`annotated`, `extractor`, …).
    pub by_gold_source: BTreeMap<String, E4EvidenceStats>,
}

/// Evidence statistics of a set of applicable rows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4EvidenceStats {
    /// Applicable rows.
    pub rows: u64,
    /// Items given (valid and invalid).
    pub items: u64,
    /// Matched items / items.
    pub precision_micro: Option<f64>,
    /// Mean per-answer precision over answers citing at least one item.
    pub precision_macro: Option<f64>,
    /// Recalled relevant gold spans / relevant gold spans.
    pub recall_micro: Option<f64>,
    /// Mean per-answer recall over answers with at least one relevant span.
    pub recall_macro: Option<f64>,
    /// Mean of the `evidence` component (invalid answers score 0).
    pub f1: Option<f64>,
    /// Valid (grounded) items / items.
    pub grounding_rate: Option<f64>,
    /// Invalid-item status → count.
    pub invalid_item_reasons: BTreeMap<String, u64>,
    /// Mean items per row.
    pub mean_items: Option<f64>,
    /// Gold-span category → relevant spans, recalled spans and their ratio.
    pub recall_by_category: BTreeMap<String, E4CategoryRecall>,
}

/// Recall of one gold-span category.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4CategoryRecall {
    /// Relevant gold spans of the category.
    pub gold: u64,
    /// Those matched by some valid item.
    pub recalled: u64,
    /// recalled / gold.
    pub recall: Option<f64>,
}

/// Metrics per grouping key (missing keys read `unknown`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Groups {
    /// By `phishing_type`.
    pub phishing_type: BTreeMap<String, E4Group>,
    /// By `difficulty`.
    pub difficulty: BTreeMap<String, E4Group>,
    /// By template `family`.
    pub family: BTreeMap<String, E4Group>,
    /// By gold label.
    pub gold: BTreeMap<String, E4Group>,
}

/// The full metric set of one group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Group {
    /// Rows in the group.
    pub n: u64,
    /// Its metrics.
    #[serde(flatten)]
    pub metrics: E4MetricSet,
}

/// 95 % percentile-bootstrap intervals `[low, high]`; null where undefined.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Ci95 {
    /// Accuracy.
    pub accuracy: Option<[f64; 2]>,
    /// F1.
    pub f1: Option<[f64; 2]>,
    /// ECE.
    pub ece: Option<[f64; 2]>,
    /// Brier score.
    pub brier: Option<[f64; 2]>,
    /// Mean total reward.
    pub reward_mean: Option<[f64; 2]>,
    /// Mean evidence component.
    pub evidence_f1: Option<[f64; 2]>,
}

/// E4 metrics computed upstream's way (`upstream_compat`): invalid answers
/// dropped; detection rates over decided Phishing/Legitimate answers on
/// clear-cut rows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4UpstreamMetrics {
    /// Rows with a parsed label.
    pub n: u64,
    /// Label equals gold over rows with a parsed label.
    pub accuracy: f64,
    /// TP / (TP + FP).
    pub precision: f64,
    /// TP / (TP + FN).
    pub recall: f64,
    /// F1 of precision and recall.
    pub f1: f64,
    /// 1 − recall (1.0 without gold Phishing).
    pub fnr: f64,
    /// FP / (FP + TN).
    pub fpr: f64,
    /// Brier score over decided answers.
    pub brier: f64,
    /// Abstentions over rows with a parsed label.
    pub abstain_rate: f64,
}
