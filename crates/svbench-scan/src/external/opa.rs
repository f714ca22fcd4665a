//! The real `opa` binary, evaluating the project's (and users') Rego.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::Value;

use super::process::TempWorkspace;
use super::{ExternalAnalysis, ExternalError, ExternalFinding, ExternalTool};
use crate::rego::{is_valid_rule_id, DenyFinding};
use crate::{Finding, ObjectRef, ScanError, Severity, Tool};

/// A Rego module for `opa eval -d`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegoPolicy {
    /// A `.rego` file on disk, passed as it is.
    File(PathBuf),
    /// A module's text (e.g. an embedded built-in policy), written to the
    /// run's temporary directory.
    Text {
        /// A name for it (its file name is derived from this).
        name: String,
        /// The Rego source.
        text: String,
    },
}

/// One evaluation input and where its findings point.
#[derive(Debug, Clone, PartialEq)]
pub struct OpaInput {
    /// `input`, as built for the native namespace (spec E2 §1.7).
    pub input: Value,
    /// The YAML document, if any (copied into findings).
    pub doc_index: Option<usize>,
    /// The object or block (copied into findings).
    pub object: Option<ObjectRef>,
    /// The object's or block's first line (copied into findings; the
    /// element's `path` is returned beside, for a finer line).
    pub line: Option<usize>,
}

/// `opa eval --format=json --stdin-input -d <policies> <query>`, once per input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpaCli {
    /// Binary, search path and bounds (the timeout applies to each input).
    pub tool: ExternalTool,
    /// The modules to load.
    pub policies: Vec<RegoPolicy>,
}

impl OpaCli {
    /// `opa` with the given settings and modules.
    #[must_use]
    pub fn new(tool: ExternalTool, policies: Vec<RegoPolicy>) -> OpaCli {
        OpaCli { tool, policies }
    }

    /// Evaluates `query` (e.g. [`crate::rego::K8S_DENY_QUERY`]) for each input
    /// of `file`. Valid deny elements become findings (severity as the policy
    /// wrote it, normalised); invalid ones and non-set values are recorded
    /// errors.
    ///
    /// # Errors
    /// A missing binary, a timeout, oversized output, a failed run (opa
    /// exits non-zero on compile and evaluation errors) or unreadable JSON:
    /// the first such failure ends the file.
    pub fn eval(
        &self,
        query: &str,
        file: &str,
        inputs: &[OpaInput],
    ) -> Result<ExternalAnalysis, ExternalError> {
        let binary = self.tool.resolve()?;
        let workspace = TempWorkspace::new()?;
        let mut args: Vec<OsString> = vec![
            "eval".into(),
            "--format=json".into(),
            "--stdin-input".into(),
        ];
        for (i, policy) in self.policies.iter().enumerate() {
            let path = match policy {
                // Absolute: opa runs in the temporary directory.
                RegoPolicy::File(path) => {
                    std::path::absolute(path).map_err(|e| super::process::io_error(path, &e))?
                }
                RegoPolicy::Text { name, text } => {
                    workspace.write(&policy_file_name(i, name), text.as_bytes())?
                }
            };
            args.push("-d".into());
            args.push(path.into());
        }
        // `--` keeps a query from ever reading as a flag.
        args.push("--".into());
        args.push(query.into());
        let mut analysis = ExternalAnalysis::default();
        for input in inputs {
            let out = self.tool.run(
                &binary,
                args.clone(),
                Some(workspace.path()),
                Some(input.input.to_string().into_bytes()),
            )?;
            if !out.status.success() {
                return Err(out.failed(&binary));
            }
            let values =
                parse_opa_eval_json(&out.stdout).map_err(|message| ExternalError::BadOutput {
                    binary: binary.display().to_string(),
                    message,
                })?;
            let error = |message: String| ScanError {
                file: file.to_owned(),
                doc_index: input.doc_index,
                tool: Some(Tool::Opa),
                message,
            };
            for value in values {
                let Value::Array(elements) = value else {
                    analysis.errors.push(error(format!(
                        "{query} is not a set: {}",
                        json_type(&value)
                    )));
                    continue;
                };
                for element in &elements {
                    match parse_deny_element(element) {
                        Ok(deny) => analysis.findings.push(finding(file, input, element, deny)),
                        Err(why) => analysis.errors.push(error(format!(
                            "{query}: dropped deny element {}: {why}",
                            short_json(element)
                        ))),
                    }
                }
            }
        }
        analysis.sort();
        Ok(analysis)
    }
}

