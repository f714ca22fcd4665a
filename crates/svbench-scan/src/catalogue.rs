//! Rule catalogues: which rules exist, their project severities, and which
//! are enabled by default (spec E2 §1.5–1.7).

use std::collections::BTreeSet;

use crate::{Severity, Tool};

/// Where a rule sits in its namespace's catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Seen in the upstream labels; default-enabled.
    Must,
    /// Default-enabled, not seen in the labels.
    Next,
    /// Off unless included explicitly.
    OptIn,
}

impl Tier {
    /// Whether rules of this tier run without `--include`.
    #[must_use]
    pub fn enabled_by_default(self) -> bool {
        !matches!(self, Tier::OptIn)
    }
}

/// One rule of a catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// The namespace.
    pub tool: Tool,
    /// Rule id (kube-linter check name, semgrep rule id, Rego id).
    pub id: &'static str,
    /// Project severity.
    pub severity: Severity,
    /// Default-enabled or opt-in.
    pub tier: Tier,
    /// How to fix what the rule finds, in the project's words.
    pub remediation: &'static str,
}

/// The rule ids of one namespace that run in a scan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enabled {
    ids: BTreeSet<String>,
}

impl Enabled {
    /// The default-enabled rules of `catalogue`.
    #[must_use]
    pub fn defaults(catalogue: &[RuleInfo]) -> Enabled {
        Enabled {
            ids: catalogue
                .iter()
                .filter(|r| r.tier.enabled_by_default())
                .map(|r| r.id.to_owned())
                .collect(),
        }
    }

    /// Every rule of `catalogue`.
    #[must_use]
    pub fn all(catalogue: &[RuleInfo]) -> Enabled {
        Enabled {
            ids: catalogue.iter().map(|r| r.id.to_owned()).collect(),
        }
    }

    /// Exactly the given ids.
    #[must_use]
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(ids: I) -> Enabled {
        Enabled {
            ids: ids.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether `id` runs.
    #[must_use]
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Turns `id` on.
    pub fn insert(&mut self, id: &str) {
        self.ids.insert(id.to_owned());
    }

    /// Turns `id` off.
    pub fn remove(&mut self, id: &str) {
        self.ids.remove(id);
    }

    /// The enabled ids, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(String::as_str)
    }

    /// Whether nothing runs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}
