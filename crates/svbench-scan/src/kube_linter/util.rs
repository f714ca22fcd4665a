//! Helpers shared by checks: per-container iteration and small predicates.

use crate::k8s::types::{Container, PodSpec};
use crate::k8s::K8sObject;

use super::registry::Diagnostic;

/// Runs `f` on every container (init, regular, ephemeral) of a
/// deployment-like object's pod spec, collecting its diagnostics; non-DL
/// objects yield nothing.
pub(crate) fn per_container(
    object: &K8sObject,
    mut f: impl FnMut(&PodSpec, &Container) -> Option<String>,
) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    spec.all_containers()
        .filter_map(|c| {
            f(spec, c).map(|msg| Diagnostic::container(line_of(c.line, object), &c.name, msg))
        })
        .collect()
}

/// A node line, falling back to the object's line for absent (defaulted)
/// structs whose line is 0.
pub(crate) fn line_of(line: usize, object: &K8sObject) -> usize {
    if line == 0 {
        object.line
    } else {
        line
    }
}
