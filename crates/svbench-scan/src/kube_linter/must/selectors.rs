//! Selector and scheduling checks: services and workloads whose selectors
//! select nothing, and replicated workloads that may all land on one node.

use crate::k8s::selector::{selector_from_map, selector_of, Selector};
use crate::k8s::types::PodAffinityTerm;
use crate::k8s::{Body, K8sObject, WorkloadSelector};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

/// `dangling-service`: a `v1` Service (not `ExternalName`) whose selector is
/// empty, invalid, or matches no pod-bearing object of its raw namespace.
pub(crate) fn dangling_service(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Body::Service(spec) = &object.body else {
        return Vec::new();
    };
    if object.api_version != "v1" || spec.type_ == "ExternalName" {
        return Vec::new();
    }
    // A written selector is the field at fault; a missing one is the object's.
    let line = spec.field_line("selector").unwrap_or(object.line);
    let report = |msg: String| vec![Diagnostic::object(line, msg)];
    if spec.selector.is_empty() {
        return report("service has no selector".to_owned());
    }
    let selector = match selector_from_map(&spec.selector) {
        Ok(s) => s,
        Err(e) => return report(format!("service selector is invalid: {e}")),
    };
    let namespace = object.metadata.namespace_raw();
    let matched = ctx.objects.iter().any(|o| {
        o.metadata.namespace_raw() == namespace
            && o.pod_template().is_some_and(|t| selector.matches(t.labels))
    });
    if matched {
        Vec::new()
    } else {
        report(format!(
            "no pods in namespace {namespace:?} match the service selector {}",
            show_labels(&spec.selector)
        ))
    }
}

fn show_labels(labels: &crate::k8s::selector::Labels) -> String {
    let parts: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", parts.join(","))
}

/// `mismatching-selector`: a workload whose selector does not select its own
/// pod template. Pods and ReplicationControllers are never checked (0.7.6
/// cannot read their selectors); Jobs and CronJobs may omit the selector.
pub(crate) fn mismatching_selector(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() || object.gvk.is("", "ReplicationController") {
        return Vec::new();
    }
    let (Some(template), Some(selector)) = (object.pod_template(), object.selector()) else {
        return Vec::new();
    };
    let optional = matches!(object.body, Body::Job(_) | Body::CronJob(_));
    let report = |msg: String| vec![Diagnostic::object(object.line, msg)];
    let parsed = match selector {
        WorkloadSelector::Label(s) if s.is_none_or(|s| s.is_empty()) => {
            return if optional {
                Vec::new()
            } else {
                report("workload has no pod selector".to_owned())
            };
        }
        WorkloadSelector::Map(m) if m.is_empty() => {
            return report("workload has no pod selector".to_owned());
        }
        WorkloadSelector::Label(s) => selector_of(s),
        WorkloadSelector::Map(m) => selector_from_map(m),
    };
    match parsed {
        Err(e) => report(format!("workload selector is invalid: {e}")),
        Ok(sel) if !sel.matches(template.labels) => report(format!(
            "workload selector does not match its pod template labels {}",
            show_labels(template.labels)
        )),
        Ok(_) => Vec::new(),
    }
}

const TOPOLOGY_KEY: &str = "kubernetes.io/hostname";
const MIN_REPLICAS: i32 = 2;

/// `no-anti-affinity`: a deployment-like workload with ≥ 2 replicas and no
/// valid pod anti-affinity term spreading its pods over hosts. One finding
/// when there are no terms, else one per (invalid) term when none is valid.
pub(crate) fn no_anti_affinity(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() {
        return Vec::new();
    }
    let (Some(replicas), Some(template)) = (object.replicas(), object.pod_template()) else {
        return Vec::new();
    };
    if replicas < MIN_REPLICAS {
        return Vec::new();
    }
    let none = || {
        vec![Diagnostic::object(
            object.line,
            format!("workload has {replicas} replicas but no pod anti-affinity"),
        )]
    };
    let Some(anti) = template
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_anti_affinity.as_ref())
    else {
        return none();
    };
    if anti.preferred.is_empty() && anti.required.is_empty() {
        return none();
    }
    let terms = anti
        .preferred
        .iter()
        .map(|w| &w.pod_affinity_term)
        .chain(&anti.required);
    let mut out = Vec::new();
    for term in terms {
        match term_problem(term, object, template.labels) {
            None => return Vec::new(),
            Some(problem) => out.push(Diagnostic::object(
                line_of(term.line, object),
                format!("pod anti-affinity term is ineffective: {problem}"),
            )),
        }
    }
    out
}

/// Why an anti-affinity term does not spread the workload's own pods, if it
/// does not.
fn term_problem(
    term: &PodAffinityTerm,
    object: &K8sObject,
    labels: &crate::k8s::selector::Labels,
) -> Option<String> {
    let namespace = object.metadata.namespace_raw();
    if !term.namespaces.is_empty() && !term.namespaces.iter().any(|n| n == namespace) {
        return Some(format!(
            "namespace {namespace:?} is not among its namespaces"
        ));
    }
    if term.topology_key != TOPOLOGY_KEY {
        return Some(format!("topology key is not {TOPOLOGY_KEY:?}"));
    }
    match selector_of(term.label_selector.as_ref()) {
        Err(e) => Some(format!("label selector is invalid: {e}")),
        Ok(Selector::Nothing) => Some("it has no label selector".to_owned()),
        Ok(s) if !s.matches(labels) => {
            Some("label selector does not match the pod labels".to_owned())
        }
        Ok(_) => None,
    }
}
