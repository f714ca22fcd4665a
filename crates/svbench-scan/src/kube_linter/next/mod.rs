//! Next-tier checks (default-enabled, not seen in the upstream labels;
//! spec E2 §1.5). Empty for now: the catalogue already lists them.

use super::registry::Check;

/// The implemented next-tier checks.
pub(crate) const CHECKS: &[Check] = &[];
