//! E2's parts of a `results.jsonl` line: the `parsed` object (the
//! oracle, the prediction, both parsers' and both patch paths' outcomes and
//! the reward components) and the compatibility fields upstream's report
//! reads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use svbench_core::env_record::{lenient, ParseStatusRecord};

/// A finding id with its catalogue severity (`low`, `med`, `high`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RuleFinding {
    /// Full id `namespace/rule`.
    pub id: String,
    /// `low`, `med` or `high`.
    pub severity: String,
}

/// The format a patch was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatchKind {
    /// A unified diff.
    UnifiedDiff,
    /// An RFC 6902 JSON Patch.
    JsonPatch,
}

/// The v1 patch path's outcome (`parsed.v1_patch`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct V1PatchRecord {
    /// `none`, `applied`, or the failure status (`malformed`,
    /// `target_mismatch`, `apply_failed`, `unsupported`, `reparse_failed`,
    /// `preservation_failed`, `too_large`).
    pub status: String,
    /// The format the patch was read as; null without a patch.
    pub kind: Option<PatchKind>,
    /// Why it failed.
    pub reason: Option<String>,
    /// Findings of the original config (applied patches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Vec<RuleFinding>>,
    /// Findings of the patched config (applied patches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<RuleFinding>>,
    /// Weight of fixed oracle findings over the oracle's weight.
    pub fixed: f64,
    /// Weight of findings the patch introduced.
    pub new: f64,
    /// The patch component.
    pub value: f64,
}

/// The outcome of the `upstream` profile's patch path (`parsed.upstream_patch`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct UpstreamPatchRecord {
    /// `none`, `applied`, `failed`, `too_large` or `adapter_error`.
    pub status: String,
    /// Why it failed or raised.
    pub reason: Option<String>,
    /// Primary-analyzer findings after the patch (applied patches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<RuleFinding>>,
    /// The patch bonus added to `reward_config_auditing`.
    pub bonus: f64,
}

/// The `v1` profile's component values and total.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E2V1Rewards {
    /// Detection component.
    pub detection: Option<f64>,
    /// Patch component.
    pub patch: Option<f64>,
    /// Format component.
    pub format: Option<f64>,
    /// Weighted total.
    pub total: Option<f64>,
}

/// The `upstream` profile's component values and total.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E2UpstreamRewards {
    /// `reward_config_auditing` component.
    pub reward_config_auditing: Option<f64>,
    /// `format_reward` component.
    pub format_reward: Option<f64>,
    /// `tool_observation_reward` component.
    pub tool_observation_reward: Option<f64>,
    /// Weighted total.
    pub total: Option<f64>,
}

impl E2UpstreamRewards {
    /// `(component, value)` in the profile's order, absent ones left out.
    pub fn components(&self) -> impl Iterator<Item = (&'static str, f64)> {
        [
            ("reward_config_auditing", self.reward_config_auditing),
            ("format_reward", self.format_reward),
            ("tool_observation_reward", self.tool_observation_reward),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
    }
}

/// Both profiles' rewards (`parsed.rewards`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E2RewardsRecord {
    /// The `v1` profile.
    pub v1: E2V1Rewards,
    /// The `upstream` profile.
    pub upstream: E2UpstreamRewards,
}

/// Weighted detection counts and scores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DetectionRecord {
    /// Weight of true positives.
    pub tp: f64,
    /// Weight of false positives.
    pub fp: f64,
    /// Weight of false negatives.
    #[serde(rename = "fn")]
    pub fn_: f64,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
}

/// Detection under each profile (`parsed.detection`); null where not computed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E2DetectionRecord {
    /// The `v1` sets.
    pub v1: Option<DetectionRecord>,
    /// The `upstream` reward's detection (after the primary filter).
    pub upstream: Option<DetectionRecord>,
    /// Detection of the tool observations (`tool_observation_reward`).
    pub upstream_tool_observation: Option<DetectionRecord>,
}

