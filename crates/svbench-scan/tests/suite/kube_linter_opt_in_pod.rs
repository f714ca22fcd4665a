//! Each opt-in per-object / per-pod / per-container check (spec E2 §1.5):
//! fires, does not fire, multiplicity and the table's edge cases. Opt-in
//! checks are off by default, so every test enables its check explicitly.

use svbench_scan::kube_linter::{catalogue, implemented_checks, lint};
use svbench_scan::{parse_documents, Analysis, Enabled, Finding, Limits};

/// Lints `yaml` with only `check` enabled; decoding must succeed.
fn lint_with(check: &str, yaml: &str) -> Analysis {
    let docs = parse_documents(yaml, &Limits::default());
    let a = lint("manifest.yaml", &docs, &Enabled::only([check]));
    assert!(a.errors.is_empty(), "unexpected errors: {:?}", a.errors);
    assert!(
        a.findings.iter().all(|f| f.rule_id == check),
        "only {check} runs"
    );
    a
}

/// The findings of `check` on `yaml`.
fn hits(check: &str, yaml: &str) -> Vec<Finding> {
    lint_with(check, yaml).findings
}

/// How many findings `check` has on `yaml`.
fn count(check: &str, yaml: &str) -> usize {
    hits(check, yaml).len()
}

/// Containers named by the findings of `check`, in order.
fn containers(check: &str, yaml: &str) -> Vec<String> {
    hits(check, yaml)
        .into_iter()
        .map(|f| f.container.unwrap_or_default())
        .collect()
}

/// A Pod with the given pod-spec body (indented by 2 under `spec:`).
fn pod(spec: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n{spec}")
}

/// A Pod with one container `c` whose extra fields are `ctr` (indented by 4).
fn pod_ctr(ctr: &str) -> String {
    pod(&format!(
        "  containers:\n  - name: c\n    image: x:1\n{ctr}"
    ))
}

/// A workload of `api_version`/`kind` with `spec_extra` (indented by 2) and
/// a template holding one container (no selector: selectors are a plain map
/// for some kinds, and no check here reads them).
fn workload(api_version: &str, kind: &str, spec_extra: &str) -> String {
    format!(
        "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: w\nspec:\n{spec_extra}  template:\n    metadata:\n      labels:\n        app: w\n    spec:\n      containers:\n      - name: c\n        image: x:1\n"
    )
}

/// A Service of the given type line (`""` for none).
fn service(type_line: &str) -> String {
    format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n{type_line}  ports:\n  - port: 80\n")
}

#[test]
fn every_check_of_this_group_is_implemented_and_opt_in() {
    let implemented = implemented_checks();
    let defaults = Enabled::defaults(catalogue());
    for check in [
        "exposed-services",
        "default-service-account",
        "writable-host-mount",
        "unsafe-proc-mount",
        "privileged-ports",
        "read-secret-from-env-var",
        "use-namespace",
        "minimum-three-replicas",
        "no-liveness-probe",
        "no-readiness-probe",
        "no-node-affinity",
        "no-rolling-update-strategy",
        "dnsconfig-options",
        "priority-class-name",
        "restart-policy",
        "required-annotation-email",
        "required-label-owner",
        "sorted-keys",
    ] {
        assert!(implemented.contains(&check), "{check} is implemented");
        assert!(!defaults.contains(check), "{check} is off by default");
    }
    assert!(
        !implemented.contains(&"schema-validation"),
        "deferred: needs bundled schemas"
    );
}

#[test]
fn opt_in_checks_do_not_run_by_default() {
    let docs = parse_documents(&service("  type: NodePort\n"), &Limits::default());
    let a = lint("m.yaml", &docs, &Enabled::defaults(catalogue()));
    assert!(a.findings.iter().all(|f| f.rule_id != "exposed-services"));
}

#[test]
fn exposed_services_node_port_and_load_balancer_case_insensitive() {
    let n = |t: &str| count("exposed-services", &service(t));
    assert_eq!(n("  type: NodePort\n"), 1);
    assert_eq!(n("  type: LoadBalancer\n"), 1);
    assert_eq!(n("  type: nodeport\n"), 1, "case-insensitive");
    assert_eq!(n("  type: LOADBALANCER\n"), 1);
    assert_eq!(n("  type: ClusterIP\n"), 0);
    assert_eq!(n("  type: ExternalName\n"), 0);
    assert_eq!(n(""), 0, "unset type is ClusterIP");
    let f = &hits("exposed-services", &service("  type: NodePort\n"))[0];
    assert_eq!(f.line, Some(6), "the spec's line");
    assert!(f.container.is_none());
    // Only Services are looked at.
    assert_eq!(count("exposed-services", &pod_ctr("")), 0);
}

