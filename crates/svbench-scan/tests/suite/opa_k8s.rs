//! The built-in Kubernetes policies (spec E2 §1.7): for every rule a firing
//! and a non-firing case, the upstream bugs of the table's last column as
//! regressions, lines from deny paths, List expansion and the upstream
//! fixture.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use svbench_scan::opa::Opa;
use svbench_scan::{parse_documents, Analysis, Limits, ObjectRef, Severity};

/// `(rule, line, object name, container)` of each finding, sorted.
type Row = (String, usize, String, Option<String>);

fn scan(yaml: &str) -> Analysis {
    scan_excluding(yaml, &[])
}

fn scan_excluding(yaml: &str, excluded: &[&str]) -> Analysis {
    let docs = parse_documents(yaml, &Limits::default());
    let excluded: BTreeSet<String> = excluded.iter().map(|s| (*s).to_owned()).collect();
    let mut opa = builtin();
    opa.scan_k8s("manifest.yaml", &docs, &excluded)
}

/// A clone of one loaded set (loading takes ~1.5 s in a debug build; a
/// clone shares the compiled policies).
fn builtin() -> Opa {
    static OPA: OnceLock<Mutex<Opa>> = OnceLock::new();
    OPA.get_or_init(|| Mutex::new(Opa::builtin().unwrap()))
        .lock()
        .unwrap()
        .clone()
}

