//! Semantic preservation (spec E2 §4.3) and the worked patches of §5.2.

use proptest::prelude::*;
use serde_json::json;
use svbench_scan::patch::{apply_patch, PatchOutcome, PatchStatus};
use svbench_scan::scan::FileType;

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx-dummy\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

fn k8s(orig: &str, patch: &str) -> PatchOutcome {
    apply_patch("m.yaml", orig, patch, FileType::K8s)
}

#[track_caller]
fn applied(o: &PatchOutcome) {
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
}

#[track_caller]
fn failed(o: &PatchOutcome, status: PatchStatus, has: &str) {
    assert_eq!(o.status, status, "{o:?}");
    let r = o.reason.as_deref().unwrap_or_default();
    assert!(r.contains(has), "reason {r:?} lacks {has:?}");
}

/// A JSON Patch replacing the Pod's image.
fn image_patch(image: &str) -> String {
    json!([{"op": "replace", "path": "/spec/containers/0/image", "value": image}]).to_string()
}

// ---- §5.2 worked patches on row 0 ----

#[test]
fn worked_read_only_root_fs() {
    let p = "@@ -9,2 +9,4 @@\n     image: nginx\n+    securityContext:\n+      readOnlyRootFilesystem: true\n     volumeMounts:\n";
    applied(&k8s(POD, p));
}

#[test]
fn worked_pin_and_harden() {
    let p = "@@ -9 +9,5 @@\n-    image: nginx\n+    image: nginx:1.27.0\n+    securityContext:\n+      readOnlyRootFilesystem: true\n+      allowPrivilegeEscalation: false\n+      runAsNonRoot: true\n";
    applied(&k8s(POD, p));
}

#[test]
fn worked_replace_pod_by_configmap() {
    let p = "@@ -1,18 +1,6 @@\n apiVersion: v1\n-kind: Pod\n+kind: ConfigMap\n metadata:\n   name: nginx-dummy\n   namespace: default\n-spec:\n-  containers:\n-  - name: nginx-dummy\n-    image: nginx\n-    volumeMounts:\n-    - name: dummy\n-      mountPath: /data\n-    ports:\n-    - containerPort: 80\n-  volumes:\n-  - name: dummy\n-    flexVolume:\n-      driver: \"k8s/dummy\"\n+data: {}\n";
    failed(
        &k8s(POD, p),
        PatchStatus::PreservationFailed,
        "Pod default/nginx-dummy",
    );
}

#[test]
fn worked_breaking_indentation() {
    let p = "@@ -9 +9 @@\n-    image: nginx\n+     image: nginx\n";
    failed(&k8s(POD, p), PatchStatus::ReparseFailed, "not valid YAML");
}

#[test]
fn worked_ignore_check_annotation() {
    let p = "@@ -5 +5,3 @@\n   namespace: default\n+  annotations:\n+    ignore-check.kube-linter.io/latest-tag: \"fixed elsewhere\"\n";
    failed(
        &k8s(POD, p),
        PatchStatus::PreservationFailed,
        "ignore-check.kube-linter.io/latest-tag",
    );
}

// ---- each rule with a passing and a failing patch ----

#[test]
fn deleting_everything_fails() {
    let p = json!([{"op": "replace", "path": "", "value": null}]).to_string();
    failed(&k8s(POD, &p), PatchStatus::PreservationFailed, "removed");
    let lines: String = POD.lines().map(|l| format!("-{l}\n")).collect();
    let diff = format!("@@ -1,18 +0,0 @@\n{lines}");
    failed(&k8s(POD, &diff), PatchStatus::PreservationFailed, "removed");
}

#[test]
fn documents_must_still_decode() {
    // `replicas` as a string makes the Deployment undecodable.
    let dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.0\n";
    let p = "@@ -6 +6 @@\n-  replicas: 2\n+  replicas: \"2\"\n";
    failed(
        &k8s(dep, p),
        PatchStatus::PreservationFailed,
        "no longer does",
    );
    let ok = "@@ -6 +6 @@\n-  replicas: 2\n+  replicas: 3\n";
    applied(&k8s(dep, ok));
}

