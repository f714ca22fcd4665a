//! The deny-set output contract of spec E2 §1.7.

use serde_json::Value;

use super::RegoError;
use crate::Severity;

/// One valid element of a deny set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenyFinding {
    /// Rule id (`K8S_001`), matching `[A-Za-z0-9_.-]+`.
    pub id: String,
    /// Normalised severity.
    pub severity: Severity,
    /// The policy's message.
    pub message: String,
    /// Container the finding is about, if the policy named one.
    pub container: Option<String>,
    /// JSON Pointer into `input.object` or `input.block.config`, if given.
    pub path: Option<String>,
}

/// Whether `id` matches `[A-Za-z0-9_.-]+`.
#[must_use]
pub fn is_valid_rule_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Why a deny element breaks the output contract and is dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DenyElementError {
    /// Not a JSON object.
    #[error("a deny element must be an object")]
    NotAnObject,
    /// `id` is not a string.
    #[error("`id` must be a string")]
    IdNotAString,
    /// `id` has characters outside `[A-Za-z0-9_.-]`, or is empty.
    #[error("`id` must match [A-Za-z0-9_.-]+")]
    InvalidId,
    /// `severity` is not a string.
    #[error("`severity` must be a string")]
    SeverityNotAString,
    /// `severity` names no known level.
    #[error("`severity` {0:?} is not low, med(ium), high or critical")]
    UnknownSeverity(String),
    /// `message` is not a string.
    #[error("`message` must be a string")]
    MessageNotAString,
    /// `container` is present and not a string.
    #[error("`container` must be a string")]
    ContainerNotAString,
    /// `path` is present and not a JSON Pointer string.
    #[error("`path` must be a JSON Pointer string")]
    PathNotAPointer,
}

/// Validates one deny element (already converted to JSON) against the
/// output contract of spec E2 §1.7: required `id` matching
/// `[A-Za-z0-9_.-]+`, `severity` low/med(ium)/high/critical in any case,
/// `message`; optional string `container` and JSON Pointer `path`. The
/// native namespace and the `opa` binary's results are held to the same
/// contract.
///
/// # Errors
/// Why the element is dropped.
pub fn parse_deny_element(element: &Value) -> Result<DenyFinding, DenyElementError> {
    use DenyElementError as E;
    let Value::Object(map) = element else {
        return Err(E::NotAnObject);
    };
    let id = match map.get("id") {
        Some(Value::String(id)) if is_valid_rule_id(id) => id.clone(),
        Some(Value::String(_)) => return Err(E::InvalidId),
        _ => return Err(E::IdNotAString),
    };
    let severity = match map.get("severity") {
        Some(Value::String(s)) => {
            Severity::parse(s).ok_or_else(|| E::UnknownSeverity(s.clone()))?
        }
        _ => return Err(E::SeverityNotAString),
    };
    let message = match map.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => return Err(E::MessageNotAString),
    };
    let container = match map.get("container") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c.clone()),
        Some(_) => return Err(E::ContainerNotAString),
    };
    let path = match map.get("path") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.is_empty() || p.starts_with('/') => Some(p.clone()),
        Some(_) => return Err(E::PathNotAPointer),
    };
    Ok(DenyFinding {
        id,
        severity,
        message,
        container,
        path,
    })
}

/// [`parse_deny_element`] for the in-process engine's query `query`.
pub(super) fn parse_element(query: &str, element: &Value) -> Result<DenyFinding, RegoError> {
    parse_deny_element(element).map_err(|why| RegoError::InvalidDeny {
        query: query.to_owned(),
        element: short_json(element),
        message: why.to_string(),
    })
}

/// The element as compact JSON, cut to a readable length for error messages.
pub(crate) fn short_json(value: &Value) -> String {
    const MAX: usize = 200;
    let text = value.to_string();
    if text.len() <= MAX {
        return text;
    }
    format!("{}…", svbench_core::text::cut_at_char(&text, MAX))
}
