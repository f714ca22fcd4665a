//! One scan of one file: pick the analyzers for its type, run them, merge
//! and order their findings (spec E2 §1.1–1.2, harness §1.2 `scan`).
//!
//! The [`Scanner`] is configured once ([`ScanOptions`]: which namespaces,
//! which checks on or off, user policy directories) and then scans any number
//! of files. Nothing in a file can make it fail: a file that cannot be read
//! as text, a document that does not parse, a policy that times out — each is
//! a [`ScanError`] in that file's [`FileReport`], and the other analyzers and
//! documents still run.

mod detect;
mod options;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;

use crate::opa::Opa;
use crate::terraform::parse_module;
use crate::{
    budget_error, decode_input, kube_linter, parse_documents_within, semgrep, Analysis, Deadline,
    Enabled, Finding, Limits, NodeBudget, ScanError, TimeBudgetExceeded, Tool,
};

pub use detect::{detect_type, FileType};
pub use options::{ScanConfigError, ScanOptions, ToolSelection, DEFAULT_TIME_BUDGET};

/// The backend and version of one namespace, as recorded in scan output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnalyzerInfo {
    /// `native` (in-process) or `external` (a real binary).
    pub backend: &'static str,
    /// Crate version and emulated semantics, or the binary's version.
    pub version: String,
}

/// Everything one file produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// The file's path as given (or its workspace name).
    pub path: String,
    /// How it was analysed.
    #[serde(rename = "type")]
    pub file_type: FileType,
    /// Findings in output order (file, line, tool, rule, object, container).
    pub findings: Vec<Finding>,
    /// What could not be analysed.
    pub errors: Vec<ScanError>,
}

impl FileReport {
    /// A file that could not be analysed at all.
    #[must_use]
    pub fn unreadable(path: &str, file_type: FileType, message: String) -> FileReport {
        FileReport {
            path: path.to_owned(),
            file_type,
            findings: Vec::new(),
            errors: vec![ScanError {
                file: path.to_owned(),
                doc_index: None,
                tool: None,
                message,
            }],
        }
    }
}

/// A configured set of analyzers.
#[derive(Debug, Clone)]
pub struct Scanner {
    tools: ToolSelection,
    kube_linter: Enabled,
    semgrep: Enabled,
    opa: Opa,
    opa_excluded: BTreeSet<String>,
    limits: Limits,
    time_budget: Option<Duration>,
}

impl Scanner {
    /// Loads the policies and resolves the check selection.
    ///
    /// # Errors
    /// Unknown tools or check names, and user policies that do not load.
    pub fn new(options: &ScanOptions) -> Result<Scanner, ScanConfigError> {
        let mut opa = Opa::builtin().map_err(|e| ScanConfigError::Policies(vec![e]))?;
        for dir in &options.policy_dirs {
            opa.add_policy_dir(dir).map_err(ScanConfigError::Policies)?;
        }
        let selection = options::resolve_checks(options, &opa.rules())?;
        Ok(Scanner {
            tools: options.tools.clone(),
            kube_linter: selection.kube_linter,
            semgrep: selection.semgrep,
            opa,
            opa_excluded: selection.opa_excluded,
            limits: options.limits,
            time_budget: options.time_budget,
        })
    }

    /// The opa rules known to this scanner (built in and registered by user policies).
    #[must_use]
    pub fn opa_rules(&self) -> Vec<crate::opa::OpaRule> {
        self.opa.rules()
    }

    /// The loaded policies (for the external `opa` backend).
    #[must_use]
    pub fn opa(&self) -> &Opa {
        &self.opa
    }

    /// Every namespace selected for some file type.
    #[must_use]
    pub fn selected_tools(&self) -> Vec<Tool> {
        self.tools.all_selected()
    }

    /// The namespaces this scanner runs on files of `file_type`.
    #[must_use]
    pub fn tools_for(&self, file_type: FileType) -> Vec<Tool> {
        self.tools.for_type(file_type)
    }

