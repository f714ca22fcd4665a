//! Opt-in checks (not default-enabled; spec E2 §1.5). Empty for now: the
//! catalogue already lists them.

use super::registry::Check;

/// The implemented opt-in checks.
pub(crate) const CHECKS: &[Check] = &[];
