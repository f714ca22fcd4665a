//! `summary.json` types (harness §4.1, §4.2; E1 §4.7).
//!
//! The upstream fields come first, in upstream's shape (upstream
//! `bench/schemas/summary.schema.json` has no `additionalProperties`
//! restriction, so upstream validators accept the extension fields that
//! follow). Keys serialise in declaration order; free-key maps are sorted.
//! Values are never NaN or infinite: svbench-only fields use `null`,
//! upstream-named fields `0.0` plus a `warnings` entry.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::RiskCoveragePoint;
use crate::record::{RunStatus, Usage};

mod e2;
mod e4;
pub use e2::*;
pub use e4::*;

/// Value of `schema_version`.
pub const SUMMARY_SCHEMA_VERSION: &str = "svbench-summary/1";

/// Value of `version`: the metrics spec, `0.1.0` while identical to upstream.
pub const METRICS_VERSION: &str = "0.1.0";

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Canonical environment name.
    pub environment: String,
    /// Metrics spec version ([`METRICS_VERSION`]).
    #[schemars(pattern(r"^\d+\.\d+\.\d+$"))]
    pub version: String,
    /// Run id.
    pub run_id: String,
    /// Generation time, `YYYY-MM-DDTHH:MM:SSZ`.
    pub timestamp: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// Number of result records (≥ 1; errored records included).
    #[schemars(range(min = 1))]
    pub n_examples: u64,
    /// The environment's metrics: upstream's blocks for E1.
    pub metrics: SummaryMetrics,
    /// Upstream run metadata (null values omitted).
    pub metadata: SummaryMetadata,
    /// E2: oracle findings per severity, found and fixed (keys `high`,
    /// `med`, `low`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity_breakdown: Option<BTreeMap<String, E2SeverityCounts>>,

    /// The metrics to read first, most important first, in svbench's
    /// definitions (the report, the scoreboard and `compare` use the same
    /// name for the same quantity). Empty for environments whose metrics the
    /// report does not compute.
    #[serde(default)]
    pub headline: Vec<HeadlineMetric>,
    /// `svbench-summary/1`.
    pub schema_version: String,
    /// Version of svbench that wrote this summary.
    pub svbench_version: String,
    /// Run status from `metadata.json`.
    pub run_status: Option<RunStatus>,
    /// RFC 3339 run start.
    pub run_started_at: Option<String>,
    /// RFC 3339 run end.
    pub run_finished_at: Option<String>,
    /// Dataset split (`all` if none).
    pub split: Option<String>,
    /// Canonical hash of the loaded split's rows.
    pub dataset_sha256: Option<String>,
    /// Canonical hash of the selected rows in evaluation order.
    pub selected_sha256: Option<String>,
    /// SHA-256 of the bytes of `results.jsonl`.
    pub results_sha256: String,
    /// Reward profile of the run (also the parser mode).
    pub reward_profile: Option<String>,
    /// `sha256:` hash of the effective reward config.
    pub reward_config_hash: Option<String>,
    /// Record and parse-outcome counts.
    pub counts: SummaryCounts,
    /// Parse-failure, no-answer and error rates beside the strict headline.
    pub validity: Validity,
    /// Upstream-named blocks computed upstream's way (invalid outputs
    /// dropped); null where the environment spec defines none.
    pub upstream_compat: Option<UpstreamCompat>,
    /// Reward statistics over scored records of the run's profile.
    pub reward: RewardStats,
    /// Token usage summed over all records.
    pub usage: Usage,
    /// Sample wall-time statistics over all records.
    pub latency_ms: LatencyStats,
    /// Error kind → errored records.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Everything a reader should know about how these numbers came about.
    pub warnings: Vec<String>,
    /// Settings of every confidence interval in this summary.
    pub bootstrap: BootstrapSettings,
    /// E1 metrics beyond upstream's blocks: intervals, extras, groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e1: Option<E1Summary>,
    /// E2 metrics beyond upstream's blocks: micro scores over findings, per-language rows, intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2: Option<E2Summary>,
}

/// One headline metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HeadlineMetric {
    /// Metric name, unique within the summary (e.g. `accuracy`, `micro_f1`).
    pub name: String,
    /// Value; null when undefined (a zero denominator).
    pub value: Option<f64>,
    /// 95 % bootstrap interval `[low, high]`, when computed.
    pub ci95: Option<[f64; 2]>,
    /// What the value is, in one sentence.
    pub definition: String,
}

impl Summary {
    /// The headline metric named `name`, if the summary has one.
    #[must_use]
    pub fn headline_metric(&self, name: &str) -> Option<&HeadlineMetric> {
        self.headline.iter().find(|m| m.name == name)
    }