#[test]
fn default_service_account() {
    let n = |spec: &str| {
        count(
            "default-service-account",
            &pod(&format!(
                "{spec}  containers:\n  - name: c\n    image: x:1\n"
            )),
        )
    };
    assert_eq!(n(""), 1, "no account set");
    assert_eq!(n("  serviceAccountName: default\n"), 1);
    assert_eq!(
        n("  serviceAccount: default\n"),
        1,
        "the deprecated field counts"
    );
    assert_eq!(n("  serviceAccountName: app\n"), 0);
    assert_eq!(n("  serviceAccount: app\n"), 0);
    assert_eq!(
        n("  serviceAccountName: default\n  serviceAccount: app\n"),
        1,
        "serviceAccountName wins"
    );
    assert_eq!(n("  serviceAccountName: Default\n"), 0, "exact match");
    assert_eq!(n("  automountServiceAccountToken: false\n"), 0);
    assert_eq!(n("  automountServiceAccountToken: true\n"), 1);
    // Deployment-like objects only, one finding per object.
    assert_eq!(count("default-service-account", &service("")), 0);
    assert_eq!(
        count(
            "default-service-account",
            &workload("apps/v1", "Deployment", "")
        ),
        1
    );
    assert_eq!(
        count(
            "default-service-account",
            &workload("extensions/v1beta1", "Deployment", "")
        ),
        0,
        "extensions workloads are not deployment-like"
    );
}

#[test]
fn writable_host_mount_per_container_and_mount() {
    let yaml = pod(
        "  volumes:\n  - name: host\n    hostPath:\n      path: /var/log\n  - name: ro\n    hostPath:\n      path: /etc/cfg\n  - name: scratch\n    emptyDir: {}\n  initContainers:\n  - name: init\n    image: x:1\n    volumeMounts:\n    - name: host\n      mountPath: /logs\n  containers:\n  - name: a\n    image: x:1\n    volumeMounts:\n    - name: host\n      mountPath: /logs\n    - name: host\n      mountPath: /logs2\n    - name: ro\n      mountPath: /cfg\n      readOnly: true\n    - name: scratch\n      mountPath: /tmp\n  - name: b\n    image: x:1\n    volumeMounts:\n    - name: ro\n      mountPath: /cfg\n",
    );
    let found = hits("writable-host-mount", &yaml);
    assert_eq!(
        containers("writable-host-mount", &yaml),
        ["init", "a", "a", "b"],
        "init containers count; each writable hostPath mount is one finding; emptyDir never"
    );
    assert_eq!(found[1].line, Some(25), "the mount's line");
    assert!(
        found[1].message.contains("container \"a\"") && found[1].message.contains("/var/log"),
        "{}",
        found[1].message
    );
    let none = pod(
        "  volumes:\n  - name: host\n    hostPath:\n      path: /var/log\n  containers:\n  - name: a\n    image: x:1\n    volumeMounts:\n    - name: host\n      mountPath: /logs\n      readOnly: true\n    - name: missing\n      mountPath: /m\n",
    );
    assert_eq!(count("writable-host-mount", &none), 0);
}

#[test]
fn unsafe_proc_mount_is_case_insensitive() {
    let n = |pm: &str| {
        count(
            "unsafe-proc-mount",
            &pod_ctr(&format!("    securityContext:\n      procMount: {pm}\n")),
        )
    };
    assert_eq!(n("Unmasked"), 1);
    assert_eq!(n("unmasked"), 1);
    assert_eq!(n("UNMASKED"), 1);
    assert_eq!(n("Default"), 0);
    assert_eq!(count("unsafe-proc-mount", &pod_ctr("")), 0);
    let f = &hits(
        "unsafe-proc-mount",
        &pod_ctr("    securityContext:\n      procMount: Unmasked\n"),
    )[0];
    assert_eq!(f.container.as_deref(), Some("c"));
    assert!(f.message.contains("container \"c\""), "{}", f.message);
    assert_eq!(f.line, Some(10), "the securityContext's line");
}

