//! Decoding as kube-linter 0.7.6 does it: a document that fails is dropped
//! with an error and does not affect the others (spec E2 §1.4).

use svbench_scan::kube_linter::{catalogue, lint};
use svbench_scan::{parse_documents, Analysis, Enabled, Limits, ObjectRef, Tool};

/// Lints with the default checks (opt-in checks such as `restart-policy`
/// would fire on the minimal objects these tests use).
fn lint_yaml(yaml: &str) -> Analysis {
    let docs = parse_documents(yaml, &Limits::default());
    lint("manifest.yaml", &docs, &Enabled::defaults(catalogue()))
}

/// Kinds of the objects that produced findings, in order, deduplicated.
fn kinds(a: &Analysis) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in &a.findings {
        if let Some(ObjectRef::K8s { kind, name, .. }) = &f.object {
            let k = format!("{kind}/{}", name.as_deref().unwrap_or(""));
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out
}

const GOOD_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: good\nspec:\n  containers:\n  - name: web\n    image: nginx\n";

fn with_good_pod(bad: &str) -> String {
    format!("{bad}\n---\n{GOOD_POD}")
}

fn assert_dropped(bad: &str, expect_in_message: &str) {
    let a = lint_yaml(&with_good_pod(bad));
    assert_eq!(kinds(&a), ["Pod/good"], "only the good pod is linted");
    assert_eq!(a.errors.len(), 1, "{:?}", a.errors);
    let e = &a.errors[0];
    assert_eq!(e.tool, Some(Tool::KubeLinter));
    assert_eq!(e.doc_index, Some(0));
    assert_eq!(e.file, "manifest.yaml");
    assert!(
        e.message.contains(expect_in_message) && e.message.contains("line "),
        "{}",
        e.message
    );
}

#[test]
fn unquoted_number_as_label_value_fails() {
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\n  labels:\n    version: 2\nspec: {}\n",
        "metadata.labels.version",
    );
}

#[test]
fn quoted_number_as_label_value_is_fine() {
    let a = lint_yaml("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ok\n  labels:\n    version: \"2\"\nspec:\n  containers:\n  - name: c\n    image: nginx\n");
    assert!(a.errors.is_empty(), "{:?}", a.errors);
    assert_eq!(kinds(&a), ["Pod/ok"]);
}

#[test]
fn non_string_name_or_annotation_fails() {
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: true\n",
        "metadata.name",
    );
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: 1.5\n",
        "metadata.annotations.a",
    );
}

#[test]
fn string_replicas_fails() {
    assert_dropped(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: \"3\"\n",
        "spec.replicas",
    );
}

#[test]
fn fractional_replicas_fail_but_integral_floats_decode() {
    assert_dropped(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: 2.5\n",
        "spec.replicas",
    );
    let a = lint_yaml(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 3.0\n",
    );
    assert!(a.errors.is_empty(), "{:?}", a.errors);
    assert!(a.findings.iter().any(|f| f.rule_id == "no-anti-affinity"));
}

#[test]
fn unparseable_quantity_fails() {
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers:\n  - name: c\n    image: nginx\n    resources:\n      limits:\n        memory: 12 apples\n",
        "resources.limits.memory",
    );
}

#[test]
fn numeric_quantities_decode() {
    let a = lint_yaml("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:1\n    resources:\n      limits:\n        memory: 512\n      requests:\n        cpu: 0.5\n");
    assert!(a.errors.is_empty(), "{:?}", a.errors);
    let ids: Vec<&str> = a.findings.iter().map(|f| f.rule_id.as_str()).collect();
    assert!(!ids.contains(&"unset-memory-requirements"));
    assert!(!ids.contains(&"unset-cpu-requirements"));
}

#[test]
fn wrong_types_in_checked_fields_fail() {
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  hostNetwork: \"true\"\n",
        "spec.hostNetwork",
    );
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers: {}\n",
        "spec.containers",
    );
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers:\n  - name: c\n    securityContext:\n      runAsUser: root\n",
        "spec.containers[0].securityContext.runAsUser",
    );
}

#[test]
fn yaml_11_booleans_and_nulls_decode() {
    let a = lint_yaml("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: null\nspec:\n  hostNetwork: yes\n  containers: ~\n");
    assert!(a.errors.is_empty(), "{:?}", a.errors);
    assert!(a.findings.iter().any(|f| f.rule_id == "host-network"));
}

#[test]
fn field_names_are_case_sensitive_and_unknown_fields_ignored() {
    let a = lint_yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  Labels: 7\nspec:\n  Replicas: lots\n  whatever: [1, 2]\n");
    assert!(a.errors.is_empty(), "{:?}", a.errors);
}

