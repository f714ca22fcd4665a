//! The eight rules of the native semgrep namespace: ids, project severities
//! and wording (spec E2 §1.6).
//!
//! Ids are exactly the registry ids seen in the upstream labels so that
//! predictions and labels compare as plain strings; messages and remediations
//! are the project's own words, not semgrep's.

use crate::{RuleInfo, Severity, Tier, Tool};

/// One native semgrep rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Rule {
    AllowPrivilegeEscalation,
    ExposingDockerSocketHostpath,
    HostipcPod,
    HostnetworkPod,
    HostpidPod,
    PrivilegedContainer,
    RunAsNonRoot,
    WritableFilesystemContainer,
}

/// The catalogue, sorted by id (the enum order is the id order).
pub(crate) static CATALOGUE: [RuleInfo; 8] = [
    Rule::AllowPrivilegeEscalation.info(),
    Rule::ExposingDockerSocketHostpath.info(),
    Rule::HostipcPod.info(),
    Rule::HostnetworkPod.info(),
    Rule::HostpidPod.info(),
    Rule::PrivilegedContainer.info(),
    Rule::RunAsNonRoot.info(),
    Rule::WritableFilesystemContainer.info(),
];

impl Rule {
    /// The full registry id, `yaml.kubernetes.security.<x>.<x>`.
    pub(crate) const fn id(self) -> &'static str {
        match self {
            Rule::AllowPrivilegeEscalation => {
                "yaml.kubernetes.security.allow-privilege-escalation.allow-privilege-escalation"
            }
            Rule::ExposingDockerSocketHostpath => {
                "yaml.kubernetes.security.exposing-docker-socket-hostpath.exposing-docker-socket-hostpath"
            }
            Rule::HostipcPod => "yaml.kubernetes.security.hostipc-pod.hostipc-pod",
            Rule::HostnetworkPod => "yaml.kubernetes.security.hostnetwork-pod.hostnetwork-pod",
            Rule::HostpidPod => "yaml.kubernetes.security.hostpid-pod.hostpid-pod",
            Rule::PrivilegedContainer => {
                "yaml.kubernetes.security.privileged-container.privileged-container"
            }
            Rule::RunAsNonRoot => "yaml.kubernetes.security.run-as-non-root.run-as-non-root",
            Rule::WritableFilesystemContainer => {
                "yaml.kubernetes.security.writable-filesystem-container.writable-filesystem-container"
            }
        }
    }

    /// Project severity: host isolation breaks are high, hardening gaps med.
    pub(crate) const fn severity(self) -> Severity {
        match self {
            Rule::AllowPrivilegeEscalation
            | Rule::RunAsNonRoot
            | Rule::WritableFilesystemContainer => Severity::Med,
            Rule::ExposingDockerSocketHostpath
            | Rule::HostipcPod
            | Rule::HostnetworkPod
            | Rule::HostpidPod
            | Rule::PrivilegedContainer => Severity::High,
        }
    }

    const fn remediation(self) -> &'static str {
        match self {
            Rule::AllowPrivilegeEscalation => {
                "Set securityContext.allowPrivilegeEscalation to false in the container."
            }
            Rule::ExposingDockerSocketHostpath => {
                "Do not mount /var/run/docker.sock from the host; use a dedicated build or \
                 runtime API with narrow credentials instead."
            }
            Rule::HostipcPod => "Remove hostIPC: true (or set it to false) in the pod spec.",
            Rule::HostnetworkPod => {
                "Remove hostNetwork: true (or set it to false) in the pod spec; expose ports \
                 through a Service instead."
            }
            Rule::HostpidPod => "Remove hostPID: true (or set it to false) in the pod spec.",
            Rule::PrivilegedContainer => {
                "Remove privileged: true; grant only the specific capabilities the workload needs."
            }
            Rule::RunAsNonRoot => {
                "Add a pod securityContext with runAsNonRoot: true (or set it in every \
                 container's securityContext)."
            }
            Rule::WritableFilesystemContainer => {
                "Set securityContext.readOnlyRootFilesystem to true in the container and mount \
                 writable volumes only where needed."
            }
        }
    }

    const fn info(self) -> RuleInfo {
        RuleInfo {
            tool: Tool::Semgrep,
            id: self.id(),
            severity: self.severity(),
            tier: Tier::Must,
            remediation: self.remediation(),
        }
    }

    /// What is wrong, naming the container when the match is inside one.
    pub(crate) fn message(self, container: Option<&str>) -> String {
        let subject = match container {
            Some(name) => format!("container {name:?}"),
            None => "a container".to_owned(),
        };
        match self {
            Rule::AllowPrivilegeEscalation => format!(
                "{subject} has a securityContext that does not set allowPrivilegeEscalation, \
                 so its processes may gain more privileges than their parent"
            ),
            Rule::ExposingDockerSocketHostpath => {
                "a hostPath volume exposes the host's Docker socket /var/run/docker.sock, \
                 which gives control of every container on the node"
                    .to_owned()
            }
            Rule::HostipcPod => {
                "the pod shares the host's IPC namespace (hostIPC: true)".to_owned()
            }
            Rule::HostnetworkPod => {
                "the pod shares the host's network namespace (hostNetwork: true)".to_owned()
            }
            Rule::HostpidPod => {
                "the pod shares the host's process namespace (hostPID: true)".to_owned()
            }
            Rule::PrivilegedContainer => match container {
                Some(_) => format!("{subject} runs privileged, with full access to the host"),
                None => "privileged: true allows privileged containers, with full access to \
                         the host"
                    .to_owned(),
            },
            Rule::RunAsNonRoot => {
                "the pod spec has no securityContext and no container sets runAsNonRoot, \
                 so containers may run as root"
                    .to_owned()
            }
            Rule::WritableFilesystemContainer => format!(
                "{subject} has a writable root filesystem \
                 (securityContext.readOnlyRootFilesystem is not true)"
            ),
        }
    }

    /// Whether `id` (from a `nosemgrep: <id>` comment) names this rule: the
    /// full id, or a dot-separated suffix of it as semgrep accepts
    /// (`run-as-non-root`, `run-as-non-root.run-as-non-root`).
    pub(crate) fn is_named_by(self, id: &str) -> bool {
        let full = self.id();
        !id.is_empty()
            && (full == id
                || full
                    .strip_suffix(id)
                    .is_some_and(|head| head.ends_with('.')))
    }
}
