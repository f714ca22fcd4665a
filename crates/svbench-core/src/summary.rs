//! `summary.json` types (harness §4.1, §4.2).
//!
//! The upstream fields come first, in upstream's shape (upstream
//! `bench/schemas/summary.schema.json` has no `additionalProperties`
//! restriction, so upstream validators accept the extension fields that
//! follow). Keys serialise in declaration order; free-key maps are sorted.
//! Values are never NaN or infinite: svbench-only fields use `null`,
//! upstream-named fields `0.0` plus a `warnings` entry.
//!
//! What differs per environment (`metrics`, `upstream_compat` and the
//! top-level objects an environment adds, such as E2's
//! `severity_breakdown`) is held as JSON here: each environment's report
//! plugin writes and reads it as its own types, and the summary's schema is
//! composed from theirs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::record::{RunStatus, Usage};

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
    /// The environment's metrics, as its report plugin writes them
    /// (upstream's blocks for E1 and E2; `{reward, components}` for an
    /// environment without a plugin).
    pub metrics: Value,
    /// Upstream run metadata (null values omitted).
    pub metadata: SummaryMetadata,
    /// Objects of upstream's shape the environment adds here, among
    /// upstream's fields (E2: `severity_breakdown`). Written only: a summary
    /// read back has them in [`Summary::extensions`].
    #[serde(flatten, skip_deserializing)]
    #[schemars(skip)]
    pub upstream_extensions: Map<String, Value>,

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
    pub upstream_compat: Option<Value>,
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
    /// The top-level objects the environment adds, by key, in the order
    /// its plugin wrote them (E1: `e1`; E2: `severity_breakdown`, `e2`).
    #[serde(flatten)]
    pub extensions: Map<String, Value>,
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

    /// `metrics` read as the environment's type; `None` when it does not
    /// read as one (another environment's summary, say).
    #[must_use]
    pub fn metrics_as<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(&self.metrics).ok()
    }

    /// `upstream_compat` read as the environment's type.
    #[must_use]
    pub fn upstream_compat_as<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(self.upstream_compat.as_ref()?).ok()
    }

    /// The top-level object `key` the environment added, read as its type.
    #[must_use]
    pub fn extension<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let value = self
            .upstream_extensions
            .get(key)
            .or_else(|| self.extensions.get(key))?;
        T::deserialize(value).ok()
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
    /// Worked examples shown before every prompt (`--few-shot`; absent:
    /// zero-shot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub few_shot: Option<u64>,
}

/// `metrics` of environments without environment-specific metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenericMetrics {
    /// Mean reward over scored records.
    pub reward: Option<f64>,
    /// Component → mean value over scored records.
    pub components: BTreeMap<String, Option<f64>>,
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
