//! Opt-in cross checks (spec E2 §1.5). Empty for now: the catalogue already lists them.

use super::super::registry::Check;

/// The implemented checks of this group.
pub(crate) const CHECKS: &[Check] = &[];
