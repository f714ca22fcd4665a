//! Opt-in checks (not default-enabled; spec E2 §1.5): cross-object checks
//! (RBAC, dangling references, network isolation) in `cross`, per-pod and
//! per-container checks in `pod`.

mod cross;
mod pod;

pub(crate) use cross::CHECKS as CROSS_CHECKS;
pub(crate) use pod::CHECKS as POD_CHECKS;
