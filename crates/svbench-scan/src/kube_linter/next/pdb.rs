//! PodDisruptionBudget checks (`policy/v1` only, as kube-linter 0.7.6 reads
//! that version): budgets that block every voluntary eviction, and the
//! unset unhealthy-pod eviction policy.

use crate::k8s::decode::IntOrString;
use crate::k8s::kinds::PdbSpec;
use crate::k8s::selector::Labels;
use crate::k8s::{Body, K8sObject, WorkloadSelector};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::{same_namespace, scaled_int_or_percent, show_int_or_string};

/// The spec of a `policy/v1` PodDisruptionBudget.
fn pdb_v1(object: &K8sObject) -> Option<&PdbSpec> {
    match &object.body {
        Body::Pdb(spec) if object.gvk.version == "v1" => Some(spec),
        _ => None,
    }
}

/// `pdb-max-unavailable`: `maxUnavailable` set and resolving to 0 (a
/// percentage of 100, rounded down), or invalid.
pub(crate) fn max_unavailable(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(value) = pdb_v1(object).and_then(|s| s.max_unavailable.as_ref()) else {
        return Vec::new();
    };
    let message = match scaled_int_or_percent(value, 100, false) {
        Err(e) => format!("PodDisruptionBudget maxUnavailable is invalid: {e}"),
        Ok(0) => format!(
            "PodDisruptionBudget maxUnavailable is {}: no pod can ever be evicted voluntarily",
            show_int_or_string(value)
        ),
        Ok(_) => return Vec::new(),
    };
    let line = pdb_v1(object)
        .and_then(|s| s.field_line("maxUnavailable"))
        .unwrap_or(object.line);
    vec![Diagnostic::object(line, message)]
}

/// `pdb-unhealthy-pod-eviction-policy`: `unhealthyPodEvictionPolicy` unset.
pub(crate) fn unhealthy_pod_eviction_policy(
    _: &Context<'_>,
    object: &K8sObject,
) -> Vec<Diagnostic> {
    match pdb_v1(object) {
        Some(spec) if spec.unhealthy_pod_eviction_policy.is_none() => vec![Diagnostic::object(
            object.line,
            "PodDisruptionBudget does not set unhealthyPodEvictionPolicy, so unhealthy pods can block node drains",
        )],
        _ => Vec::new(),
    }
}

/// `pdb-min-available`: `minAvailable` invalid or `"100%"` (one finding);
/// otherwise one finding per deployment-like object of the PDB's raw
/// namespace whose selector's `matchLabels` satisfy the PDB selector and
/// whose replicas (an autoscaler's minimum when it has 1) are at most
/// `minAvailable` (a percentage of the replicas rounded up).
///
/// kube-linter 0.7.6 crashes on a PDB without a selector; natively that is
/// no finding.
pub(crate) fn min_available(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = pdb_v1(object) else {
        return Vec::new();
    };
    let Some(min) = &spec.min_available else {
        return Vec::new();
    };
    let min_line = spec.field_line("minAvailable").unwrap_or(object.line);
    let report = |msg: String| vec![Diagnostic::object(min_line, msg)];
    if matches!(min, IntOrString::Str(s) if s == "100%") {
        return report(
            "PodDisruptionBudget minAvailable is 100%: no pod can ever be evicted voluntarily"
                .to_owned(),
        );
    }
    if let Err(e) = scaled_int_or_percent(min, 1, true) {
        return report(format!("PodDisruptionBudget minAvailable is invalid: {e}"));
    }
    let Some(selector) = &spec.selector else {
        return Vec::new();
    };
    let selector = match selector.to_selector() {
        Ok(s) => s,
        Err(e) => {
            return vec![Diagnostic::object(
                spec.field_line("selector").unwrap_or(object.line),
                format!("PodDisruptionBudget selector is invalid: {e}"),
            )]
        }
    };
    let mut out = Vec::new();
    for workload in ctx.objects {
        if !workload.is_deployment_like() || !same_namespace(workload, object) {
            continue;
        }
        let Some(match_labels) = match_labels(workload) else {
            continue;
        };
        let Some(mut replicas) = workload.replicas() else {
            continue;
        };
        if !selector.matches(match_labels) {
            continue;
        }
        if replicas == 1 {
            replicas = autoscaler_min_replicas(ctx, workload).unwrap_or(1);
        }
        let Ok(required) = scaled_int_or_percent(min, i64::from(replicas), true) else {
            continue;
        };
        if i64::from(replicas) <= required {
            out.push(Diagnostic::object(
                min_line,
                format!(
                    "PodDisruptionBudget minAvailable {} requires {required} of the {replicas} replicas of {} {:?}: no pod can be evicted voluntarily",
                    show_int_or_string(min),
                    workload.gvk.kind,
                    workload.metadata.name_raw()
                ),
            ));
        }
    }
    out
}

/// The `matchLabels` of a workload's selector as kube-linter reads it: a
/// `LabelSelector`'s, or a DeploymentConfig's plain map; `None` when there
/// is no selector (a Pod, a ReplicationController, an absent selector).
fn match_labels(workload: &K8sObject) -> Option<&Labels> {
    match workload.selector()? {
        WorkloadSelector::Label(s) => s.map(|s| &s.match_labels),
        WorkloadSelector::Map(m) if workload.gvk.is("apps.openshift.io", "DeploymentConfig") => {
            Some(m)
        }
        WorkloadSelector::Map(_) => None,
    }
}

/// The minimum replicas of the first HorizontalPodAutoscaler or KEDA
/// ScaledObject of the workload's namespace targeting it by name (absent
/// minimum → 1).
fn autoscaler_min_replicas(ctx: &Context<'_>, workload: &K8sObject) -> Option<i32> {
    let name = workload.metadata.name_raw();
    ctx.objects
        .iter()
        .filter(|o| same_namespace(o, workload))
        .find_map(|o| match &o.body {
            Body::Hpa(hpa) if hpa.scale_target_ref.name == name => {
                Some(hpa.min_replicas.unwrap_or(1))
            }
            Body::ScaledObject(so)
                if so.scale_target_ref.as_ref().is_some_and(|r| r.name == name) =>
            {
                Some(so.min_replica_count.unwrap_or(1))
            }
            _ => None,
        })
}
