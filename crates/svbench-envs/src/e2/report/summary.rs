//! E2 summary types (spec E2 §6; harness §4.1): upstream's `metrics` blocks
//! and `severity_breakdown`, and the svbench-only top-level `e2` object.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// E2 `metrics` (upstream `bench/report.py` definitions; every optional
/// upstream field is always written).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Metrics {
    /// Averaged per-record precision/recall/F1.
    pub finding_quality: E2FindingQuality,
    /// Patch outcomes.
    pub patch: E2PatchMetrics,
    /// Tool use.
    pub tool_economy: E2ToolEconomy,
    /// Episode-level rates.
    pub episode: E2Episode,
}

/// `finding_quality`: means over records of per-record values on distinct
/// ids (a clean record scores 0 here even when answered `[]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2FindingQuality {
    /// Severity-weighted precision (FP weighted by predicted severity).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub precision_weighted: f64,
    /// Severity-weighted recall.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub recall_weighted: f64,
    /// Severity-weighted F1 (E2's headline metric).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub f1_weighted: f64,
    /// Precision on counts.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub precision_unweighted: f64,
    /// Recall on counts.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub recall_unweighted: f64,
    /// F1 on counts.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub f1_unweighted: f64,
    /// `f1_weighted` over records with a non-empty oracle.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub f1_weighted_positive_only: f64,
    /// `f1_unweighted` over records with a non-empty oracle.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub f1_unweighted_positive_only: f64,
}

/// `patch` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2PatchMetrics {
    /// Records with a non-empty `patch` / records.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub patch_provided_rate: f64,
    /// Applied / provided.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub patch_success_rate: f64,
    /// Over applied records: oracle weight gone after the patch / oracle weight.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub patch_fix_rate: f64,
    /// Over applied records: mean count of oracle ids gone.
    pub mean_violations_fixed: f64,
    /// Over applied records: mean count of post-patch ids not in the oracle.
    pub new_violations_introduced: f64,
}

/// `tool_economy` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2ToolEconomy {
    /// Mean tool calls per record.
    pub mean_tool_calls: f64,
    /// Mean tool time per record, ms.
    pub mean_tool_time_ms: f64,
    /// Σ tool calls / Σ predicted findings (list lengths as written).
    pub calls_per_finding: f64,
    /// `opa`, `kube-linter`, `semgrep` → calls and time.
    pub tool_distribution: BTreeMap<String, E2ToolUse>,
}

/// Calls and time of one tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2ToolUse {
    /// Calls.
    pub calls: u64,
    /// Summed duration, ms.
    pub time_ms: f64,
}

/// `episode` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Episode {
    /// Share of records whose answer held a JSON object (`valid_json`).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub format_valid_rate: f64,
    /// Mean `turns`.
    pub mean_turns: f64,
    /// Among clean records: share answered with no finding.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub clean_pass_rate: f64,
    /// Among clean records: share answered with some finding.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub false_positive_rate_on_clean: f64,
}

/// One severity of the upstream `severity_breakdown`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct E2SeverityCounts {
    /// Oracle entries of this severity (duplicates counted).
    pub total: u64,
    /// Distinct predicted ids present in the oracle with this severity.
    pub found: u64,
    /// Oracle entries gone after an applied patch.
    pub fixed: u64,
}

/// The top-level `e2` object: svbench's E2 metrics beyond upstream's blocks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Summary {
    /// Pooled P/R/F1 over the findings of all scored records, on the sets
    /// the v1 reward compares (normalised ids of the labelled namespaces):
    /// `unweighted` counts findings (the headline), `weighted` weighs them
    /// by catalogue severity.
    pub micro: E2Micro,
    /// Full id → record-level presence counts.
    pub per_rule: BTreeMap<String, E2RuleStats>,
    /// The v1 profile's means and rates.
    pub v1: E2V1Stats,
    /// The upstream profile's means.
    pub upstream: E2UpstreamStats,
    /// The same metrics per fixture type (`k8s`, `tf`).
    pub by_lang: BTreeMap<String, E2LangGroup>,
    /// 95 % bootstrap interval of `f1_weighted`; null with no scored record.
    pub ci95: Option<E2Ci95>,
    /// `oracle (upper bound)` when the run's policy was `builtin:oracle`.
    pub policy_label: Option<String>,
}

