//! Secrets in plain environment values end up in specs, logs and `kubectl
//! describe` output.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

static SECRET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("(?i).*secret.*").expect("literal regex is valid"));

/// `env-var-secret`: one finding per env entry whose name mentions "secret"
/// and which has a non-empty literal `value` (`valueFrom` is fine).
pub(crate) fn env_var_secret(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for env in &c.env {
            if SECRET.is_match(&env.name) && !env.value.is_empty() {
                out.push(Diagnostic::container(
                    line_of(env.line, object),
                    &c.name,
                    format!(
                        "container {:?} sets secret-looking environment variable {:?} to a literal value",
                        c.name, env.name
                    ),
                ));
            }
        }
    }
    out
}
