//! Native kube-linter 0.7.6 checks (spec E2 §1.4–1.5).
//!
//! INTERFACE ONLY — being implemented (issue 4). The orchestrator calls
//! [`catalogue`] and [`lint`]; nothing else is public yet.

use crate::{Analysis, Enabled, ParsedDocument, RuleInfo};

/// Version string recorded for the native backend.
pub const VERSION: &str = concat!(
    "svbench-scan ",
    env!("CARGO_PKG_VERSION"),
    " (kube-linter 0.7.6 semantics)"
);

/// Every check, must + next + opt-in, sorted by name.
#[must_use]
pub fn catalogue() -> &'static [RuleInfo] {
    &[]
}

/// Runs the enabled checks over the documents of one file.
#[must_use]
pub fn lint(file: &str, docs: &[ParsedDocument], enabled: &Enabled) -> Analysis {
    let _ = (file, docs, enabled);
    unimplemented!("kube-linter checks are not implemented yet")
}
