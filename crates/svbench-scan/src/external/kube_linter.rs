//! The real `kube-linter` binary.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::process::{workspace_file_name, TempWorkspace};
use super::{
    catalogue_severity, ExternalAnalysis, ExternalError, ExternalFinding, ExternalTool, OutputError,
};
use crate::{Finding, ObjectRef, Tool};

/// `kube-linter lint --format json [--config F] <file>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeLinter {
    /// Binary, search path and bounds.
    pub tool: ExternalTool,
    /// kube-linter's own `--config` file, if any.
    pub config: Option<PathBuf>,
}

impl KubeLinter {
    /// `kube-linter` on `PATH`, default bounds, no config.
    #[must_use]
    pub fn new() -> KubeLinter {
        KubeLinter::with_tool(ExternalTool::new(Tool::KubeLinter))
    }

    /// The given binary settings, no config.
    #[must_use]
    pub fn with_tool(tool: ExternalTool) -> KubeLinter {
        KubeLinter { tool, config: None }
    }

    /// Lints one file, written to a temporary directory as the last
    /// component of `file`; findings name `file`.
    ///
    /// Exit 0 with empty stdout means no valid objects (no findings); exit 1
    /// means findings; anything else, or exit 1 without reports, is a failure.
    ///
    /// # Errors
    /// A missing binary, a timeout, oversized output, a failed run or
    /// unreadable JSON.
    pub fn lint(&self, file: &str, content: &[u8]) -> Result<ExternalAnalysis, ExternalError> {
        let binary = self.tool.resolve()?;
        let name = workspace_file_name(file)?;
        let workspace = TempWorkspace::new()?;
        workspace.write(name, content)?;
        let mut args: Vec<OsString> = vec!["lint".into(), "--format".into(), "json".into()];
        if let Some(config) = &self.config {
            args.push("--config".into());
            args.push(config.into());
        }
        // `./` keeps a name starting with `-` from reading as a flag.
        args.push(format!("./{name}").into());
        let out = self.tool.run(&binary, args, Some(workspace.path()), None)?;
        let code = out.status.code();
        if !matches!(code, Some(0 | 1)) {
            return Err(out.failed(&binary));
        }
        if code == Some(0) && out.stdout.iter().all(u8::is_ascii_whitespace) {
            return Ok(ExternalAnalysis::default());
        }
        let analysis = parse_kube_linter_json(file, &out.stdout).map_err(|e| {
            if code == Some(1) {
                out.failed(&binary)
            } else {
                ExternalError::BadOutput {
                    binary: binary.display().to_string(),
                    message: e.to_string(),
                }
            }
        })?;
        if code == Some(1) && analysis.findings.is_empty() {
            // Exit 1 also reports lint errors (unreadable files, bad config).
            return Err(out.failed(&binary));
        }
        Ok(analysis)
    }
}

impl Default for KubeLinter {
    fn default() -> Self {
        KubeLinter::new()
    }
}

/// Reads kube-linter's JSON report: one finding per `Reports[]` entry, with
/// the project severity of its `Check`, the object from `Object.K8sObject`,
/// the container from `container "…"` in the message, and no line.
///
/// # Errors
/// Text that is not a JSON object, or a report without `Check` or message.
pub fn parse_kube_linter_json(file: &str, stdout: &[u8]) -> Result<ExternalAnalysis, OutputError> {
    let root: Value =
        serde_json::from_slice(stdout).map_err(|e| OutputError::NotJson(e.to_string()))?;
    let Value::Object(root) = root else {
        return Err(OutputError::NotAnObject { what: "report" });
    };
    let reports = match root.get("Reports") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(reports)) => reports.as_slice(),
        Some(_) => return Err(OutputError::NotAnArray { field: "Reports" }),
    };
    let catalogue = crate::kube_linter::catalogue();
    let mut analysis = ExternalAnalysis::default();
    for (i, report) in reports.iter().enumerate() {
        let missing = |field| OutputError::Missing {
            entry: format!("Reports[{i}]"),
            field,
        };
        let check = str_at(report, &["Check"]).ok_or_else(|| missing("`Check`"))?;
        let message = str_at(report, &["Diagnostic", "Message"])
            .ok_or_else(|| missing("`Diagnostic.Message`"))?;
        let severity = catalogue_severity(catalogue, Tool::KubeLinter, check, &mut analysis.notes);
        analysis.findings.push(ExternalFinding {
            finding: Finding {
                tool: Tool::KubeLinter,
                rule_id: check.to_owned(),
                severity,
                message: message.to_owned(),
                file: file.to_owned(),
                line: None,
                doc_index: None,
                object: object_ref(report),
                container: container_in(message),
            },
            tool_severity: None,
            tool_rule_id: check.to_owned(),
            path: None,
        });
    }
    analysis.sort();
    Ok(analysis)
}

fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(Value::as_str)
}

/// `Object.K8sObject`: `Group`/`Version` joined as `apiVersion`; empty
/// strings (kube-linter's zero values) are absent.
fn object_ref(report: &Value) -> Option<ObjectRef> {
    let object = report.get("Object")?.get("K8sObject")?;
    let non_empty = |path: &[&str]| {
        str_at(object, path)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let kind = non_empty(&["GroupVersionKind", "Kind"])?;
    let version = non_empty(&["GroupVersionKind", "Version"]);
    let api_version = match (non_empty(&["GroupVersionKind", "Group"]), version) {
        (Some(group), Some(version)) => Some(format!("{group}/{version}")),
        (None, version) => version,
        (Some(group), None) => Some(group),
    };
    Some(ObjectRef::K8s {
        api_version,
        kind,
        name: non_empty(&["Name"]),
        namespace: non_empty(&["Namespace"]),
    })
}

/// The first `container "…"` in a kube-linter message.
fn container_in(message: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re =
        RE.get_or_init(|| Regex::new(r#"container "([^"]*)""#).expect("a valid literal regex"));
    re.captures(message)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_owned())
        .filter(|c| !c.is_empty())
}
