//! `svbench compare` output (harness §5.3): paired differences between two
//! runs of one environment on the same examples.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The comparison of run B against run A (deltas are B − A).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// Canonical environment name.
    pub environment: String,
    /// Run A.
    pub a: RunRef,
    /// Run B.
    pub b: RunRef,
    /// `--allow-unmatched` was given.
    pub allow_unmatched: bool,
    /// The runs did not match (only possible with `--allow-unmatched`):
    /// read the numbers as exploratory.
    pub exploratory: bool,
    /// Parity fields allowed to differ (`--vary`).
    pub vary: Vec<String>,
    /// Parity fields checked.
    pub budget_fields: Vec<String>,
    /// Parity fields not in `vary` that differ.
    pub budget_mismatches: Vec<FieldMismatch>,
    /// Hosted-identity fields that differ (`prime_environment_id`,
    /// `environment_version`).
    pub hosted_identity_mismatches: Vec<FieldMismatch>,
    /// Everything else that makes the runs unmatched (environment, split,
    /// dataset hash, example sets).
    pub mismatches: Vec<String>,
    /// Examples paired.
    pub n_pairs: u64,
    /// Examples left out because a side errored.
    pub n_excluded_errors: u64,
    /// Examples only in run A / only in run B (left out).
    pub n_only_a: u64,
    /// Examples only in run B.
    pub n_only_b: u64,
    /// One entry per metric.
    pub metrics: Vec<MetricComparison>,
}

/// Which run a side is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunRef {
    /// Run id.
    pub run_id: String,
    /// Run directory as given.
    pub path: String,
    /// `--model` as given.
    pub model: String,
    /// Reward profile.
    pub reward_profile: Option<String>,
    /// `[lowest, highest]` total the reward profile can give; null when not
    /// known.
    #[serde(default)]
    pub reward_range: Option<[f64; 2]>,
}

/// A parity field whose values differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FieldMismatch {
    /// Field name.
    pub field: String,
    /// Run A's value.
    pub a: Value,
    /// Run B's value.
    pub b: Value,
}

/// Paired statistics of one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetricComparison {
    /// `reward`, `reward.<component>`, or an environment metric (E1
    /// `accuracy`, `cost`; E2 upstream's per-record `f1_weighted`,
    /// `f1_unweighted`, then `patch_applied`, `clean_pass`); a name means
    /// what it means in the report (means over examples, so pooled metrics
    /// such as E2's `micro_f1` are not paired).
    pub metric: String,
    /// Pairs with the metric defined on both sides.
    pub n: u64,
    /// Mean of A.
    pub mean_a: Option<f64>,
    /// Mean of B.
    pub mean_b: Option<f64>,
    /// Mean of B − A.
    pub mean_delta: Option<f64>,
    /// Lower bound of the paired bootstrap interval of `mean_delta`.
    pub ci_low: Option<f64>,
    /// Upper bound.
    pub ci_high: Option<f64>,
    /// Interval level (`--ci`).
    pub ci_level: f64,
    /// Bootstrap resamples (`--bootstrap`).
    pub bootstrap_samples: u64,
    /// Bootstrap seed (`--seed`).
    pub seed: u64,
    /// Sign test of the deltas.
    pub sign_test: SignTestRecord,
    /// Exact McNemar test; null unless every paired value is 0 or 1.
    pub mcnemar: Option<McNemarRecord>,
}

/// Sign test counts and p-value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SignTestRecord {
    /// Positive deltas.
    pub n_pos: u64,
    /// Negative deltas.
    pub n_neg: u64,
    /// Zero deltas (dropped).
    pub n_zero: u64,
    /// Two-sided exact p-value.
    pub p_value: f64,
}

/// McNemar counts and p-value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McNemarRecord {
    /// A right, B wrong.
    pub b: u64,
    /// A wrong, B right.
    pub c: u64,
    /// Two-sided exact p-value.
    pub p_value: f64,
}

/// One line of the per-example deltas file (JSONL).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExampleDelta {
    /// Example id.
    pub example_id: String,
    /// Metric.
    pub metric: String,
    /// A's value (mean over rollouts).
    pub a: f64,
    /// B's value.
    pub b: f64,
    /// b − a.
    pub delta: f64,
}