#[test]
fn privileged_ports_one_per_port_in_1_to_1023() {
    let yaml = pod_ctr(
        "    ports:\n    - containerPort: 80\n    - containerPort: 443\n    - containerPort: 1023\n    - containerPort: 1024\n    - containerPort: 8080\n    - containerPort: 0\n",
    );
    let found = hits("privileged-ports", &yaml);
    assert_eq!(found.len(), 3, "80, 443 and 1023; not 0, 1024 or 8080");
    assert_eq!(found[0].line, Some(10), "the port's line");
    assert!(found[0].message.contains("80"), "{}", found[0].message);
    assert_eq!(count("privileged-ports", &pod_ctr("")), 0);
    assert_eq!(
        containers(
            "privileged-ports",
            &pod("  initContainers:\n  - name: i\n    image: x:1\n    ports:\n    - containerPort: 22\n  containers:\n  - name: c\n    image: x:1\n"),
        ),
        ["i"]
    );
}

#[test]
fn read_secret_from_env_var_per_entry() {
    let yaml = pod_ctr(
        "    env:\n    - name: A\n      valueFrom:\n        secretKeyRef:\n          name: s\n          key: a\n    - name: B\n      valueFrom:\n        configMapKeyRef:\n          name: m\n          key: b\n    - name: C\n      value: plain\n    - name: D\n      valueFrom:\n        secretKeyRef:\n          name: s\n          key: d\n",
    );
    let found = hits("read-secret-from-env-var", &yaml);
    assert_eq!(found.len(), 2, "A and D; not configMap or literal values");
    assert_eq!(found[0].line, Some(10), "the env entry's line");
    assert!(found[1].message.contains("\"D\""), "{}", found[1].message);
}

