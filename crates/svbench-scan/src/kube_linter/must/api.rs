//! API version and Job lifecycle checks.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};

static EXTENSIONS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("extensions").expect("literal regex is valid"));
static V1BETA: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("v1beta.+").expect("literal regex is valid"));

/// `no-extensions-v1beta`: the `extensions/v1beta*` APIs were removed in
/// Kubernetes 1.16/1.22; such objects no longer apply.
pub(crate) fn no_extensions_v1beta(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let g = &object.gvk;
    if EXTENSIONS.is_match(&g.group) && V1BETA.is_match(&g.version) {
        vec![Diagnostic::object(
            api_version_line(object),
            format!("{} uses the removed API {}/{}", g.kind, g.group, g.version),
        )]
    } else {
        Vec::new()
    }
}

/// The line of the object's `apiVersion` key (the object's line when the
/// mapping does not write it, as in a List item that inherits nothing).
fn api_version_line(object: &K8sObject) -> usize {
    object
        .node
        .as_mapping()
        .and_then(|pairs| pairs.iter().find(|(k, _)| k.as_str() == Some("apiVersion")))
        .map_or(object.line, |(k, _)| k.line)
}

/// `job-ttl-seconds-after-finished`: a standalone `batch/v1` Job without a
/// TTL is never cleaned up; a TTL inside a CronJob's job template fights the
/// CronJob's own history limits.
pub(crate) fn job_ttl(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    if object.api_version != "batch/v1" {
        return Vec::new();
    }
    match &object.body {
        Body::Job(spec) if spec.ttl_seconds_after_finished.is_none() => {
            vec![Diagnostic::object(
                object.line,
                "standalone Job does not set ttlSecondsAfterFinished",
            )]
        }
        Body::CronJob(spec) if spec.job_template.spec.ttl_seconds_after_finished.is_some() => {
            vec![Diagnostic::object(
                spec.job_template
                    .spec
                    .field_line("ttlSecondsAfterFinished")
                    .unwrap_or(object.line),
                "CronJob's job template sets ttlSecondsAfterFinished",
            )]
        }
        _ => Vec::new(),
    }
}
