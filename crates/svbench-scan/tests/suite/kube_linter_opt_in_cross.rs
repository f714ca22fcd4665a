//! Each opt-in cross-object check (spec E2 §1.5), enabled explicitly:
//! fires, does not fire, multiplicity and the edge cases of its table row.

use svbench_scan::kube_linter::{catalogue, lint};
use svbench_scan::{parse_documents, Analysis, Enabled, Finding, Limits, Severity};

const CROSS_CHECKS: &[&str] = &[
    "access-to-create-pods",
    "access-to-secrets",
    "cluster-admin-role-binding",
    "dangling-horizontalpodautoscaler",
    "dangling-ingress",
    "dangling-networkpolicy",
    "dangling-networkpolicypeer-podselector",
    "dangling-servicemonitor",
    "env-value-from",
    "hpa-minimum-three-replicas",
    "non-isolated-pod",
    "scc-deny-privileged-container",
    "wildcard-in-rules",
];

/// Lints `docs` (joined as a multi-document file) with only `check` enabled.
fn lint_only(docs: &[&str], check: &str) -> Analysis {
    let yaml = docs.join("---\n");
    let parsed = parse_documents(&yaml, &Limits::default());
    let a = lint("manifest.yaml", &parsed, &Enabled::only([check]));
    assert!(a.errors.is_empty(), "unexpected errors: {:?}", a.errors);
    a
}

/// How many findings `check` has on `docs`.
fn count(docs: &[&str], check: &str) -> usize {
    lint_only(docs, check).findings.len()
}

/// Object names of the findings, in order.
fn names(a: &Analysis) -> Vec<String> {
    a.findings
        .iter()
        .map(|f| match &f.object {
            Some(svbench_scan::ObjectRef::K8s { name, .. }) => name.clone().unwrap_or_default(),
            _ => String::new(),
        })
        .collect()
}

fn first(a: &Analysis) -> &Finding {
    a.findings.first().expect("a finding")
}

/// Decode errors of `yaml` under the default checks.
fn errors(yaml: &str) -> usize {
    let docs = parse_documents(yaml, &Limits::default());
    lint("m.yaml", &docs, &Enabled::defaults(catalogue()))
        .errors
        .len()
}

#[test]
fn cross_checks_are_opt_in() {
    let defaults = Enabled::defaults(catalogue());
    for check in CROSS_CHECKS {
        assert!(!defaults.contains(check), "{check} is on by default");
    }
    let all = Enabled::all(catalogue());
    let scc = "apiVersion: security.openshift.io/v1\nkind: SecurityContextConstraints\nmetadata:\n  name: s\nallowPrivilegedContainer: true\n";
    let docs = parse_documents(scc, &Limits::default());
    assert!(lint("m.yaml", &docs, &defaults).findings.is_empty());
    let a = lint("m.yaml", &docs, &all);
    let f = &a.findings[0];
    assert_eq!(f.rule_id, "scc-deny-privileged-container");
    assert_eq!(f.severity, Severity::High);
}

// ---- RBAC -------------------------------------------------------------------

fn role(kind: &str, name: &str, meta: &str, rules: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\n{meta}{rules}"
    )
}

/// A rule list with one rule.
fn rule(resources: &str, verbs: &str) -> String {
    format!("rules:\n- apiGroups: [\"\"]\n  resources: {resources}\n  verbs: {verbs}\n")
}

fn binding(kind: &str, ref_kind: &str, ref_name: &str, meta: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: b\n{meta}subjects:\n- kind: User\n  name: jane\n  apiGroup: rbac.authorization.k8s.io\nroleRef:\n  kind: {ref_kind}\n  name: {ref_name}\n  apiGroup: rbac.authorization.k8s.io\n"
    )
}

