//! Privilege grants: RBAC bindings that reach secrets or workload creation,
//! cluster-admin bindings, wildcard rules, and OpenShift SCCs allowing
//! privileged containers.

use crate::k8s::kinds::{BindingBody, PolicyRule};
use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::line_of;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// Whether the object is an `rbac.authorization.k8s.io/v1` object (the
/// only RBAC version kube-linter 0.7.6's checks read).
fn is_rbac_v1(object: &K8sObject) -> bool {
    object.gvk.group == RBAC_GROUP && object.gvk.version == "v1"
}

/// The namespace RBAC lookups compare: absent or empty is `default`.
fn rbac_namespace(object: &K8sObject) -> &str {
    match object.metadata.namespace_raw() {
        "" => "default",
        ns => ns,
    }
}

/// What an access check looks for in a role's rules.
struct Access {
    /// What the access amounts to, for messages.
    what: &'static str,
    /// Resource names it covers (`*` always counts too).
    resources: &'static [&'static str],
    /// Verbs it covers (`*` always counts too).
    verbs: &'static [&'static str],
}

const SECRETS: Access = Access {
    what: "access to secrets",
    resources: &["secrets"],
    verbs: &["get", "list", "delete", "create", "watch"],
};

/// kube-linter's list has the singular `cronjob` (sic): `cronjobs` is not
/// covered, as in 0.7.6.
const CREATE_PODS: Access = Access {
    what: "the right to create workloads",
    resources: &[
        "pods",
        "deployments",
        "statefulsets",
        "replicasets",
        "cronjob",
        "jobs",
        "daemonsets",
    ],
    verbs: &["create"],
};

/// The first rule granting `access`, if any.
fn granting_rule<'a>(rules: &'a [PolicyRule], access: &Access) -> Option<&'a PolicyRule> {
    rules.iter().find(|rule| {
        rule.resources
            .iter()
            .any(|r| r == "*" || access.resources.contains(&r.as_str()))
            && rule
                .verbs
                .iter()
                .any(|v| v == "*" || access.verbs.contains(&v.as_str()))
    })
}

