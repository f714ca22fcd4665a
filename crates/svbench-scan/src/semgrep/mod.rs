//! Native equivalents of the semgrep Kubernetes rules (spec E2 §1.6).
//!
//! INTERFACE ONLY — being implemented (issue 4).

use crate::{Analysis, Enabled, ParsedDocument, RuleInfo};

/// Version string recorded for the native backend.
pub const VERSION: &str = concat!(
    "svbench-scan ",
    env!("CARGO_PKG_VERSION"),
    " (semgrep rule set of spec E2 §1.6)"
);

/// Every rule, sorted by id.
#[must_use]
pub fn catalogue() -> &'static [RuleInfo] {
    &[]
}

/// Runs the enabled rules over one YAML file (`text` is the whole file, for
/// `nosemgrep` comments; `docs` its parsed documents).
#[must_use]
pub fn scan(file: &str, text: &str, docs: &[ParsedDocument], enabled: &Enabled) -> Analysis {
    let _ = (file, text, docs, enabled);
    unimplemented!("semgrep rules are not implemented yet")
}
