//! The deny-set output contract of spec E2 §1.7.

use serde_json::Value;

use super::RegoError;

/// Project severity of a Rego finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// `low`.
    Low,
    /// `med` (policies may write `medium`).
    Med,
    /// `high` (policies may write `critical`).
    High,
}

impl Severity {
    /// Reads a policy's severity: `low`, `med`/`medium`, `high`/`critical`,
    /// in any case; anything else is `None`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Severity> {
        match text.to_ascii_lowercase().as_str() {
            "low" => Some(Severity::Low),
            "med" | "medium" => Some(Severity::Med),
            "high" | "critical" => Some(Severity::High),
            _ => None,
        }
    }

    /// The project spelling: `low`, `med` or `high`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Med => "med",
            Severity::High => "high",
        }
    }
}

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
