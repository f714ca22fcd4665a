//! Pod-level isolation checks: the host IPC namespace and kernel parameters
//! that are not namespaced per pod.

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

/// `host-ipc`: one finding per object with `hostIPC: true`.
pub(crate) fn host_ipc(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    match object.pod_spec() {
        Some(spec) if spec.host_ipc => vec![Diagnostic::object(
            spec.field_line("hostIPC").unwrap_or(object.line),
            "pod shares the host's IPC namespace (hostIPC: true)",
        )],
        _ => Vec::new(),
    }
}

/// Sysctl prefixes that reach beyond the pod (kube-linter's default
/// `unsafeSysCtls` parameter).
const UNSAFE_SYSCTL_PREFIXES: &[&str] = &[
    "kernel.msg",
    "kernel.sem",
    "kernel.shm",
    "fs.mqueue.",
    "net.",
];

/// `unsafe-sysctls`: one finding per (pod sysctl, unsafe prefix it starts
/// with).
pub(crate) fn unsafe_sysctls(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(sc) = object.pod_spec().and_then(|s| s.security_context.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sysctl in &sc.sysctls {
        for prefix in UNSAFE_SYSCTL_PREFIXES {
            if sysctl.name.starts_with(prefix) {
                out.push(Diagnostic::object(
                    line_of(sysctl.line, object),
                    format!(
                        "pod sets the unsafe sysctl {:?} (prefix {prefix:?}), which can affect other pods on the node",
                        sysctl.name
                    ),
                ));
            }
        }
    }
    out
}