#[test]
fn access_to_secrets_through_role_bindings() {
    let secrets_role = role("Role", "r", "", &rule("[secrets]", "[get]"));
    let rb = binding("RoleBinding", "Role", "r", "");
    assert_eq!(count(&[&secrets_role, &rb], "access-to-secrets"), 1);
    let a = lint_only(&[&secrets_role, &rb], "access-to-secrets");
    assert_eq!(names(&a), ["b"], "reported on the binding");
    assert!(
        first(&a).message.contains("Role \"r\""),
        "{}",
        first(&a).message
    );
    assert_eq!(
        first(&a).line,
        Some(19),
        "the roleRef mapping (its first key)"
    );
    // Verbs and resources.
    for (resources, verbs, want) in [
        ("[secrets]", "[list, watch]", 1),
        ("[secrets]", "[delete]", 1),
        ("[secrets]", "[create]", 1),
        ("[secrets]", "[\"*\"]", 1),
        ("[\"*\"]", "[get]", 1),
        ("[secrets]", "[update, patch]", 0),
        ("[pods]", "[get]", 0),
        ("[secrets/status]", "[get]", 0),
    ] {
        let r = role("Role", "r", "", &rule(resources, verbs));
        assert_eq!(
            count(&[&r, &rb], "access-to-secrets"),
            want,
            "{resources} {verbs}"
        );
    }
    // The roleRef kind is ignored: a RoleBinding to "ClusterRole r" still
    // finds the Role r.
    let to_cluster = binding("RoleBinding", "ClusterRole", "r", "");
    assert_eq!(count(&[&secrets_role, &to_cluster], "access-to-secrets"), 1);
    // Missing roles are not flagged.
    assert_eq!(count(&[&rb], "access-to-secrets"), 0);
    // RoleBindings look for Roles, not ClusterRoles.
    let cr = role("ClusterRole", "r", "", &rule("[secrets]", "[get]"));
    assert_eq!(count(&[&cr, &rb], "access-to-secrets"), 0);
}

#[test]
fn access_to_secrets_namespaces_default_to_default() {
    let r = |meta: &str| role("Role", "r", meta, &rule("[secrets]", "[get]"));
    let rb = |meta: &str| binding("RoleBinding", "Role", "r", meta);
    let ns = |n: &str| format!("  namespace: {n}\n");
    assert_eq!(
        count(&[&r(&ns("default")), &rb("")], "access-to-secrets"),
        1
    );
    assert_eq!(
        count(&[&r(""), &rb(&ns("default"))], "access-to-secrets"),
        1
    );
    assert_eq!(
        count(&[&r(&ns("prod")), &rb(&ns("prod"))], "access-to-secrets"),
        1
    );
    assert_eq!(count(&[&r(&ns("prod")), &rb("")], "access-to-secrets"), 0);
}

#[test]
fn access_to_secrets_through_cluster_role_bindings_and_aggregation() {
    let crb = |name: &str| binding("ClusterRoleBinding", "ClusterRole", name, "");
    let secrets = rule("[secrets]", "[get]");
    let cr = role("ClusterRole", "reader", "", &secrets);
    assert_eq!(count(&[&cr, &crb("reader")], "access-to-secrets"), 1);
    // `cluster_admin` (any case) is skipped; `cluster-admin` is not.
    let ca = role("ClusterRole", "Cluster_Admin", "", &secrets);
    assert_eq!(count(&[&ca, &crb("Cluster_Admin")], "access-to-secrets"), 0);
    let real = role("ClusterRole", "cluster-admin", "", &secrets);
    assert_eq!(
        count(&[&real, &crb("cluster-admin")], "access-to-secrets"),
        1
    );
    // Aggregation: the bound role has no rules itself, two labelled roles
    // are aggregated, one of which reads secrets; a third is not selected.
    let agg = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: agg\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels:\n      example.com/aggregate: \"true\"\nrules: []\n";
    let labelled = |name: &str, rules: &str| {
        role(
            "ClusterRole",
            name,
            "  labels:\n    example.com/aggregate: \"true\"\n",
            rules,
        )
    };
    let a1 = labelled("a1", &secrets);
    let a2 = labelled("a2", &rule("[pods]", "[get]"));
    let a3 = labelled("a3", &rule("[\"*\"]", "[\"*\"]"));
    let other = role("ClusterRole", "other", "", &secrets);
    let a = lint_only(
        &[agg, &a1, &a2, &a3, &other, &crb("agg")],
        "access-to-secrets",
    );
    assert_eq!(a.findings.len(), 2, "{:#?}", a.findings);
    assert!(a.findings[0].message.contains("\"a1\""));
    assert!(a.findings[1].message.contains("\"a3\""));
    // Only rbac.authorization.k8s.io/v1 is read.
    let old = crb("reader").replace(
        "rbac.authorization.k8s.io/v1\n",
        "rbac.authorization.k8s.io/v1beta1\n",
    );
    assert_eq!(count(&[&cr, &old], "access-to-secrets"), 0);
}

