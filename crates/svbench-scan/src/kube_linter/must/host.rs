//! Host namespace and host path checks: sharing the node's network or PID
//! namespace, or mounting its sockets and system directories, breaks
//! container isolation.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

/// `host-network`: one finding per object with `hostNetwork: true`, at
/// that field.
pub(crate) fn host_network(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    match object.pod_spec() {
        Some(spec) if spec.host_network => vec![Diagnostic::object(
            spec.field_line("hostNetwork").unwrap_or(object.line),
            "pod shares the node's network namespace (hostNetwork: true)",
        )],
        _ => Vec::new(),
    }
}

/// `host-pid`: one finding per object with `hostPID: true`.
pub(crate) fn host_pid(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    match object.pod_spec() {
        Some(spec) if spec.host_pid => vec![Diagnostic::object(
            spec.field_line("hostPID").unwrap_or(object.line),
            "pod shares the host's PID namespace (hostPID: true)",
        )],
        _ => Vec::new(),
    }
}

static DOCKER_SOCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("docker.sock$").expect("literal regex is valid"));

/// Host system directories whose mount exposes the node.
const SENSITIVE: &[&str] = &[
    "/", "/boot", "/dev", "/etc", "/lib", "/proc", "/sys", "/usr",
];

/// One finding per (hostPath volume matching `matches`, container mount of
/// it by name), over all containers.
fn host_mounts(
    object: &K8sObject,
    matches: impl Fn(&str) -> bool,
    describe: impl Fn(&str, &str, &str) -> String,
) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for volume in &spec.volumes {
        let Some(host_path) = &volume.host_path else {
            continue;
        };
        if !matches(&host_path.path) {
            continue;
        }
        for c in spec.all_containers() {
            for mount in c.volume_mounts.iter().filter(|m| m.name == volume.name) {
                out.push(Diagnostic::container(
                    line_of(mount.line, object),
                    &c.name,
                    describe(&c.name, &host_path.path, &mount.mount_path),
                ));
            }
        }
    }
    out
}

/// `docker-sock`: the Docker socket mounted into a container gives control
/// of the node's container runtime.
pub(crate) fn docker_sock(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    host_mounts(
        object,
        |path| DOCKER_SOCK.is_match(path),
        |c, path, at| format!("container {c:?} mounts the Docker socket {path:?} at {at:?}"),
    )
}

/// `sensitive-host-mounts`: a host system directory mounted into a container.
pub(crate) fn sensitive_host_mounts(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    host_mounts(
        object,
        |path| SENSITIVE.contains(&path),
        |c, path, at| format!("container {c:?} mounts host system directory {path:?} at {at:?}"),
    )
}
