//! The 20 must-tier checks (spec E2 §1.5), grouped by theme.

mod api;
mod env;
mod host;
mod image;
mod resources;
mod security_context;
mod selectors;
mod service_account;

use super::registry::Check;

/// The implemented must-tier checks.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        name: "dangling-service",
        run: selectors::dangling_service,
    },
    Check {
        name: "deprecated-service-account-field",
        run: service_account::deprecated_field,
    },
    Check {
        name: "docker-sock",
        run: host::docker_sock,
    },
    Check {
        name: "drop-net-raw-capability",
        run: security_context::drop_net_raw,
    },
    Check {
        name: "env-var-secret",
        run: env::env_var_secret,
    },
    Check {
        name: "host-network",
        run: host::host_network,
    },
    Check {
        name: "host-pid",
        run: host::host_pid,
    },
    Check {
        name: "job-ttl-seconds-after-finished",
        run: api::job_ttl,
    },
    Check {
        name: "latest-tag",
        run: image::latest_tag,
    },
    Check {
        name: "mismatching-selector",
        run: selectors::mismatching_selector,
    },
    Check {
        name: "no-anti-affinity",
        run: selectors::no_anti_affinity,
    },
    Check {
        name: "no-extensions-v1beta",
        run: api::no_extensions_v1beta,
    },
    Check {
        name: "no-read-only-root-fs",
        run: security_context::no_read_only_root_fs,
    },
    Check {
        name: "non-existent-service-account",
        run: service_account::non_existent,
    },
    Check {
        name: "privilege-escalation-container",
        run: security_context::privilege_escalation,
    },
    Check {
        name: "privileged-container",
        run: security_context::privileged,
    },
    Check {
        name: "run-as-non-root",
        run: security_context::run_as_non_root,
    },
    Check {
        name: "sensitive-host-mounts",
        run: host::sensitive_host_mounts,
    },
    Check {
        name: "unset-cpu-requirements",
        run: resources::unset_cpu,
    },
    Check {
        name: "unset-memory-requirements",
        run: resources::unset_memory,
    },
];
