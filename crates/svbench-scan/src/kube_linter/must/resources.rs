//! Resource requirement checks: a missing memory limit lets one container
//! starve the node; a missing CPU request breaks scheduling guarantees.

use crate::k8s::quantity::Quantity;
use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::per_container;

/// kube-linter's bounds test with lower = upper = 0: the value scaled to the
/// unit is exactly 0. Absent counts as 0; any non-zero quantity, even a
/// negative or sub-unit one, rounds away from zero and does not fire.
fn rounds_to_zero(q: Option<&Quantity>, scale: i64) -> bool {
    q.map_or(0, |q| q.scaled_value(scale)) == 0
}

/// `unset-memory-requirements`: `resources.limits.memory` absent or 0 bytes.
pub(crate) fn unset_memory(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container(object, |_, c| {
        rounds_to_zero(c.resources.limits.get("memory"), 0)
            .then(|| format!("container {:?} has no memory limit", c.name))
    })
}

/// `unset-cpu-requirements`: `resources.requests.cpu` absent or 0 millicores.
pub(crate) fn unset_cpu(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container(object, |_, c| {
        rounds_to_zero(c.resources.requests.get("cpu"), -3)
            .then(|| format!("container {:?} has no CPU request", c.name))
    })
}
