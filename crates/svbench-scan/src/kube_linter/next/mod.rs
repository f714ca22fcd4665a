//! Next-tier checks (default-enabled, not seen in the upstream labels;
//! spec E2 §1.5), grouped by theme.

mod env;
mod pdb;
mod pod;
mod ports;

use super::registry::Check;

/// The implemented next-tier checks.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        name: "duplicate-env-var",
        run: env::duplicate_env_var,
    },
    Check {
        name: "host-ipc",
        run: pod::host_ipc,
    },
    Check {
        name: "invalid-target-ports",
        run: ports::invalid_target_ports,
    },
    Check {
        name: "liveness-port",
        run: ports::liveness_port,
    },
    Check {
        name: "pdb-max-unavailable",
        run: pdb::max_unavailable,
    },
    Check {
        name: "pdb-min-available",
        run: pdb::min_available,
    },
    Check {
        name: "pdb-unhealthy-pod-eviction-policy",
        run: pdb::unhealthy_pod_eviction_policy,
    },
    Check {
        name: "readiness-port",
        run: ports::readiness_port,
    },
    Check {
        name: "ssh-port",
        run: ports::ssh_port,
    },
    Check {
        name: "startup-port",
        run: ports::startup_port,
    },
    Check {
        name: "unsafe-sysctls",
        run: pod::unsafe_sysctls,
    },
];
