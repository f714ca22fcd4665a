//! E2 answer parsing (spec E2 §3.1–3.3): the violations list, patch and
//! confidence of a final message, in the `v1` (tolerant) and `upstream`
//! (exact) modes, on top of the shared extractor of `svbench_core::extract`.
//!
//! # Reason codes
//!
//! [`E2Parse::Invalid`] reasons, `v1`:
//! - `empty_content`, `too_long`, `content_not_text`: text selection (E1 §2.1);
//! - `no_json_object`: no candidate parses as a JSON object;
//! - `no_violations_object`: objects, but none has `violations` at its top level;
//! - `violations_not_array`: the selected object's `violations` is not an array.
//!
//! `v1` format reasons ([`E2Parse::Valid::format_reason`], the first deviation
//! from the strict schema of §3.1, checked in the order the schema lists them:
//! the text, each item in order, `patch`, `confidence`, duplicate keys):
//! - `not_single_object`: the text holds more than the object (prose, other
//!   objects, several fences) and is not one fenced block around it;
//! - `violation_not_object`: an item is not an object (a bare string, …);
//! - `violation_id_missing` (no `id`, e.g. a `tool`+`rule_id` item),
//!   `violation_id_not_string`, `violation_id_empty`;
//! - `severity_missing`, `severity_not_string`, `severity_not_canonical`
//!   (anything but exactly `low`, `med`, `high`, e.g. `medium` or `MED`);
//! - `patch_not_string`: an array, object, number or bool;
//! - `confidence_missing` (absent or null), `confidence_not_number`,
//!   `confidence_non_finite` (`1e400`), `confidence_out_of_range`;
//! - `duplicate_key`: a repeated key in any object of the answer.
//!
//! [`E2Parse::Invalid`] reasons, `upstream` (first validation failure):
//! - `not_json`: `json.loads` of the text raises and there is no fenced block
//!   or its content raises too, or either nests deeper than CPython allows
//!   (`RecursionError`, which ends upstream's parse at once);
//! - `not_an_object`, `violations_missing`, `violations_not_list`,
//!   `violation_not_object`, `violation_id_missing`, `violation_id_not_string`,
//!   `severity_missing`, `severity_invalid`, `patch_not_string`,
//!   `confidence_missing`, `confidence_not_float`.

use svbench_core::extract::{
    check_content, completion_text, extract_v1, upstream_fence, upstream_text, ParseMode,
};
use svbench_core::json::python::{loads, pydantic_float_str, PyDict, PyValue};
use svbench_core::json::strict::{Object, Value};
use svbench_core::json::JsonErrorKind;
use svbench_core::Completion;

use super::{Answer, E2Parse, PredictedViolation, Severity};

/// The key a `v1` candidate object must have at its top level.
const VIOLATIONS_KEY: &str = "violations";

/// Parses the final message of an E2 episode in `mode`. Never panics.
///
/// `v1` (§3.2) reads the final assistant message; `upstream` (§3.3) the last
/// element of the completion. Neither returns [`E2Parse::NoAnswer`]: that is
/// the environment's outcome for an episode without a final message.
#[must_use]
pub fn parse_completion(completion: &Completion, mode: ParseMode) -> E2Parse {
    match mode {
        ParseMode::V1 => match completion_text(completion, mode) {
            Ok(text) => parse_v1(&text),
            Err(failure) => invalid(failure.reason()),
        },
        ParseMode::Upstream => parse_upstream(&upstream_text(completion)),
    }
}

/// [`parse_completion`] for a plain string completion.
#[must_use]
pub fn parse_text(text: &str, mode: ParseMode) -> E2Parse {
    match mode {
        ParseMode::V1 => match check_content(text) {
            Ok(text) => parse_v1(text),
            Err(failure) => invalid(failure.reason()),
        },
        ParseMode::Upstream => parse_upstream(text),
    }
}

/// Reads a severity the `v1` way (§3.2): `low`/`med`/`high` and the
/// synonyms `medium`, `moderate`, `warning` (med), `critical`, `error`,
/// `severe` (high), `info`, `informational`, `note` (low), trimmed and
/// case-insensitive; `None` for anything else (the parser then uses med).
#[must_use]
pub fn severity_synonym(text: &str) -> Option<Severity> {
    match text.trim().to_ascii_lowercase().as_str() {
        "low" | "info" | "informational" | "note" => Some(Severity::Low),
        "med" | "medium" | "moderate" | "warning" => Some(Severity::Med),
        "high" | "critical" | "error" | "severe" => Some(Severity::High),
        _ => None,
    }
}

fn invalid(reason: &'static str) -> E2Parse {
    E2Parse::Invalid { reason }
}

// ------------------------------------------------------------------- v1