#[test]
fn use_namespace_on_workloads_and_services() {
    let with_ns =
        |kind_doc: &str, ns: &str| kind_doc.replacen("metadata:\n", &format!("metadata:\n{ns}"), 1);
    let n = |doc: &str| count("use-namespace", doc);
    let p = pod_ctr("");
    assert_eq!(n(&p), 1, "no namespace");
    assert_eq!(n(&with_ns(&p, "  namespace: default\n")), 1);
    assert_eq!(
        n(&with_ns(&p, "  namespace: DEFAULT\n")),
        1,
        "case-insensitive"
    );
    assert_eq!(n(&with_ns(&p, "  namespace: \"\"\n")), 1);
    assert_eq!(n(&with_ns(&p, "  namespace: prod\n")), 0);
    assert_eq!(n(&service("")), 1, "v1 Services too");
    assert_eq!(n(&with_ns(&service(""), "  namespace: prod\n")), 0);
    assert_eq!(
        n("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
        0,
        "other kinds are not checked"
    );
    assert_eq!(
        n("apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  replicas: 3\n"),
        1,
        "a deployment-like object without a pod template still counts"
    );
    assert_eq!(
        hits("use-namespace", &p)[0].line,
        Some(4),
        "metadata's line"
    );
}

#[test]
fn minimum_three_replicas() {
    let n = |api: &str, kind: &str, extra: &str| {
        count("minimum-three-replicas", &workload(api, kind, extra))
    };
    assert_eq!(n("apps/v1", "Deployment", ""), 1, "absent replicas is 1");
    assert_eq!(n("apps/v1", "Deployment", "  replicas: 2\n"), 1);
    assert_eq!(n("apps/v1", "Deployment", "  replicas: 0\n"), 1);
    assert_eq!(n("apps/v1", "Deployment", "  replicas: 3\n"), 0);
    assert_eq!(n("apps/v1", "StatefulSet", "  replicas: 1\n"), 1);
    assert_eq!(n("apps/v1", "ReplicaSet", "  replicas: 5\n"), 0);
    assert_eq!(n("v1", "ReplicationController", "  replicas: 2\n"), 1);
    assert_eq!(
        n(
            "apps.openshift.io/v1",
            "DeploymentConfig",
            "  replicas: 1\n"
        ),
        1
    );
    assert_eq!(n("apps/v1", "DaemonSet", ""), 0, "no replicas field");
    assert_eq!(n("batch/v1", "Job", ""), 0, "no replicas field");
    assert_eq!(count("minimum-three-replicas", &pod_ctr("")), 0);
    assert_eq!(
        n("extensions/v1beta1", "Deployment", "  replicas: 1\n"),
        0,
        "not deployment-like"
    );
    assert_eq!(n("apps/v1beta2", "Deployment", "  replicas: 1\n"), 1);
}

#[test]
fn probes_are_checked_on_regular_containers_only() {
    let yaml = pod(
        "  initContainers:\n  - name: init\n    image: x:1\n  containers:\n  - name: none\n    image: x:1\n  - name: live\n    image: x:1\n    livenessProbe:\n      exec:\n        command: [true]\n  - name: ready\n    image: x:1\n    readinessProbe:\n      httpGet:\n        port: 8080\n  ephemeralContainers:\n  - name: dbg\n    image: x:1\n",
    );
    assert_eq!(containers("no-liveness-probe", &yaml), ["none", "ready"]);
    assert_eq!(containers("no-readiness-probe", &yaml), ["none", "live"]);
    let f = &hits("no-liveness-probe", &yaml)[0];
    assert_eq!(f.line, Some(10), "the container's line");
    assert!(f.message.contains("container \"none\""), "{}", f.message);
    assert_eq!(count("no-liveness-probe", &service("")), 0);
}

#[test]
fn no_node_affinity_one_per_pod() {
    let n = |spec: &str| {
        count(
            "no-node-affinity",
            &pod(&format!(
                "{spec}  containers:\n  - name: a\n    image: x:1\n  - name: b\n    image: x:1\n"
            )),
        )
    };
    assert_eq!(n(""), 1, "one per object, not per container");
    assert_eq!(
        n("  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution: []\n"),
        1
    );
    assert_eq!(
        n("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms: []\n"),
        0
    );
    assert_eq!(
        count(
            "no-node-affinity",
            "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  replicas: 3\n"
        ),
        0,
        "a ReplicationController without a template has no pod spec"
    );
}

#[test]
fn no_rolling_update_strategy() {
    let n = |api: &str, kind: &str, extra: &str| {
        count("no-rolling-update-strategy", &workload(api, kind, extra))
    };
    let strategy = |key: &str, t: &str| format!("  {key}:\n    type: {t}\n");
    assert_eq!(
        n("apps/v1", "Deployment", ""),
        1,
        "an unset type fires in 0.7.6"
    );
    assert_eq!(
        n(
            "apps/v1",
            "Deployment",
            &strategy("strategy", "RollingUpdate")
        ),
        0
    );
    assert_eq!(
        n("apps/v1", "Deployment", &strategy("strategy", "Recreate")),
        1
    );
    assert_eq!(
        n(
            "apps/v1",
            "Deployment",
            &strategy("strategy", "rollingupdate")
        ),
        1,
        "the regex is case-sensitive"
    );
    assert_eq!(
        n(
            "apps/v1",
            "Deployment",
            &strategy("updateStrategy", "RollingUpdate")
        ),
        1,
        "Deployments read strategy, not updateStrategy"
    );
    assert_eq!(
        n(
            "apps/v1",
            "DaemonSet",
            &strategy("updateStrategy", "RollingUpdate")
        ),
        0
    );
    assert_eq!(
        n(
            "apps/v1",
            "DaemonSet",
            &strategy("updateStrategy", "OnDelete")
        ),
        1
    );
    assert_eq!(
        n(
            "apps/v1",
            "StatefulSet",
            &strategy("updateStrategy", "RollingUpdate")
        ),
        0
    );
    assert_eq!(n("apps/v1", "StatefulSet", ""), 1);
    assert_eq!(
        n(
            "apps.openshift.io/v1",
            "DeploymentConfig",
            &strategy("strategy", "Rolling")
        ),
        0
    );
    assert_eq!(
        n(
            "apps.openshift.io/v1",
            "DeploymentConfig",
            &strategy("strategy", "Recreate")
        ),
        1
    );
    assert_eq!(n("apps/v1", "ReplicaSet", ""), 0, "no strategy field");
    assert_eq!(n("batch/v1", "Job", ""), 0);
    assert_eq!(count("no-rolling-update-strategy", &pod_ctr("")), 0);
    assert_eq!(
        n("extensions/v1beta1", "Deployment", ""),
        0,
        "not deployment-like"
    );
    let f = &hits(
        "no-rolling-update-strategy",
        &workload("apps/v1", "Deployment", &strategy("strategy", "Recreate")),
    )[0];
    assert_eq!(f.line, Some(7), "the strategy's line");
    assert!(f.message.contains("Recreate"), "{}", f.message);
}

#[test]
fn rollout_strategy_is_type_checked_only_where_the_kind_has_it() {
    let bad = |api: &str, kind: &str, key: &str| {
        let docs = parse_documents(
            &workload(api, kind, &format!("  {key}: oops\n")),
            &Limits::default(),
        );
        let a = lint(
            "m.yaml",
            &docs,
            &Enabled::only(["no-rolling-update-strategy"]),
        );
        a.errors.len()
    };
    assert_eq!(bad("apps/v1", "Deployment", "strategy"), 1);
    assert_eq!(bad("apps/v1", "DaemonSet", "updateStrategy"), 1);
    assert_eq!(
        bad("apps/v1", "StatefulSet", "strategy"),
        0,
        "unknown field"
    );
    assert_eq!(bad("apps/v1", "ReplicaSet", "updateStrategy"), 0);
}

#[test]
fn dnsconfig_options_needs_ndots_2() {
    let n = |spec: &str| {
        count(
            "dnsconfig-options",
            &pod(&format!(
                "{spec}  containers:\n  - name: c\n    image: x:1\n"
            )),
        )
    };
    assert_eq!(n(""), 1, "no dnsConfig");
    assert_eq!(
        n("  dnsConfig:\n    nameservers: [1.1.1.1]\n"),
        1,
        "no options"
    );
    assert_eq!(n("  dnsConfig:\n    options: []\n"), 1);
    assert_eq!(
        n("  dnsConfig:\n    options:\n    - name: ndots\n      value: \"5\"\n"),
        1
    );
    assert_eq!(
        n("  dnsConfig:\n    options:\n    - name: ndots\n"),
        1,
        "ndots without a value"
    );
    assert_eq!(
        n("  dnsConfig:\n    options:\n    - name: edns0\n    - name: ndots\n      value: \"2\"\n"),
        0
    );
}

#[test]
fn dnsconfig_option_value_must_be_a_string() {
    let docs = parse_documents(
        &pod("  dnsConfig:\n    options:\n    - name: ndots\n      value: 2\n"),
        &Limits::default(),
    );
    let a = lint("m.yaml", &docs, &Enabled::only(["dnsconfig-options"]));
    assert_eq!(a.errors.len(), 1, "value is a *string in the schema");
}

#[test]
fn priority_class_name() {
    let n = |spec: &str| {
        count(
            "priority-class-name",
            &pod(&format!(
                "{spec}  containers:\n  - name: c\n    image: x:1\n"
            )),
        )
    };
    assert_eq!(n(""), 0, "unset never fires");
    assert_eq!(n("  priorityClassName: \"  \"\n"), 0, "blank never fires");
    assert_eq!(n("  priorityClassName: system-node-critical\n"), 0);
    assert_eq!(n("  priorityClassName: system-cluster-critical\n"), 0);
    assert_eq!(n("  priorityClassName: high\n"), 1);
    assert_eq!(
        n("  priorityClassName: System-Node-Critical\n"),
        1,
        "exact match"
    );
}

#[test]
fn restart_policy_unset_fires() {
    let n = |spec: &str| {
        count(
            "restart-policy",
            &pod(&format!(
                "{spec}  containers:\n  - name: c\n    image: x:1\n"
            )),
        )
    };
    assert_eq!(n(""), 1, "no defaulting");
    assert_eq!(n("  restartPolicy: Never\n"), 1);
    assert_eq!(n("  restartPolicy: Always\n"), 0);
    assert_eq!(n("  restartPolicy: OnFailure\n"), 0);
    assert_eq!(n("  restartPolicy: always\n"), 1, "exact match");
    assert_eq!(
        count("restart-policy", &workload("batch/v1", "Job", "")),
        1,
        "the template's policy is read"
    );
}

#[test]
fn required_annotation_email() {
    let with_meta =
        |meta: &str| pod_ctr("").replacen("metadata:\n", &format!("metadata:\n{meta}"), 1);
    let n = |meta: &str| count("required-annotation-email", &with_meta(meta));
    assert_eq!(n(""), 1);
    assert_eq!(n("  annotations:\n    email: team@example.com\n"), 0);
    assert_eq!(
        n("  annotations:\n    owner-email: \"Team <team.x+y@ex-ample.co.uk>\"\n"),
        0,
        "key and value are unanchored searches"
    );
    assert_eq!(n("  annotations:\n    email: not-an-address\n"), 1);
    assert_eq!(
        n("  annotations:\n    Email: team@example.com\n"),
        1,
        "key match is case-sensitive"
    );
    assert_eq!(n("  annotations:\n    contact: team@example.com\n"), 1);
    assert_eq!(
        n("  labels:\n    email: team.example.com\n"),
        1,
        "labels do not count"
    );
    // The object's own metadata, not the pod template's.
    let template_only = workload("apps/v1", "Deployment", "").replace(
        "    metadata:\n      labels:\n        app: w\n",
        "    metadata:\n      annotations:\n        email: team@example.com\n      labels:\n        app: w\n",
    );
    assert_eq!(count("required-annotation-email", &template_only), 1);
    assert_eq!(
        count("required-annotation-email", &service("")),
        0,
        "DL only"
    );
}

#[test]
fn required_label_owner() {
    let with_meta =
        |meta: &str| pod_ctr("").replacen("metadata:\n", &format!("metadata:\n{meta}"), 1);
    let n = |meta: &str| count("required-label-owner", &with_meta(meta));
    assert_eq!(n(""), 1);
    assert_eq!(n("  labels:\n    owner: team\n"), 0);
    assert_eq!(
        n("  labels:\n    team-owner: \"\"\n"),
        0,
        "any value, unanchored key"
    );
    assert_eq!(n("  labels:\n    Owner: team\n"), 1, "case-sensitive");
    assert_eq!(
        n("  annotations:\n    owner: team\n"),
        1,
        "annotations do not count"
    );
    assert_eq!(count("required-label-owner", &service("")), 0, "DL only");
    assert_eq!(
        count(
            "required-label-owner",
            "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\n"
        ),
        1,
        "a deployment-like object without a pod spec still counts"
    );
}

#[test]
fn sorted_keys_per_unsorted_mapping_recursively() {
    // Top level sorted (apiVersion, kind, metadata, spec); the container
    // (name before image) and the securityContext are not.
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x:1\n    securityContext:\n      runAsUser: 1\n      privileged: false\n";
    let found = hits("sorted-keys", yaml);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].line, Some(8), "the first key out of order");
    assert!(
        found[0].message.contains("spec.containers[0]") && found[0].message.contains("\"image\""),
        "{}",
        found[0].message
    );
    assert_eq!(found[1].line, Some(11));
    assert!(found[1]
        .message
        .contains("spec.containers[0].securityContext"));

    let top = "kind: Pod\napiVersion: v1\nmetadata:\n  name: p\n";
    let found = hits("sorted-keys", top);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, Some(2));

    let sorted = "apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    a: x\n    b: z\n  name: p\nspec:\n  containers:\n  - image: x:1\n    name: c\n";
    assert_eq!(count("sorted-keys", sorted), 0);
    assert_eq!(
        count(
            "sorted-keys",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  Zeta: \"1\"\n  alpha: \"2\"\n"
        ),
        1,
        "every kind; byte order puts upper case first (Zeta < alpha) but data < metadata fails"
    );
}

#[test]
fn sorted_keys_list_items_are_their_own_objects() {
    let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: b\n";
    let found = hits("sorted-keys", yaml);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, Some(9));
    assert!(matches!(
        &found[0].object,
        Some(svbench_scan::ObjectRef::K8s { name: Some(n), .. }) if n == "b"
    ));
}

#[test]
fn ignore_annotations_apply_to_opt_in_checks() {
    let yaml = service("  type: NodePort\n").replacen(
        "metadata:\n",
        "metadata:\n  annotations:\n    ignore-check.kube-linter.io/exposed-services: \"\"\n",
        1,
    );
    assert_eq!(count("exposed-services", &yaml), 0);
    let all = pod_ctr("").replacen(
        "metadata:\n",
        "metadata:\n  annotations:\n    kube-linter.io/ignore-all: \"x\"\n",
        1,
    );
    assert_eq!(count("restart-policy", &all), 0);
}