#[test]
fn unknown_kinds_and_custom_resources_fail() {
    assert_dropped(
        "apiVersion: apps/v1\nkind: Frobnicator\nmetadata:\n  name: x\n",
        "no kind",
    );
    assert_dropped(
        "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata:\n  name: x\n",
        "no kind",
    );
    assert_dropped(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\n",
        "no kind",
    );
    assert_dropped(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
        "no kind",
    );
    // A known kind at a version no longer registered.
    assert_dropped("apiVersion: apps/v1beta1\nkind: DaemonSet\n", "no kind");
}

#[test]
fn old_registered_versions_and_extra_kinds_decode() {
    for (api, kind) in [
        ("extensions/v1beta1", "Deployment"),
        ("apps/v1beta2", "DaemonSet"),
        ("batch/v1beta1", "CronJob"),
        ("policy/v1beta1", "PodSecurityPolicy"),
        ("rbac.authorization.k8s.io/v1alpha1", "Role"),
        ("autoscaling/v2beta1", "HorizontalPodAutoscaler"),
        ("apps.openshift.io/v1", "DeploymentConfig"),
        ("security.openshift.io/v1", "SecurityContextConstraints"),
        ("monitoring.coreos.com/v1", "ServiceMonitor"),
        ("keda.sh/v1alpha1", "ScaledObject"),
        ("v1", "ConfigMapList"),
    ] {
        let a = lint_yaml(&format!(
            "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\n"
        ));
        assert!(a.errors.is_empty(), "{api} {kind}: {:?}", a.errors);
    }
}

#[test]
fn missing_type_meta_or_non_mapping_fails() {
    assert_dropped("apiVersion: v1\nmetadata:\n  name: x\n", "Kind");
    assert_dropped("kind: Pod\nmetadata:\n  name: x\n", "apiVersion");
    assert_dropped("- just\n- a list\n", "expected an object");
    assert_dropped("apiVersion: a/b/c\nkind: Pod\n", "GroupVersion");
    assert_dropped("apiVersion: 1\nkind: Pod\n", "apiVersion");
}

#[test]
fn invalid_yaml_is_an_error_too() {
    let a = lint_yaml(&with_good_pod("apiVersion: v1\nkind: [Pod\n"));
    assert_eq!(kinds(&a), ["Pod/good"]);
    assert_eq!(a.errors.len(), 1);
    assert_eq!(a.errors[0].doc_index, Some(0));
}

#[test]
fn list_items_are_expanded_with_the_list_doc_index() {
    let yaml = format!(
        "{GOOD_POD}---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n  spec:\n    hostPID: true\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\n"
    );
    let a = lint_yaml(&yaml);
    assert!(a.errors.is_empty(), "{:?}", a.errors);
    let pid: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.rule_id == "host-pid")
        .collect();
    assert_eq!(pid.len(), 1);
    assert_eq!(pid[0].doc_index, Some(1));
    assert_eq!(pid[0].line, Some(18), "the item's hostPID: line");
    assert_eq!(kinds(&a), ["Pod/good", "Pod/a"]);
}

#[test]
fn list_with_one_bad_item_is_dropped_whole() {
    let bad_list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n  spec:\n    hostPID: true\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\n    labels:\n      tier: 1\n";
    assert_dropped(bad_list, "items[1].metadata.labels.tier");
    assert_dropped(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: example.com/v1\n  kind: Widget\n",
        "no kind",
    );
}

#[test]
fn no_decodable_object_gives_no_findings_and_errors() {
    let a = lint_yaml("apiVersion: example.com/v1\nkind: Widget\n---\nfoo: bar\n");
    assert!(a.findings.is_empty());
    assert_eq!(a.errors.len(), 2);
    assert_eq!(a.errors[1].doc_index, Some(1));
}

#[test]
fn hostile_inputs_do_not_panic() {
    for text in [
        "",
        "---\n---\n",
        "~\n",
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - ~\n  - 3\n",
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - resources:\n      limits:\n        memory: 1e999999999999\n",
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - resources:\n      limits:\n        memory: 99999999999999999999999999999999999999999999Ei\n",
        "apiVersion: v1\nkind: List\nitems: [~, 1]\n",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n",
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 99999999999\n",
    ] {
        let _ = lint_yaml(text);
    }
}

#[test]
fn values_json_cannot_hold_fail_even_in_unknown_fields() {
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nextra:\n  ratio: .nan\n",
        "JSON",
    );
    assert_dropped(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nextra:\n  ~: 1\n",
        "JSON",
    );
}
