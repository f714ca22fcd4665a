//! Opt-in isolation and credential checks: services reachable from outside
//! the cluster, the default service account's token, writable host paths,
//! an unmasked `/proc`, ports below 1024 and secrets in the environment.

use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::{equal_fold, line_of};

/// Service types that publish a service on the nodes or a cloud load
/// balancer.
const EXPOSED_TYPES: &[&str] = &["NodePort", "LoadBalancer"];

/// `exposed-services`: a `v1` Service of type NodePort or LoadBalancer
/// (compared case-insensitively), one finding per Service.
pub(crate) fn exposed_services(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Body::Service(spec) = &object.body else {
        return Vec::new();
    };
    if !EXPOSED_TYPES.iter().any(|t| equal_fold(&spec.type_, t)) {
        return Vec::new();
    }
    vec![Diagnostic::object(
        line_of(spec.line, object),
        format!(
            "service has type {:?}, which exposes it outside the cluster",
            spec.type_
        ),
    )]
}

/// `default-service-account`: the pod mounts a token (automount not
/// explicitly false) of the namespace's default account (effective account
/// `serviceAccountName`, else `serviceAccount`, empty or `default`).
pub(crate) fn default_service_account(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    if spec.automount_service_account_token == Some(false) {
        return Vec::new();
    }
    let account = if spec.service_account_name.is_empty() {
        &spec.service_account
    } else {
        &spec.service_account_name
    };
    let message = match account.as_str() {
        "" => "pod sets no service account, so it runs with the namespace's default account",
        "default" => "pod runs with the \"default\" service account",
        _ => return Vec::new(),
    };
    vec![Diagnostic::object(line_of(spec.line, object), message)]
}

/// `writable-host-mount`: one finding per (container, mount) of a hostPath
/// volume that is not mounted `readOnly`, over all containers. A mount
/// refers to the first volume of its name.
pub(crate) fn writable_host_mount(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for mount in c.volume_mounts.iter().filter(|m| !m.read_only) {
            let host_path = spec
                .volumes
                .iter()
                .find(|v| v.name == mount.name)
                .and_then(|v| v.host_path.as_ref());
            if let Some(host_path) = host_path {
                out.push(Diagnostic::container(
                    line_of(mount.line, object),
                    &c.name,
                    format!(
                        "container {:?} mounts host path {:?} at {:?} writable",
                        c.name, host_path.path, mount.mount_path
                    ),
                ));
            }
        }
    }
    out
}

/// `unsafe-proc-mount`: `procMount: Unmasked` (case-insensitive) exposes
/// the host's `/proc` paths the runtime normally masks.
pub(crate) fn unsafe_proc_mount(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    spec.all_containers()
        .filter_map(|c| {
            let sc = c.security_context.as_ref()?;
            let proc_mount = sc.proc_mount.as_deref()?;
            equal_fold(proc_mount, "Unmasked").then(|| {
                Diagnostic::container(
                    line_of(sc.line, object),
                    &c.name,
                    format!(
                        "container {:?} uses an unmasked proc mount ({proc_mount:?})",
                        c.name
                    ),
                )
            })
        })
        .collect()
}

/// `privileged-ports`: one finding per container port in 1–1023 (binding
/// them needs root or `NET_BIND_SERVICE`), over all containers.
pub(crate) fn privileged_ports(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for port in c
            .ports
            .iter()
            .filter(|p| (1..1024).contains(&p.container_port))
        {
            out.push(Diagnostic::container(
                line_of(port.line, object),
                &c.name,
                format!(
                    "container {:?} exposes privileged port {}",
                    c.name, port.container_port
                ),
            ));
        }
    }
    out
}

/// `read-secret-from-env-var`: one finding per environment variable read
/// from a Secret (`valueFrom.secretKeyRef`), over all containers.
pub(crate) fn read_secret_from_env_var(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for env in &c.env {
            let Some(secret) = env
                .value_from
                .as_ref()
                .and_then(|from| from.secret_key_ref.as_ref())
            else {
                continue;
            };
            out.push(Diagnostic::container(
                line_of(env.line, object),
                &c.name,
                format!(
                    "container {:?} reads key {:?} of secret {:?} into environment variable {:?}",
                    c.name, secret.key, secret.name, env.name
                ),
            ));
        }
    }
    out
}
