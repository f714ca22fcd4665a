//! Reading an item's oracle from a dataset row (spec E2 §5.1, §8.2, §8.4),
//! and upstream's severity normalisation for labels and tool observations.
//!
//! Accepted rows:
//! - project and upstream build/hub rows: `info.violations` entries
//!   `{tool, rule_id, severity, …}` → id `tool/rule_id`; labelled namespaces
//!   from `info.labelled_namespaces` when present, else what upstream's
//!   builder ran ({kube-linter, semgrep} for k8s, {semgrep} for tf);
//! - upstream env rows: `answer` (a JSON string, or an object) with an
//!   `oracle` list of `{id, severity}`, or such a list as a top-level
//!   `oracle`; labelled namespaces = those named by the oracle ids plus the
//!   primary one (kube-linter for k8s, semgrep for tf).
//!
//! The language comes from `meta.lang`, else `fixture_type` (row or
//! `answer`): `tf`/`terraform` → [`Lang::Tf`], anything else k8s.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use thiserror::Error;

use super::{Lang, Oracle, OracleViolation, Severity, Tool};

/// Why a row's oracle could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OracleError {
    /// The row is not a JSON object.
    #[error("the row is not a JSON object")]
    RowNotObject,
    /// Neither `info.violations` nor an `oracle` list (top level or in
    /// `answer`) is present.
    #[error("no `info.violations` and no `oracle` list")]
    Missing,
    /// `answer` is a string that is not JSON.
    #[error("`answer` is not JSON: {0}")]
    AnswerNotJson(String),
    /// The label list is not an array.
    #[error("`{0}` is not an array")]
    NotArray(&'static str),
    /// An entry lacks a string `tool`/`rule_id` (or `id`).
    #[error("entry {index} of `{list}` has no string `{field}`")]
    BadEntry {
        /// The list (`info.violations` or `oracle`).
        list: &'static str,
        /// The entry's index.
        index: usize,
        /// The missing or mistyped field.
        field: &'static str,
    },
    /// `info.labelled_namespaces` holds something other than namespace names.
    #[error("`info.labelled_namespaces` has an unknown namespace: {0}")]
    UnknownNamespace(String),
}

/// Upstream's severity normalisation (§5.1) for oracle entries and tool
/// observations: lower-cased, `low`/`med`/`high` stay, `medium` → med,
/// `critical` → high, anything else (`WARNING`, `INFO`, empty) → med.
#[must_use]
pub fn upstream_severity(text: &str) -> Severity {
    match text.to_ascii_lowercase().as_str() {
        "low" => Severity::Low,
        "high" | "critical" => Severity::High,
        _ => Severity::Med,
    }
}

/// [`upstream_severity`] of a JSON value; a missing or non-string severity
/// is med.
#[must_use]
pub fn upstream_severity_value(value: Option<&Value>) -> Severity {
    value
        .and_then(Value::as_str)
        .map_or(Severity::Med, upstream_severity)
}

/// The language of a row: `meta.lang`, else `fixture_type` (top level or
/// inside `answer`); `tf`/`terraform` (any case) → tf, anything else k8s.
#[must_use]
pub fn row_lang(row: &Value) -> Lang {
    let lang = row
        .pointer("/meta/lang")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            row.get("fixture_type")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .or_else(|| {
            answer_object(row)
                .ok()
                .flatten()
                .and_then(|a| a.get("fixture_type")?.as_str().map(str::to_owned))
        });
    match lang.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("tf" | "terraform") => Lang::Tf,
        _ => Lang::K8s,
    }
}

/// The primary namespace upstream filtered to: kube-linter for k8s,
/// semgrep for tf.
#[must_use]
pub fn primary_tool(lang: Lang) -> Tool {
    match lang {
        Lang::K8s => Tool::KubeLinter,
        Lang::Tf => Tool::Semgrep,
    }
}

