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

/// Validates one deny element (already converted to JSON).
pub(super) fn parse_element(query: &str, element: &Value) -> Result<DenyFinding, RegoError> {
    let bad = |why: String| RegoError::InvalidDeny {
        query: query.to_owned(),
        element: short_json(element),
        message: why,
    };
    let Value::Object(map) = element else {
        return Err(bad("a deny element must be an object".into()));
    };
    let id = match map.get("id") {
        Some(Value::String(id)) if is_valid_rule_id(id) => id.clone(),
        Some(Value::String(_)) => return Err(bad("`id` must match [A-Za-z0-9_.-]+".into())),
        _ => return Err(bad("`id` must be a string".into())),
    };
    let severity = match map.get("severity") {
        Some(Value::String(s)) => Severity::parse(s).ok_or_else(|| {
            bad(format!(
                "`severity` {s:?} is not low, med(ium), high or critical"
            ))
        })?,
        _ => return Err(bad("`severity` must be a string".into())),
    };
    let message = match map.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => return Err(bad("`message` must be a string".into())),
    };
    let container = match map.get("container") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c.clone()),
        Some(_) => return Err(bad("`container` must be a string".into())),
    };
    let path = match map.get("path") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.is_empty() || p.starts_with('/') => Some(p.clone()),
        Some(_) => return Err(bad("`path` must be a JSON Pointer string".into())),
    };
    Ok(DenyFinding {
        id,
        severity,
        message,
        container,
        path,
    })
}

/// The element as compact JSON, cut to a readable length for error messages.
fn short_json(value: &Value) -> String {
    const MAX: usize = 200;
    let text = value.to_string();
    if text.len() <= MAX {
        return text;
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