/// §3.2 on text that passed `v1` text selection.
fn parse_v1(text: &str) -> E2Parse {
    let selected = match extract_v1(text, VIOLATIONS_KEY) {
        Ok(selected) => selected,
        Err(failure) => return invalid(failure.reason("no_violations_object")),
    };
    let object = &selected.object;
    let Some(Value::Array(items)) = object.get(VIOLATIONS_KEY) else {
        return invalid("violations_not_array");
    };

    let mut violations = Vec::with_capacity(items.len());
    let mut skipped_items = 0;
    for item in items {
        match read_item(item) {
            Some(v) => violations.push(v),
            None => skipped_items += 1,
        }
    }
    let patch = match object.get("patch") {
        Some(Value::String(s)) if !s.is_empty() => Some(s.to_string()),
        Some(v @ (Value::Array(_) | Value::Object(_))) => {
            let mut out = String::new();
            write_json(v, &mut out);
            Some(out)
        }
        _ => None,
    };
    let confidence = match object.get("confidence") {
        // `+ 0.0` turns -0.0 into 0.0; ±inf (`1e400`) clamps to a bound.
        Some(Value::Number(n)) => Some(n.value.clamp(0.0, 1.0) + 0.0),
        Some(Value::String(s)) => numeric_string(s).map(|c| c.clamp(0.0, 1.0) + 0.0),
        _ => None,
    };

    let stripped: &str = &selected.stripped;
    let single = is_single_object(stripped, selected.span.clone());
    let format_reason = strict_deviation(object, items, single);
    E2Parse::Valid {
        answer: Answer {
            violations,
            patch,
            confidence,
        },
        format_ok: format_reason.is_none(),
        format_reason,
        skipped_items,
    }
}

/// One item of `violations`: an object with a string `id`, an object with
/// string `tool` and `rule_id` (→ `tool/rule_id`), or a bare string.
fn read_item(item: &Value<'_>) -> Option<PredictedViolation> {
    let (id, severity) = match item {
        Value::String(s) => (s.to_string(), None),
        Value::Object(o) => {
            let id = match (o.get("id"), o.get("tool"), o.get("rule_id")) {
                (Some(Value::String(id)), _, _) => id.to_string(),
                (_, Some(Value::String(tool)), Some(Value::String(rule))) => {
                    format!("{tool}/{rule}")
                }
                _ => return None,
            };
            (id, o.get("severity").and_then(Value::as_str))
        }
        _ => return None,
    };
    Some(PredictedViolation {
        id,
        severity: severity.and_then(severity_synonym).unwrap_or(Severity::Med),
    })
}

/// A numeric confidence string: trimmed, a finite decimal number.
fn numeric_string(s: &str) -> Option<f64> {
    let t = s.trim();
    // Rust's float syntax also takes `inf`/`nan`; only finite decimals count.
    let looks_decimal = t
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    if t.is_empty() || !looks_decimal {
        return None;
    }
    t.parse::<f64>().ok().filter(|c| c.is_finite())
}

/// Whether `span` is all of `stripped`, or the content of one fenced block
/// that is all of `stripped` (```` ``` ```` + optional language word, the
/// object, ```` ``` ````).
fn is_single_object(stripped: &str, span: std::ops::Range<usize>) -> bool {
    let (Some(before), Some(after)) = (stripped.get(..span.start), stripped.get(span.end..)) else {
        return false;
    };
    if before.is_empty() && after.is_empty() {
        return true;
    }
    let Some(lang_and_space) = before.strip_prefix("```") else {
        return false;
    };
    let lang = lang_and_space.trim_end();
    let lang_ok = lang
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-' | b'.' | b'#'));
    lang_ok && after.trim_start() == "```"
}

/// The first deviation from the strict schema (§3.1), or `None`.
fn strict_deviation(
    object: &Object<'_>,
    items: &[Value<'_>],
    single: bool,
) -> Option<&'static str> {
    if !single {
        return Some("not_single_object");
    }
    for item in items {
        let Value::Object(o) = item else {
            return Some("violation_not_object");
        };
        match o.get("id") {
            None => return Some("violation_id_missing"),
            Some(Value::String(s)) if s.is_empty() => return Some("violation_id_empty"),
            Some(Value::String(_)) => {}
            Some(_) => return Some("violation_id_not_string"),
        }
        match o.get("severity") {
            None => return Some("severity_missing"),
            Some(Value::String(s)) if matches!(s.as_ref(), "low" | "med" | "high") => {}
            Some(Value::String(_)) => return Some("severity_not_canonical"),
            Some(_) => return Some("severity_not_string"),
        }
    }
    match object.get("patch") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => return Some("patch_not_string"),
    }
    match object.get("confidence") {
        None | Some(Value::Null) => return Some("confidence_missing"),
        Some(Value::Number(n)) if !n.is_finite() => return Some("confidence_non_finite"),
        Some(Value::Number(n)) if !(0.0..=1.0).contains(&n.value) => {
            return Some("confidence_out_of_range")
        }
        Some(Value::Number(_)) => {}
        Some(_) => return Some("confidence_not_number"),
    }
    object.has_duplicate_keys().then_some("duplicate_key")
}

