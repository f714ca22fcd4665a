//! E4 answer parsing: label, confidence and evidence list in the `v1`
//! (E4 §5.1) and `upstream` (E4 §7.2) modes, on the shared extractor of
//! `svbench_core::extract` and E1's confidence rules.

use std::borrow::Cow;

use svbench_core::extract::{
    check_content, completion_text, extract_upstream, extract_v1, ParseMode,
};
use svbench_core::json::python::{py_strip, PyDict, PyValue};
use svbench_core::json::strict::{Object, Value};
use svbench_core::{Completion, ParseOutcome};

use super::grounding::{EvidenceLimits, RawEvidence};
use super::Label;
use crate::kit::confidence::{upstream_confidence_float, v1_confidence};

/// The key a candidate object must have at its top level.
const LABEL_KEY: &str = "label";
/// The evidence list's key.
const EVIDENCE_KEY: &str = "evidence";
/// Reason when objects were found but none has `label`.
const NO_LABEL_KEY: &str = "no_label_key";
/// Longest `rationale` with format credit, in characters (E4 §1.1).
pub const RATIONALE_MAX_CHARS: usize = 1_000;
/// Longest label upstream can accept after stripping: Python's `lower()`
/// never shortens a string, and `legitimate` has 10 characters.
const UPSTREAM_LABEL_MAX_CHARS: usize = 10;

/// A parsed E4 answer: the outcome and the evidence items for grounding.
#[derive(Debug, Clone, PartialEq)]
pub struct E4Parse {
    /// Label, confidence and format credit.
    pub outcome: ParseOutcome<Label>,
    /// `v1`: every item of an `evidence` array (non-strings as markers;
    /// empty when absent or not an array). `upstream`: upstream's list of
    /// stripped, non-blank strings.
    pub evidence: Vec<RawEvidence>,
    /// What upstream's parser read (`upstream` mode only).
    pub upstream: Option<UpstreamFields>,
}

/// What upstream's parser reads (E4 §7.2), before it becomes an outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamFields {
    /// The label after `strip()` and `lower()`; `None` is upstream's empty
    /// label.
    pub label: Option<Label>,
    /// E1-upstream confidence: Python `float()` within [0, 1], else 0.0.
    pub confidence: f64,
    /// Upstream's format credit.
    pub format: bool,
    /// Why format credit was withheld, when it was.
    pub format_reason: Option<&'static str>,
    /// Upstream's evidence list: stripped, non-blank strings of an array,
    /// or the keys of an object.
    pub evidence: Vec<String>,
}

/// Parses an E4 answer in `mode`. Never panics; work is linear in the
/// completion, which the text selection caps at 1 MiB in `v1` mode.
pub fn parse_completion(
    completion: &Completion,
    mode: ParseMode,
    limits: &EvidenceLimits,
) -> E4Parse {
    match completion_text(completion, mode) {
        Err(failure) => invalid(failure.reason()),
        Ok(text) => parse_selected(&text, mode, limits),
    }
}

/// [`parse_completion`] for a plain string completion.
pub fn parse_text(text: &str, mode: ParseMode, limits: &EvidenceLimits) -> E4Parse {
    match mode {
        ParseMode::V1 => match check_content(text) {
            Ok(text) => parse_v1(text, limits),
            Err(failure) => invalid(failure.reason()),
        },
        ParseMode::Upstream => parse_upstream(text),
    }
}

fn parse_selected(text: &str, mode: ParseMode, limits: &EvidenceLimits) -> E4Parse {
    match mode {
        ParseMode::V1 => parse_v1(text, limits),
        ParseMode::Upstream => parse_upstream(text),
    }
}

fn invalid(reason: &'static str) -> E4Parse {
    E4Parse {
        outcome: ParseOutcome::Invalid {
            reason: Cow::Borrowed(reason),
        },
        evidence: Vec::new(),
        upstream: None,
    }
}

/// E1 §2.3 steps 2–8 with E4's labels, then §5.1's format rules.
fn parse_v1(text: &str, limits: &EvidenceLimits) -> E4Parse {
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
    let (evidence, evidence_issue) = v1_evidence(object, limits);
    let confidence = match v1_confidence(object.get("confidence")) {
        Ok(c) => c,
        Err(reason) => {
            return E4Parse {
                outcome: ParseOutcome::LabelOnly {
                    label,
                    reason: Cow::Borrowed(reason),
                },
                evidence,
                upstream: None,
            }
        }
    };
    let (rationale, rationale_issue) = match object.get("rationale") {
        None => (None, None),
        Some(Value::String(s)) if s.chars().nth(RATIONALE_MAX_CHARS).is_none() => {
            (Some(s.to_string()), None)
        }
        Some(Value::String(_)) => (None, Some("rationale_too_long")),
        Some(_) => (None, Some("rationale_not_string")),
    };
    let format_reason = if Label::from_exact(raw_label).is_none() {
        Some("non_canonical_label_case")
    } else {
        evidence_issue.or(rationale_issue)
    };
    E4Parse {
        outcome: ParseOutcome::Valid {
            label,
            confidence,
            format_ok: format_reason.is_none(),
            format_reason: format_reason.map(Cow::Borrowed),
            rationale,
        },
        evidence,
        upstream: None,
    }
}

