//! `<env>_scoreboard.json` (harness §5.1): a top-level array with one entry
//! per run, computed from the run's artifacts by the report library.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A scoreboard file: entries sorted by `(baseline, model, dataset, run_id)`.
pub type Scoreboard = Vec<ScoreboardEntry>;

/// One run's entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ScoreboardEntry {
    /// E1 (`sv-env-network-logs`).
    E1(E1Entry),
    /// E2 (`sv-env-config-verification`).
    E2(E2Entry),
}

impl ScoreboardEntry {
    /// The run id.
    #[must_use]
    pub fn run_id(&self) -> &str {
        match self {
            ScoreboardEntry::E1(e) => &e.run_id,
            ScoreboardEntry::E2(e) => &e.run_id,
        }
    }

    /// The sort key `(baseline, model, dataset, run_id)`.
    #[must_use]
    pub fn sort_key(&self) -> (&str, &str, &str, &str) {
        match self {
            ScoreboardEntry::E1(e) => (&e.baseline, &e.model, &e.dataset, &e.run_id),
            ScoreboardEntry::E2(e) => (&e.baseline, &e.model, &e.dataset, &e.run_id),
        }
    }

    /// The fields every entry has.
    #[must_use]
    pub fn common(&self) -> &EntryCommon {
        match self {
            ScoreboardEntry::E1(e) => &e.common,
            ScoreboardEntry::E2(e) => &e.common,
        }
    }
}

/// An E1 entry. Metric names and definitions are the summary's `headline`
/// ones; a value is null where it is undefined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Entry {
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec (empty when unrecorded).
    pub dataset: String,
    /// Result records.
    pub n: u64,
    /// Correct calls / scored samples (abstentions and invalid answers not
    /// correct): headline `accuracy`.
    pub accuracy: Option<f64>,
    /// Correct calls / non-abstained samples: headline
    /// `accuracy_non_abstained`.
    pub accuracy_non_abstained: Option<f64>,
    /// Headline `f1`.
    pub f1: Option<f64>,
    /// Headline `ece`.
    pub ece: Option<f64>,
    /// Headline `abstain_rate`.
    pub abstain_rate: Option<f64>,
    /// `cost.cost_weighted_accuracy` (upstream's 10/1 weights, over
    /// non-abstained samples).
    pub cost_weighted_accuracy: Option<f64>,
    /// Run id.
    pub run_id: String,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// An E2 entry: the summary's headline (pooled scores over findings, per
/// fixture type) first, upstream-named fields in `upstream_compat`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Entry {
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec (empty when unrecorded).
    pub dataset: String,
    /// Result records.
    pub n: u64,
    /// Headline `micro_f1`: pooled F1 over findings.
    pub micro_f1: Option<f64>,
    /// Headline `micro_precision`.
    pub micro_precision: Option<f64>,
    /// Headline `micro_recall`.
    pub micro_recall: Option<f64>,
    /// Fixture type (`k8s`, `tf`) → `micro_f1` over its records.
    pub micro_f1_by_lang: BTreeMap<String, Option<f64>>,
    /// Headline `clean_pass_rate` (v1 sets).
    pub clean_pass_rate: Option<f64>,
    /// `patch.patch_success_rate`: applied / provided patches; null when no
    /// answer provided a patch.
    pub patch_success: Option<f64>,
    /// Run id.
    pub run_id: String,
    /// Upstream-named fields, upstream's definitions.
    pub upstream_compat: E2EntryUpstream,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// Upstream's E2 scoreboard columns, upstream's definitions: averaged
/// per-record F1 (a clean record answered `[]` counts 0) on upstream's id
/// normalisation (Terraform's `opa/` labels dropped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2EntryUpstream {
    /// `finding_quality.f1_weighted`.
    pub f1_weighted: f64,
    /// `finding_quality.f1_weighted_positive_only`.
    pub f1_weighted_positive_only: f64,
    /// `episode.clean_pass_rate`.
    pub clean_pass_rate: f64,
    /// `episode.false_positive_rate_on_clean`.
    pub false_positive_rate_on_clean: f64,
}

/// Fields every entry carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntryCommon {
    /// Invalid / scored.
    pub parse_failure_rate: Option<f64>,
    /// Errored / records.
    pub error_rate: Option<f64>,
    /// Canonical hash of the loaded split.
    pub dataset_sha256: Option<String>,
    /// Split evaluated.
    pub split: Option<String>,
    /// Reward profile of the metrics.
    pub reward_profile: Option<String>,
    /// Mean total reward.
    pub reward_mean: Option<f64>,
    /// `[lowest, highest]` total the reward profile can give.
    pub reward_range: Option<[f64; 2]>,
    /// svbench version that computed the entry.
    pub svbench_version: String,
    /// When the run finished (RFC 3339).
    pub run_finished_at: Option<String>,
    /// Metric → 95 % bootstrap interval `[low, high]` (E1 `accuracy`, `f1`;
    /// E2 `micro_f1`, `f1_weighted`, `patch_success`); a metric without a
    /// defined interval is absent.
    pub ci95: BTreeMap<String, [f64; 2]>,
}