fn rows(analysis: &Analysis) -> Vec<Row> {
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    let mut rows: Vec<Row> = analysis
        .findings
        .iter()
        .map(|f| {
            let name = match &f.object {
                Some(ObjectRef::K8s { name, .. }) => name.clone().unwrap_or_default(),
                other => panic!("not a k8s object: {other:?}"),
            };
            (
                f.rule_id.clone(),
                f.line.unwrap(),
                name,
                f.container.clone(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// Only the findings of `rule`.
fn rule_rows(yaml: &str, rule: &str) -> Vec<Row> {
    rows(&scan(yaml))
        .into_iter()
        .filter(|r| r.0 == rule)
        .collect()
}

fn row(rule: &str, line: usize, name: &str, container: Option<&str>) -> Row {
    (
        rule.to_owned(),
        line,
        name.to_owned(),
        container.map(str::to_owned),
    )
}

// ---------------------------------------------------------------- K8S_001

const CAPS: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: caps
  namespace: prod
spec:
  template:
    spec:
      initContainers:
        - name: setup
          securityContext:
            capabilities:
              add: [cap_sys_admin]
      containers:
        - name: web
          securityContext:
            capabilities:
              add: [NET_BIND_SERVICE, NET_ADMIN, ALL]
        - name: fine
          securityContext:
            capabilities:
              add: [NET_BIND_SERVICE]
              drop: [ALL]
      ephemeralContainers:
        - name: debug
          securityContext:
            capabilities:
              add: [\"all\"]
";

#[test]
fn k8s_001_fires_per_container_in_any_pod_bearing_kind() {
    // Upstream looked at `kind: Pod` and its `containers` only, one verdict
    // per pod: here a Deployment, an init and an ephemeral container each
    // get their own finding, on the line of their `add` list.
    assert_eq!(
        rule_rows(CAPS, "K8S_001"),
        vec![
            row("K8S_001", 13, "caps", Some("setup")),
            row("K8S_001", 18, "caps", Some("web")),
            row("K8S_001", 28, "caps", Some("debug")),
        ]
    );
    let analysis = scan(CAPS);
    let web = analysis
        .findings
        .iter()
        .find(|f| f.rule_id == "K8S_001" && f.container.as_deref() == Some("web"))
        .unwrap();
    assert_eq!(web.severity, Severity::High);
    assert_eq!(web.doc_index, Some(0));
    assert!(web.message.contains("ALL, NET_ADMIN"), "{}", web.message);
}

#[test]
fn k8s_001_ignores_harmless_capabilities_and_drops() {
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec:\n  containers:\n    - name: c\n      securityContext:\n        capabilities:\n          add: [NET_BIND_SERVICE, CHOWN]\n          drop: [ALL, SYS_ADMIN]\n";
    assert_eq!(rule_rows(yaml, "K8S_001"), vec![]);
}

// ---------------------------------------------------------------- K8S_002

#[test]
fn k8s_002_fires_for_privileged_true_in_any_container() {
    let yaml = "\
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, namespace: x}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          initContainers:
            - name: init
              securityContext: {privileged: true}
          containers:
            - name: main
              securityContext:
                privileged: true
            - name: off
              securityContext:
                privileged: false
            - name: text
              securityContext:
                privileged: \"true\"
";
    assert_eq!(
        rule_rows(yaml, "K8S_002"),
        vec![
            row("K8S_002", 11, "cj", Some("init")),
            row("K8S_002", 15, "cj", Some("main")),
        ]
    );
}

#[test]
fn k8s_002_does_not_fire_without_privileged() {
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: nginx\n";
    assert_eq!(rule_rows(yaml, "K8S_002"), vec![]);
}

#[test]
fn containers_of_non_pod_bearing_kinds_are_not_checked() {
    // A custom resource with a pod-template-like shape is not a workload.
    let yaml = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: x}\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          securityContext: {privileged: true}\n      volumes:\n        - name: h\n          hostPath: {path: /}\n";
    assert_eq!(rows(&scan(yaml)), vec![]);
}

// ---------------------------------------------------------------- K8S_003

#[test]
fn k8s_003_fires_per_host_path_volume_including_legacy_workloads() {
    // Upstream: Pods only. Here a legacy extensions/v1beta1 Deployment (not
    // deployment-like for kube-linter, but our policies are broader).
    let yaml = "\
apiVersion: extensions/v1beta1
kind: Deployment
metadata: {name: legacy, namespace: x}
spec:
  template:
    spec:
      containers: []
      volumes:
        - name: scratch
          emptyDir: {}
        - name: docker
          hostPath:
            path: /var/run/docker.sock
        - name: root
          hostPath: {path: /}
";
    assert_eq!(
        rule_rows(yaml, "K8S_003"),
        vec![
            row("K8S_003", 11, "legacy", None),
            row("K8S_003", 14, "legacy", None),
        ]
    );
    let analysis = scan(yaml);
    assert!(analysis
        .findings
        .iter()
        .any(|f| f.message.contains("/var/run/docker.sock")));
}

#[test]
fn k8s_003_does_not_fire_without_host_path() {
    let yaml = "apiVersion: apps/v1beta2\nkind: StatefulSet\nmetadata: {name: s, namespace: x}\nspec:\n  template:\n    spec:\n      volumes:\n        - name: data\n          persistentVolumeClaim: {claimName: d}\n";
    assert_eq!(rule_rows(yaml, "K8S_003"), vec![]);
}

// ---------------------------------------------------------------- K8S_004

const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: x}
spec:
  ports:
    - name: https
      port: 443
    - name: ssh-behind-8022
      port: 8022
      targetPort: 22
    - name: rdp
      port: 3389
    - name: named
      port: 2222
      targetPort: ssh
";

#[test]
fn k8s_004_fires_on_port_or_numeric_target_port() {
    // Upstream only read `port`: the 8022 → 22 mapping went unnoticed.
    assert_eq!(
        rule_rows(SERVICE, "K8S_004"),
        vec![
            row("K8S_004", 8, "svc", None),
            row("K8S_004", 11, "svc", None),
        ]
    );
}

#[test]
fn k8s_004_needs_a_core_v1_service() {
    let yaml = SERVICE.replace("apiVersion: v1", "apiVersion: example.com/v1");
    assert_eq!(rule_rows(&yaml, "K8S_004"), vec![]);
}

// ---------------------------------------------------------------- K8S_005

const CONFIGMAP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: x}
data:
  mode: tokenizer
  DB_PASSWORD: x
  api_key: \"\"
  tokenizer: bert
  tls.pem: |
    -----BEGIN RSA PRIVATE KEY-----
    MIIB
    -----END RSA PRIVATE KEY-----
binaryData:
  clientSecret: c2VjcmV0
";

#[test]
fn k8s_005_matches_key_names_and_private_key_values() {
    // Upstream matched substrings of *values*: `mode: tokenizer` fired and
    // `DB_PASSWORD: x` did not. The v1 rule reads key names with the
    // table's unanchored pattern, so the key `tokenizer` (which contains
    // `token`) does fire; an empty value (`api_key: ""`) does not.
    assert_eq!(
        rule_rows(CONFIGMAP, "K8S_005"),
        vec![
            row("K8S_005", 6, "cfg", None),
            row("K8S_005", 8, "cfg", None),
            row("K8S_005", 9, "cfg", None),
            row("K8S_005", 14, "cfg", None),
        ]
    );
}

#[test]
fn k8s_005_ignores_benign_configmaps_and_other_kinds() {
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: x}\ndata:\n  mode: tokenizer\n  log_level: debug\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\nstringData:\n  password: hunter2\n";
    assert_eq!(rule_rows(yaml, "K8S_005"), vec![]);
}

// ---------------------------------------------------------------- GEN_001

#[test]
fn gen_001_needs_both_limits_in_each_container() {
    // Upstream: a cpu limit in one container and a memory limit in another
    // satisfied the pod. Each container needs both of its own.
    let yaml = "\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: x}
spec:
  template:
    spec:
      initContainers:
        - name: init
          resources:
            limits: {cpu: 100m, memory: 64Mi}
      containers:
        - name: cpu-only
          resources:
            limits: {cpu: 100m}
        - name: memory-only
          resources:
            limits: {memory: 64Mi}
        - name: none
";
    assert_eq!(
        rule_rows(yaml, "GEN_001"),
        vec![
            row("GEN_001", 12, "ds", Some("cpu-only")),
            row("GEN_001", 15, "ds", Some("memory-only")),
            row("GEN_001", 18, "ds", Some("none")),
        ]
    );
    let analysis = scan(yaml);
    let none = analysis
        .findings
        .iter()
        .find(|f| f.container.as_deref() == Some("none"))
        .unwrap();
    assert!(none.message.contains("cpu or memory"), "{}", none.message);
}

#[test]
fn gen_001_ignores_objects_without_pods() {
    // Upstream fired on every object with an apiVersion.
    let yaml = "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: x}\nspec: {ports: [{port: 80}]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: x}\nrules: []\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: ok, namespace: x}\nspec:\n  containers:\n    - name: c\n      resources:\n        limits: {cpu: 1, memory: 1Gi}\n";
    assert_eq!(rule_rows(yaml, "GEN_001"), vec![]);
}

// ---------------------------------------------------------------- GEN_002

#[test]
fn gen_002_fires_without_namespace_or_in_default() {
    let yaml = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: absent
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dflt
  namespace: default
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: prod
  namespace: prod
";
    assert_eq!(
        rule_rows(yaml, "GEN_002"),
        vec![
            row("GEN_002", 3, "absent", None),
            row("GEN_002", 10, "dflt", None),
        ]
    );
}

#[test]
fn gen_002_exempts_cluster_scoped_kinds() {
    // Upstream flagged cluster-scoped kinds, which have no namespace.
    let yaml = "\
apiVersion: v1
kind: Namespace
metadata: {name: prod}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: []
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hook}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
";
    assert_eq!(rule_rows(yaml, "GEN_002"), vec![]);
}

// ------------------------------------------------------------ input shape

#[test]
fn v1_lists_are_expanded_into_their_items() {
    let yaml = "\
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: one, namespace: x}
    spec:
      containers:
        - name: a
          securityContext: {privileged: true}
  - apiVersion: v1
    kind: Pod
    metadata: {name: two, namespace: x}
    spec:
      containers:
        - name: b
          securityContext: {privileged: true}
  - not an object
";
    assert_eq!(
        rule_rows(yaml, "K8S_002"),
        vec![
            row("K8S_002", 10, "one", Some("a")),
            row("K8S_002", 17, "two", Some("b")),
        ]
    );
}

#[test]
fn non_objects_are_skipped_and_unreadable_documents_are_errors() {
    let yaml = "just: a mapping\n---\n- a\n- list\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec:\n  containers:\n    - name: c\n      securityContext: {privileged: true}\n---\nkey: [unclosed\n";
    let analysis = scan(yaml);
    let ids: Vec<(&str, Option<usize>)> = analysis
        .findings
        .iter()
        .filter(|f| f.rule_id == "K8S_002")
        .map(|f| (f.rule_id.as_str(), f.doc_index))
        .collect();
    assert_eq!(ids, [("K8S_002", Some(2))]);
    assert_eq!(analysis.errors.len(), 1, "{:#?}", analysis.errors);
    assert_eq!(analysis.errors[0].doc_index, Some(3));
    assert_eq!(analysis.errors[0].tool, Some(svbench_scan::Tool::Opa));
}

#[test]
fn object_reference_and_excluded_rules() {
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      securityContext: {privileged: true}\n";
    let analysis = scan(yaml);
    let privileged = analysis
        .findings
        .iter()
        .find(|f| f.rule_id == "K8S_002")
        .unwrap();
    assert_eq!(
        privileged.object,
        Some(ObjectRef::K8s {
            api_version: Some("v1".into()),
            kind: "Pod".into(),
            name: Some("p".into()),
            namespace: None,
        })
    );
    assert_eq!(privileged.file, "manifest.yaml");
    let rest = scan_excluding(yaml, &["K8S_002", "GEN_001"]);
    let ids: Vec<&str> = rest.findings.iter().map(|f| f.rule_id.as_str()).collect();
    assert_eq!(ids, ["GEN_002"]);
}

// -------------------------------------------------------- upstream fixture

#[test]
fn upstream_bad_pod_fixture() {
    let Some(yaml) =
        svbench_core::upstream_data::read(env!("CARGO_MANIFEST_DIR"), "e2/fixtures/bad_pod.yaml")
    else {
        return;
    };
    // The upstream oracle (e2/oracle/bad_pod.json) lists only kube-linter
    // findings: upstream's opa adapter never produced any (its deny rules
    // built objects, not sets, under OPA 1.x). Our v1 policies find the
    // missing limits of `web` (GEN_001) and the absent namespace (GEN_002);
    // `nginx:latest` and `runAsNonRoot: false` are kube-linter's concern.
    assert_eq!(
        rows(&scan(&yaml)),
        vec![
            row("GEN_001", 7, "bad-pod", Some("web")),
            row("GEN_002", 3, "bad-pod", None),
        ]
    );
}

#[test]
fn hostile_shapes_are_not_evaluation_errors() {
    // Policies check types before calling builtins (regorus reports a
    // builtin's type error as an error where OPA would be undefined).
    let yaml = "\
apiVersion: 1
kind: Pod
metadata: just text
spec:
  containers: text
  volumes: {hostPath: x}
---
apiVersion: v1
kind: Pod
metadata: {name: [1], namespace: 3}
spec:
  initContainers: [1, text, {name: 7, securityContext: {capabilities: {add: ALL}}}]
  containers:
    - name: c
      securityContext: 1
      resources: {limits: text}
    - name: d
      securityContext: {capabilities: {add: [1, null, {x: y}, SYS_ADMIN]}}
---
apiVersion: v1
kind: Service
metadata: {name: s}
spec: {ports: {port: 22}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: [password, 1]
binaryData: {1: 2, token: {a: b}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec: {jobTemplate: 3}
---
apiVersion: [v1]
kind: {a: b}
";
    let analysis = scan(yaml);
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    let k8s_001: Vec<Row> = rows(&analysis)
        .into_iter()
        .filter(|r| r.0 == "K8S_001")
        .collect();
    // Only the well-formed SYS_ADMIN entry counts; `add: ALL` is not a list.
    assert_eq!(k8s_001.len(), 1, "{k8s_001:?}");
    assert_eq!(k8s_001[0].3.as_deref(), Some("d"));
}
