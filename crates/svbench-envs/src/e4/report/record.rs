//! E4's `parsed` object (the row facts, the parse, the label and the
//! grounded evidence) and its compatibility fields.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use svbench_core::env_record::ParseStatusRecord;
use svbench_core::ParseRecord;

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

/// E4's compatibility fields: the label and confidence read, under the
/// keys upstream's reports read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct E4Compat {
    /// The label read (`""` when none).
    pub predicted_label: String,
    /// The confidence read; null without one.
    pub confidence: Option<f64>,
}

/// A row's `info`, reduced to the gold spans.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct E4Info {
    /// `info.meta` (a value that is not an object reads as absent).
    #[serde(default)]
    pub meta: svbench_report::read::ObjectOrNone<E4Meta>,
}

/// `info.meta`, reduced to the gold spans.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct E4Meta {
    /// `meta.spans`, kept as written.
    #[serde(default)]
    pub spans: Option<serde_json::Value>,
}

/// The fields of a result record E4's report reads as its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct E4Fields {
    /// `info` (a value that is not an object reads as absent).
    pub info: Option<E4Info>,
    /// `parsed`, when it reads as E4's.
    pub parsed: Option<E4Parsed>,
    /// `predicted_label` (a non-text value reads as absent).
    pub predicted_label: Option<String>,
    /// `confidence` (a non-number reads as absent).
    pub confidence: Option<f64>,
}

svbench_report::env_fields!(E4Fields {
    "info" => info: svbench_report::read::ObjectOrNone<E4Info>,
    "parsed" => parsed: svbench_core::env_record::lenient::Opt<E4Parsed>,
    "predicted_label" => predicted_label: svbench_core::env_record::lenient::Opt<String>,
    "confidence" => confidence: svbench_core::env_record::lenient::Opt<f64>,
});
