//! Opt-in cross-object checks (spec E2 §1.5): RBAC grants, network
//! isolation, references that point at nothing in the file, autoscaler
//! floors and OpenShift SCCs. Cross-object lookups search the file's
//! objects ([`Context`](crate::kube_linter::registry::Context)) and compare
//! namespaces as raw strings, except the RBAC ones, which default both
//! sides to `default`.
//!
//! Like kube-linter 0.7.6, which type-switches on one Go type per kind,
//! RBAC, NetworkPolicy and Ingress checks read the `v1` versions only;
//! autoscaler checks read every `autoscaling` version.

mod access;
mod autoscaling;
mod network;
mod references;

use super::super::registry::Check;

/// The implemented checks of this group.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        name: "access-to-create-pods",
        run: access::access_to_create_pods,
    },
    Check {
        name: "access-to-secrets",
        run: access::access_to_secrets,
    },
    Check {
        name: "cluster-admin-role-binding",
        run: access::cluster_admin_role_binding,
    },
    Check {
        name: "dangling-horizontalpodautoscaler",
        run: autoscaling::dangling_hpa,
    },
    Check {
        name: "dangling-ingress",
        run: references::dangling_ingress,
    },
    Check {
        name: "dangling-networkpolicy",
        run: network::dangling_network_policy,
    },
    Check {
        name: "dangling-networkpolicypeer-podselector",
        run: network::dangling_peer_pod_selector,
    },
    Check {
        name: "dangling-servicemonitor",
        run: references::dangling_service_monitor,
    },
    Check {
        name: "env-value-from",
        run: references::env_value_from,
    },
    Check {
        name: "hpa-minimum-three-replicas",
        run: autoscaling::hpa_minimum_three_replicas,
    },
    Check {
        name: "non-isolated-pod",
        run: network::non_isolated_pod,
    },
    Check {
        name: "scc-deny-privileged-container",
        run: access::scc_deny_privileged_container,
    },
    Check {
        name: "wildcard-in-rules",
        run: access::wildcard_in_rules,
    },
];
