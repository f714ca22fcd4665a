//! References by name or label to objects that are not in the file:
//! Ingress backends, ServiceMonitor selectors, and the Secrets/ConfigMaps
//! environment variables read.

use crate::k8s::kinds::{IngressBackend, IngressServiceBackend};
use crate::k8s::types::KeyRef;
use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::{line_of, same_namespace};

/// The `v1` Services of the object's raw namespace.
fn services_near<'a>(
    ctx: &Context<'a>,
    object: &'a K8sObject,
) -> impl Iterator<Item = (&'a K8sObject, &'a crate::k8s::types::ServiceSpec)> {
    ctx.objects.iter().filter_map(move |o| match &o.body {
        Body::Service(s) if o.api_version == "v1" && same_namespace(o, object) => Some((o, s)),
        _ => None,
    })
}

/// The port a backend names, for messages.
fn show_backend(b: &IngressServiceBackend) -> String {
    if b.port.number != 0 {
        format!("{:?} port {}", b.name, b.port.number)
    } else {
        format!("{:?} port {:?}", b.name, b.port.name)
    }
}

/// `dangling-ingress`: per service backend (`defaultBackend`, then each
/// rule path's) naming a Service of the Ingress's raw namespace that does
/// not exist or has no port with that number (or, without a number, that
/// name). `networking.k8s.io/v1` only.
pub(crate) fn dangling_ingress(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Body::Ingress(spec) = &object.body else {
        return Vec::new();
    };
    let backends: Vec<&IngressBackend> = spec
        .default_backend
        .iter()
        .chain(
            spec.rules
                .iter()
                .filter_map(|r| r.http.as_ref())
                .flat_map(|h| h.paths.iter().map(|p| &p.backend)),
        )
        .collect();
    let mut out = Vec::new();
    for backend in backends {
        let Some(svc) = &backend.service else {
            continue;
        };
        let found = services_near(ctx, object).any(|(o, s)| {
            o.metadata.name_raw() == svc.name
                && (svc.port.number == 0 && svc.port.name.is_empty()
                    || s.ports.iter().any(|p| {
                        if svc.port.number == 0 {
                            p.name == svc.port.name
                        } else {
                            p.port == svc.port.number
                        }
                    }))
        });
        if !found {
            out.push(Diagnostic::object(
                line_of(backend.line, object),
                format!(
                    "Ingress backend service {} is not defined in namespace {:?}",
                    show_backend(svc),
                    object.metadata.namespace_raw()
                ),
            ));
        }
    }
    out
}

/// `dangling-servicemonitor`: a ServiceMonitor with neither a label selector
/// nor a namespace selector, or one that selects no `v1` Service of the
/// file. The namespace constraint applies when `namespaceSelector` lists
/// names (and `any` is false); the label selector always applies (empty
/// selects every Service).
pub(crate) fn dangling_service_monitor(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Body::ServiceMonitor(spec) = &object.body else {
        return Vec::new();
    };
    let report = |msg: String| vec![Diagnostic::object(object.line, msg)];
    let selector = match spec.selector.to_selector() {
        Ok(s) => s,
        Err(e) => return report(format!("ServiceMonitor selector is invalid: {e}")),
    };
    let ns = &spec.namespace_selector;
    if spec.selector.is_empty() && ns.match_names.is_empty() && !ns.any {
        return report("ServiceMonitor has no selector, so it selects no Service".to_owned());
    }
    let found = ctx.objects.iter().any(|o| match &o.body {
        Body::Service(_) if o.api_version == "v1" => {
            let namespace_ok = ns.any
                || ns.match_names.is_empty()
                || ns
                    .match_names
                    .iter()
                    .any(|n| n == o.metadata.namespace_raw());
            namespace_ok && selector.matches(&o.metadata.labels)
        }
        _ => false,
    });
    if found {
        Vec::new()
    } else {
        report("ServiceMonitor selects no Service defined in the file".to_owned())
    }
}

/// What a non-optional key reference misses, if anything: the object
/// (`Secret`/`ConfigMap` of that name in the pod's raw namespace) or its key.
fn missing_reference(
    ctx: &Context<'_>,
    object: &K8sObject,
    kind: &str,
    reference: &KeyRef,
) -> Option<String> {
    if reference.optional == Some(true) {
        return None;
    }
    let candidates: Vec<&K8sObject> = ctx
        .objects
        .iter()
        .filter(|o| {
            o.api_version == "v1"
                && o.gvk.kind == kind
                && o.metadata.name_raw() == reference.name
                && same_namespace(o, object)
        })
        .collect();
    if candidates.is_empty() {
        return Some(format!(
            "{kind} {:?}, which is not defined in namespace {:?}",
            reference.name,
            object.metadata.namespace_raw()
        ));
    }
    let has_key = candidates.iter().any(|o| match &o.body {
        Body::Secret(s) => s.has_key(&reference.key),
        Body::ConfigMap(c) => c.has_key(&reference.key),
        _ => false,
    });
    if has_key {
        None
    } else {
        Some(format!(
            "key {:?} of {kind} {:?}, which has no such key",
            reference.key, reference.name
        ))
    }
}

/// `env-value-from` (after 0.7.6): per container (all containers), per env
/// entry whose non-optional `secretKeyRef`/`configMapKeyRef` names a
/// Secret/ConfigMap, or a key of one, absent from the file.
pub(crate) fn env_value_from(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for var in &c.env {
            let Some(source) = &var.value_from else {
                continue;
            };
            let refs = [
                ("Secret", &source.secret_key_ref),
                ("ConfigMap", &source.config_map_key_ref),
            ];
            for (kind, reference) in refs {
                let Some(reference) = reference else {
                    continue;
                };
                if let Some(missing) = missing_reference(ctx, object, kind, reference) {
                    out.push(Diagnostic::container(
                        line_of(var.line, object),
                        &c.name,
                        format!(
                            "container {:?} reads the environment variable {:?} from {missing}",
                            c.name, var.name
                        ),
                    ));
                }
            }
        }
    }
    out
}
