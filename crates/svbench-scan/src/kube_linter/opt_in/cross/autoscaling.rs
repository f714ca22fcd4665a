//! HorizontalPodAutoscalers: targets that do not exist in the file and
//! floors too low to survive a node loss.

use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

const MIN_REPLICAS: i32 = 3;

/// `hpa-minimum-three-replicas`: `minReplicas` (absent → 1) below 3, any
/// `autoscaling` version.
pub(crate) fn hpa_minimum_three_replicas(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    match &object.body {
        Body::Hpa(hpa) if hpa.min_replicas.unwrap_or(1) < MIN_REPLICAS => {
            vec![Diagnostic::object(
                object.line,
                format!(
                    "HorizontalPodAutoscaler minReplicas is {}, below {MIN_REPLICAS}",
                    hpa.min_replicas.unwrap_or(1)
                ),
            )]
        }
        _ => Vec::new(),
    }
}

/// `dangling-horizontalpodautoscaler`: no pod-bearing object of the file
/// matches `scaleTargetRef` by name, kind and `group/version`. The group
/// version is rendered `group/version` even for the core group (`/v1`), as
/// kube-linter 0.7.6 does, so core targets always dangle. Namespaces are not
/// compared.
pub(crate) fn dangling_hpa(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Body::Hpa(hpa) = &object.body else {
        return Vec::new();
    };
    let target = &hpa.scale_target_ref;
    let found = ctx.objects.iter().any(|o| {
        o.pod_template().is_some()
            && o.metadata.name_raw() == target.name
            && o.gvk.kind == target.kind
            && format!("{}/{}", o.gvk.group, o.gvk.version) == target.api_version
    });
    if found {
        Vec::new()
    } else {
        vec![Diagnostic::object(
            line_of(target.line, object),
            format!(
                "HorizontalPodAutoscaler targets {} {:?} ({:?}), which is not defined",
                target.kind, target.name, target.api_version
            ),
        )]
    }
}
