//! Container security context checks: root user, writable root fs,
//! privileged mode, privilege escalation, NET_RAW.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::types::Container;
use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::per_container_at;

/// `run-as-non-root`: the effective user may be root. The effective
/// `runAsUser`/`runAsNonRoot` come from the container, else the pod; a
/// positive UID settles it, else `runAsNonRoot: true` does unless the UID is
/// explicitly 0 (which fails at runtime).
///
/// Reported at the effective `runAsUser: 0`, else the effective
/// `runAsNonRoot: false`, where written; else at the container.
pub(crate) fn run_as_non_root(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container_at(object, |spec, c| {
        let pod_sc = spec.security_context.as_ref();
        let ctr_sc = c.security_context.as_ref();
        // Each effective value with the line of the field it came from.
        let run_as_user = ctr_sc
            .and_then(|sc| sc.run_as_user.map(|u| (u, sc.field_line("runAsUser"))))
            .or_else(|| {
                pod_sc.and_then(|sc| sc.run_as_user.map(|u| (u, sc.field_line("runAsUser"))))
            });
        if run_as_user.is_some_and(|(u, _)| u > 0) {
            return None;
        }
        let non_root = ctr_sc
            .and_then(|sc| {
                sc.run_as_non_root
                    .map(|b| (b, sc.field_line("runAsNonRoot")))
            })
            .or_else(|| {
                pod_sc.and_then(|sc| {
                    sc.run_as_non_root
                        .map(|b| (b, sc.field_line("runAsNonRoot")))
                })
            });
        let root_user = run_as_user.filter(|&(u, _)| u == 0);
        let root_user_line = root_user.and_then(|(_, line)| line);
        match non_root {
            Some((true, _)) => root_user.map(|_| {
                (
                    root_user_line,
                    format!(
                        "container {:?} sets runAsNonRoot but runAsUser is 0",
                        c.name
                    ),
                )
            }),
            _ => Some((
                root_user_line.or(non_root.and_then(|(_, line)| line)),
                format!(
                    "container {:?} is not set to runAsNonRoot and may run as root",
                    c.name
                ),
            )),
        }
    })
}

/// `no-read-only-root-fs`: the root filesystem is writable unless
/// `readOnlyRootFilesystem` is explicitly true.
pub(crate) fn no_read_only_root_fs(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container_at(object, |_, c| {
        let sc = c.security_context.as_ref();
        let read_only = sc.and_then(|sc| sc.read_only_root_filesystem);
        (read_only != Some(true)).then(|| {
            (
                // An explicit `false` is the offending field.
                read_only.and(sc.and_then(|sc| sc.field_line("readOnlyRootFilesystem"))),
                format!(
                    "container {:?} does not have a read-only root file system",
                    c.name
                ),
            )
        })
    })
}

/// `privileged-container`: `privileged: true` gives the container the host's
/// devices and capabilities.
pub(crate) fn privileged(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container_at(object, |_, c| {
        privileged_line(c).map(|line| (line, format!("container {:?} is privileged", c.name)))
    })
}

/// `Some(line of privileged:)` when the container sets `privileged: true`.
fn privileged_line(c: &Container) -> Option<Option<usize>> {
    let sc = c.security_context.as_ref()?;
    (sc.privileged == Some(true)).then(|| sc.field_line("privileged"))
}

/// `privilege-escalation-container`: at most one finding per container with a
/// security context — escalation allowed, else privileged, else `SYS_ADMIN`
/// added.
pub(crate) fn privilege_escalation(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container_at(object, |_, c| {
        let sc = c.security_context.as_ref()?;
        if sc.allow_privilege_escalation == Some(true) {
            Some((
                sc.field_line("allowPrivilegeEscalation"),
                format!("container {:?} allows privilege escalation", c.name),
            ))
        } else if let Some(line) = privileged_line(c) {
            Some((
                line,
                format!(
                    "container {:?} is privileged, which allows privilege escalation",
                    c.name
                ),
            ))
        } else {
            let caps = sc.capabilities.as_ref()?;
            caps.add.iter().any(|a| a == "SYS_ADMIN").then(|| {
                (
                    caps.field_line("add"),
                    format!(
                        "container {:?} adds SYS_ADMIN, which allows privilege escalation",
                        c.name
                    ),
                )
            })
        }
    })
}

static NET_RAW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("NET_RAW").expect("literal regex is valid"));

fn is_net_raw_or_all(cap: &str) -> bool {
    NET_RAW.is_match(cap) || cap.eq_ignore_ascii_case("all")
}

/// `drop-net-raw-capability`: for containers that declare capabilities, one
/// finding per added NET_RAW/ALL and one when NET_RAW is not dropped.
pub(crate) fn drop_net_raw(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        let Some(caps) = c
            .security_context
            .as_ref()
            .and_then(|sc| sc.capabilities.as_ref())
        else {
            continue;
        };
        let line = crate::kube_linter::util::line_of(c.line, object);
        for added in caps.add.iter().filter(|a| is_net_raw_or_all(a)) {
            out.push(Diagnostic::container(
                caps.field_line("add").unwrap_or(line),
                &c.name,
                format!("container {:?} adds capability {added:?}", c.name),
            ));
        }
        if !caps.drop.iter().any(|d| is_net_raw_or_all(d)) {
            // A `drop` list without NET_RAW is the field to fix; with none
            // written the finding is about a missing field.
            out.push(Diagnostic::container(
                caps.field_line("drop").unwrap_or(line),
                &c.name,
                format!("container {:?} does not drop capability NET_RAW", c.name),
            ));
        }
    }
    out
}
