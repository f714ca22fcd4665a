//! E1's parts of a `results.jsonl` line: the `parsed` object and the
//! compatibility fields written at the top level.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// A row's `info`, reduced to the grouping keys.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct E1Info {
    /// `info.meta` (a value that is not an object reads as absent).
    #[serde(default)]
    pub meta: svbench_report::read::ObjectOrNone<E1Meta>,
}

/// `info.meta`, reduced to the grouping keys.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct E1Meta {
    /// `meta.source`.
    #[serde(default)]
    pub source: Option<serde_json::Value>,
    /// `meta.scenario`.
    #[serde(default)]
    pub scenario: Option<serde_json::Value>,
}

/// The fields of a result record E1's report reads as its own: `parsed`,
/// the compatibility fields (all an upstream-style record has) and the
/// grouping keys in `info.meta`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct E1Fields {
    /// `info` (a value that is not an object reads as absent).
    pub info: Option<E1Info>,
    /// `parsed`, when it reads as E1's.
    pub parsed: Option<E1Parsed>,
    /// `predicted_label` (a non-text value reads as absent).
    pub predicted_label: Option<String>,
    /// `confidence` (a non-number reads as absent).
    pub confidence: Option<f64>,
}

impl E1Fields {
    /// The grouping keys `meta.source` and `meta.scenario`, as text.
    #[must_use]
    pub fn groups(&self) -> [Option<String>; 2] {
        let meta = self.info.as_ref().and_then(|i| i.meta.0.as_ref());
        [
            svbench_report::read::meta_text(meta.and_then(|m| m.source.as_ref())),
            svbench_report::read::meta_text(meta.and_then(|m| m.scenario.as_ref())),
        ]
    }
}

svbench_report::env_fields!(E1Fields {
    "info" => info: svbench_report::read::ObjectOrNone<E1Info>,
    "parsed" => parsed: svbench_core::env_record::lenient::Opt<E1Parsed>,
    "predicted_label" => predicted_label: svbench_core::env_record::lenient::Opt<String>,
    "confidence" => confidence: svbench_core::env_record::lenient::Opt<f64>,
});
