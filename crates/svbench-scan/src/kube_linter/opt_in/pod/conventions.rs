//! Opt-in conventions a team may require: DNS options, priority classes,
//! restart policy, owner metadata and a dedicated namespace.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::{equal_fold, line_of};

/// The DNS option the check expects (kube-linter's default parameters).
const NDOTS: (&str, &str) = ("ndots", "2");

/// `dnsconfig-options`: one finding per pod spec without `dnsConfig`,
/// without `options`, or without the option `ndots` = `"2"`. An `ndots`
/// option without a value does not match (kube-linter 0.7.6 dereferences
/// the missing value and crashes).
pub(crate) fn dnsconfig_options(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let (key, value) = NDOTS;
    let (line, message) = match &spec.dns_config {
        None => (spec.line, "pod has no dnsConfig".to_owned()),
        Some(dns) if dns.options.is_empty() => {
            (dns.line, "pod dnsConfig has no options".to_owned())
        }
        Some(dns) => {
            let found = dns
                .options
                .iter()
                .any(|o| o.name == key && o.value.as_deref() == Some(value));
            if found {
                return Vec::new();
            }
            (
                dns.line,
                format!("pod dnsConfig has no option {key} = {value:?}"),
            )
        }
    };
    vec![Diagnostic::object(line_of(line, object), message)]
}

/// Priority classes the check accepts (kube-linter's default parameters).
const ACCEPTED_PRIORITY_CLASSES: &[&str] = &["system-cluster-critical", "system-node-critical"];

/// `priority-class-name`: a non-blank `priorityClassName` outside the
/// accepted list (exact comparison).
pub(crate) fn priority_class_name(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let name = &spec.priority_class_name;
    if name.trim().is_empty() || ACCEPTED_PRIORITY_CLASSES.contains(&name.as_str()) {
        return Vec::new();
    }
    vec![Diagnostic::object(
        line_of(spec.line, object),
        format!(
            "pod uses priority class {name:?}, not one of {}",
            ACCEPTED_PRIORITY_CLASSES.join(", ")
        ),
    )]
}

/// Restart policies the check accepts (exact comparison).
const ACCEPTED_RESTART_POLICIES: &[&str] = &["Always", "OnFailure"];

/// `restart-policy`: `restartPolicy` not `Always`/`OnFailure`; unset fires
/// because kube-linter reads the field without the API server's default.
pub(crate) fn restart_policy(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let policy = &spec.restart_policy;
    if ACCEPTED_RESTART_POLICIES.contains(&policy.as_str()) {
        return Vec::new();
    }
    let message = if policy.is_empty() {
        "pod does not set restartPolicy to Always or OnFailure".to_owned()
    } else {
        format!("pod restartPolicy is {policy:?}, not Always or OnFailure")
    };
    vec![Diagnostic::object(line_of(spec.line, object), message)]
}

static EMAIL_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("email").expect("literal regex is valid"));
static EMAIL_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+").expect("literal regex is valid")
});
static OWNER_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("owner").expect("literal regex is valid"));

/// `required-annotation-email`: a deployment-like object (its own
/// metadata, not the pod template's) without an annotation whose key
/// matches `email` and whose value matches an e-mail address, both
/// unanchored searches.
pub(crate) fn required_annotation_email(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() {
        return Vec::new();
    }
    let meta = &object.metadata;
    if meta
        .annotations
        .iter()
        .any(|(k, v)| EMAIL_KEY.is_match(k) && EMAIL_VALUE.is_match(v))
    {
        return Vec::new();
    }
    vec![Diagnostic::object(
        line_of(meta.line, object),
        "object has no annotation whose key matches \"email\" holding an e-mail address",
    )]
}

/// `required-label-owner`: a deployment-like object (its own metadata)
/// without a label whose key matches `owner` (unanchored; any value).
pub(crate) fn required_label_owner(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() {
        return Vec::new();
    }
    let meta = &object.metadata;
    if meta.labels.keys().any(|k| OWNER_KEY.is_match(k)) {
        return Vec::new();
    }
    vec![Diagnostic::object(
        line_of(meta.line, object),
        "object has no label whose key matches \"owner\"",
    )]
}

/// `use-namespace`: a deployment-like object or `v1` Service whose
/// namespace is empty or `default` (case-insensitive).
pub(crate) fn use_namespace(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if !object.is_deployment_like() && !matches!(object.body, Body::Service(_)) {
        return Vec::new();
    }
    let meta = &object.metadata;
    let namespace = meta.namespace_raw();
    let message = if namespace.is_empty() {
        "object sets no namespace, so it lands in the default namespace".to_owned()
    } else if equal_fold(namespace, "default") {
        format!("object is in the {namespace:?} namespace")
    } else {
        return Vec::new();
    };
    vec![Diagnostic::object(line_of(meta.line, object), message)]
}
