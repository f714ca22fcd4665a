//! The external binaries of one configuration, probed once and then run on
//! any number of files. `svbench scan --backend external|crosscheck` and the
//! E2 environment (`--env-arg backend=`) share this one implementation.

use std::collections::BTreeMap;
use std::path::Path;

use super::{ExternalAnalysis, ExternalError, ExternalTool, KubeLinter, OpaCli, OpaInput, Semgrep};
use crate::opa::Opa;
use crate::rego::{K8S_DENY_QUERY, TF_DENY_QUERY};
use crate::scan::{AnalyzerInfo, FileType};
use crate::terraform::parse_module;
use crate::{decode_input, parse_documents, Analysis, Finding, Limits, ScanError, Tool};

/// Why the external backends could not be set up. A requested backend that
/// cannot run is an error, never a fallback to the native analyzers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The binary of `tool` is missing, or its version probe failed.
    #[error("{source}")]
    Unavailable {
        /// The namespace whose binary cannot run.
        tool: Tool,
        /// What went wrong (the message names the binary).
        source: ExternalError,
    },
    /// semgrep was requested without a usable local rule file.
    #[error("{0}")]
    SemgrepConfig(ExternalError),
}

/// What one binary produced for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternalRun {
    /// Findings (output order) and the errors that did not stop the run
    /// (semgrep's `errors`, opa inputs that could not be built).
    pub analysis: Analysis,
    /// Set when the run failed as a whole (timeout, crash, unreadable
    /// output): the file was not analysed by this binary, which is never
    /// the same as clean.
    pub failure: Option<ExternalError>,
}

/// The external tools of one configuration, probed once.
#[derive(Debug)]
pub struct ExternalBackends {
    kube_linter: Option<KubeLinter>,
    semgrep: Option<Semgrep>,
    opa: Option<OpaCli>,
    versions: BTreeMap<&'static str, AnalyzerInfo>,
}

impl ExternalBackends {
    /// Finds and probes (`version`) the binaries of `tools`, in order.
    /// semgrep needs `semgrep_config`, a local rule file or directory; opa
    /// evaluates the policies loaded in `opa`.
    ///
    /// # Errors
    /// [`ProbeError::Unavailable`] for a missing or failing binary,
    /// [`ProbeError::SemgrepConfig`] for semgrep without local rules.
    pub fn probe(
        tools: &[ExternalTool],
        semgrep_config: Option<&Path>,
        opa: &Opa,
    ) -> Result<ExternalBackends, ProbeError> {
        let mut backends = ExternalBackends {
            kube_linter: None,
            semgrep: None,
            opa: None,
            versions: BTreeMap::new(),
        };
        for external in tools {
            let tool = external.tool;
            let version = external
                .version()
                .map_err(|source| ProbeError::Unavailable { tool, source })?;
            backends.versions.insert(
                tool.as_str(),
                AnalyzerInfo {
                    backend: "external",
                    version,
                },
            );
            let external = external.clone();
            match tool {
                Tool::KubeLinter => backends.kube_linter = Some(KubeLinter::with_tool(external)),
                Tool::Semgrep => {
                    backends.semgrep = Some(
                        Semgrep::new(external, semgrep_config)
                            .map_err(ProbeError::SemgrepConfig)?,
                    );
                }
                Tool::Opa => {
                    backends.opa = Some(OpaCli::new(external, opa.external_policies()));
                }
            }
        }
        Ok(backends)
    }

    /// Backend and version of every probed binary.
    #[must_use]
    pub fn analyzers(&self) -> BTreeMap<&'static str, AnalyzerInfo> {
        self.versions.clone()
    }

    /// The probed version of `tool`'s binary, if it was probed.
    #[must_use]
    pub fn version(&self, tool: Tool) -> Option<&str> {
        self.versions.get(tool.as_str()).map(|i| i.version.as_str())
    }

    /// Runs `tool`'s binary on one file (`name` is its workspace name, the
    /// file is written under it). `None` when `tool` was not probed.
    #[must_use]
    pub fn run(
        &self,
        tool: Tool,
        name: &str,
        bytes: &[u8],
        file_type: FileType,
    ) -> Option<ExternalRun> {
        let mut run = ExternalRun::default();
        let result = match tool {
            Tool::KubeLinter => self.kube_linter.as_ref()?.lint(name, bytes),
            Tool::Semgrep => self.semgrep.as_ref()?.scan(name, bytes),
            Tool::Opa => {
                let opa = self.opa.as_ref()?;
                match opa_inputs(name, bytes, file_type) {
                    Ok((query, inputs, errors)) => {
                        run.analysis.errors.extend(errors);
                        opa.eval(query, name, &inputs)
                    }
                    Err(message) => Ok(ExternalAnalysis {
                        errors: vec![ScanError {
                            file: name.to_owned(),
                            doc_index: None,
                            tool: Some(Tool::Opa),
                            message,
                        }],
                        ..ExternalAnalysis::default()
                    }),
                }
            }
        };
        match result {
            Ok(out) => run.analysis.extend(out.into_analysis()),
            Err(e) => run.failure = Some(e),
        }
        Some(run)
    }

    /// Runs the binaries of `tools` on one file; a failed run is an error of
    /// the file for that namespace.
    #[must_use]
    pub fn scan(&self, name: &str, bytes: &[u8], file_type: FileType, tools: &[Tool]) -> Analysis {
        let mut analysis = Analysis::default();
        for &tool in tools {
            let Some(run) = self.run(tool, name, bytes, file_type) else {
                continue;
            };
            analysis.extend(run.analysis);
            if let Some(e) = run.failure {
                analysis.errors.push(e.to_scan_error(name, tool));
            }
        }
        analysis.findings.sort_by(Finding::output_order);
        analysis
    }
}

type OpaInputs = (&'static str, Vec<OpaInput>, Vec<ScanError>);

/// The same inputs the native opa namespace evaluates.
fn opa_inputs(name: &str, bytes: &[u8], file_type: FileType) -> Result<OpaInputs, String> {
    let limits = Limits::default();
    let text = decode_input(bytes, &limits).map_err(|e| e.to_string())?;
    match file_type {
        FileType::K8s => {
            let docs = parse_documents(text, &limits);
            let (inputs, errors) = Opa::k8s_inputs(name, &docs);
            Ok((K8S_DENY_QUERY, inputs, errors))
        }
        FileType::Tf => {
            let module = parse_module(text).map_err(|e| e.to_string())?;
            Ok((TF_DENY_QUERY, Opa::tf_inputs(name, &module), Vec::new()))
        }
    }
}