#[test]
fn renaming_or_adding_objects_fails() {
    failed(
        &k8s(POD, "@@ -4 +4 @@\n-  name: nginx-dummy\n+  name: other\n"),
        PatchStatus::PreservationFailed,
        "added: Pod default/other",
    );
    failed(
        &k8s(
            POD,
            "@@ -5 +5 @@\n-  namespace: default\n+  namespace: prod\n",
        ),
        PatchStatus::PreservationFailed,
        "removed or renamed",
    );
    let add = "@@ -18 +18,6 @@\n       driver: \"k8s/dummy\"\n+---\n+apiVersion: v1\n+kind: ConfigMap\n+metadata:\n+  name: extra\n";
    failed(
        &k8s(POD, add),
        PatchStatus::PreservationFailed,
        "added: ConfigMap extra",
    );
}

#[test]
fn absent_namespaces_may_all_be_set_to_one_value() {
    let two = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n";
    let both = json!([
        {"op": "add", "path": "/0/metadata/namespace", "value": "prod"},
        {"op": "add", "path": "/1/metadata/namespace", "value": "prod"}
    ]);
    applied(&k8s(two, &both.to_string()));
    let one = json!([{"op": "add", "path": "/0/metadata/namespace", "value": "prod"}]);
    failed(
        &k8s(two, &one.to_string()),
        PatchStatus::PreservationFailed,
        "namespace",
    );
    let differ = json!([
        {"op": "add", "path": "/0/metadata/namespace", "value": "prod"},
        {"op": "add", "path": "/1/metadata/namespace", "value": "dev"}
    ]);
    failed(
        &k8s(two, &differ.to_string()),
        PatchStatus::PreservationFailed,
        "namespace",
    );
}

#[test]
fn containers_are_kept() {
    let rename = "@@ -8 +8 @@\n-  - name: nginx-dummy\n+  - name: web\n";
    failed(
        &k8s(POD, rename),
        PatchStatus::PreservationFailed,
        "containers changed",
    );
    let add = json!([{"op": "add", "path": "/spec/initContainers", "value": [{"name": "i", "image": "busybox:1.36"}]}]);
    failed(
        &k8s(POD, &add.to_string()),
        PatchStatus::PreservationFailed,
        "initContainers/i",
    );
    let remove = json!([{"op": "remove", "path": "/spec/containers/0"}]);
    failed(
        &k8s(POD, &remove.to_string()),
        PatchStatus::PreservationFailed,
        "containers changed",
    );
}

#[test]
fn images_change_only_by_pinning() {
    let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    for ok in [
        "nginx:1.27.0".to_owned(),
        "docker.io/library/nginx:1.27.0".to_owned(),
        "docker.io/nginx:1.27".to_owned(),
        format!("nginx@{digest}"),
        format!("nginx:latest@{digest}"),
    ] {
        applied(&k8s(POD, &image_patch(&ok)));
    }
    for (bad, why) in [
        ("httpd:2.4", "repository"),
        ("evil.io/nginx:1.27.0", "repository"),
        ("nginx:latest", "non-latest"),
        ("nginx@sha256:short", "not a digest"),
    ] {
        failed(
            &k8s(POD, &image_patch(bad)),
            PatchStatus::PreservationFailed,
            why,
        );
    }
    // A tagged image may only gain a digest on the same tag.
    let tagged = POD.replace("image: nginx\n", "image: nginx:1.25\n");
    applied(&k8s(&tagged, &image_patch(&format!("nginx:1.25@{digest}"))));
    failed(
        &k8s(&tagged, &image_patch("nginx:1.27")),
        PatchStatus::PreservationFailed,
        "same tag",
    );
    failed(
        &k8s(&tagged, &image_patch(&format!("nginx:1.27@{digest}"))),
        PatchStatus::PreservationFailed,
        "same tag",
    );
    // A digest-pinned image stays as it is.
    let pinned = POD.replace("image: nginx\n", &format!("image: nginx@{digest}\n"));
    failed(
        &k8s(&pinned, &image_patch("nginx:1.27")),
        PatchStatus::PreservationFailed,
        "already had a digest",
    );
}

