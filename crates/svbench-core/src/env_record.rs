//! The environment-specific parts of a `results.jsonl` line: the `parsed`
//! object, the compatibility fields written at the top level, and the
//! `tool_interactions` entries.
//!
//! Field order is the order written (serde keeps struct order), so the
//! bytes match what the environments wrote before these types existed.
//! Readers are tolerant: every struct fills absent fields with defaults, so
//! records written by older versions or hand-built in tests read too.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::parse::ParseRecord;

/// One tool call executed for a sample (`tool_interactions` entry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ToolInteraction {
    /// 0-based model turn that made the call.
    pub turn: u32,
    /// Tool name as called.
    pub tool: String,
    /// The call's id.
    pub tool_call_id: String,
    /// Arguments: the parsed JSON, or the raw text when it is not JSON.
    pub arguments: Value,
    /// Wall time of the call in milliseconds.
    pub duration_ms: f64,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Why it failed (`budget_exhausted`, `code: message`), when it did.
    pub error: Option<String>,
}

/// The `parsed` object of a result record: the environment's structured
/// record of the prediction. Serialised as the inner object.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ParsedRecord {
    /// E1: `{label, confidence, rationale, format_ok}`.
    E1(E1Parsed),
    /// E2: the oracle, the prediction, both parsers' and both patch paths'
    /// outcomes, and the reward components.
    E2(Box<E2Parsed>),
    /// E4: the row facts, the parse, the label and the grounded evidence.
    E4(Box<E4Parsed>),
    /// Any other object (another writer's, or one that does not read as
    /// either environment's).
    Other(Value),
}

impl<'de> Deserialize<'de> for ParsedRecord {
    /// E4's object always has `render_version`; E1's always has `label`
    /// (E4's has one too, hence the order); any other object is read as
    /// E2's. One that does not read as its environment's type is kept as
    /// written.
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(de)?;
        let Value::Object(map) = &value else {
            return Ok(ParsedRecord::Other(value));
        };
        let typed = if map.contains_key("render_version") {
            E4Parsed::deserialize(&value)
                .ok()
                .map(|p| ParsedRecord::E4(Box::new(p)))
        } else if map.contains_key("label") {
            E1Parsed::deserialize(&value).ok().map(ParsedRecord::E1)
        } else {
            E2Parsed::deserialize(&value)
                .ok()
                .map(|p| ParsedRecord::E2(Box::new(p)))
        };
        Ok(typed.unwrap_or(ParsedRecord::Other(value)))
    }
}

impl ParsedRecord {
    /// E1's record, if this is one.
    #[must_use]
    pub fn e1(&self) -> Option<&E1Parsed> {
        match self {
            ParsedRecord::E1(p) => Some(p),
            _ => None,
        }
    }

    /// E2's record, if this is one.
    #[must_use]
    pub fn e2(&self) -> Option<&E2Parsed> {
        match self {
            ParsedRecord::E2(p) => Some(p),
            _ => None,
        }
    }

    /// E4's record, if this is one.
    #[must_use]
    pub fn e4(&self) -> Option<&E4Parsed> {
        match self {
            ParsedRecord::E4(p) => Some(p),
            _ => None,
        }
    }
}

/// The upstream compatibility fields written at the top level of a result
/// record (flattened into it).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum CompatFields {
    /// E1: `predicted_label`, `confidence`.
    E1(E1Compat),
    /// E2: the fields upstream's `bench/report.py` reads.
    E2(E2Compat),
    /// No compatibility fields (errored samples), or another writer's
    /// top-level keys, kept as read.
    Other(Map<String, Value>),
}

impl Default for CompatFields {
    fn default() -> Self {
        CompatFields::Other(Map::new())
    }
}

impl<'de> Deserialize<'de> for CompatFields {
    /// Reads the keys left over from the record's own fields: E2's when
    /// they include `fixture_type`, E1's when they include
    /// `predicted_label`, else kept as read.
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(de)?;
        let value = Value::Object(map);
        let typed = if value.get("fixture_type").is_some() {
            E2Compat::deserialize(&value).ok().map(CompatFields::E2)
        } else if value.get("predicted_label").is_some() {
            E1Compat::deserialize(&value).ok().map(CompatFields::E1)
        } else {
            None
        };
        Ok(typed.unwrap_or_else(|| match value {
            Value::Object(map) => CompatFields::Other(map),
            _ => CompatFields::Other(Map::new()),
        }))
    }
}

