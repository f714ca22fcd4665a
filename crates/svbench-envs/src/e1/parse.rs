//! E1 answer parsing (E1 §2): label + confidence from a completion, in the
//! `v1` and `upstream` modes, on top of the shared extractor of
//! `svbench_core::extract`.

use std::borrow::Cow;

use svbench_core::extract::{
    check_content, completion_text, extract_upstream, extract_v1, ParseMode,
};
use svbench_core::json::python::PyValue;
use svbench_core::json::strict::Value;
use svbench_core::{Completion, ParseOutcome};

pub use crate::kit::confidence::{upstream_confidence_float, v1_confidence};

use super::Label;

/// The key a candidate object must have at its top level.
const LABEL_KEY: &str = "label";
/// Reason when objects were found but none has `label`.
const NO_LABEL_KEY: &str = "no_label_key";

/// Parses an E1 answer in `mode`. Never panics.
///
/// `v1` (E1 §2.3) gives Valid, LabelOnly or Invalid with the spec's reason
/// codes. `upstream` (E1 §2.2) gives Invalid(`no_label`) for an empty label
/// and otherwise Valid with upstream's confidence and `format_ok` = format;
/// it never gives LabelOnly.
pub fn parse_completion(completion: &Completion, mode: ParseMode) -> ParseOutcome<Label> {
    match completion_text(completion, mode) {
        Err(failure) => invalid(failure.reason()),
        Ok(text) => match mode {
            ParseMode::V1 => parse_v1(&text),
            ParseMode::Upstream => upstream_outcome(&upstream_fields(&text)),
        },
    }
}

/// [`parse_completion`] for a plain string completion, without copying it.
pub fn parse_text(text: &str, mode: ParseMode) -> ParseOutcome<Label> {
    match mode {
        ParseMode::V1 => match check_content(text) {
            Ok(text) => parse_v1(text),
            Err(failure) => invalid(failure.reason()),
        },
        ParseMode::Upstream => upstream_outcome(&upstream_fields(text)),
    }
}

/// What upstream's parser reads from a text (E1 §2.2), before it is mapped
/// to a [`ParseOutcome`]: unlike the outcome, it keeps the confidence read
/// when the label is empty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UpstreamFields {
    /// The label if it is exactly `Benign`, `Malicious` or `Abstain`; `None`
    /// is upstream's empty label.
    pub label: Option<Label>,
    /// Python `float(confidence)` when it lies in [0, 1]; 0.0 otherwise, and
    /// when absent, `null`, unconvertible or an integer too large for a float
    /// (where upstream crashes: the one permitted divergence).
    pub confidence: f64,
    /// Upstream's format credit: exact label, confidence a JSON number or
    /// bool, and 0 ≤ confidence ≤ 1.
    pub format: bool,
    /// Why the confidence earns no format credit, in `v1`'s vocabulary
    /// (`confidence_missing`, `confidence_not_number`,
    /// `confidence_non_finite`, `confidence_out_of_range`); `None` when it
    /// qualifies. Upstream has no such codes; they are recorded as the format
    /// reason of a Valid upstream outcome.
    pub confidence_issue: Option<&'static str>,
}

/// Upstream's field rules (E1 §2.2) on already selected text.
pub fn upstream_fields(text: &str) -> UpstreamFields {
    let extraction = extract_upstream(text);
    let object = &extraction.object;
    let label = object
        .get(LABEL_KEY)
        .and_then(PyValue::as_str)
        .and_then(Label::from_exact);
    let raw = object.get("confidence");
    let value = upstream_confidence_float(raw);
    let in_range = value.filter(|c| (0.0..=1.0).contains(c));
    let confidence_issue = match raw {
        None | Some(PyValue::None) => Some("confidence_missing"),
        Some(PyValue::Str(_) | PyValue::List(_) | PyValue::Dict(_)) => {
            Some("confidence_not_number")
        }
        Some(PyValue::Float(f)) if !f.is_finite() => Some("confidence_non_finite"),
        Some(_) if in_range.is_none() => Some("confidence_out_of_range"),
        Some(_) => None,
    };
    UpstreamFields {
        label,
        confidence: in_range.unwrap_or(0.0),
        format: label.is_some() && confidence_issue.is_none(),
        confidence_issue,
    }
}

fn upstream_outcome(fields: &UpstreamFields) -> ParseOutcome<Label> {
    match fields.label {
        None => invalid("no_label"),
        Some(label) => ParseOutcome::Valid {
            label,
            confidence: fields.confidence,
            format_ok: fields.format,
            format_reason: fields.confidence_issue.map(Cow::Borrowed),
            rationale: None,
        },
    }
}

/// E1 §2.3 steps 2–8 on text that passed `v1` text selection.
fn parse_v1(text: &str) -> ParseOutcome<Label> {
    let selected = match extract_v1(text, LABEL_KEY) {
        Ok(selected) => selected,
        Err(failure) => return invalid(failure.reason(NO_LABEL_KEY)),
    };
    let object = &selected.object;
    if object.has_duplicate_keys() {
        return invalid("duplicate_key");
    }
    let Some(raw_label) = object.get(LABEL_KEY).and_then(Value::as_str) else {
        return invalid("label_not_string");
    };
    let Some(label) = Label::from_ascii_ci(raw_label) else {
        return invalid("unknown_label");
    };
    let confidence = match v1_confidence(object.get("confidence")) {
        Ok(c) => c,
        Err(reason) => {
            return ParseOutcome::LabelOnly {
                label,
                reason: Cow::Borrowed(reason),
            }
        }
    };
    let (rationale, rationale_ok) = match object.get("rationale") {
        None => (None, true),
        Some(Value::String(s)) => (Some(s.to_string()), true),
        Some(_) => (None, false),
    };
    let format_reason = if Label::from_exact(raw_label).is_none() {
        Some("non_canonical_label_case")
    } else if !rationale_ok {
        Some("rationale_not_string")
    } else {
        None
    };
    ParseOutcome::Valid {
        label,
        confidence,
        format_ok: format_reason.is_none(),
        format_reason: format_reason.map(Cow::Borrowed),
        rationale,
    }
}

fn invalid(reason: &'static str) -> ParseOutcome<Label> {
    ParseOutcome::Invalid {
        reason: Cow::Borrowed(reason),
    }
}
