//! The real `semgrep` binary, with local rules only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::process::{workspace_file_name, TempWorkspace};
use super::{
    catalogue_severity, ExternalAnalysis, ExternalError, ExternalFinding, ExternalTool, OutputError,
};
use crate::{Finding, ScanError, Severity, Tool};

/// Namespace of the catalogue ids (`yaml.kubernetes.security.<rule>.<rule>`).
pub const SEMGREP_RULE_PREFIX: &str = "yaml.kubernetes.security.";

/// `semgrep scan --json --quiet --metrics=off --config <rules> <file>`.
///
/// The rules must be local: registry configs (`p/…`, `r/…`, `auto`, URLs)
/// need network, which svbench never uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semgrep {
    tool: ExternalTool,
    rules: PathBuf,
}

impl Semgrep {
    /// Checks that `rules` names an existing local rule file or directory.
    ///
    /// # Errors
    /// [`ExternalError::SemgrepConfigMissing`] for `None`;
    /// [`ExternalError::SemgrepConfigInvalid`] for a registry name, a URL or
    /// a path that does not exist.
    pub fn new(tool: ExternalTool, rules: Option<&Path>) -> Result<Semgrep, ExternalError> {
        let rules = rules.ok_or(ExternalError::SemgrepConfigMissing)?;
        let text = rules.to_string_lossy();
        let invalid = |message: &str| ExternalError::SemgrepConfigInvalid {
            config: text.clone().into_owned(),
            message: message.to_owned(),
        };
        if text.contains("://") || text == "auto" {
            return Err(invalid("registry and URL configs need network"));
        }
        if !rules.exists() {
            let registry_like = ["p/", "r/", "s/"].iter().any(|p| text.starts_with(p));
            return Err(invalid(if registry_like {
                "registry configs need network"
            } else {
                "no such file or directory"
            }));
        }
        Ok(Semgrep {
            tool,
            rules: rules.to_owned(),
        })
    }

    /// The binary settings.
    #[must_use]
    pub fn tool(&self) -> &ExternalTool {
        &self.tool
    }

    /// The local rule file or directory.
    #[must_use]
    pub fn rules(&self) -> &Path {
        &self.rules
    }

    /// Scans one file, written to a temporary directory as the last component
    /// of `file`; findings name `file`. Exit 0 or 1 with JSON is a result;
    /// exit ≥ 2 is a failure.
    ///
    /// # Errors
    /// A missing binary, a timeout, oversized output, a failed run or
    /// unreadable JSON.
    pub fn scan(&self, file: &str, content: &[u8]) -> Result<ExternalAnalysis, ExternalError> {
        let binary = self.tool.resolve()?;
        let name = workspace_file_name(file)?;
        let workspace = TempWorkspace::new()?;
        workspace.write(name, content)?;
        // The rules path must not depend on the child's working directory.
        let rules = std::path::absolute(&self.rules).unwrap_or_else(|_| self.rules.clone());
        let args: Vec<OsString> = vec![
            "scan".into(),
            "--json".into(),
            "--quiet".into(),
            "--metrics=off".into(),
            "--config".into(),
            rules.into(),
            format!("./{name}").into(),
        ];
        let out = self.tool.run(&binary, args, Some(workspace.path()), None)?;
        if !matches!(out.status.code(), Some(0 | 1)) {
            return Err(out.failed(&binary));
        }
        parse_semgrep_json(file, &out.stdout).map_err(|e| ExternalError::BadOutput {
            binary: binary.display().to_string(),
            message: e.to_string(),
        })
    }
}

/// The catalogue id of a semgrep `check_id`: its last two dot-separated
/// components under [`SEMGREP_RULE_PREFIX`] (local rule files prefix ids with
/// a path-derived namespace). Ids with fewer components are kept as they are.
#[must_use]
pub fn map_semgrep_check_id(check_id: &str) -> String {
    let mut parts = check_id.rsplitn(3, '.');
    match (parts.next(), parts.next()) {
        (Some(rule), Some(file)) if !rule.is_empty() && !file.is_empty() => {
            format!("{SEMGREP_RULE_PREFIX}{file}.{rule}")
        }
        _ => check_id.to_owned(),
    }
}

/// Reads semgrep's JSON: one finding per `results[]` entry (line
/// `start.line`, the tool's `extra.severity` kept as `tool_severity`), and
/// one recorded error per `errors[]` entry.
///
/// # Errors
/// Text that is not a JSON object with a `results` array, or a result
/// without `check_id`.
pub fn parse_semgrep_json(file: &str, stdout: &[u8]) -> Result<ExternalAnalysis, OutputError> {
    let root: Value =
        serde_json::from_slice(stdout).map_err(|e| OutputError::NotJson(e.to_string()))?;
    let results = root
        .get("results")
        .and_then(Value::as_array)
        .ok_or(OutputError::NoArray { field: "results" })?;
    let catalogue = crate::semgrep::catalogue();
    let mut analysis = ExternalAnalysis::default();
    for (i, result) in results.iter().enumerate() {
        let check_id = result
            .get("check_id")
            .and_then(Value::as_str)
            .ok_or_else(|| OutputError::Missing {
                entry: format!("results[{i}]"),
                field: "`check_id`",
            })?;
        let rule_id = map_semgrep_check_id(check_id);
        let severity: Severity =
            catalogue_severity(catalogue, Tool::Semgrep, &rule_id, &mut analysis.notes);
        let line = result
            .get("start")
            .and_then(|s| s.get("line"))
            .and_then(Value::as_u64)
            .and_then(|l| usize::try_from(l).ok())
            .filter(|&l| l > 0);
        let extra = result.get("extra");
        let message = extra
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let tool_severity = extra
            .and_then(|e| e.get("severity"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        analysis.findings.push(ExternalFinding {
            finding: Finding {
                tool: Tool::Semgrep,
                rule_id,
                severity,
                message: message.trim().to_owned(),
                file: file.to_owned(),
                line,
                doc_index: None,
                object: None,
                container: None,
            },
            tool_severity,
            tool_rule_id: check_id.to_owned(),
            path: None,
        });
    }
    // Identical (rule, line) matches collapse, as in the native namespace.
    analysis
        .findings
        .sort_by(|a, b| a.finding.output_order(&b.finding));
    analysis.findings.dedup_by(|a, b| {
        a.finding.rule_id == b.finding.rule_id && a.finding.line == b.finding.line
    });
    if let Some(errors) = root.get("errors").and_then(Value::as_array) {
        for error in errors {
            let level = error
                .get("level")
                .and_then(Value::as_str)
                .unwrap_or("error");
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            analysis.errors.push(ScanError {
                file: file.to_owned(),
                doc_index: None,
                tool: Some(Tool::Semgrep),
                message: format!("semgrep {level}: {}", message.trim()),
            });
        }
    }
    analysis.sort();
    Ok(analysis)
}