/// Weighted and unweighted pooled scores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Micro {
    /// Catalogue-severity weights.
    pub weighted: E2Prf,
    /// Counts.
    pub unweighted: E2Prf,
}

/// Pooled TP/FP/FN and the scores derived from them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Prf {
    /// Σ TP.
    pub tp: f64,
    /// Σ FP.
    pub fp: f64,
    /// Σ FN.
    #[serde(rename = "fn")]
    pub fn_: f64,
    /// TP / (TP + FP); null when nothing was predicted.
    pub precision: Option<f64>,
    /// TP / (TP + FN); null when the oracle holds no finding.
    pub recall: Option<f64>,
    /// 2·TP / (2·TP + FP + FN), the harmonic mean of precision and recall
    /// (0 when either is 0 or null); null when TP + FP + FN = 0.
    pub f1: Option<f64>,
}

/// Record-level counts of one rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2RuleStats {
    /// Records where the rule was predicted and in the oracle.
    pub tp: u64,
    /// Records where it was predicted but not in the oracle.
    pub fp: u64,
    /// Records where it was in the oracle but not predicted.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// tp / (tp + fp); null when never predicted.
    pub precision: Option<f64>,
    /// tp / (tp + fn); null when never in the oracle.
    pub recall: Option<f64>,
    /// Records with the rule in the oracle (tp + fn).
    pub support: u64,
}

/// The v1 profile's view (from `parsed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2V1Stats {
    /// Mean v1 total reward.
    pub mean_reward: Option<f64>,
    /// Mean detection component.
    pub mean_detection: Option<f64>,
    /// Mean patch component.
    pub mean_patch: Option<f64>,
    /// Share of strictly valid answers (format credit).
    pub strict_format_rate: Option<f64>,
    /// Among clean records (v1 oracle empty): share with no scored id.
    pub clean_pass_rate: Option<f64>,
    /// Records with a v1 patch / records.
    pub patch_provided_rate: Option<f64>,
    /// Applied / patches given.
    pub patch_applied_rate: Option<f64>,
    /// Preservation failures / patches given.
    pub preservation_failure_rate: Option<f64>,
    /// Patch status → records (`applied`, `apply_failed`, `too_large`, …).
    pub patch_status: BTreeMap<String, u64>,
    /// v1 parse `invalid` / records.
    pub parse_failure_rate: Option<f64>,
    /// Turn limit with tool calls pending / records.
    pub no_answer_rate: Option<f64>,
    /// Records with a call refused for budget / records.
    pub budget_exhausted_rate: Option<f64>,
}

/// The upstream profile's view (from `parsed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2UpstreamStats {
    /// Mean upstream total reward.
    pub mean_reward: Option<f64>,
    /// Component → mean.
    pub components: BTreeMap<String, Option<f64>>,
}

/// Metrics of one fixture type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2LangGroup {
    /// Scored records of this type.
    pub n: u64,
    /// Upstream-named blocks.
    pub metrics: E2Metrics,
    /// Pooled scores.
    pub micro: E2Micro,
}

/// 95 % percentile-bootstrap intervals `[low, high]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Ci95 {
    /// `micro.unweighted.f1` (pooled F1 over findings); null when not finite.
    pub micro_f1: Option<[f64; 2]>,
    /// `f1_weighted` (upstream's averaged F1).
    pub f1_weighted: [f64; 2],
    /// `patch_success_rate` (applied / provided, 0 in a resample without a
    /// patch); null when not finite.
    pub patch_success_rate: Option<[f64; 2]>,
}