impl CompatFields {
    /// Whether no field is written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        matches!(self, CompatFields::Other(m) if m.is_empty())
    }
}

/// E1's `parsed` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E1Parsed {
    /// `Malicious`, `Benign` or `Abstain`.
    pub label: String,
    /// Stated confidence; null for a label-only answer.
    pub confidence: Option<f64>,
    /// Free-text rationale, if given.
    pub rationale: Option<String>,
    /// Whether the answer earned format credit.
    pub format_ok: bool,
}

/// E1's compatibility fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E1Compat {
    /// The label read (`""` when none).
    pub predicted_label: String,
    /// The confidence read; null without one.
    pub confidence: Option<f64>,
}

/// One evidence item of an E4 answer as grounded (E4 §4.1, §9).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E4EvidenceItem {
    /// The quote after normalisation and quote stripping (cut to a bounded
    /// length); null for an item that is not a string.
    pub text: Option<String>,
    /// `valid`, or why it is invalid (`not_string`, `too_short`,
    /// `too_long`, `not_found`, `not_word_bounded`, `duplicate`, `too_many`).
    pub status: String,
    /// First code point of the cited occurrence in `question` (valid items).
    pub start: Option<usize>,
    /// One past its last code point (valid items).
    pub end: Option<usize>,
    /// Indices into `meta.spans` of the gold spans the item matches.
    pub matched_gold: Vec<usize>,
}

/// The grounded evidence of an E4 answer (`parsed.evidence`, E4 §4.3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E4EvidenceRecord {
    /// Every item given, in order.
    pub items: Vec<E4EvidenceItem>,
    /// Matched items over all items; null when not applicable.
    pub precision: Option<f64>,
    /// Recalled relevant gold spans over all of them; null when not
    /// applicable or when there is no relevant span.
    pub recall: Option<f64>,
    /// The `evidence` component; null when not applicable.
    pub f1: Option<f64>,
    /// Whether evidence is scored for the row.
    pub applicable: bool,
    /// Categories of the recalled gold spans, in gold order, once each.
    pub recalled_categories: Vec<String>,
}

/// E4's `parsed` object (E4 §9).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E4Parsed {
    /// Gold label: `Phishing`, `Legitimate` or `Abstain`.
    pub gold: String,
    /// Whether the row is a genuinely ambiguous item.
    pub ambiguous: bool,
    /// Template family (`password_reset`, …), when known.
    pub family: Option<String>,
    /// Phishing type (`credential_harvest`, …), when known.
    pub phishing_type: Option<String>,
    /// `easy`, `medium` or `hard`, when known.
    pub difficulty: Option<String>,
    /// `annotated`, `extractor` or `none`.
    pub gold_source: String,
    /// The parse outcome and its reason.
    pub parse: Option<ParseRecord>,
    /// The label read; null when invalid.
    pub label: Option<String>,
    /// The confidence read; null without one.
    pub confidence: Option<f64>,
    /// `v1` cost-matrix utility of the label; null without a label or
    /// under the `upstream` profile.
    pub utility: Option<f64>,
    /// The cost behind `utility`.
    pub cost: Option<f64>,
    /// The grounded evidence.
    pub evidence: E4EvidenceRecord,
    /// Rendering version of the row's `question`.
    pub render_version: u32,
    /// The upstream parser's outcome (`upstream` profile only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_parse: Option<ParseStatusRecord>,
    /// Upstream's evidence function as written (`upstream` profile only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_as_written: Option<f64>,
}

/// A finding id with its catalogue severity (`low`, `med`, `high`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RuleFinding {
    /// Full id `namespace/rule`.
    pub id: String,
    /// `low`, `med` or `high`.
    pub severity: String,
}

/// Status and reason of the upstream parser (`parsed.upstream_parse`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ParseStatusRecord {
    /// `valid`, `invalid` or `no_answer`.
    pub status: String,
    /// Why it was not valid.
    pub reason: Option<String>,
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

/// Tolerant field readers for records written by other tools: a value of
/// the wrong type reads as absent instead of failing the line.
pub mod lenient {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// `T` when the value reads as one, else `None`.
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn option<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned,
    {
        let v = Value::deserialize(de)?;
        Ok(T::deserialize(v).ok())
    }

    /// `T` when the value reads as one, else its default.
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn or_default<'de, D, T>(de: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned + Default,
    {
        Ok(option(de)?.unwrap_or_default())
    }