#[test]
fn access_to_create_pods() {
    let rb = binding("RoleBinding", "Role", "r", "");
    let n = |resources: &str, verbs: &str| {
        count(
            &[&role("Role", "r", "", &rule(resources, verbs)), &rb],
            "access-to-create-pods",
        )
    };
    for res in [
        "pods",
        "deployments",
        "statefulsets",
        "replicasets",
        "cronjob",
        "jobs",
        "daemonsets",
    ] {
        assert_eq!(n(&format!("[{res}]"), "[create]"), 1, "{res}");
    }
    assert_eq!(
        n("[cronjobs]", "[create]"),
        0,
        "singular cronjob only (sic)"
    );
    assert_eq!(n("[pods]", "[get, list]"), 0);
    assert_eq!(n("[\"*\"]", "[\"*\"]"), 1);
    assert_eq!(n("[services]", "[create]"), 0);
    // One finding per role: two matching rules in one role are one finding.
    let two_rules = role(
        "Role",
        "r",
        "",
        "rules:\n- resources: [pods]\n  verbs: [create]\n- resources: [jobs]\n  verbs: [create]\n",
    );
    assert_eq!(count(&[&two_rules, &rb], "access-to-create-pods"), 1);
}

#[test]
fn cluster_admin_role_binding() {
    let n = |kind: &str, ref_kind: &str, name: &str| {
        count(
            &[&binding(kind, ref_kind, name, "")],
            "cluster-admin-role-binding",
        )
    };
    assert_eq!(n("ClusterRoleBinding", "ClusterRole", "cluster-admin"), 1);
    assert_eq!(n("ClusterRoleBinding", "ClusterRole", "admin"), 0);
    assert_eq!(n("ClusterRoleBinding", "Role", "cluster-admin"), 0);
    assert_eq!(n("RoleBinding", "ClusterRole", "cluster-admin"), 0);
}

#[test]
fn wildcard_in_rules_one_per_star() {
    let rules = "rules:\n- resources: [\"*\"]\n  verbs: [\"*\", get]\n- resources: [\"*\", pods]\n  verbs: [get]\n- resources: [pods]\n  verbs: [list]\n";
    for kind in ["Role", "ClusterRole"] {
        let a = lint_only(&[&role(kind, "r", "", rules)], "wildcard-in-rules");
        assert_eq!(a.findings.len(), 3, "{kind}");
        let lines: Vec<_> = a.findings.iter().filter_map(|f| f.line).collect();
        assert_eq!(lines, [6, 6, 8], "the rule's line");
    }
    let none = role("Role", "r", "", &rule("[pods]", "[get]"));
    assert_eq!(count(&[&none], "wildcard-in-rules"), 0);
    // Rule fields are type-checked.
    assert_eq!(errors(&role("Role", "r", "", "rules:\n- verbs: get\n")), 1);
}

// ---- network ---------------------------------------------------------------

fn deployment(name: &str, app: &str, namespace: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n{namespace}spec:\n  selector:\n    matchLabels:\n      app: {app}\n  template:\n    metadata:\n      labels:\n        app: {app}\n    spec:\n      containers:\n      - name: c\n        image: x:1\n"
    )
}

fn netpol(api: &str, spec: &str, namespace: &str) -> String {
    format!(
        "apiVersion: {api}\nkind: NetworkPolicy\nmetadata:\n  name: np\n{namespace}spec:\n{spec}"
    )
}

const NP: &str = "networking.k8s.io/v1";

