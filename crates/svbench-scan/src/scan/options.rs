//! Scan configuration: namespaces (`--tools`), check selection
//! (`--include`/`--exclude`), user policy directories.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::opa::OpaRule;
use crate::rego::RegoError;
use crate::{kube_linter, semgrep, Enabled, Limits, RuleInfo, Tool};

use super::FileType;

/// Which namespaces run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSelection {
    /// Upstream's notion: kube-linter for Kubernetes, semgrep for Terraform.
    Primary,
    /// These namespaces on every file type they apply to.
    Only(BTreeSet<Tool>),
}

impl Default for ToolSelection {
    fn default() -> Self {
        ToolSelection::Only(Tool::ALL.into_iter().collect())
    }
}

impl ToolSelection {
    /// Parses `--tools`: a comma list of `kube-linter`, `semgrep`, `opa`, or `primary`.
    ///
    /// # Errors
    /// An unknown name, an empty list, or `primary` mixed with names.
    pub fn parse(list: &str) -> Result<ToolSelection, ScanConfigError> {
        let names: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if names == ["primary"] {
            return Ok(ToolSelection::Primary);
        }
        if names.is_empty() || names.contains(&"primary") {
            return Err(ScanConfigError::Tools(list.to_owned()));
        }
        names
            .iter()
            .map(|n| Tool::parse(n).ok_or_else(|| ScanConfigError::Tools(list.to_owned())))
            .collect::<Result<_, _>>()
            .map(ToolSelection::Only)
    }

    /// The namespaces run on a file of `file_type`, in output order.
    #[must_use]
    pub fn for_type(&self, file_type: FileType) -> Vec<Tool> {
        match (self, file_type) {
            (ToolSelection::Primary, FileType::K8s) => vec![Tool::KubeLinter],
            (ToolSelection::Primary, FileType::Tf) => vec![Tool::Semgrep],
            (ToolSelection::Only(set), FileType::K8s) => set.iter().copied().collect(),
            // kube-linter reads no Terraform.
            (ToolSelection::Only(set), FileType::Tf) => set
                .iter()
                .copied()
                .filter(|t| *t != Tool::KubeLinter)
                .collect(),
        }
    }

    /// Every namespace that can run on some file type.
    #[must_use]
    pub fn all_selected(&self) -> Vec<Tool> {
        match self {
            ToolSelection::Primary => vec![Tool::KubeLinter, Tool::Semgrep],
            ToolSelection::Only(set) => set.iter().copied().collect(),
        }
    }
}

/// The default total time budget of one file's scan: far above any real
/// config (the built-in policies scan a 2,000-bucket Terraform file in a
/// fraction of a second), low enough that no input holds a scanner for long.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(30);

/// How to scan.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Namespaces to run.
    pub tools: ToolSelection,
    /// Checks to turn on beyond the defaults (names, rule ids or full ids;
    /// comma lists allowed).
    pub include: Vec<String>,
    /// Checks to turn off (wins over `include`).
    pub exclude: Vec<String>,
    /// User Rego policy directories.
    pub policy_dirs: Vec<PathBuf>,
    /// YAML limits.
    pub limits: Limits,
    /// Total time budget of one file's scan (all analyzers); `None` for
    /// none. Each Rego evaluation also has its own 1 s limit.
    pub time_budget: Option<Duration>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            tools: ToolSelection::default(),
            include: Vec::new(),
            exclude: Vec::new(),
            policy_dirs: Vec::new(),
            limits: Limits::default(),
            time_budget: Some(DEFAULT_TIME_BUDGET),
        }
    }
}

/// Why a scan could not be configured (a usage error: nothing was scanned).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScanConfigError {
    /// `--tools` named something else than kube-linter, semgrep, opa or primary.
    #[error("--tools {0:?}: expected a comma list of kube-linter, semgrep, opa, or `primary`")]
    Tools(String),
    /// A check name matched no rule of any namespace.
    #[error("unknown check {0:?} (see `svbench scan --list-checks`)")]
    UnknownCheck(String),
    /// A catalogued check that has no implementation in this build.
    #[error("check {0:?} is catalogued but not implemented in this build")]
    NotImplemented(String),
    /// Policies that could not be loaded.
    #[error("{} polic{} could not be loaded: {}", .0.len(), if .0.len() == 1 { "y" } else { "ies" }, .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Policies(Vec<RegoError>),
}

/// The per-namespace result of `--include`/`--exclude`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CheckSelection {
    pub kube_linter: Enabled,
    pub semgrep: Enabled,
    pub opa_excluded: BTreeSet<String>,
}