    /// The value of headline metric `name` (`None` when absent or undefined).
    #[must_use]
    pub fn headline_value(&self, name: &str) -> Option<f64> {
        self.headline_metric(name).and_then(|m| m.value)
    }
}

/// Upstream's `metadata` object; null values are omitted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SummaryMetadata {
    /// Short commit of the svbench source built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_sha: Option<String>,
    /// Environment version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_version: Option<String>,
    /// Always absent (key compatibility).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python_version: Option<String>,
    /// Always absent (key compatibility).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifiers_version: Option<String>,
    /// Run seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Free label of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_name: Option<String>,
    /// Builtin policy, if one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_type: Option<String>,
    /// `--system-prompt-file` path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_file: Option<String>,
}

/// The `metrics` object: upstream's E1 or E2 blocks, or the generic shape of
/// environments whose metrics are not (yet) computed by the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SummaryMetrics {
    /// E1 (`sv-env-network-logs`).
    E1(E1Metrics),
    /// E2 (`sv-env-config-verification`).
    E2(E2Metrics),
    /// E4 (`sv-env-phishing-detection`); before `Generic`, whose two keys
    /// it also carries, so it reads back as itself.
    E4(Box<E4Metrics>),
    /// `{reward, components}` for environments without upstream metric blocks.
    Generic(GenericMetrics),
}

/// `metrics` of environments without environment-specific metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenericMetrics {
    /// Mean reward over scored records.
    pub reward: Option<f64>,
    /// Component → mean value over scored records.
    pub components: BTreeMap<String, Option<f64>>,
}

/// Upstream-named blocks computed upstream's way (`upstream_compat`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum UpstreamCompat {
    /// E1: invalid outputs dropped, as upstream's report does.
    E1(E1UpstreamMetrics),
    /// E4: invalid outputs dropped.
    E4(E4UpstreamMetrics),
}

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

/// Record and parse-outcome counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SummaryCounts {
    /// Result records (after de-duplication).
    pub records: u64,
    /// Records without an error.
    pub scored: u64,
    /// Records with an error.
    pub errored: u64,
    /// Scored records parsed Valid.
    pub valid: u64,
    /// Scored records parsed LabelOnly.
    pub label_only: u64,
    /// Scored records parsed Invalid.
    pub invalid: u64,
    /// Scored records that hit the turn limit with tool calls pending.
    pub no_answer: u64,
    /// Records stopped by a length or turn limit.
    pub truncated: u64,
    /// Model calls answered from the response cache.
    pub cached_requests: u64,
}

/// `validity`: rates that belong beside the headline metric.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Validity {
    /// invalid / scored.
    pub parse_failure_rate: Option<f64>,
    /// no_answer / scored.
    pub no_answer_rate: Option<f64>,
    /// errored / records.
    pub error_rate: Option<f64>,
    /// `<headline>_strict`: the headline metric with errored samples counted
    /// as failures (E1: `accuracy_strict`).
    #[serde(flatten)]
    pub strict: BTreeMap<String, Option<f64>>,
}

/// Reward statistics (population std; bootstrap CI of the mean).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RewardStats {
    /// Records contributing.
    pub n: u64,
    /// Mean total reward.
    pub mean: Option<f64>,
    /// Population standard deviation.
    pub std: Option<f64>,
    /// Smallest total.
    pub min: Option<f64>,
    /// Largest total.
    pub max: Option<f64>,
    /// `[lowest, highest]` total the profile can give (Σ weight × the
    /// bounds of each component, weights as recorded in `metadata.json`);
    /// null when the profile's component bounds are not known.
    #[serde(default)]
    pub range: Option<[f64; 2]>,
    /// 2.5 % bootstrap quantile of the mean.
    pub ci95_low: Option<f64>,
    /// 97.5 % bootstrap quantile of the mean.
    pub ci95_high: Option<f64>,
    /// Component → statistics of its (unweighted) value.
    pub components: BTreeMap<String, ComponentStats>,
}

/// Statistics of one reward component.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ComponentStats {
    /// Records carrying the component.
    pub n: u64,
    /// Mean value.
    pub mean: Option<f64>,
    /// Population standard deviation.
    pub std: Option<f64>,
    /// Smallest value.
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
}

/// Sample wall-time statistics in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencyStats {
    /// Mean.
    pub mean: Option<f64>,
    /// Median (linear interpolation).
    pub p50: Option<f64>,
    /// 90th percentile.
    pub p90: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
}

/// Bootstrap settings used by every interval of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BootstrapSettings {
    /// Resamples.
    pub resamples: u64,
    /// RNG seed.
    pub seed: u64,
}