/// The roles a binding grants, as `(role object, its rules)`, in file
/// order: for a RoleBinding, the Roles named by `roleRef.name` in its
/// namespace (roleRef kind ignored, as kube-linter does); for a
/// ClusterRoleBinding, the ClusterRoles of that name (except one called
/// `cluster_admin`, any case) and the ClusterRoles their `aggregationRule`
/// selects. Missing roles are not reported.
fn bound_roles<'a>(
    ctx: &Context<'a>,
    binding: &K8sObject,
) -> Vec<(&'a K8sObject, &'a [PolicyRule])> {
    let rbac = ctx.objects.iter().filter(|o| is_rbac_v1(o));
    match &binding.body {
        Body::RoleBinding(b) => {
            let namespace = rbac_namespace(binding);
            rbac.filter_map(|o| match &o.body {
                Body::Role(role)
                    if o.metadata.name_raw() == b.role_ref.name
                        && rbac_namespace(o) == namespace =>
                {
                    Some((o, role.rules.as_slice()))
                }
                _ => None,
            })
            .collect()
        }
        Body::ClusterRoleBinding(b) => {
            if b.role_ref.name.eq_ignore_ascii_case("cluster_admin") {
                return Vec::new();
            }
            let cluster_roles: Vec<_> = rbac
                .filter_map(|o| match &o.body {
                    Body::ClusterRole(role) => Some((o, role)),
                    _ => None,
                })
                .collect();
            let mut out: Vec<(&K8sObject, &[PolicyRule])> = Vec::new();
            let mut add = |o: &'a K8sObject, rules: &'a [PolicyRule]| {
                if !out.iter().any(|(seen, _)| std::ptr::eq(*seen, o)) {
                    out.push((o, rules));
                }
            };
            for (o, role) in &cluster_roles {
                if o.metadata.name_raw() != b.role_ref.name {
                    continue;
                }
                add(o, &role.rules);
                let selectors = role
                    .aggregation_rule
                    .iter()
                    .flat_map(|a| &a.cluster_role_selectors)
                    .filter_map(|s| s.to_selector().ok());
                for selector in selectors {
                    for (other, other_role) in &cluster_roles {
                        if selector.matches(&other.metadata.labels)
                            && !other
                                .metadata
                                .name_raw()
                                .eq_ignore_ascii_case("cluster_admin")
                        {
                            add(other, &other_role.rules);
                        }
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// One finding per role the binding grants that has a rule matching
/// `access`.
fn access_check(ctx: &Context<'_>, binding: &K8sObject, access: &Access) -> Vec<Diagnostic> {
    if !is_rbac_v1(binding) {
        return Vec::new();
    }
    let Some(role_ref) = binding_body(binding).map(|b| &b.role_ref) else {
        return Vec::new();
    };
    bound_roles(ctx, binding)
        .into_iter()
        .filter_map(|(role, rules)| {
            let rule = granting_rule(rules, access)?;
            Some(Diagnostic::object(
                line_of(role_ref.line, binding),
                format!(
                    "{} grants {} {:?}, which gives {} (verbs [{}] on resources [{}])",
                    binding.gvk.kind,
                    role.gvk.kind,
                    role.metadata.name_raw(),
                    access.what,
                    rule.verbs.join(", "),
                    rule.resources.join(", "),
                ),
            ))
        })
        .collect()
}

fn binding_body(object: &K8sObject) -> Option<&BindingBody> {
    match &object.body {
        Body::RoleBinding(b) | Body::ClusterRoleBinding(b) => Some(b),
        _ => None,
    }
}

/// `access-to-secrets`.
pub(crate) fn access_to_secrets(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    access_check(ctx, object, &SECRETS)
}

/// `access-to-create-pods`.
pub(crate) fn access_to_create_pods(ctx: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    access_check(ctx, object, &CREATE_PODS)
}

/// `cluster-admin-role-binding`: a ClusterRoleBinding to the ClusterRole
/// `cluster-admin`.
pub(crate) fn cluster_admin_role_binding(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    match &object.body {
        Body::ClusterRoleBinding(b)
            if is_rbac_v1(object)
                && b.role_ref.kind == "ClusterRole"
                && b.role_ref.name == "cluster-admin" =>
        {
            vec![Diagnostic::object(
                line_of(b.role_ref.line, object),
                "ClusterRoleBinding grants cluster-admin: full control of the cluster",
            )]
        }
        _ => Vec::new(),
    }
}

/// `wildcard-in-rules`: per Role/ClusterRole rule, one finding per `*` in
/// its resources and one per `*` in its verbs.
pub(crate) fn wildcard_in_rules(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let rules = match &object.body {
        Body::Role(r) if is_rbac_v1(object) => &r.rules,
        Body::ClusterRole(r) if is_rbac_v1(object) => &r.rules,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for rule in rules {
        let line = line_of(rule.line, object);
        for field in ["resources", "verbs"] {
            let values = if field == "resources" {
                &rule.resources
            } else {
                &rule.verbs
            };
            for _ in values.iter().filter(|v| *v == "*") {
                out.push(Diagnostic::object(
                    line,
                    format!(
                        "{} rule uses the wildcard \"*\" in {field}",
                        object.gvk.kind
                    ),
                ));
            }
        }
    }
    out
}

/// `scc-deny-privileged-container`: an SCC with
/// `allowPrivilegedContainer: true`.
pub(crate) fn scc_deny_privileged_container(
    _: &Context<'_>,
    object: &K8sObject,
) -> Vec<Diagnostic> {
    match &object.body {
        Body::Scc(scc) if scc.allow_privileged_container => vec![Diagnostic::object(
            object.line,
            "SecurityContextConstraints allow privileged containers (allowPrivilegedContainer: true)",
        )],
        _ => Vec::new(),
    }
}
