//! Rules about keys anywhere in the tree: a pod `spec` without any
//! run-as-non-root setting, host namespaces, privileged outside containers
//! (case b, e.g. a PodSecurityPolicy) and the Docker socket as a hostPath.

use super::is_true;
use crate::semgrep::rule::Rule;
use crate::semgrep::walk::Context;
use crate::Node;

/// The socket whose hostPath mount hands the node's container runtime over.
const DOCKER_SOCKET: &str = "/var/run/docker.sock";

/// The rule that fires on the pair `key: value`, if any, with its reported
/// line (always the key's line). At most one can: each looks at one key name.
pub(super) fn check_pair(key: &Node, value: &Node, ctx: &Context<'_>) -> Option<(Rule, usize)> {
    let host_namespace = ctx.under_spec && is_true(Some(value));
    let rule = match key.as_str()? {
        "spec" if may_run_as_root(value) => Rule::RunAsNonRoot,
        "hostNetwork" if host_namespace => Rule::HostnetworkPod,
        "hostPID" if host_namespace => Rule::HostpidPod,
        "hostIPC" if host_namespace => Rule::HostipcPod,
        // Case (b): a container item with an image is case (a)'s business,
        // so any enclosing `image` key rules this one out.
        "privileged"
            if ctx.under_spec && !ctx.image_in_enclosing_mapping && is_true(Some(value)) =>
        {
            Rule::PrivilegedContainer
        }
        "hostPath"
            if ctx.under_volumes
                && value.get("path").and_then(Node::as_str) == Some(DOCKER_SOCKET) =>
        {
            Rule::ExposingDockerSocketHostpath
        }
        _ => return None,
    };
    Some((rule, key.line))
}

/// A `spec` mapping with a direct `containers` key, no direct
/// `securityContext` (whatever it holds), and no container item of its own
/// that has `name`, `image` and a `securityContext.runAsNonRoot` key (any
/// value, even `false`, counts as a decision made).
fn may_run_as_root(spec: &Node) -> bool {
    let Some(containers) = spec.get("containers") else {
        return false;
    };
    if spec.get("securityContext").is_some() {
        return false;
    }
    let decides = |item: &Node| {
        item.get("name").is_some()
            && item.get("image").is_some()
            && item
                .get_path(&["securityContext", "runAsNonRoot"])
                .is_some()
    };
    !containers
        .as_sequence()
        .is_some_and(|items| items.iter().any(decides))
}
