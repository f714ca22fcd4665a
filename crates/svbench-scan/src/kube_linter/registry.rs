//! The check registry: what a check is, what it reports, and the union of
//! the implemented check lists (must, next, opt-in).

use crate::k8s::K8sObject;

use super::{must, next, opt_in};

/// The objects of one file: what cross-object checks search.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// Every decoded object of the file, in file order.
    pub objects: &'a [K8sObject],
}

/// One diagnostic of a check on an object, before it becomes a
/// [`crate::Finding`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The project's message (names the container as `container "web"`).
    pub message: String,
    /// 1-based line: the object's, or a more precise container/field line.
    pub line: usize,
    /// The container, for container-level diagnostics.
    pub container: Option<String>,
}

impl Diagnostic {
    /// An object-level diagnostic at `line`.
    #[must_use]
    pub fn object(line: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            line,
            container: None,
        }
    }

    /// A diagnostic about `container` at `line`.
    #[must_use]
    pub fn container(line: usize, container: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            line,
            container: Some(container.to_owned()),
        }
    }
}

/// A check's logic: the diagnostics it reports on one object.
pub type CheckFn = fn(&Context<'_>, &K8sObject) -> Vec<Diagnostic>;

/// An implemented check.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// The kube-linter check name (a catalogue id).
    pub name: &'static str,
    /// Its logic.
    pub run: CheckFn,
}

/// Every implemented check, sorted by name (the order checks run on an
/// object).
#[must_use]
pub fn implemented() -> Vec<Check> {
    let mut all: Vec<Check> = must::CHECKS
        .iter()
        .chain(next::CHECKS)
        .chain(opt_in::CROSS_CHECKS)
        .chain(opt_in::POD_CHECKS)
        .copied()
        .collect();
    all.sort_by_key(|c| c.name);
    all
}
