//! Optional external backends (spec E2 §1.8): the real `kube-linter`,
//! `semgrep` and `opa` binaries, run only when explicitly requested
//! (`--backend external|crosscheck`), for cross-checks against the native
//! analyzers.
//!
//! A requested binary that is missing is an [`ExternalError::BinaryNotFound`]
//! naming the binary and the search path, never a silent fallback. Each run
//! writes the file into a fresh temporary directory under its workspace name
//! (so `.yaml`/`.tf` detection works), starts the tool in its own process
//! group with a hard timeout ([`ExternalTool::timeout`]) and a cap on captured
//! output ([`ExternalTool::output_limit`]); on either, the whole group is
//! killed and the run is an error, never a clean result.
//!
//! Binaries are looked up in an explicit search path ([`ExternalTool::search_path`],
//! `PATH` by default), so callers and tests decide what runs.
//!
//! - [`KubeLinter`]: `kube-linter lint --format json [--config F] <file>`.
//! - [`Semgrep`]: `semgrep scan --json --quiet --metrics=off --config <local rules> <file>`.
//! - [`OpaCli`]: `opa eval --format=json --stdin-input -d <policies> <query>`, once per input.
//! - [`crosscheck`]: per-file differences between native and external findings.
//! - [`ExternalBackends`]: the binaries of one configuration, probed once and
//!   run per file (shared by `svbench scan` and the E2 environment).
//!
//! Findings use the shared [`Finding`] model with the project severity from
//! the native catalogues; the tool's own level is kept beside it in
//! [`ExternalFinding::tool_severity`].

mod backends;
mod crosscheck;
mod error;
mod kube_linter;
mod opa;
mod process;
mod semgrep;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::{Analysis, Finding, RuleInfo, ScanError, Severity, Tool};

pub use crate::rego::{parse_deny_element, DenyElementError};
pub use backends::{ExternalBackends, ExternalRun, ProbeError};
pub use crosscheck::{crosscheck, CrossCheck};
pub use error::{ExternalError, OutputError};
pub use kube_linter::{parse_kube_linter_json, KubeLinter};
pub use opa::{parse_opa_eval_json, OpaCli, OpaInput, RegoPolicy};
pub use process::resolve_binary;
pub use semgrep::{map_semgrep_check_id, parse_semgrep_json, Semgrep, SEMGREP_RULE_PREFIX};

use process::Invocation;

/// Default cap on each of stdout and stderr: 64 MiB.
pub const DEFAULT_OUTPUT_LIMIT: usize = 64 * 1024 * 1024;

/// Which binary runs one namespace, where it is looked up, and its bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalTool {
    /// The namespace the binary stands in for.
    pub tool: Tool,
    /// A bare name (looked up in [`search_path`](Self::search_path)) or a
    /// path (anything containing `/`).
    pub program: PathBuf,
    /// Directories to search, in `PATH` syntax.
    pub search_path: OsString,
    /// Hard limit of one run (one probe, one file, or one opa input).
    pub timeout: Duration,
    /// Cap in bytes on each of stdout and stderr.
    pub output_limit: usize,
}

impl ExternalTool {
    /// The tool's usual binary name, looked up in the process's `PATH`, with
    /// the default timeout and output limit.
    #[must_use]
    pub fn new(tool: Tool) -> ExternalTool {
        ExternalTool {
            tool,
            program: PathBuf::from(Self::default_program(tool)),
            search_path: std::env::var_os("PATH").unwrap_or_default(),
            timeout: Self::default_timeout(tool),
            output_limit: DEFAULT_OUTPUT_LIMIT,
        }
    }