/// Reads a row's oracle (see the module docs). Entries keep their order and
/// duplicates; severities are normalised upstream's way.
///
/// # Errors
/// [`OracleError`] when the row has no label list or an entry is malformed.
pub fn oracle_from_row(row: &Value) -> Result<Oracle, OracleError> {
    let Value::Object(fields) = row else {
        return Err(OracleError::RowNotObject);
    };
    let lang = row_lang(row);
    if let Some(list) = row.pointer("/info/violations") {
        let violations = violations_list(list)?;
        let namespaces = match row.pointer("/info/labelled_namespaces") {
            Some(names) => labelled_namespaces(names)?,
            None => match lang {
                Lang::K8s => BTreeSet::from([Tool::KubeLinter, Tool::Semgrep]),
                Lang::Tf => BTreeSet::from([Tool::Semgrep]),
            },
        };
        return Ok(Oracle {
            namespaces,
            violations,
        });
    }
    if let Some(list) = fields.get("oracle") {
        return oracle_from_list(list, lang);
    }
    match answer_object(row)?.as_ref().and_then(|a| a.get("oracle")) {
        Some(list) => oracle_from_list(list, lang),
        None => Err(OracleError::Missing),
    }
}

/// Reads an env-format oracle list (`[{id, severity}, …]`, as upstream's
/// `oracle/*.json` files): labelled namespaces are those the ids name plus
/// the primary one of `lang`.
///
/// # Errors
/// [`OracleError`] when `list` is not an array or an entry has no string `id`.
pub fn oracle_from_list(list: &Value, lang: Lang) -> Result<Oracle, OracleError> {
    let Value::Array(entries) = list else {
        return Err(OracleError::NotArray("oracle"));
    };
    let mut violations = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let id = entry
            .get("id")
            .and_then(Value::as_str)
            .ok_or(OracleError::BadEntry {
                list: "oracle",
                index,
                field: "id",
            })?;
        violations.push(OracleViolation {
            id: id.to_owned(),
            severity: upstream_severity_value(entry.get("severity")),
        });
    }
    let mut namespaces: BTreeSet<Tool> = violations
        .iter()
        .filter_map(|v| Tool::parse(v.id.split_once('/')?.0))
        .collect();
    namespaces.insert(primary_tool(lang));
    Ok(Oracle {
        namespaces,
        violations,
    })
}

/// `info.violations` entries `{tool, rule_id, severity}` → `tool/rule_id`.
fn violations_list(list: &Value) -> Result<Vec<OracleViolation>, OracleError> {
    const LIST: &str = "info.violations";
    let Value::Array(entries) = list else {
        return Err(OracleError::NotArray(LIST));
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let field = |name: &'static str| {
                entry
                    .get(name)
                    .and_then(Value::as_str)
                    .ok_or(OracleError::BadEntry {
                        list: LIST,
                        index,
                        field: name,
                    })
            };
            Ok(OracleViolation {
                id: format!("{}/{}", field("tool")?, field("rule_id")?),
                severity: upstream_severity_value(entry.get("severity")),
            })
        })
        .collect()
}

fn labelled_namespaces(names: &Value) -> Result<BTreeSet<Tool>, OracleError> {
    let Value::Array(names) = names else {
        return Err(OracleError::NotArray("info.labelled_namespaces"));
    };
    names
        .iter()
        .map(|n| {
            n.as_str()
                .and_then(Tool::parse)
                .ok_or_else(|| OracleError::UnknownNamespace(n.to_string()))
        })
        .collect()
}

/// The row's `answer` as an object: an object as is, a string parsed as
/// JSON; `None` when absent or of another type.
fn answer_object(row: &Value) -> Result<Option<Map<String, Value>>, OracleError> {
    match row.get("answer") {
        Some(Value::Object(a)) => Ok(Some(a.clone())),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(a)) => Ok(Some(a)),
            Ok(_) => Ok(None),
            Err(e) => Err(OracleError::AnswerNotJson(e.to_string())),
        },
        _ => Ok(None),
    }
}
