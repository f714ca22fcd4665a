//! Service account references: the deprecated field and accounts that do not
//! exist (pods then fail to start, or an admin creates one with unknown rights).

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};

/// `deprecated-service-account-field`: `serviceAccount` set and different
/// from `serviceAccountName`.
pub(crate) fn deprecated_field(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    match object.pod_spec() {
        Some(spec)
            if !spec.service_account.is_empty()
                && spec.service_account != spec.service_account_name =>
        {
            vec![Diagnostic::object(
                spec.field_line("serviceAccount").unwrap_or(object.line),
                format!(
                    "pod uses the deprecated serviceAccount field ({:?}); use serviceAccountName",
                    spec.service_account
                ),
            )]
        }
        _ => Vec::new(),
    }
}

/// `non-existent-service-account`: the effective service account (other
/// than `default`) has no `v1` ServiceAccount of that name in the same raw
/// namespace in the file.
pub(crate) fn non_existent(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let (sa, key) = if spec.service_account_name.is_empty() {
        (&spec.service_account, "serviceAccount")
    } else {
        (&spec.service_account_name, "serviceAccountName")
    };
    if sa.is_empty() || sa == "default" {
        return Vec::new();
    }
    let namespace = object.metadata.namespace_raw();
    let exists = ctx.objects.iter().any(|o| {
        o.gvk.group.is_empty()
            && o.gvk.version == "v1"
            && o.gvk.kind == "ServiceAccount"
            && o.metadata.name_raw() == sa
            && o.metadata.namespace_raw() == namespace
    });
    if exists {
        Vec::new()
    } else {
        vec![Diagnostic::object(
            spec.field_line(key).unwrap_or(object.line),
            format!("service account {sa:?} is not defined in namespace {namespace:?}"),
        )]
    }
}