/// The evidence items and the first §5.1 format issue of the list. An
/// absent, `null` or non-array `evidence` counts as an empty list.
fn v1_evidence(
    object: &Object<'_>,
    limits: &EvidenceLimits,
) -> (Vec<RawEvidence>, Option<&'static str>) {
    let items = match object.get(EVIDENCE_KEY) {
        None | Some(Value::Null) => return (Vec::new(), Some("evidence_missing")),
        Some(Value::Array(items)) => items,
        Some(_) => return (Vec::new(), Some("evidence_not_array")),
    };
    let raw: Vec<RawEvidence> = items
        .iter()
        .map(|v| match v {
            Value::String(s) => RawEvidence::Text(s.to_string()),
            _ => RawEvidence::NotString,
        })
        .collect();
    let issue = if raw.contains(&RawEvidence::NotString) {
        Some("evidence_item_not_string")
    } else if raw.len() > limits.max_items {
        Some("evidence_too_many")
    } else {
        None
    };
    (raw, issue)
}

/// Upstream's field rules (E4 §7.2) on already selected text.
pub fn upstream_fields(text: &str) -> UpstreamFields {
    let extraction = extract_upstream(text);
    let object = &extraction.object;
    let label = object
        .get(LABEL_KEY)
        .and_then(PyValue::as_str)
        .and_then(upstream_label);
    let raw_confidence = object.get("confidence");
    let in_range = upstream_confidence_float(raw_confidence).filter(|c| (0.0..=1.0).contains(c));
    let (evidence, evidence_ok) = upstream_evidence(object);
    let format_reason = if object.is_empty() || label.is_none() {
        Some("no_label")
    } else if matches!(raw_confidence, None | Some(PyValue::None)) {
        Some("confidence_missing")
    } else if upstream_confidence_float(raw_confidence).is_none() {
        Some("confidence_not_number")
    } else if in_range.is_none() {
        Some("confidence_out_of_range")
    } else if !evidence_ok {
        Some("evidence_unusable")
    } else {
        None
    };
    UpstreamFields {
        label,
        confidence: in_range.unwrap_or(0.0),
        format: format_reason.is_none(),
        format_reason,
        evidence,
    }
}

/// `label.strip().lower()` against the three labels.
fn upstream_label(raw: &str) -> Option<Label> {
    let stripped = py_strip(raw);
    if stripped.chars().nth(UPSTREAM_LABEL_MAX_CHARS).is_some() {
        return None;
    }
    let lower = stripped.to_lowercase();
    Label::ALL
        .into_iter()
        .find(|l| l.as_str().to_ascii_lowercase() == lower)
}

/// Upstream's evidence list and whether it passes the format rule: a
/// non-empty raw value other than `[]` and `null` must leave a non-empty list.
fn upstream_evidence(object: &PyDict<'_>) -> (Vec<String>, bool) {
    let keep = |s: &str| {
        let t = py_strip(s);
        (!t.is_empty()).then(|| t.to_string())
    };
    match object.get(EVIDENCE_KEY) {
        None | Some(PyValue::None) => (Vec::new(), true),
        Some(PyValue::List(items)) => {
            let list: Vec<String> = items
                .iter()
                .filter_map(PyValue::as_str)
                .filter_map(keep)
                .collect();
            let ok = items.is_empty() || !list.is_empty();
            (list, ok)
        }
        // Python iterates a dict's keys.
        Some(PyValue::Dict(d)) => {
            let list: Vec<String> = d.iter().filter_map(|(k, _)| keep(k)).collect();
            let ok = !list.is_empty();
            (list, ok)
        }
        Some(_) => (Vec::new(), false),
    }
}

fn parse_upstream(text: &str) -> E4Parse {
    let fields = upstream_fields(text);
    let outcome = match fields.label {
        None => ParseOutcome::Invalid {
            reason: Cow::Borrowed("no_label"),
        },
        Some(label) => ParseOutcome::Valid {
            label,
            confidence: fields.confidence,
            format_ok: fields.format,
            format_reason: fields.format_reason.map(Cow::Borrowed),
            rationale: None,
        },
    };
    E4Parse {
        outcome,
        evidence: fields
            .evidence
            .iter()
            .cloned()
            .map(RawEvidence::Text)
            .collect(),
        upstream: Some(fields),
    }
}

#[cfg(test)]
mod tests;
