//! E2 `sv-env-config-verification`: Kubernetes / Terraform configuration
//! auditing with tools and verified patches (spec `e2-config-verification.md`).
//!
//! Being built (issue 5). The types here are the contract between the
//! answer parser (`parse`, `ids`), the rewards (`reward`) and the patch
//! pipeline (`svbench_scan::patch`).

use std::collections::BTreeSet;

pub mod bench;
pub mod dataset;
pub mod entry;
pub mod env;
pub mod generate;
pub mod ids;
pub mod oracle;
pub mod parse;
pub mod policy;
pub mod prompt;
pub mod report;
pub mod reward;
pub mod tools;

pub use svbench_scan::{Severity, Tool};

/// Canonical environment name.
pub const NAME: &str = svbench_core::identity::CONFIG_VERIFICATION.name;
/// Short id, used in file names and config ids.
pub const ALIAS: &str = svbench_core::identity::CONFIG_VERIFICATION.short;
/// Environment version (recorded as `env_version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The language of an item's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Kubernetes YAML, workspace file `manifest.yaml`.
    K8s,
    /// Terraform HCL, workspace file `main.tf`.
    Tf,
}

impl Lang {
    /// The workspace file name of the item's config.
    #[must_use]
    pub fn workspace_name(self) -> &'static str {
        match self {
            Lang::K8s => "manifest.yaml",
            Lang::Tf => "main.tf",
        }
    }
}

/// One entry of an answer's `violations`, as read (spec E2 §3.2/§3.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictedViolation {
    /// The id as written (`kube-linter/latest-tag`, `latest-tag`, …); the
    /// v1 parser builds `tool/rule_id` items into this form.
    pub id: String,
    /// The stated severity, normalised (missing/unknown → med in v1).
    pub severity: Severity,
}

/// A parsed answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The violations list in order, duplicates kept.
    pub violations: Vec<PredictedViolation>,
    /// The patch text; `None` when absent, null, empty or of another type.
    pub patch: Option<String>,
    /// The confidence if usable.
    pub confidence: Option<f64>,
}

/// What a parser made of a final message.
#[derive(Debug, Clone, PartialEq)]
pub enum E2Parse {
    /// An answer was read.
    Valid {
        /// The answer.
        answer: Answer,
        /// Strictly valid (spec E2 §3.1): format credit.
        format_ok: bool,
        /// The first deviation from the strict schema when `format_ok` is false.
        format_reason: Option<&'static str>,
        /// Items of `violations` that were skipped (v1), for the record.
        skipped_items: usize,
    },
    /// No answer could be read.
    Invalid {
        /// Reason code (`no_violations_object`, `violations_not_array`, …).
        reason: &'static str,
    },
    /// The episode ended without a final message (turn limit with pending
    /// tool calls): scores 0 on every answer-derived component.
    NoAnswer,
}

/// A violation id after v1 normalisation (spec E2 §3.4).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NormalizedId {
    /// A namespace was determined; `rule` is in catalogue spelling when the
    /// catalogue knows it, else the text as written (it can never match).
    Resolved {
        /// The namespace.
        tool: Tool,
        /// The rule id.
        rule: String,
    },
    /// No namespace (unknown prefix, or a bare id found in zero or several
    /// catalogues): a false positive of weight med in v1.
    Unresolved(String),
}

/// An item's oracle: labelled namespaces and the entries of the label list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Oracle {
    /// The analyzers whose output forms the oracle.
    pub namespaces: BTreeSet<Tool>,
    /// The entries as labelled (full ids `tool/rule`, severities normalised
    /// upstream's way), duplicates kept.
    pub violations: Vec<OracleViolation>,
}

/// One oracle entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleViolation {
    /// Full id `namespace/rule`.
    pub id: String,
    /// The severity as labelled, normalised upstream's way (§5.1).
    pub severity: Severity,
}
