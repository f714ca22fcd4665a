//! Network isolation: pods no NetworkPolicy selects, and NetworkPolicy
//! selectors that select no pod of the file.

use crate::k8s::kinds::NetworkPolicySpec;
use crate::k8s::selector::{LabelSelector, Selector};
use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::{line_of, same_namespace};

/// The spec of a `networking.k8s.io/v1` NetworkPolicy.
fn network_policy_v1(object: &K8sObject) -> Option<&NetworkPolicySpec> {
    match &object.body {
        Body::NetworkPolicy(spec)
            if object.gvk.group == "networking.k8s.io" && object.gvk.version == "v1" =>
        {
            Some(spec)
        }
        _ => None,
    }
}

/// `non-isolated-pod`: a deployment-like object with a pod spec whose pod
/// labels no NetworkPolicy `podSelector` of its raw namespace selects (an
/// invalid selector selects nothing).
pub(crate) fn non_isolated_pod(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if object.pod_spec().is_none() {
        return Vec::new();
    }
    let Some(template) = object.pod_template() else {
        return Vec::new();
    };
    let isolated = ctx.objects.iter().any(|o| {
        same_namespace(o, object)
            && network_policy_v1(o).is_some_and(|np| {
                np.pod_selector
                    .to_selector()
                    .is_ok_and(|s| s.matches(template.labels))
            })
    });
    if isolated {
        Vec::new()
    } else {
        vec![Diagnostic::object(
            object.line,
            format!(
                "no NetworkPolicy in namespace {:?} selects the pods, so all traffic to and from them is allowed",
                object.metadata.namespace_raw()
            ),
        )]
    }
}

/// Whether any pod-bearing object of `namespace_of`'s raw namespace has
/// template labels matching `selector`.
fn selects_some_pod(ctx: &Context<'_>, namespace_of: &K8sObject, selector: &Selector) -> bool {
    ctx.objects.iter().any(|o| {
        same_namespace(o, namespace_of)
            && o.pod_template().is_some_and(|t| selector.matches(t.labels))
    })
}

/// The problem with a selector that must select pods of the policy's
/// namespace: invalid, or matching none.
fn dangling_problem(
    ctx: &Context<'_>,
    policy: &K8sObject,
    selector: &LabelSelector,
) -> Option<String> {
    match selector.to_selector() {
        Err(e) => Some(format!("is invalid: {e}")),
        Ok(s) if !selects_some_pod(ctx, policy, &s) => Some(format!(
            "matches no pods in namespace {:?}",
            policy.metadata.namespace_raw()
        )),
        Ok(_) => None,
    }
}

/// `dangling-networkpolicy`: the policy's `podSelector` is invalid or
/// matches no pod-bearing object of its raw namespace.
pub(crate) fn dangling_network_policy(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = network_policy_v1(object) else {
        return Vec::new();
    };
    match dangling_problem(ctx, object, &spec.pod_selector) {
        Some(problem) => vec![Diagnostic::object(
            line_of(spec.pod_selector.line, object),
            format!("NetworkPolicy podSelector {problem}"),
        )],
        None => Vec::new(),
    }
}

/// `dangling-networkpolicypeer-podselector`: per ingress `from` / egress
/// `to` peer with a `podSelector` and no `namespaceSelector` (so it selects
/// pods of the policy's namespace) that is invalid or matches no
/// pod-bearing object there.
pub(crate) fn dangling_peer_pod_selector(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = network_policy_v1(object) else {
        return Vec::new();
    };
    let peers = spec
        .ingress
        .iter()
        .flat_map(|r| r.from.iter().map(|p| ("ingress", p)))
        .chain(
            spec.egress
                .iter()
                .flat_map(|r| r.to.iter().map(|p| ("egress", p))),
        );
    let mut out = Vec::new();
    for (direction, peer) in peers {
        if peer.namespace_selector.is_some() {
            continue;
        }
        let Some(selector) = &peer.pod_selector else {
            continue;
        };
        if let Some(problem) = dangling_problem(ctx, object, selector) {
            out.push(Diagnostic::object(
                line_of(peer.line, object),
                format!("NetworkPolicy {direction} peer podSelector {problem}"),
            ));
        }
    }
    out
}