#[test]
fn non_isolated_pod() {
    let web = deployment("web", "web", "");
    let sel = |app: &str| format!("  podSelector:\n    matchLabels:\n      app: {app}\n");
    assert_eq!(count(&[&web], "non-isolated-pod"), 1);
    assert_eq!(
        count(
            &[&web, &netpol(NP, "  podSelector: {}\n", "")],
            "non-isolated-pod"
        ),
        0
    );
    assert_eq!(
        count(&[&web, &netpol(NP, &sel("web"), "")], "non-isolated-pod"),
        0
    );
    assert_eq!(
        count(&[&web, &netpol(NP, &sel("db"), "")], "non-isolated-pod"),
        1
    );
    assert_eq!(
        count(
            &[
                &web,
                &netpol(NP, "  podSelector: {}\n", "  namespace: prod\n")
            ],
            "non-isolated-pod"
        ),
        1,
        "raw namespaces: absent is not prod"
    );
    assert_eq!(
        count(
            &[&web, &netpol(NP, "  policyTypes: [Ingress]\n", "")],
            "non-isolated-pod"
        ),
        0,
        "an absent podSelector is the empty one"
    );
    assert_eq!(
        count(
            &[
                &web,
                &netpol("extensions/v1beta1", "  podSelector: {}\n", "")
            ],
            "non-isolated-pod"
        ),
        1,
        "only networking.k8s.io/v1 policies are read"
    );
    // Not deployment-like: no finding.
    let svc =
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n    app: web\n";
    assert_eq!(count(&[svc], "non-isolated-pod"), 0);
    assert_eq!(
        count(
            &[&web.replace("apps/v1", "extensions/v1beta1")],
            "non-isolated-pod"
        ),
        0
    );
}

#[test]
fn dangling_network_policy() {
    let web = deployment("web", "web", "");
    let sel = |app: &str| format!("  podSelector:\n    matchLabels:\n      app: {app}\n");
    assert_eq!(
        count(
            &[&web, &netpol(NP, &sel("web"), "")],
            "dangling-networkpolicy"
        ),
        0
    );
    let a = lint_only(
        &[&web, &netpol(NP, &sel("db"), "")],
        "dangling-networkpolicy",
    );
    assert_eq!(a.findings.len(), 1);
    assert_eq!(
        first(&a).line,
        Some(24),
        "the podSelector mapping (its first key)"
    );
    assert_eq!(
        count(
            &[&web, &netpol(NP, "  podSelector: {}\n", "")],
            "dangling-networkpolicy"
        ),
        0
    );
    assert_eq!(
        count(
            &[&netpol(NP, "  podSelector: {}\n", "")],
            "dangling-networkpolicy"
        ),
        1,
        "the empty selector still needs a pod in the file"
    );
    assert_eq!(
        count(
            &[&web, &netpol(NP, &sel("web"), "  namespace: prod\n")],
            "dangling-networkpolicy"
        ),
        1
    );
    // Pod-bearing objects include extensions/v1beta1 workloads.
    let ext = web.replace("apps/v1", "extensions/v1beta1");
    assert_eq!(
        count(
            &[&ext, &netpol(NP, &sel("web"), "")],
            "dangling-networkpolicy"
        ),
        0
    );
    // Invalid selector: the check's own finding.
    assert_eq!(
        count(
            &[
                &web,
                &netpol(
                    NP,
                    "  podSelector:\n    matchLabels:\n      app: \"-x-\"\n",
                    ""
                )
            ],
            "dangling-networkpolicy"
        ),
        1
    );
    assert_eq!(errors(&netpol(NP, "  podSelector: []\n", "")), 1);
}

#[test]
fn dangling_network_policy_peer_pod_selector() {
    let web = deployment("web", "web", "");
    let spec = "  podSelector: {}\n  ingress:\n  - from:\n    - podSelector:\n        matchLabels:\n          app: web\n    - podSelector:\n        matchLabels:\n          app: ghost\n    - podSelector:\n        matchLabels:\n          app: ghost\n      namespaceSelector: {}\n    - ipBlock:\n        cidr: 10.0.0.0/8\n  egress:\n  - to:\n    - podSelector:\n        matchLabels:\n          app: ghost2\n";
    let a = lint_only(
        &[&web, &netpol(NP, spec, "")],
        "dangling-networkpolicypeer-podselector",
    );
    assert_eq!(a.findings.len(), 2, "{:#?}", a.findings);
    assert!(a.findings[0].message.contains("ingress"));
    assert!(a.findings[1].message.contains("egress"));
    assert_eq!(a.findings[0].line, Some(29), "the peer's line");
}

