//! Opt-in availability checks: replica count, health probes, node affinity
//! and the rollout strategy.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::types::{Container, Probe};
use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

/// Fewer replicas than this leave no room for a node failure during an
/// update.
const MIN_REPLICAS: i32 = 3;

/// `minimum-three-replicas`: a deployment-like object with a `replicas`
/// field (absent → 1) below 3. `extensions/v1beta1` workloads are not
/// deployment-like, so they never fire.
pub(crate) fn minimum_three_replicas(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() {
        return Vec::new();
    }
    let Some(replicas) = object.replicas().filter(|r| *r < MIN_REPLICAS) else {
        return Vec::new();
    };
    let spec_line = match &object.body {
        Body::Replicated(s) => s.line,
        Body::Controller(s) => s.line,
        _ => 0,
    };
    vec![Diagnostic::object(
        line_of(spec_line, object),
        format!("object runs {replicas} replica(s), fewer than {MIN_REPLICAS}"),
    )]
}

/// One finding per regular container (init and ephemeral containers are
/// not probed) lacking the probe `probe` selects.
fn missing_probe(
    object: &K8sObject,
    probe: fn(&Container) -> Option<&Probe>,
    what: &str,
) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    spec.containers
        .iter()
        .filter(|c| probe(c).is_none())
        .map(|c| {
            Diagnostic::container(
                line_of(c.line, object),
                &c.name,
                format!("container {:?} has no {what} probe", c.name),
            )
        })
        .collect()
}

/// `no-liveness-probe`: a regular container without `livenessProbe`.
pub(crate) fn no_liveness_probe(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    missing_probe(object, |c| c.liveness_probe.as_ref(), "liveness")
}

/// `no-readiness-probe`: a regular container without `readinessProbe`.
pub(crate) fn no_readiness_probe(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    missing_probe(object, |c| c.readiness_probe.as_ref(), "readiness")
}

/// `no-node-affinity`: a pod spec without `affinity.nodeAffinity`, one
/// finding per object.
pub(crate) fn no_node_affinity(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let affinity = spec.affinity.as_ref();
    if affinity.is_some_and(|a| a.node_affinity.is_some()) {
        return Vec::new();
    }
    let line = affinity.map_or(spec.line, |a| a.line);
    vec![Diagnostic::object(
        line_of(line, object),
        "pod has no node affinity",
    )]
}

static ROLLING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^(RollingUpdate|Rolling)$").expect("literal regex is valid"));

/// `no-rolling-update-strategy`: a deployment-like Deployment, DaemonSet,
/// StatefulSet or DeploymentConfig whose rollout strategy type is not
/// `RollingUpdate`/`Rolling` (case-sensitive). An unset type fires, as in
/// kube-linter 0.7.6, which does not apply the API server's defaults.
pub(crate) fn no_rolling_update_strategy(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() {
        return Vec::new();
    }
    let Some(strategy) = &object.rollout_strategy else {
        return Vec::new();
    };
    if ROLLING.is_match(&strategy.type_) {
        return Vec::new();
    }
    let field = match object.gvk.kind.as_str() {
        "DaemonSet" | "StatefulSet" => "updateStrategy",
        _ => "strategy",
    };
    let message = if strategy.type_.is_empty() {
        format!("{field}.type is not set, so the rollout is not declared as a rolling update")
    } else {
        format!("{field}.type is {:?}, not a rolling update", strategy.type_)
    };
    let spec_line = match &object.body {
        Body::Replicated(s) => s.line,
        Body::DaemonSet(s) => s.line,
        Body::Controller(s) => s.line,
        _ => 0,
    };
    let line = if strategy.line == 0 {
        spec_line
    } else {
        strategy.line
    };
    vec![Diagnostic::object(line_of(line, object), message)]
}
