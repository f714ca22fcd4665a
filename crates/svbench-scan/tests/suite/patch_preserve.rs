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