/// E2's `parsed` object: the oracle, the prediction, both parsers' and
/// both patch paths' outcomes, and both profiles' rewards.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E2Parsed {
    /// `k8s` or `tf`.
    pub lang: String,
    /// Workspace file name.
    pub fixture_path: String,
    /// Namespaces the oracle labels.
    pub labelled_namespaces: Vec<String>,
    /// `dataset` or `live`.
    pub oracle_mode: String,
    /// Oracle findings of the labelled namespaces.
    pub oracle: Vec<RuleFinding>,
    /// Normalised predicted ids in labelled namespaces (scored).
    pub prediction: Vec<RuleFinding>,
    /// Predicted ids outside the labelled namespaces (not scored).
    pub prediction_ignored: Vec<RuleFinding>,
    /// The item is clean (no oracle finding).
    pub clean: bool,
    /// v1 parse status: `valid`, `invalid` or `no_answer`.
    pub parse_status: String,
    /// Why the v1 parse was not valid.
    pub parse_reason: Option<String>,
    /// Whether the answer earned v1 format credit.
    pub format_ok: bool,
    /// Why format credit was withheld.
    pub format_reason: Option<String>,
    /// Answer items the v1 parser skipped.
    pub skipped_items: u64,
    /// Stated confidence.
    pub confidence: Option<f64>,
    /// The upstream parser's outcome.
    pub upstream_parse: ParseStatusRecord,
    /// The v1 patch path.
    pub v1_patch: V1PatchRecord,
    /// The upstream patch path.
    pub upstream_patch: UpstreamPatchRecord,
    /// Both profiles' components.
    pub rewards: E2RewardsRecord,
    /// Detection under both profiles.
    pub detection: E2DetectionRecord,
}

/// A violation entry of E2's compatibility lists. svbench writes `id` and
/// `severity`; upstream records may name the rule by `tool` and `rule_id`
/// instead, with any severity text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ViolationEntry {
    /// Full id `namespace/rule` (`""` when the entry has none, or a
    /// non-text one).
    #[serde(deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Severity as written (a non-text value reads as absent).
    #[serde(deserialize_with = "lenient::option")]
    pub severity: Option<String>,
    /// Upstream: the tool that reported the rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<Value>,
    /// Upstream: the rule id within the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<Value>,
}

/// E2's compatibility fields: the top-level keys upstream's report reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E2Compat {
    /// Whether the answer held a JSON object.
    pub valid_json: bool,
    /// The answer's `violations` items as written by the model.
    pub predicted_violations: Vec<Value>,
    /// The row's oracle entries.
    pub oracle_violations: Vec<ViolationEntry>,
    /// The answer's patch text (`""` without one).
    pub patch: String,
    /// Whether the active profile's patch path applied the patch.
    pub patch_applied: bool,
    /// Findings after an applied patch.
    pub post_patch_violations: Vec<ViolationEntry>,
    /// `k8s` or `tf`.
    pub fixture_type: String,
    /// Workspace file name.
    pub fixture_path: String,
}

/// The fields of a result record E2's report reads as its own: `parsed`
/// and the compatibility fields, read leniently as upstream's report did,
/// so odd values never fail a line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct E2Fields {
    /// `parsed`, when it reads as E2's.
    pub parsed: Option<Box<E2Parsed>>,
    /// [`E2Compat::predicted_violations`]: the answer's `violations` items
    /// as written (`None` when not a list).
    pub predicted_violations: Option<Vec<Value>>,
    /// [`E2Compat::oracle_violations`]: entries that are objects.
    pub oracle_violations: Option<Vec<ViolationEntry>>,
    /// [`E2Compat::post_patch_violations`]: entries that are objects.
    pub post_patch_violations: Option<Vec<ViolationEntry>>,
    /// Whether [`E2Compat::patch`] is given (Python truthiness).
    pub patch_provided: bool,
    /// [`E2Compat::patch_applied`] (Python truthiness).
    pub patch_applied: bool,
    /// [`E2Compat::valid_json`] (Python truthiness).
    pub valid_json: bool,
    /// [`E2Compat::fixture_type`] (a non-text value reads as absent).
    pub fixture_type: Option<String>,
}

svbench_report::env_fields!(E2Fields {
    "parsed" => parsed: lenient::Opt<Box<E2Parsed>>,
    "predicted_violations" => predicted_violations: lenient::List<Value>,
    "oracle_violations" => oracle_violations: lenient::List<ViolationEntry>,
    "post_patch_violations" => post_patch_violations: lenient::List<ViolationEntry>,
    "patch" => patch_provided: lenient::Truthy,
    "patch_applied" => patch_applied: lenient::Truthy,
    "valid_json" => valid_json: lenient::Truthy,
    "fixture_type" => fixture_type: lenient::Opt<String>,
});
