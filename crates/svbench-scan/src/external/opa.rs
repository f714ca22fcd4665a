//! The real `opa` binary, evaluating the project's (and users') Rego.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::Value;

use super::process::TempWorkspace;
use super::{ExternalAnalysis, ExternalError, ExternalFinding, ExternalTool, OutputError};
use crate::rego::{json_type, parse_deny_element, short_json, DenyFinding};
use crate::{Finding, ObjectRef, ScanError, Tool};

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
                parse_opa_eval_json(&out.stdout).map_err(|e| ExternalError::BadOutput {
                    binary: binary.display().to_string(),
                    message: e.to_string(),
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
pub fn parse_opa_eval_json(stdout: &[u8]) -> Result<Vec<Value>, OutputError> {
    let root: Value =
        serde_json::from_slice(stdout).map_err(|e| OutputError::NotJson(e.to_string()))?;
    let Value::Object(root) = root else {
        return Err(OutputError::NotAnObject { what: "output" });
    };
    let results = match root.get("result") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(results)) => results,
        Some(_) => return Err(OutputError::NotAnArray { field: "result" }),
    };
    let mut values = Vec::new();
    for result in results {
        let expressions = result
            .get("expressions")
            .and_then(Value::as_array)
            .ok_or_else(|| OutputError::Missing {
                entry: "a result".to_owned(),
                field: "`expressions` array",
            })?;
        for expression in expressions {
            let value = expression
                .get("value")
                .ok_or_else(|| OutputError::Missing {
                    entry: "an expression".to_owned(),
                    field: "`value`",
                })?;
            values.push(value.clone());
        }
    }
    Ok(values)
}
