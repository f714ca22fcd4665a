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

/// The fields of a result record E1's report reads as its own: `parsed`
/// and the compatibility fields (all an upstream-style record has).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct E1Fields {
    /// `parsed`, when it reads as E1's.
    pub parsed: Option<E1Parsed>,
    /// `predicted_label` (a non-text value reads as absent).
    pub predicted_label: Option<String>,
    /// `confidence` (a non-number reads as absent).
    pub confidence: Option<f64>,
}

svbench_report::env_fields!(E1Fields {
    "parsed" => parsed: svbench_core::env_record::lenient::Opt<E1Parsed>,
    "predicted_label" => predicted_label: svbench_core::env_record::lenient::Opt<String>,
    "confidence" => confidence: svbench_core::env_record::lenient::Opt<f64>,
});