// ---- autoscalers -------------------------------------------------------------

fn hpa(api: &str, target_api: &str, kind: &str, name: &str, min: &str) -> String {
    format!(
        "apiVersion: {api}\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\nspec:\n  scaleTargetRef:\n    apiVersion: {target_api}\n    kind: {kind}\n    name: {name}\n{min}  maxReplicas: 10\n"
    )
}

#[test]
fn hpa_minimum_three_replicas() {
    for api in [
        "autoscaling/v1",
        "autoscaling/v2",
        "autoscaling/v2beta1",
        "autoscaling/v2beta2",
    ] {
        let n = |min: &str| {
            count(
                &[&hpa(api, "apps/v1", "Deployment", "web", min)],
                "hpa-minimum-three-replicas",
            )
        };
        assert_eq!(n(""), 1, "{api}: absent → 1");
        assert_eq!(n("  minReplicas: 2\n"), 1);
        assert_eq!(n("  minReplicas: 3\n"), 0);
    }
}

#[test]
fn dangling_horizontal_pod_autoscaler() {
    let web = deployment("web", "web", "");
    let n = |h: &str, others: &[&str]| {
        let mut docs: Vec<&str> = others.to_vec();
        docs.push(h);
        count(&docs, "dangling-horizontalpodautoscaler")
    };
    let v2 = "autoscaling/v2";
    assert_eq!(n(&hpa(v2, "apps/v1", "Deployment", "web", ""), &[&web]), 0);
    assert_eq!(n(&hpa(v2, "apps/v1", "Deployment", "web", ""), &[]), 1);
    assert_eq!(
        n(&hpa(v2, "apps/v1", "StatefulSet", "web", ""), &[&web]),
        1,
        "kind"
    );
    assert_eq!(
        n(&hpa(v2, "apps/v1beta2", "Deployment", "web", ""), &[&web]),
        1,
        "group/version"
    );
    assert_eq!(
        n(&hpa(v2, "apps/v1", "Deployment", "api", ""), &[&web]),
        1,
        "name"
    );
    assert_eq!(
        n(
            &hpa("autoscaling/v1", "apps/v1", "Deployment", "web", ""),
            &[&web]
        ),
        0
    );
    // Namespaces are not compared.
    let prod = deployment("web", "web", "  namespace: prod\n");
    assert_eq!(n(&hpa(v2, "apps/v1", "Deployment", "web", ""), &[&prod]), 0);
    // Core targets render "/v1" and always dangle.
    let rc = "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  selector:\n    app: rc\n  template:\n    metadata:\n      labels:\n        app: rc\n";
    assert_eq!(
        n(&hpa(v2, "v1", "ReplicationController", "rc", ""), &[rc]),
        1
    );
    let a = lint_only(
        &[&hpa(v2, "apps/v1", "Deployment", "x", "")],
        "dangling-horizontalpodautoscaler",
    );
    assert_eq!(first(&a).line, Some(7), "the scaleTargetRef line");
}

// ---- references ------------------------------------------------------------

fn service(name: &str, ports: &str, labels: &str, namespace: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n{namespace}{labels}spec:\n  selector:\n    app: web\n  ports:\n{ports}"
    )
}

fn ingress(api: &str, spec: &str) -> String {
    format!("apiVersion: {api}\nkind: Ingress\nmetadata:\n  name: ing\nspec:\n{spec}")
}

/// An Ingress rule path to service `name` with `port` (`number: 80` or
/// `name: http`).
fn path(name: &str, port: &str) -> String {
    format!("      - path: /\n        pathType: Prefix\n        backend:\n          service:\n            name: {name}\n            port:\n              {port}\n")
}