#[test]
fn suppressions_are_refused() {
    let all = json!([{"op": "add", "path": "/metadata/annotations", "value": {"kube-linter.io/ignore-all": "x"}}]);
    failed(
        &k8s(POD, &all.to_string()),
        PatchStatus::PreservationFailed,
        "ignore-all",
    );
    let other = json!([{"op": "add", "path": "/metadata/annotations", "value": {"team": "web"}}]);
    applied(&k8s(POD, &other.to_string()));
    // Changing an existing suppression's value is refused too.
    let annotated = POD.replace(
        "  namespace: default\n",
        "  namespace: default\n  annotations:\n    ignore-check.kube-linter.io/latest-tag: a\n",
    );
    let change = json!([{"op": "replace", "path": "/metadata/annotations/ignore-check.kube-linter.io~1latest-tag", "value": "b"}]);
    failed(
        &k8s(&annotated, &change.to_string()),
        PatchStatus::PreservationFailed,
        "changed",
    );
    let nosemgrep = "@@ -9 +9 @@\n-    image: nginx\n+    image: nginx:1.27.0 # nosemgrep\n";
    failed(
        &k8s(POD, nosemgrep),
        PatchStatus::PreservationFailed,
        "nosemgrep",
    );
    let comment = "@@ -9 +9 @@\n-    image: nginx\n+    image: nginx:1.27.0 # pinned\n";
    applied(&k8s(POD, comment));
}

#[test]
fn reparse_failed_for_a_bad_separator() {
    failed(
        &k8s(POD, "@@ -1,0 +1 @@\n+--- junk\n"),
        PatchStatus::ReparseFailed,
        "separator",
    );
}

// ---- Terraform ----

const TF: &str = "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"logs\"\n}\n\nvariable \"region\" {\n  default = \"us-east-1\"\n}\n";

fn tf(patch: &str) -> PatchOutcome {
    apply_patch("main.tf", TF, patch, FileType::Tf)
}

#[test]
fn terraform_count_zero_is_refused() {
    let p = "@@ -1,3 +1,4 @@\n resource \"aws_s3_bucket\" \"logs\" {\n+  count = 0\n   bucket = \"logs\"\n }\n";
    failed(&tf(p), PatchStatus::PreservationFailed, "`count = 0` added");
    let fe = "@@ -2 +2,2 @@\n   bucket = \"logs\"\n+  for_each = {}\n";
    failed(&tf(fe), PatchStatus::PreservationFailed, "for_each");
}

#[test]
fn terraform_blocks_are_kept_new_ones_allowed() {
    let rename = "@@ -1 +1 @@\n-resource \"aws_s3_bucket\" \"logs\" {\n+resource \"aws_s3_bucket\" \"other\" {\n";
    failed(
        &tf(rename),
        PatchStatus::PreservationFailed,
        "resource \"aws_s3_bucket\" \"logs\"",
    );
    let add = "@@ -3 +3,4 @@\n }\n+resource \"aws_s3_bucket_versioning\" \"logs\" {\n+  bucket = aws_s3_bucket.logs.id\n+}\n";
    applied(&tf(add));
    let fix = "@@ -2 +2,2 @@\n   bucket = \"logs\"\n+  acl    = \"private\"\n";
    applied(&tf(fix));
}

#[test]
fn terraform_syntax_errors_are_reparse_failed() {
    let p = "@@ -3 +3 @@\n-}\n+\n";
    failed(&tf(p), PatchStatus::ReparseFailed, "does not parse");
}

// ---- never panics ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_patch_text_never_panics(patch in any::<String>()) {
        let _ = apply_patch("m.yaml", POD, &patch, FileType::K8s);
        let _ = apply_patch("main.tf", TF, &patch, FileType::Tf);
    }

    #[test]
    fn diff_shaped_text_never_panics(
        header in "@@ -[0-9]{1,2}(,[0-9]{1,2})? \\+[0-9]{1,2}(,[0-9]{1,2})? @@",
        body in prop::collection::vec("[ +\\-\\\\]?[a-z: \\-]{0,12}", 0..12),
    ) {
        let text = format!("{header}\n{}\n", body.join("\n"));
        let _ = apply_patch("m.yaml", POD, &text, FileType::K8s);
        let _ = apply_patch("main.tf", TF, &text, FileType::Tf);
    }

    #[test]
    fn json_patch_shaped_text_never_panics(
        ops in prop::collection::vec(
            (prop::sample::select(vec!["add", "remove", "replace", "move", "copy", "test"]),
             "(/[a-z0-9~\\-]{0,6}){0,4}", "(/[a-z0-9~\\-]{0,6}){0,4}"),
            1..5),
    ) {
        let ops: Vec<serde_json::Value> = ops
            .into_iter()
            .map(|(op, path, from)| json!({"op": op, "path": path, "from": from, "value": {"a": [1, "yes"]}}))
            .collect();
        let text = serde_json::Value::Array(ops).to_string();
        let o = apply_patch("m.yaml", POD, &text, FileType::K8s);
        prop_assert!(o.status == PatchStatus::Applied || o.reason.is_some());
    }
}

