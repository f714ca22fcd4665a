//! `--backend external|crosscheck`: the real kube-linter, semgrep and opa
//! binaries (spec E2 §1.8), through the library's [`ExternalBackends`]. A
//! requested binary that is missing is a usage error before anything is
//! scanned — never a fallback to the native code.

use std::path::Path;

use svbench_scan::external::{ExternalBackends, ExternalTool, ProbeError};
use svbench_scan::opa::Opa;
use svbench_scan::Tool;

use crate::exit;

/// Finds and probes the binaries of `tools` on `PATH`.
///
/// # Errors
/// A missing or failing binary, or semgrep without a local rule file (exit 2).
pub fn probe(
    tools: &[Tool],
    semgrep_config: Option<&Path>,
    opa: &Opa,
) -> anyhow::Result<ExternalBackends> {
    let tools: Vec<ExternalTool> = tools.iter().map(|&t| ExternalTool::new(t)).collect();
    ExternalBackends::probe(&tools, semgrep_config, opa).map_err(|e| match &e {
        ProbeError::Unavailable { tool, .. } => exit::with_hint(
            exit::USAGE,
            e.to_string(),
            format!(
                "install {} or drop it from --tools; --backend external never falls back to the native analyzers",
                tool.as_str()
            ),
        ),
        _ => exit::usage(e.to_string()),
    })
}
