//! Environment hygiene: a variable defined twice in one container silently
//! takes its last value.

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

/// `duplicate-env-var`: per container (all containers), one finding per
/// variable name occurring at least twice, at its first repeat.
pub(crate) fn duplicate_env_var(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for (i, var) in c.env.iter().enumerate() {
            let earlier = c.env[..i].iter().filter(|e| e.name == var.name).count();
            if earlier == 1 {
                let total = c.env.iter().filter(|e| e.name == var.name).count();
                out.push(Diagnostic::container(
                    line_of(var.line, object),
                    &c.name,
                    format!(
                        "container {:?} defines the environment variable {:?} {total} times; only the last value is used",
                        c.name, var.name
                    ),
                ));
            }
        }
    }
    out
}