// ---- semantic core per kind (issue 13, item 5) ----

/// Applies a JSON Patch (a `serde_json::Value`) to a manifest.
fn jp(orig: &str, patch: &serde_json::Value) -> PatchOutcome {
    k8s(orig, &patch.to_string())
}

#[track_caller]
fn core_lost(orig: &str, patch: &serde_json::Value, has: &str) {
    failed(&jp(orig, patch), PatchStatus::PreservationFailed, has);
}

const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n  selector:\n    app: web\n  ports:\n  - name: http\n    port: 80\n    nodePort: 30080\n  - name: admin\n    port: 8080\n";

#[test]
fn service_core_is_kept_ports_may_be_restricted() {
    // The exploit of the issue: the whole spec removed (was `applied`).
    core_lost(
        SERVICE,
        &json!([{"op": "remove", "path": "/spec"}]),
        "`spec`",
    );
    core_lost(
        SERVICE,
        &json!([{"op": "replace", "path": "/spec", "value": {}}]),
        "`spec`",
    );
    core_lost(
        SERVICE,
        &json!([{"op": "remove", "path": "/spec/ports"}]),
        "`spec.ports`",
    );
    core_lost(
        SERVICE,
        &json!([{"op": "replace", "path": "/spec/ports", "value": []}]),
        "`spec.ports`",
    );
    core_lost(
        SERVICE,
        &json!([{"op": "remove", "path": "/spec/selector"}]),
        "`spec.selector`",
    );
    core_lost(
        SERVICE,
        &json!([{"op": "remove", "path": "/spec/ports/1/port"}]),
        "`spec.ports[1]` has no `port`",
    );
    // Tightening: ClusterIP instead of NodePort, one port dropped, a
    // port number changed, the selector corrected.
    applied(&jp(
        SERVICE,
        &json!([
            {"op": "replace", "path": "/spec/type", "value": "ClusterIP"},
            {"op": "remove", "path": "/spec/ports/0/nodePort"},
            {"op": "remove", "path": "/spec/ports/1"},
            {"op": "replace", "path": "/spec/ports/0/port", "value": 8443},
            {"op": "replace", "path": "/spec/selector", "value": {"app": "web", "tier": "front"}}
        ]),
    ));
}

const INGRESS: &str = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  rules:\n  - host: a.example\n    http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          service:\n            name: web\n            port:\n              number: 80\n  - host: b.example\n";

#[test]
fn ingress_rules_are_kept() {
    core_lost(
        INGRESS,
        &json!([{"op": "remove", "path": "/spec"}]),
        "`spec`",
    );
    core_lost(
        INGRESS,
        &json!([{"op": "replace", "path": "/spec/rules", "value": []}]),
        "`spec.rules`",
    );
    // Dropping one rule, adding TLS: a fix.
    applied(&jp(
        INGRESS,
        &json!([
            {"op": "remove", "path": "/spec/rules/1"},
            {"op": "add", "path": "/spec/tls", "value": [{"hosts": ["a.example"], "secretName": "tls"}]}
        ]),
    ));
}

