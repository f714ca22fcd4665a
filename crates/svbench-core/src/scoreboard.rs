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

/// An E1 entry (upstream's columns first).
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
    /// `detection.accuracy`.
    pub acc: f64,
    /// `detection.f1`.
    pub f1: f64,
    /// `calibration.ece`.
    pub ece: f64,
    /// `abstention.abstain_rate`.
    pub abstain: f64,
    /// `cost.cost_weighted_accuracy`.
    pub cost_acc: f64,
    /// Run id.
    pub run_id: String,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// An E2 entry (upstream's columns first).
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
    /// `finding_quality.f1_weighted`.
    pub f1: f64,
    /// `finding_quality.f1_weighted_positive_only`.
    pub f1_pos: f64,
    /// `patch.patch_success_rate`.
    pub patch_success: f64,
    /// `episode.clean_pass_rate`.
    pub clean_pass: f64,
    /// `episode.false_positive_rate_on_clean`.
    pub fp_clean: f64,
    /// Run id.
    pub run_id: String,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
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
    /// svbench version that computed the entry.
    pub svbench_version: String,
    /// When the run finished (RFC 3339).
    pub run_finished_at: Option<String>,
    /// Headline metric → 95 % bootstrap interval `[low, high]` (E1 `acc`,
    /// `f1`; E2 `f1`, `patch_success`); a metric without a defined
    /// interval is absent.
    pub ci95: BTreeMap<String, [f64; 2]>,
}
