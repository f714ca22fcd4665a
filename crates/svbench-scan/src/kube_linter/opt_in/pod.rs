//! Opt-in per-object, per-pod and per-container checks (spec E2 §1.5),
//! grouped by theme: isolation and credentials in `security`, availability
//! and rollout in `availability`, pod settings and metadata conventions in
//! `conventions`, and the YAML text itself in `sorted_keys`.
//!
//! `schema-validation` is not implemented: it needs bundled API schemas,
//! which the spec lets us defer.

mod availability;
mod conventions;
mod security;
mod sorted_keys;

use super::super::registry::Check;

/// The implemented checks of this group.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        name: "default-service-account",
        run: security::default_service_account,
    },
    Check {
        name: "dnsconfig-options",
        run: conventions::dnsconfig_options,
    },
    Check {
        name: "exposed-services",
        run: security::exposed_services,
    },
    Check {
        name: "minimum-three-replicas",
        run: availability::minimum_three_replicas,
    },
    Check {
        name: "no-liveness-probe",
        run: availability::no_liveness_probe,
    },
    Check {
        name: "no-node-affinity",
        run: availability::no_node_affinity,
    },
    Check {
        name: "no-readiness-probe",
        run: availability::no_readiness_probe,
    },
    Check {
        name: "no-rolling-update-strategy",
        run: availability::no_rolling_update_strategy,
    },
    Check {
        name: "priority-class-name",
        run: conventions::priority_class_name,
    },
    Check {
        name: "privileged-ports",
        run: security::privileged_ports,
    },
    Check {
        name: "read-secret-from-env-var",
        run: security::read_secret_from_env_var,
    },
    Check {
        name: "required-annotation-email",
        run: conventions::required_annotation_email,
    },
    Check {
        name: "required-label-owner",
        run: conventions::required_label_owner,
    },
    Check {
        name: "restart-policy",
        run: conventions::restart_policy,
    },
    Check {
        name: "sorted-keys",
        run: sorted_keys::sorted_keys,
    },
    Check {
        name: "unsafe-proc-mount",
        run: security::unsafe_proc_mount,
    },
    Check {
        name: "use-namespace",
        run: conventions::use_namespace,
    },
    Check {
        name: "writable-host-mount",
        run: security::writable_host_mount,
    },
];
