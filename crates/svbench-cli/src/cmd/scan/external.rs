//! `--backend external|crosscheck`: the real kube-linter, semgrep and opa
//! binaries (spec E2 §1.8). A requested binary that is missing is a usage
//! error before anything is scanned — never a fallback to the native code.

use std::collections::BTreeMap;
use std::path::Path;

use svbench_scan::external::{ExternalAnalysis, ExternalTool, KubeLinter, OpaCli, Semgrep};
use svbench_scan::opa::Opa;
use svbench_scan::rego::{K8S_DENY_QUERY, TF_DENY_QUERY};
use svbench_scan::scan::{AnalyzerInfo, FileType};
use svbench_scan::terraform::parse_module;
use svbench_scan::{decode_input, parse_documents, Analysis, Finding, Limits, Tool};

use crate::exit;

/// The external tools of one scan, probed once.
#[derive(Debug)]
pub struct ExternalBackends {
    kube_linter: Option<KubeLinter>,
    semgrep: Option<Semgrep>,
    opa: Option<OpaCli>,
    versions: BTreeMap<&'static str, AnalyzerInfo>,
}

impl ExternalBackends {
    /// Finds and probes the binaries of `tools`.
    ///
    /// # Errors
    /// A missing or failing binary, or semgrep without a local rule file (exit 2).
    pub fn probe(
        tools: &[Tool],
        semgrep_config: Option<&Path>,
        opa: &Opa,
    ) -> anyhow::Result<ExternalBackends> {
        let mut backends = ExternalBackends {
            kube_linter: None,
            semgrep: None,
            opa: None,
            versions: BTreeMap::new(),
        };
        for &tool in tools {
            let external = ExternalTool::new(tool);
            let version = external.version().map_err(|e| {
                exit::with_hint(
                    exit::USAGE,
                    e.to_string(),
                    format!(
                        "install {} or drop it from --tools; --backend external never falls back to the native analyzers",
                        tool.as_str()
                    ),
                )
            })?;
            backends.versions.insert(
                tool.as_str(),
                AnalyzerInfo {
                    backend: "external",
                    version,
                },
            );
            match tool {
                Tool::KubeLinter => backends.kube_linter = Some(KubeLinter::with_tool(external)),
                Tool::Semgrep => {
                    backends.semgrep = Some(
                        Semgrep::new(external, semgrep_config)
                            .map_err(|e| exit::usage(e.to_string()))?,
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

    /// Runs the binaries of `tools` on one file.
    #[must_use]
    pub fn scan(&self, name: &str, bytes: &[u8], file_type: FileType, tools: &[Tool]) -> Analysis {
        let mut analysis = Analysis::default();
        for &tool in tools {
            let result = match tool {
                Tool::KubeLinter => self.kube_linter.as_ref().map(|kl| kl.lint(name, bytes)),
                Tool::Semgrep => self.semgrep.as_ref().map(|sg| sg.scan(name, bytes)),
                Tool::Opa => {
                    self.opa
                        .as_ref()
                        .map(|opa| match opa_inputs(name, bytes, file_type) {
                            Ok((query, inputs, errors)) => {
                                analysis.errors.extend(errors);
                                opa.eval(query, name, &inputs)
                            }
                            Err(message) => Ok(ExternalAnalysis {
                                errors: vec![svbench_scan::ScanError {
                                    file: name.to_owned(),
                                    doc_index: None,
                                    tool: Some(Tool::Opa),
                                    message,
                                }],
                                ..ExternalAnalysis::default()
                            }),
                        })
                }
            };
            match result {
                Some(Ok(out)) => analysis.extend(out.into_analysis()),
                Some(Err(e)) => analysis.errors.push(e.to_scan_error(name, tool)),
                None => {}
            }
        }
        analysis.findings.sort_by(Finding::output_order);
        analysis
    }
}

type OpaInputs = (
    &'static str,
    Vec<svbench_scan::external::OpaInput>,
    Vec<svbench_scan::ScanError>,
);

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