    /// `kube-linter`, `semgrep` or `opa`.
    #[must_use]
    pub fn default_program(tool: Tool) -> &'static str {
        tool.as_str()
    }

    /// Upstream's limits: kube-linter 30 s, semgrep 60 s, opa 15 s.
    #[must_use]
    pub fn default_timeout(tool: Tool) -> Duration {
        Duration::from_secs(match tool {
            Tool::KubeLinter => 30,
            Tool::Semgrep => 60,
            Tool::Opa => 15,
        })
    }

    /// Uses `program` (a name or a path) instead of the default name.
    #[must_use]
    pub fn with_program(mut self, program: impl Into<PathBuf>) -> ExternalTool {
        self.program = program.into();
        self
    }

    /// Searches `search_path` (`PATH` syntax) instead of the process's `PATH`.
    #[must_use]
    pub fn with_search_path(mut self, search_path: impl Into<OsString>) -> ExternalTool {
        self.search_path = search_path.into();
        self
    }

    /// Sets the hard timeout of each run.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> ExternalTool {
        self.timeout = timeout;
        self
    }

    /// Sets the cap on each captured stream.
    #[must_use]
    pub fn with_output_limit(mut self, limit: usize) -> ExternalTool {
        self.output_limit = limit;
        self
    }

    /// The binary that would run.
    ///
    /// # Errors
    /// [`ExternalError::BinaryNotFound`].
    pub fn resolve(&self) -> Result<PathBuf, ExternalError> {
        resolve_binary(&self.program, &self.search_path)
    }

    /// The tool's version, as recorded in `analyzers.<ns>.version`:
    /// `kube-linter version`, the last line of `semgrep --version`, the
    /// first line of `opa version`.
    ///
    /// # Errors
    /// A missing binary, a failed or timed-out run, or empty output.
    pub fn version(&self) -> Result<String, ExternalError> {
        let binary = self.resolve()?;
        let (args, take_last): (&[&str], bool) = match self.tool {
            Tool::KubeLinter => (&["version"], false),
            Tool::Semgrep => (&["--version"], true),
            Tool::Opa => (&["version"], false),
        };
        let out = process::run(Invocation {
            binary: &binary,
            args: args.iter().map(OsString::from).collect(),
            cwd: None,
            stdin: None,
            env: self.child_env(),
            timeout: self.timeout,
            output_limit: self.output_limit,
        })?;
        if !out.status.success() {
            return Err(out.failed(&binary));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let line = if take_last {
            lines.next_back()
        } else {
            lines.next()
        };
        line.map(str::to_owned)
            .ok_or_else(|| ExternalError::BadOutput {
                binary: binary.display().to_string(),
                message: "empty version output".to_owned(),
            })
    }

    /// Environment added for the child: semgrep must not phone home.
    fn child_env(&self) -> &'static [(&'static str, &'static str)] {
        match self.tool {
            Tool::Semgrep => &[
                ("SEMGREP_ENABLE_VERSION_CHECK", "0"),
                ("SEMGREP_SEND_METRICS", "off"),
            ],
            Tool::KubeLinter | Tool::Opa => &[],
        }
    }

    /// Runs the resolved binary once under this tool's bounds.
    fn run(
        &self,
        binary: &std::path::Path,
        args: Vec<OsString>,
        cwd: Option<&std::path::Path>,
        stdin: Option<Vec<u8>>,
    ) -> Result<process::Captured, ExternalError> {
        process::run(Invocation {
            binary,
            args,
            cwd,
            stdin,
            env: self.child_env(),
            timeout: self.timeout,
            output_limit: self.output_limit,
        })
    }
}

/// A finding of an external tool, with what the shared model has no field for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExternalFinding {
    /// The finding, with the project severity.
    #[serde(flatten)]
    pub finding: Finding,
    /// The tool's own level (semgrep `WARNING`, a policy's `HIGH`), if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_severity: Option<String>,
    /// The rule id exactly as the tool reported it (semgrep's namespaced `check_id`).
    pub tool_rule_id: String,
    /// opa: the element's JSON Pointer into the input object, for the caller
    /// to turn into a line (the finding's line is the input's line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// What one external run produced for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExternalAnalysis {
    /// Findings in output order.
    pub findings: Vec<ExternalFinding>,
    /// Errors that did not stop the run (semgrep's `errors`, dropped opa
    /// deny elements); a run that failed as a whole is an [`ExternalError`].
    pub errors: Vec<ScanError>,
    /// Remarks, e.g. rule ids missing from the native catalogue (given `med`).
    pub notes: Vec<String>,
}

impl ExternalAnalysis {
    /// The plain findings.
    #[must_use]
    pub fn findings(&self) -> Vec<Finding> {
        self.findings.iter().map(|f| f.finding.clone()).collect()
    }

    /// As the shared per-analyzer result (dropping tool severities and notes).
    #[must_use]
    pub fn into_analysis(self) -> Analysis {
        Analysis {
            findings: self.findings.into_iter().map(|f| f.finding).collect(),
            errors: self.errors,
        }
    }

    fn sort(&mut self) {
        self.findings
            .sort_by(|a, b| a.finding.output_order(&b.finding));
        self.notes.sort();
        self.notes.dedup();
    }
}

impl ExternalError {
    /// This error as the recorded error of `file` for `tool`.
    #[must_use]
    pub fn to_scan_error(&self, file: &str, tool: Tool) -> ScanError {
        ScanError {
            file: file.to_owned(),
            doc_index: None,
            tool: Some(tool),
            message: self.to_string(),
        }
    }
}

/// The project severity of `id` in `catalogue`; unknown ids are `med`, with a note.
fn catalogue_severity(
    catalogue: &[RuleInfo],
    tool: Tool,
    id: &str,
    notes: &mut Vec<String>,
) -> Severity {
    if let Some(rule) = catalogue.iter().find(|r| r.id == id) {
        return rule.severity;
    }
    notes.push(format!(
        "{tool}/{id} is not in the native catalogue; severity med assumed"
    ));
    Severity::Med
}