    /// Backend and version of every namespace that can run.
    #[must_use]
    pub fn analyzers(&self) -> BTreeMap<&'static str, AnalyzerInfo> {
        let mut out = BTreeMap::new();
        for tool in self.tools.all_selected() {
            let version = match tool {
                Tool::KubeLinter => kube_linter::VERSION.to_owned(),
                Tool::Semgrep => semgrep::VERSION.to_owned(),
                Tool::Opa => self.opa.version(),
            };
            out.insert(
                tool.as_str(),
                AnalyzerInfo {
                    backend: "native",
                    version,
                },
            );
        }
        out
    }

    /// How many Kubernetes objects the kube-linter namespace would load from
    /// `bytes` ([`kube_linter::decoded_objects`]); 0 for bytes that are not
    /// readable text. A [`FileReport`] cannot tell "no valid object" from "no
    /// findings", hence this separate, cheaper question.
    #[must_use]
    pub fn k8s_objects(&self, bytes: &[u8]) -> usize {
        self.k8s_objects_within(bytes, &NodeBudget::for_input(&self.limits, bytes.len()))
    }

    /// [`Scanner::k8s_objects`] whose parse draws from `nodes`; 0 when the
    /// budget runs out (nothing is counted from a file not read in full).
    #[must_use]
    pub fn k8s_objects_within(&self, bytes: &[u8], nodes: &NodeBudget) -> usize {
        match decode_input(bytes, &self.limits) {
            Ok(text) => {
                let docs = parse_documents_within(text, &self.limits, nodes);
                if budget_error(&docs).is_some() {
                    return 0;
                }
                kube_linter::decoded_objects(&docs)
            }
            Err(_) => 0,
        }
    }

    /// The time budget of one file's scan ([`ScanOptions::time_budget`]).
    #[must_use]
    pub fn time_budget(&self) -> Option<Duration> {
        self.time_budget
    }

    /// Scans the bytes of one file of a known type; `path` names it in findings.
    ///
    /// The scan has this scanner's [`Scanner::time_budget`]; a file that
    /// runs past it is reported with that error and no findings (a partial
    /// scan would read as "fewer findings", not as "not scanned").
    pub fn scan(&mut self, path: &str, bytes: &[u8], file_type: FileType) -> FileReport {
        match self.scan_within(path, bytes, file_type, &Deadline::NONE) {
            Ok(report) => report,
            Err(e) => FileReport::unreadable(
                path,
                file_type,
                format!("scan stopped, no findings reported: {e} (see --time-budget)"),
            ),
        }
    }

    /// [`Scanner::scan`] that ends by `deadline` (or this scanner's own
    /// budget, whichever comes first) with an error instead of a report.
    ///
    /// The file's documents draw from the file's own node budget
    /// ([`Limits::file_nodes`] of its size, all documents together): a
    /// file that exhausts it is reported with that error and no findings.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when the budget ran out before the scan ended;
    /// the work stops then (between analyzers and documents, before each
    /// Rego evaluation, and inside it through the engine's timer).
    pub fn scan_within(
        &mut self,
        path: &str,
        bytes: &[u8],
        file_type: FileType,
        deadline: &Deadline,
    ) -> Result<FileReport, TimeBudgetExceeded> {
        let nodes = NodeBudget::for_input(&self.limits, bytes.len());
        self.scan_within_budget(path, bytes, file_type, deadline, &nodes)
    }

    /// [`Scanner::scan_within`] whose YAML parse draws from `nodes`, a node
    /// budget that may be shared with other work of one request.
    ///
    /// # Errors
    /// As [`Scanner::scan_within`].
    pub fn scan_within_budget(
        &mut self,
        path: &str,
        bytes: &[u8],
        file_type: FileType,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<FileReport, TimeBudgetExceeded> {
        let deadline = deadline.min(Deadline::after_opt(self.time_budget));
        let text = match decode_input(bytes, &self.limits) {
            Ok(text) => text,
            Err(e) => return Ok(FileReport::unreadable(path, file_type, e.to_string())),
        };
        let mut analysis = Analysis::default();
        let tools = self.tools.for_type(file_type);
        match file_type {
            FileType::K8s => {
                let docs = parse_documents_within(text, &self.limits, nodes);
                if let Some(e) = budget_error(&docs) {
                    // A partial file would read as "fewer findings".
                    return Ok(FileReport::unreadable(
                        path,
                        file_type,
                        format!("not scanned, no findings reported: {e}"),
                    ));
                }
                for tool in tools {
                    deadline.check()?;
                    analysis.extend(match tool {
                        Tool::KubeLinter => kube_linter::lint(path, &docs, &self.kube_linter),
                        Tool::Semgrep => semgrep::scan(path, text, &docs, &self.semgrep),
                        Tool::Opa => {
                            self.opa
                                .scan_k8s_within(path, &docs, &self.opa_excluded, &deadline)?
                        }
                    });
                }
            }
            FileType::Tf => match parse_module(text) {
                Ok(module) => {
                    // The native semgrep namespace has no Terraform rules and
                    // kube-linter reads no Terraform: only opa looks at `.tf`.
                    if tools.contains(&Tool::Opa) {
                        deadline.check()?;
                        analysis.extend(self.opa.scan_tf_within(
                            path,
                            &module,
                            &self.opa_excluded,
                            &deadline,
                        )?);
                    }
                }
                Err(e) => return Ok(FileReport::unreadable(path, file_type, e.to_string())),
            },
        }
        let Analysis {
            mut findings,
            errors,
        } = analysis;
        findings.sort_by(Finding::output_order);
        Ok(FileReport {
            path: path.to_owned(),
            file_type,
            findings,
            errors,
        })
    }
}