const ROLE: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n  namespace: apps\nrules:\n- apiGroups: [\"\"]\n  resources: [secrets]\n  verbs: [get, list, \"*\"]\n- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: [get]\n";

#[test]
fn role_rules_may_lose_permissions_not_vanish() {
    core_lost(
        ROLE,
        &json!([{"op": "remove", "path": "/rules"}]),
        "`rules`",
    );
    core_lost(
        ROLE,
        &json!([{"op": "replace", "path": "/rules", "value": []}]),
        "`rules`",
    );
    core_lost(
        ROLE,
        &json!([{"op": "replace", "path": "/rules/0/verbs", "value": []}]),
        "`rules[0]` has no `verbs`",
    );
    core_lost(
        ROLE,
        &json!([{"op": "remove", "path": "/rules/1/resources"}]),
        "`resources` or `nonResourceURLs`",
    );
    // Removing the dangerous verb, or the whole secrets rule: fixes.
    applied(&jp(
        ROLE,
        &json!([{"op": "remove", "path": "/rules/0/verbs/2"}]),
    ));
    applied(&jp(ROLE, &json!([{"op": "remove", "path": "/rules/0"}])));
}

#[test]
fn cluster_role_rules_and_aggregation_are_kept() {
    let cr = ROLE
        .replace("kind: Role", "kind: ClusterRole")
        .replace("  namespace: apps\n", "");
    core_lost(&cr, &json!([{"op": "remove", "path": "/rules"}]), "`rules`");
    applied(&jp(
        &cr,
        &json!([{"op": "replace", "path": "/rules/0/verbs", "value": ["get"]}]),
    ));
}

const BINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: b\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n- kind: ServiceAccount\n  name: default\n  namespace: apps\n- kind: ServiceAccount\n  name: ci\n  namespace: apps\n";

#[test]
fn bindings_keep_a_role_and_subjects() {
    core_lost(
        BINDING,
        &json!([{"op": "remove", "path": "/roleRef"}]),
        "`roleRef.kind`",
    );
    core_lost(
        BINDING,
        &json!([{"op": "replace", "path": "/roleRef/name", "value": ""}]),
        "`roleRef.name`",
    );
    core_lost(
        BINDING,
        &json!([{"op": "remove", "path": "/subjects"}]),
        "`subjects`",
    );
    core_lost(
        BINDING,
        &json!([{"op": "remove", "path": "/subjects/1/name"}]),
        "`subjects[1]` has no `name`",
    );
    // Binding a narrower role and dropping the default account: a fix.
    applied(&jp(
        BINDING,
        &json!([
            {"op": "replace", "path": "/roleRef/name", "value": "view"},
            {"op": "remove", "path": "/subjects/0"}
        ]),
    ));
    let rb = BINDING
        .replace("kind: ClusterRoleBinding", "kind: RoleBinding")
        .replace("name: b\n", "name: b\n  namespace: apps\n");
    core_lost(
        &rb,
        &json!([{"op": "replace", "path": "/subjects", "value": []}]),
        "`subjects`",
    );
}

const NETPOL: &str = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: np\n  namespace: apps\nspec:\n  podSelector:\n    matchLabels:\n      app: web\n  policyTypes: [Ingress, Egress]\n  ingress:\n  - {}\n  egress:\n  - {}\n";

#[test]
fn network_policy_spec_is_kept_rules_may_tighten() {
    core_lost(
        NETPOL,
        &json!([{"op": "remove", "path": "/spec"}]),
        "`spec`",
    );
    core_lost(
        NETPOL,
        &json!([{"op": "remove", "path": "/spec/policyTypes"}]),
        "`spec.policyTypes`",
    );
    // Denying all ingress instead of allowing all: a fix.
    applied(&jp(
        NETPOL,
        &json!([{"op": "replace", "path": "/spec/ingress", "value": []}]),
    ));
}

const PDB: &str = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\n  namespace: apps\nspec:\n  minAvailable: 100%\n  selector:\n    matchLabels:\n      app: web\n";

#[test]
fn pdb_keeps_a_budget_and_a_selector() {
    core_lost(PDB, &json!([{"op": "remove", "path": "/spec"}]), "`spec`");
    core_lost(
        PDB,
        &json!([{"op": "remove", "path": "/spec/minAvailable"}]),
        "none of",
    );
    core_lost(
        PDB,
        &json!([{"op": "remove", "path": "/spec/selector"}]),
        "`spec.selector`",
    );
    // Switching to maxUnavailable: a fix.
    applied(&jp(
        PDB,
        &json!([
            {"op": "remove", "path": "/spec/minAvailable"},
            {"op": "add", "path": "/spec/maxUnavailable", "value": 1}
        ]),
    ));
}

const HPA: &str = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n  namespace: apps\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 1\n  maxReplicas: 10\n";

#[test]
fn hpa_keeps_its_target_and_bounds() {
    core_lost(HPA, &json!([{"op": "remove", "path": "/spec"}]), "`spec`");
    core_lost(
        HPA,
        &json!([{"op": "replace", "path": "/spec/scaleTargetRef/name", "value": "other"}]),
        "`spec.scaleTargetRef.name` changed",
    );
    core_lost(
        HPA,
        &json!([{"op": "remove", "path": "/spec/maxReplicas"}]),
        "`spec.maxReplicas`",
    );
    applied(&jp(
        HPA,
        &json!([{"op": "replace", "path": "/spec/minReplicas", "value": 3}]),
    ));
}

#[test]
fn scaled_object_and_service_monitor_cores() {
    let so = "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: s\n  namespace: apps\nspec:\n  scaleTargetRef:\n    name: web\n  triggers:\n  - type: cpu\n    metadata:\n      value: \"50\"\n";
    core_lost(
        so,
        &json!([{"op": "replace", "path": "/spec/triggers", "value": []}]),
        "`spec.triggers`",
    );
    core_lost(
        so,
        &json!([{"op": "replace", "path": "/spec/scaleTargetRef/name", "value": "x"}]),
        "changed",
    );
    let sm = "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: m\n  namespace: apps\nspec:\n  selector:\n    matchLabels:\n      app: web\n  namespaceSelector:\n    any: true\n  endpoints:\n  - port: http\n";
    core_lost(
        sm,
        &json!([{"op": "remove", "path": "/spec/selector"}]),
        "`spec.selector`",
    );
    core_lost(
        sm,
        &json!([{"op": "remove", "path": "/spec/endpoints"}]),
        "`spec.endpoints`",
    );
    // Restricting the namespaces watched: a fix.
    applied(&jp(
        sm,
        &json!([{"op": "replace", "path": "/spec/namespaceSelector", "value": {"matchNames": ["apps"]}}]),
    ));
}

#[test]
fn secret_and_config_map_keys_are_kept_values_may_change() {
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: apps\ntype: Opaque\nstringData:\n  password: hunter2\n  user: admin\n";
    core_lost(
        secret,
        &json!([{"op": "remove", "path": "/stringData"}]),
        "\"password\"",
    );
    core_lost(
        secret,
        &json!([{"op": "remove", "path": "/stringData/user"}]),
        "\"user\"",
    );
    applied(&jp(
        secret,
        &json!([
            {"op": "replace", "path": "/stringData/password", "value": "rotated"},
            {"op": "move", "from": "/stringData/user", "path": "/data"}
        ])
        .to_string()
        .replace("\"path\":\"/data\"", "\"path\":\"/stringData/user\"")
        .parse::<serde_json::Value>()
        .expect("json"),
    ));
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: apps\ndata:\n  DB_PASSWORD: hunter2\n  MODE: prod\n";
    core_lost(
        cm,
        &json!([{"op": "remove", "path": "/data"}]),
        "\"DB_PASSWORD\"",
    );
    applied(&jp(
        cm,
        &json!([{"op": "replace", "path": "/data/DB_PASSWORD", "value": "from-secret"}]),
    ));
}

#[test]
fn workload_spec_is_kept_and_other_kinds_only_by_identity() {
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: apps\nspec:\n  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n      hostNetwork: true\n      containers:\n      - name: c\n        image: nginx:1.27.0\n";
    core_lost(deploy, &json!([{"op": "remove", "path": "/spec"}]), "");
    applied(&jp(
        deploy,
        &json!([{"op": "remove", "path": "/spec/template/spec/hostNetwork"}]),
    ));
    // SCC: removing a permission only tightens.
    let scc = "apiVersion: security.openshift.io/v1\nkind: SecurityContextConstraints\nmetadata:\n  name: scc\nallowPrivilegedContainer: true\n";
    applied(&jp(
        scc,
        &json!([{"op": "remove", "path": "/allowPrivilegedContainer"}]),
    ));
}