/// Compact JSON text of a strict value, members in input order (a JSON
/// Patch given as JSON becomes the patch text).
fn write_json(value: &Value<'_>, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if !n.is_finite() => out.push_str("null"),
        // Display never uses an exponent, so an integer stays an integer.
        Value::Number(n) if n.integer => out.push_str(&format!("{}", n.value)),
        // Debug keeps a fraction (`1.0`) so a float stays a float.
        Value::Number(n) => out.push_str(&format!("{:?}", n.value)),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            for (i, (k, v)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_json(v, out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        // Serialising a `str` cannot fail; keep the text rather than panic.
        Err(_) => out.push_str(s),
    }
}

// ------------------------------------------------------------- upstream

/// §3.3: `json.loads` of the whole text; only if that raises, of the first
/// fenced block; then the pydantic-like validation.
///
/// Nesting (issue 14 item 9): `json.loads` accepts as deep as CPython under
/// verifiers ([`svbench_core::json::PYTHON_MAX_DEPTH`]); deeper, it raises
/// `RecursionError`, which is not the `JSONDecodeError`/`ValueError` a parser
/// catches (upstream's shared parser catches only `JSONDecodeError` and
/// `TypeError`), so the reward call fails and verifiers scores it 0: the
/// answer is `not_json` at once, without trying the fenced block.
fn parse_upstream(text: &str) -> E2Parse {
    let value = match loads(text) {
        Ok(value) => value,
        Err(e) if e.kind == JsonErrorKind::TooDeep => return invalid("not_json"),
        Err(_) => match upstream_fence(text).map(loads) {
            Some(Ok(value)) => value,
            _ => return invalid("not_json"),
        },
    };
    match validate_upstream(&value) {
        Ok(answer) => E2Parse::Valid {
            answer,
            format_ok: true,
            format_reason: None,
            skipped_items: 0,
        },
        Err(reason) => invalid(reason),
    }
}

/// Upstream's pydantic model: `violations: List[{id: str, severity:
/// ^(low|med|high)$}]`, `patch: Optional[str] = ""`, `confidence: float`
/// (lax: ints, bools, numeric strings, NaN and inf; no range), extra keys
/// ignored.
fn validate_upstream(value: &PyValue<'_>) -> Result<Answer, &'static str> {
    let PyValue::Dict(object) = value else {
        return Err("not_an_object");
    };
    let violations = match object.get(VIOLATIONS_KEY) {
        None => return Err("violations_missing"),
        Some(PyValue::List(items)) => items
            .iter()
            .map(upstream_item)
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err("violations_not_list"),
    };
    let patch = match object.get("patch") {
        None | Some(PyValue::None) => None,
        Some(PyValue::Str(s)) => (!s.is_empty()).then(|| s.to_string()),
        Some(_) => return Err("patch_not_string"),
    };
    let confidence = upstream_confidence(object)?;
    Ok(Answer {
        violations,
        patch,
        confidence: Some(confidence),
    })
}

fn upstream_item(item: &PyValue<'_>) -> Result<PredictedViolation, &'static str> {
    let PyValue::Dict(o) = item else {
        return Err("violation_not_object");
    };
    let id = match o.get("id") {
        None => return Err("violation_id_missing"),
        Some(PyValue::Str(s)) => s.to_string(),
        Some(_) => return Err("violation_id_not_string"),
    };
    // pydantic 2 matches patterns with Rust's regex, where `$` is the end
    // of the text: exactly the three strings.
    let severity = match o.get("severity") {
        None => return Err("severity_missing"),
        Some(PyValue::Str(s)) => match s.as_ref() {
            "low" => Severity::Low,
            "med" => Severity::Med,
            "high" => Severity::High,
            _ => return Err("severity_invalid"),
        },
        Some(_) => return Err("severity_invalid"),
    };
    Ok(PredictedViolation { id, severity })
}

/// pydantic's lax `float`: floats (NaN, ±inf included), ints, bools and
/// numeric strings (pydantic's syntax: ASCII digits only, unlike Python's
/// `float()`); `None` and containers fail.
fn upstream_confidence(object: &PyDict<'_>) -> Result<f64, &'static str> {
    match object.get("confidence") {
        None => Err("confidence_missing"),
        Some(PyValue::Float(f)) => Ok(*f),
        Some(PyValue::Bool(b)) => Ok(if *b { 1.0 } else { 0.0 }),
        Some(PyValue::Int(i)) => i.to_f64().ok_or("confidence_not_float"),
        Some(PyValue::Str(s)) => pydantic_float_str(s).ok_or("confidence_not_float"),
        Some(_) => Err("confidence_not_float"),
    }
}