    /// The items of an array that read as `T` (others skipped); `None`
    /// when the value is not an array.
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn list<'de, D, T>(de: D) -> Result<Option<Vec<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned,
    {
        Ok(match Value::deserialize(de)? {
            Value::Array(items) => Some(
                items
                    .into_iter()
                    .filter_map(|i| T::deserialize(i).ok())
                    .collect(),
            ),
            _ => None,
        })
    }

    /// Python truthiness of any value (how upstream's report read flags).
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn truthy<'de, D: Deserializer<'de>>(de: D) -> Result<bool, D::Error> {
        Ok(match Value::deserialize(de)? {
            Value::Bool(b) => b,
            Value::String(s) => !s.is_empty(),
            Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            Value::Null => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_objects_read_as_their_environment() {
        let e1: ParsedRecord = serde_json::from_str(
            r#"{"label":"Benign","confidence":null,"rationale":null,"format_ok":false}"#,
        )
        .unwrap();
        assert_eq!(e1.e1().map(|p| p.label.as_str()), Some("Benign"));
        let e2: ParsedRecord =
            serde_json::from_str(r#"{"parse_status":"valid","v1_patch":{"status":"applied"}}"#)
                .unwrap();
        assert_eq!(e2.e2().map(|p| p.v1_patch.status.as_str()), Some("applied"));
        // Wrong types keep the object as written.
        let odd: ParsedRecord = serde_json::from_str(r#"{"oracle":"nope"}"#).unwrap();
        assert_eq!(
            odd,
            ParsedRecord::Other(serde_json::json!({"oracle": "nope"}))
        );
        assert_eq!(serde_json::to_string(&odd).unwrap(), r#"{"oracle":"nope"}"#);
    }

    #[test]
    fn e4_parsed_round_trips_and_e1_still_reads_as_e1() {
        let p = E4Parsed {
            gold: "Phishing".into(),
            family: Some("account_alert".into()),
            gold_source: "annotated".into(),
            parse: Some(ParseRecord {
                status: crate::parse::ParseStatus::Valid,
                reason: None,
                format_ok: Some(true),
            }),
            label: Some("Phishing".into()),
            confidence: Some(0.9),
            utility: Some(1.0),
            cost: Some(0.0),
            evidence: E4EvidenceRecord {
                items: vec![E4EvidenceItem {
                    text: Some("Confirm your password".into()),
                    status: "valid".into(),
                    start: Some(10),
                    end: Some(31),
                    matched_gold: vec![3],
                }],
                precision: Some(1.0),
                recall: Some(1.0 / 6.0),
                f1: Some(2.0 / 7.0),
                applicable: true,
                recalled_categories: vec!["credential_request".into()],
            },
            render_version: 1,
            ..E4Parsed::default()
        };
        let record = ParsedRecord::E4(Box::new(p));
        let text = serde_json::to_string(&record).unwrap();
        assert!(!text.contains("upstream_parse"), "{text}");
        let back: ParsedRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, record);
        assert!(back.e4().is_some());
        let e1: ParsedRecord = serde_json::from_str(
            r#"{"label":"Benign","confidence":0.5,"rationale":null,"format_ok":true}"#,
        )
        .unwrap();
        assert!(e1.e1().is_some());
    }

    #[test]
    fn absent_optional_lists_are_not_written() {
        let p = V1PatchRecord {
            status: "none".into(),
            ..V1PatchRecord::default()
        };
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"status":"none","kind":null,"reason":null,"fixed":0.0,"new":0.0,"value":0.0}"#
        );
        let v = ViolationEntry {
            id: "opa/X".into(),
            severity: Some("high".into()),
            ..ViolationEntry::default()
        };
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"id":"opa/X","severity":"high"}"#
        );
    }

    #[test]
    fn compat_fields_read_by_environment() {
        let c: CompatFields =
            serde_json::from_str(r#"{"predicted_label":"Benign","confidence":0.5}"#).unwrap();
        assert!(matches!(c, CompatFields::E1(ref e) if e.confidence == Some(0.5)));
        let c: CompatFields = serde_json::from_str(r#"{"fixture_type":"tf"}"#).unwrap();
        assert!(matches!(c, CompatFields::E2(ref e) if e.fixture_type == "tf"));
        let c: CompatFields = serde_json::from_str("{}").unwrap();
        assert!(c.is_empty());
    }
}