#[test]
fn dangling_ingress() {
    let web = service("web", "  - name: http\n    port: 80\n", "", "");
    let one = |p: &str| ingress(NP, &format!("  rules:\n  - http:\n      paths:\n{p}"));
    let n = |ing: &str, svc: &str| count(&[svc, ing], "dangling-ingress");
    assert_eq!(n(&one(&path("web", "number: 80")), &web), 0);
    assert_eq!(n(&one(&path("web", "name: http")), &web), 0);
    assert_eq!(n(&one(&path("web", "number: 81")), &web), 1, "port number");
    assert_eq!(n(&one(&path("web", "name: grpc")), &web), 1, "port name");
    assert_eq!(n(&one(&path("api", "number: 80")), &web), 1, "service name");
    let prod = service(
        "web",
        "  - name: http\n    port: 80\n",
        "",
        "  namespace: prod\n",
    );
    assert_eq!(n(&one(&path("web", "number: 80")), &prod), 1, "namespace");
    // One per dangling backend, default backend first.
    let spec = format!(
        "  defaultBackend:\n    service:\n      name: ghost\n      port:\n        number: 80\n  rules:\n  - http:\n      paths:\n{}{}{}",
        path("web", "number: 80"),
        path("ghost", "number: 80"),
        path("web", "number: 9")
    );
    let a = lint_only(&[&web, &ingress(NP, &spec)], "dangling-ingress");
    assert_eq!(a.findings.len(), 3, "{:#?}", a.findings);
    assert_eq!(
        a.findings[0].line,
        Some(18),
        "the default backend (its first key)"
    );
    // Only networking.k8s.io/v1 Ingresses are read.
    let old = ingress(
        "networking.k8s.io/v1beta1",
        "  backend:\n    serviceName: ghost\n    servicePort: 80\n",
    );
    assert_eq!(count(&[&old], "dangling-ingress"), 0);
    assert_eq!(
        count(
            &[&ingress(
                "extensions/v1beta1",
                "  backend:\n    serviceName: ghost\n    servicePort: 80\n"
            )],
            "dangling-ingress"
        ),
        0
    );
}

fn monitor(spec: &str) -> String {
    format!("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: m\nspec:\n  endpoints:\n  - port: http\n{spec}")
}

#[test]
fn dangling_service_monitor() {
    let svc = |ns: &str| service("web", "  - port: 80\n", "  labels:\n    team: web\n", ns);
    let web = svc("");
    let by_label = |team: &str| format!("  selector:\n    matchLabels:\n      team: {team}\n");
    let n = |m: &str, s: &str| count(&[s, m], "dangling-servicemonitor");
    assert_eq!(n(&monitor(""), &web), 1, "no selectors at all");
    assert_eq!(n(&monitor(&by_label("web")), &web), 0);
    assert_eq!(n(&monitor(&by_label("db")), &web), 1);
    let names = |ns: &str| format!("  namespaceSelector:\n    matchNames: [{ns}]\n");
    assert_eq!(
        n(
            &monitor(&format!("{}{}", by_label("web"), names("prod"))),
            &web
        ),
        1
    );
    assert_eq!(
        n(
            &monitor(&format!("{}{}", by_label("web"), names("prod"))),
            &svc("  namespace: prod\n")
        ),
        0
    );
    assert_eq!(
        n(&monitor(&names("prod")), &svc("  namespace: prod\n")),
        0,
        "namespace only"
    );
    assert_eq!(
        n(&monitor("  namespaceSelector:\n    any: true\n"), &web),
        0
    );
    assert_eq!(
        n(
            &monitor(&format!(
                "{}  namespaceSelector:\n    any: true\n",
                by_label("db")
            )),
            &web
        ),
        1
    );
}

fn secret(name: &str, data: &str) -> String {
    format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n{data}")
}

fn config_map(name: &str, data: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{data}")
}

/// A Pod reading env var `V` through `source` (indented under `valueFrom`).
fn env_pod(source: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x:1\n    env:\n    - name: V\n      valueFrom:\n{source}")
}

