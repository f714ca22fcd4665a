//! Parse outcomes: what the shared parser made of a model's answer.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A machine-readable reason code (`no_json_object`, `confidence_missing`, …).
pub type Reason = Cow<'static, str>;

/// The result of parsing one answer into a label and a confidence.
///
/// `L` is the environment's label type. The parser never panics; every
/// completion maps to exactly one outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseOutcome<L> {
    /// Label and confidence both usable.
    Valid {
        /// The label read.
        label: L,
        /// Probability that the label is correct, in [0, 1].
        confidence: f64,
        /// Whether the answer earns format credit.
        format_ok: bool,
        /// Why format credit was withheld, when it was.
        format_reason: Option<Reason>,
        /// Optional free-text rationale.
        rationale: Option<String>,
    },
    /// A usable label without a usable confidence.
    LabelOnly {
        /// The label read.
        label: L,
        /// Why the confidence was rejected.
        reason: Reason,
    },
    /// No usable label.
    Invalid {
        /// Why.
        reason: Reason,
    },
}

impl<L> ParseOutcome<L> {
    /// The label, if the outcome carries one.
    pub fn label(&self) -> Option<&L> {
        match self {
            ParseOutcome::Valid { label, .. } | ParseOutcome::LabelOnly { label, .. } => {
                Some(label)
            }
            ParseOutcome::Invalid { .. } => None,
        }
    }

    /// The status recorded in `results.jsonl`.
    pub fn status(&self) -> ParseStatus {
        match self {
            ParseOutcome::Valid { .. } => ParseStatus::Valid,
            ParseOutcome::LabelOnly { .. } => ParseStatus::LabelOnly,
            ParseOutcome::Invalid { .. } => ParseStatus::Invalid,
        }
    }

    /// Whether the answer earns format credit.
    pub fn format_ok(&self) -> bool {
        matches!(
            self,
            ParseOutcome::Valid {
                format_ok: true,
                ..
            }
        )
    }

    /// The `parse` object of a result record.
    pub fn record(&self) -> ParseRecord {
        let (reason, format_ok) = match self {
            ParseOutcome::Valid {
                format_ok,
                format_reason,
                ..
            } => (format_reason.as_ref().map(|r| r.to_string()), *format_ok),
            ParseOutcome::LabelOnly { reason, .. } | ParseOutcome::Invalid { reason } => {
                (Some(reason.to_string()), false)
            }
        };
        ParseRecord {
            status: self.status(),
            reason,
            format_ok: Some(format_ok),
        }
    }
}

/// Parse status of a scored sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParseStatus {
    /// Label and confidence usable.
    Valid,
    /// Label usable, confidence not.
    LabelOnly,
    /// Nothing usable.
    Invalid,
    /// The turn limit was hit with tool calls pending.
    NoAnswer,
}

/// The `parse` object of a result record: `{status, reason, format_ok}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParseRecord {
    /// Outcome class.
    pub status: ParseStatus,
    /// Reason code; null for a fully valid answer.
    pub reason: Option<String>,
    /// Format credit; null where the environment has no answer format.
    pub format_ok: Option<bool>,
}