/// Applies `include` then `exclude` to the default-enabled rules.
pub(super) fn resolve_checks(
    options: &ScanOptions,
    opa_rules: &[OpaRule],
) -> Result<CheckSelection, ScanConfigError> {
    let mut selection = CheckSelection {
        kube_linter: Enabled::defaults(kube_linter::catalogue()),
        semgrep: Enabled::defaults(semgrep::catalogue()),
        opa_excluded: BTreeSet::new(),
    };
    for (names, on) in [(&options.include, true), (&options.exclude, false)] {
        for name in names.iter().flat_map(|n| n.split(',')).map(str::trim) {
            if name.is_empty() {
                continue;
            }
            let matches = lookup(name, opa_rules);
            if matches.is_empty() {
                return Err(ScanConfigError::UnknownCheck(name.to_owned()));
            }
            let implemented = kube_linter::implemented_checks();
            for (tool, id) in matches {
                if on && tool == Tool::KubeLinter && !implemented.contains(&id.as_str()) {
                    return Err(ScanConfigError::NotImplemented(format!("{tool}/{id}")));
                }
                match (tool, on) {
                    (Tool::KubeLinter, true) => selection.kube_linter.insert(&id),
                    (Tool::KubeLinter, false) => selection.kube_linter.remove(&id),
                    (Tool::Semgrep, true) => selection.semgrep.insert(&id),
                    (Tool::Semgrep, false) => selection.semgrep.remove(&id),
                    (Tool::Opa, true) => {
                        selection.opa_excluded.remove(&id);
                    }
                    (Tool::Opa, false) => {
                        selection.opa_excluded.insert(id);
                    }
                }
            }
        }
    }
    Ok(selection)
}

/// Every (namespace, rule id) that `name` designates: a full id
/// `namespace/rule`, or a bare rule id / check name in any namespace.
fn lookup(name: &str, opa_rules: &[OpaRule]) -> Vec<(Tool, String)> {
    let (tool, rule) = match name.split_once('/') {
        Some((ns, rule)) => match Tool::parse(ns) {
            Some(tool) => (Some(tool), rule),
            None => return Vec::new(),
        },
        None => (None, name),
    };
    let static_ids = |cat: &[RuleInfo], t: Tool| {
        cat.iter()
            .filter(|r| r.id == rule)
            .map(|r| (t, r.id.to_owned()))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    if tool.is_none_or(|t| t == Tool::KubeLinter) {
        out.extend(static_ids(kube_linter::catalogue(), Tool::KubeLinter));
    }
    if tool.is_none_or(|t| t == Tool::Semgrep) {
        out.extend(static_ids(semgrep::catalogue(), Tool::Semgrep));
    }
    if tool.is_none_or(|t| t == Tool::Opa) {
        out.extend(
            opa_rules
                .iter()
                .filter(|r| r.id == rule)
                .map(|r| (Tool::Opa, r.id.clone())),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A default-enabled check without an implementation would silently
    /// report nothing.
    #[test]
    fn every_default_enabled_check_is_implemented() {
        let implemented = kube_linter::implemented_checks();
        for rule in kube_linter::catalogue() {
            if rule.tier.enabled_by_default() {
                assert!(
                    implemented.contains(&rule.id),
                    "{} is not implemented",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn including_an_unimplemented_check_is_an_error() {
        let options = ScanOptions {
            include: vec!["schema-validation".into()],
            ..ScanOptions::default()
        };
        assert_eq!(
            resolve_checks(&options, &[]),
            Err(ScanConfigError::NotImplemented(
                "kube-linter/schema-validation".into()
            ))
        );
    }

    #[test]
    fn tools_parse() {
        assert_eq!(
            ToolSelection::parse("primary").unwrap(),
            ToolSelection::Primary
        );
        assert_eq!(
            ToolSelection::parse("opa, kube-linter").unwrap(),
            ToolSelection::Only([Tool::KubeLinter, Tool::Opa].into_iter().collect())
        );
        for bad in ["", "primary,opa", "kubelinter", ","] {
            assert!(ToolSelection::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn primary_is_kube_linter_for_k8s_and_semgrep_for_tf() {
        let p = ToolSelection::Primary;
        assert_eq!(p.for_type(FileType::K8s), vec![Tool::KubeLinter]);
        assert_eq!(p.for_type(FileType::Tf), vec![Tool::Semgrep]);
        let all = ToolSelection::default();
        assert_eq!(all.for_type(FileType::Tf), vec![Tool::Semgrep, Tool::Opa]);
    }
}