fn key_ref(kind: &str, name: &str, key: &str, extra: &str) -> String {
    format!("        {kind}:\n          name: {name}\n          key: {key}\n{extra}")
}

#[test]
fn env_value_from_secrets_and_config_maps() {
    let s = secret(
        "db",
        "data:\n  password: cGFzc3dvcmQ=\nstringData:\n  user: admin\n",
    );
    let cm = config_map("cfg", "data:\n  mode: fast\nbinaryData:\n  blob: AAEC\n");
    let n = |src: &str| count(&[&s, &cm, &env_pod(src)], "env-value-from");
    assert_eq!(n(&key_ref("secretKeyRef", "db", "password", "")), 0);
    assert_eq!(
        n(&key_ref("secretKeyRef", "db", "user", "")),
        0,
        "stringData keys count"
    );
    assert_eq!(
        n(&key_ref("secretKeyRef", "db", "token", "")),
        1,
        "missing key"
    );
    assert_eq!(
        n(&key_ref("secretKeyRef", "ghost", "password", "")),
        1,
        "missing secret"
    );
    assert_eq!(
        n(&key_ref(
            "secretKeyRef",
            "ghost",
            "k",
            "          optional: true\n"
        )),
        0
    );
    assert_eq!(
        n(&key_ref(
            "secretKeyRef",
            "ghost",
            "k",
            "          optional: false\n"
        )),
        1
    );
    assert_eq!(n(&key_ref("configMapKeyRef", "cfg", "mode", "")), 0);
    assert_eq!(
        n(&key_ref("configMapKeyRef", "cfg", "blob", "")),
        0,
        "binaryData keys count"
    );
    assert_eq!(n(&key_ref("configMapKeyRef", "cfg", "other", "")), 1);
    assert_eq!(
        n(&key_ref("configMapKeyRef", "db", "password", "")),
        1,
        "a Secret is not a ConfigMap"
    );
    assert_eq!(
        n("        fieldRef:\n          fieldPath: metadata.name\n"),
        0
    );
    // Raw namespaces.
    let prod = s.replace("  name: db\n", "  name: db\n  namespace: prod\n");
    assert_eq!(
        count(
            &[
                &prod,
                &env_pod(&key_ref("secretKeyRef", "db", "password", ""))
            ],
            "env-value-from"
        ),
        1
    );
    let a = lint_only(
        &[&env_pod(&key_ref("secretKeyRef", "ghost", "k", ""))],
        "env-value-from",
    );
    let f = first(&a);
    assert_eq!(f.container.as_deref(), Some("c"));
    assert_eq!(f.line, Some(10), "the env entry's line");
    assert!(f.message.contains("container \"c\""), "{}", f.message);
}

#[test]
fn secret_and_config_map_data_are_type_checked() {
    assert_eq!(errors(&secret("s", "data:\n  k: not base64!\n")), 1);
    assert_eq!(errors(&secret("s", "data:\n  k: YWJj\n")), 0);
    assert_eq!(errors(&secret("s", "data:\n  k: YWI=\n")), 0);
    assert_eq!(
        errors(&secret("s", "data:\n  k: YWI\n")),
        1,
        "padding is required"
    );
    assert_eq!(errors(&secret("s", "data:\n  k: \"\"\n")), 0);
    assert_eq!(errors(&secret("s", "stringData:\n  k: 5\n")), 1);
    assert_eq!(errors(&config_map("c", "data:\n  port: 8080\n")), 1);
    assert_eq!(errors(&config_map("c", "data:\n  port: \"8080\"\n")), 0);
}

#[test]
fn scc_deny_privileged_container() {
    let scc = |v: &str| {
        format!("apiVersion: security.openshift.io/v1\nkind: SecurityContextConstraints\nmetadata:\n  name: s\nallowPrivilegedContainer: {v}\n")
    };
    assert_eq!(count(&[&scc("true")], "scc-deny-privileged-container"), 1);
    assert_eq!(count(&[&scc("false")], "scc-deny-privileged-container"), 0);
    assert_eq!(errors(&scc("\"yes\"")), 1);
}