fn finding(file: &str, input: &OpaInput, element: &Value, deny: DenyFinding) -> ExternalFinding {
    ExternalFinding {
        tool_severity: element
            .get("severity")
            .and_then(Value::as_str)
            .map(str::to_owned),
        tool_rule_id: deny.id.clone(),
        path: deny.path,
        finding: Finding {
            tool: Tool::Opa,
            rule_id: deny.id,
            severity: deny.severity,
            message: deny.message,
            file: file.to_owned(),
            line: input.line,
            doc_index: input.doc_index,
            object: input.object.clone(),
            container: deny.container,
        },
    }
}

/// `NNN-<name>.rego` with only `[A-Za-z0-9_.-]` kept, so names cannot
/// collide or leave the directory.
fn policy_file_name(index: usize, name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    let mut clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !clean.ends_with(".rego") {
        clean.push_str(".rego");
    }
    format!("{index:03}-{clean}")
}

/// The expression values of `opa eval --format=json` output: none when the
/// query is undefined (no `result`).
///
/// # Errors
/// Output that is not JSON in the documented shape.
pub fn parse_opa_eval_json(stdout: &[u8]) -> Result<Vec<Value>, String> {
    let root: Value = serde_json::from_slice(stdout).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(root) = root else {
        return Err("the output is not a JSON object".to_owned());
    };
    let results = match root.get("result") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(results)) => results,
        Some(_) => return Err("`result` is not an array".to_owned()),
    };
    let mut values = Vec::new();
    for result in results {
        let expressions = result
            .get("expressions")
            .and_then(Value::as_array)
            .ok_or("a result has no `expressions` array")?;
        for expression in expressions {
            let value = expression
                .get("value")
                .ok_or("an expression has no `value`")?;
            values.push(value.clone());
        }
    }
    Ok(values)
}

/// Validates one deny element against the output contract of spec E2 §1.7
/// (required `id` matching `[A-Za-z0-9_.-]+`, `severity` low/med(ium)/
/// high/critical in any case, `message`; optional string `container`, JSON
/// Pointer `path`), as the native namespace does.
///
/// # Errors
/// Why the element is dropped.
pub fn parse_deny_element(element: &Value) -> Result<DenyFinding, String> {
    let Value::Object(map) = element else {
        return Err("a deny element must be an object".into());
    };
    let id = match map.get("id") {
        Some(Value::String(id)) if is_valid_rule_id(id) => id.clone(),
        Some(Value::String(_)) => return Err("`id` must match [A-Za-z0-9_.-]+".into()),
        _ => return Err("`id` must be a string".into()),
    };
    let severity = match map.get("severity") {
        Some(Value::String(s)) => Severity::parse(s)
            .ok_or_else(|| format!("`severity` {s:?} is not low, med(ium), high or critical"))?,
        _ => return Err("`severity` must be a string".into()),
    };
    let message = match map.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => return Err("`message` must be a string".into()),
    };
    let container = match map.get("container") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c.clone()),
        Some(_) => return Err("`container` must be a string".into()),
    };
    let path = match map.get("path") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.is_empty() || p.starts_with('/') => Some(p.clone()),
        Some(_) => return Err("`path` must be a JSON Pointer string".into()),
    };
    Ok(DenyFinding {
        id,
        severity,
        message,
        container,
        path,
    })
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The element as compact JSON, cut to a readable length.
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
