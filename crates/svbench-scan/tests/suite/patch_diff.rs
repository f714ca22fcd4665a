//! Unified diff application (spec E2 §4.1) and the outcome statuses.

use svbench_scan::patch::{apply_patch, PatchKind, PatchOutcome, PatchStatus};
use svbench_scan::scan::FileType;

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx-dummy\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

fn k8s(patch: &str) -> PatchOutcome {
    apply_patch("nginx-dummy.yaml", POD, patch, FileType::K8s)
}

#[track_caller]
fn expect(o: &PatchOutcome, status: PatchStatus, reason_has: &str) {
    assert_eq!(o.status, status, "{o:?}");
    if status == PatchStatus::Applied {
        assert!(o.reason.is_none() && o.patched.is_some());
    } else {
        let r = o.reason.as_deref().unwrap_or_default();
        if status != PatchStatus::None {
            assert!(r.contains(reason_has), "reason {r:?} lacks {reason_has:?}");
        }
        assert!(o.patched.is_none());
    }
}

const READ_ONLY: &str = "--- a/nginx-dummy.yaml\n+++ b/nginx-dummy.yaml\n@@ -8,3 +8,5 @@\n   - name: nginx-dummy\n     image: nginx\n+    securityContext:\n+      readOnlyRootFilesystem: true\n     volumeMounts:\n";

#[test]
fn adds_read_only_root_filesystem() {
    let o = k8s(READ_ONLY);
    expect(&o, PatchStatus::Applied, "");
    assert_eq!(o.kind, Some(PatchKind::UnifiedDiff));
    let text = o.patched.unwrap();
    assert!(text.contains("    image: nginx\n    securityContext:\n      readOnlyRootFilesystem: true\n    volumeMounts:\n"));
}

#[test]
fn fenced_diff_is_unwrapped() {
    let o = k8s(&format!("```diff\n{READ_ONLY}```\n"));
    expect(&o, PatchStatus::Applied, "");
}

#[test]
fn pins_image_with_git_headers() {
    let p = "diff --git a/nginx-dummy.yaml b/nginx-dummy.yaml\nindex 123..456 100644\n--- a/nginx-dummy.yaml\n+++ b/nginx-dummy.yaml\n@@ -9 +9 @@\n-    image: nginx\n+    image: nginx:1.27.0\n";
    let o = k8s(p);
    expect(&o, PatchStatus::Applied, "");
    assert!(o.patched.unwrap().contains("image: nginx:1.27.0\n"));
}

#[test]
fn path_forms_accepted() {
    for name in [
        "./nginx-dummy.yaml",
        "/workspace/nginx-dummy.yaml",
        "nginx-dummy.yaml",
    ] {
        let p = format!(
            "--- {name}\n+++ {name}\n@@ -9 +9 @@\n-    image: nginx\n+    image: nginx:1.27.0\n"
        );
        expect(&k8s(&p), PatchStatus::Applied, "");
    }
}

#[test]
fn relocates_a_hunk_with_a_wrong_line_number_when_unique() {
    let p =
        "@@ -40,2 +40,2 @@\n   - name: nginx-dummy\n-    image: nginx\n+    image: nginx:1.27.0\n";
    let o = k8s(p);
    expect(&o, PatchStatus::Applied, "");
    assert!(o
        .patched
        .unwrap()
        .contains("  - name: nginx-dummy\n    image: nginx:1.27.0\n"));
}

#[test]
fn ambiguous_relocation_fails() {
    // `  - name: dummy`-like lines: "- name: dummy" occurs twice at different
    // depths, so use a block that occurs twice exactly.
    let orig = "a: 1\nb: 2\nx: 0\na: 1\nb: 2\n";
    let p = "@@ -9,2 +9,2 @@\n a: 1\n-b: 2\n+b: 3\n";
    let o = apply_patch("f.yaml", orig, p, FileType::K8s);
    expect(&o, PatchStatus::ApplyFailed, "ambiguous");
    assert!(o.reason.unwrap().contains("hunk 1"));
}

#[test]
fn exact_position_wins_over_other_occurrences() {
    let orig = "a: 1\nb: 2\nx: 0\na: 1\nb: 2\n";
    let p = "@@ -4,2 +4,2 @@\n a: 1\n-b: 2\n+b: 3\n";
    let o = apply_patch("f.yaml", orig, p, FileType::K8s);
    // Duplicate keys are fine for the model (last wins): the point is where the hunk went.
    assert_eq!(
        o.patched.as_deref(),
        Some("a: 1\nb: 2\nx: 0\na: 1\nb: 3\n"),
        "{o:?}"
    );
}

#[test]
fn context_not_found_fails() {
    let p = "@@ -9 +9 @@\n-    image: httpd\n+    image: httpd:2\n";
    expect(&k8s(p), PatchStatus::ApplyFailed, "occur nowhere");
}

#[test]
fn whitespace_is_not_folded() {
    let p = "@@ -9 +9 @@\n-  image: nginx\n+  image: nginx:1.27.0\n";
    expect(&k8s(p), PatchStatus::ApplyFailed, "hunk 1");
}

#[test]
fn declared_counts_must_equal_the_body() {
    let short =
        "@@ -8,3 +8,3 @@\n   - name: nginx-dummy\n-    image: nginx\n+    image: nginx:1.27.0\n";
    expect(
        &k8s(short),
        PatchStatus::Malformed,
        "declares 3 old and 3 new",
    );
    let long = "@@ -9 +9 @@\n-    image: nginx\n+    image: nginx:1.27.0\n     volumeMounts:\n";
    expect(&k8s(long), PatchStatus::Malformed, "extra body line");
}

#[test]
fn omitted_counts_mean_one_and_empty_line_is_context() {
    let orig = "a: 1\n\nb: 2\n";
    let p = "@@ -1,3 +1,3 @@\n a: 1\n\n-b: 2\n+b: 3\n";
    let o = apply_patch("f.yaml", orig, p, FileType::K8s);
    assert_eq!(o.patched.as_deref(), Some("a: 1\n\nb: 3\n"), "{o:?}");
}

#[test]
fn bad_hunk_header_and_prose_are_malformed() {
    expect(
        &k8s("@@ -x +1 @@\n a\n"),
        PatchStatus::Malformed,
        "bad hunk header",
    );
    expect(
        &k8s("Here is my fix: set the image tag."),
        PatchStatus::Malformed,
        "unexpected",
    );
    expect(
        &k8s("--- a/nginx-dummy.yaml\n+++ b/nginx-dummy.yaml\n"),
        PatchStatus::Malformed,
        "no hunk",
    );
}

#[test]
fn wrong_target_files() {
    let hunk = "@@ -9 +9 @@\n-    image: nginx\n+    image: nginx:1.27.0\n";
    let other = format!("--- a/other.yaml\n+++ b/other.yaml\n{hunk}");
    expect(&k8s(&other), PatchStatus::TargetMismatch, "another file");
    let traversal = format!("--- ../etc/passwd\n+++ ../etc/passwd\n{hunk}");
    expect(
        &k8s(&traversal),
        PatchStatus::TargetMismatch,
        "path traversal",
    );
    let absolute = format!("--- /etc/passwd\n+++ /etc/passwd\n{hunk}");
    expect(&k8s(&absolute), PatchStatus::TargetMismatch, "absolute");
    let create = format!("--- /dev/null\n+++ b/nginx-dummy.yaml\n{hunk}");
    expect(&k8s(&create), PatchStatus::TargetMismatch, "/dev/null");
    let delete = format!("--- a/nginx-dummy.yaml\n+++ /dev/null\n{hunk}");
    expect(&k8s(&delete), PatchStatus::TargetMismatch, "/dev/null");
    let two = format!(
        "--- a/nginx-dummy.yaml\n+++ b/nginx-dummy.yaml\n{hunk}--- a/x.yaml\n+++ b/x.yaml\n{hunk}"
    );
    expect(&k8s(&two), PatchStatus::TargetMismatch, "second file");
    let git = format!("diff --git a/x.yaml b/x.yaml\n{hunk}");
    expect(&k8s(&git), PatchStatus::TargetMismatch, "x.yaml");
}

#[test]
fn crlf_files_stay_crlf() {
    let orig = POD.replace('\n', "\r\n");
    let o = apply_patch("nginx-dummy.yaml", &orig, READ_ONLY, FileType::K8s);
    expect(&o, PatchStatus::Applied, "");
    let text = o.patched.unwrap();
    assert!(text.contains(
        "    image: nginx\r\n    securityContext:\r\n      readOnlyRootFilesystem: true\r\n"
    ));
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count());
    // A CRLF-transported patch applies the same way.
    let o2 = apply_patch(
        "nginx-dummy.yaml",
        &orig,
        &READ_ONLY.replace('\n', "\r\n"),
        FileType::K8s,
    );
    assert_eq!(o2.patched.as_deref(), Some(text.as_str()));
}

#[test]
fn no_newline_marker() {
    let orig = "a: 1\nb: 2";
    let p =
        "@@ -2 +2 @@\n-b: 2\n\\ No newline at end of file\n+b: 3\n\\ No newline at end of file\n";
    let o = apply_patch("f.yaml", orig, p, FileType::K8s);
    assert_eq!(o.patched.as_deref(), Some("a: 1\nb: 3"), "{o:?}");
    // Adding the newline.
    let p = "@@ -2 +2 @@\n-b: 2\n\\ No newline at end of file\n+b: 3\n";
    let o = apply_patch("f.yaml", orig, p, FileType::K8s);
    assert_eq!(o.patched.as_deref(), Some("a: 1\nb: 3\n"), "{o:?}");
    // The marker claims the line ends the file, but it does not.
    let p = "@@ -1 +1 @@\n-a: 1\n\\ No newline at end of file\n+a: 2\n";
    expect(
        &apply_patch("f.yaml", orig, p, FileType::K8s),
        PatchStatus::ApplyFailed,
        "hunk 1",
    );
    // Appending after a last line without newline keeps lines apart.
    let p = "@@ -2,0 +3 @@\n+c: 3\n";
    let o = apply_patch("f.yaml", orig, p, FileType::K8s);
    assert_eq!(o.patched.as_deref(), Some("a: 1\nb: 2\nc: 3\n"), "{o:?}");
}

#[test]
fn hunks_apply_in_order_without_overlap() {
    let orig = "a: 1\nb: 2\nc: 3\nd: 4\n";
    let ok = "@@ -1 +1 @@\n-a: 1\n+a: 9\n@@ -4 +4 @@\n-d: 4\n+d: 9\n";
    let o = apply_patch("f.yaml", orig, ok, FileType::K8s);
    assert_eq!(o.patched.as_deref(), Some("a: 9\nb: 2\nc: 3\nd: 9\n"));
    let reversed = "@@ -4 +4 @@\n-d: 4\n+d: 9\n@@ -1 +1 @@\n-a: 1\n+a: 9\n";
    expect(
        &apply_patch("f.yaml", orig, reversed, FileType::K8s),
        PatchStatus::ApplyFailed,
        "in order",
    );
    let overlap = "@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n+b: 9\n@@ -2,2 +2,2 @@\n b: 2\n-c: 3\n+c: 9\n";
    expect(
        &apply_patch("f.yaml", orig, overlap, FileType::K8s),
        PatchStatus::ApplyFailed,
        "hunk 2",
    );
}

#[test]
fn empty_patch_is_none() {
    for p in ["", "   \n\t", "```\n\n```"] {
        let o = k8s(p);
        assert_eq!(o.status, PatchStatus::None, "{p:?}");
        assert_eq!(o.kind, None);
    }
}

#[test]
fn huge_patches_are_refused() {
    let big = format!("@@ -1 +1 @@\n-a\n+{}\n", "x".repeat(2 << 20));
    expect(&k8s(&big), PatchStatus::Malformed, "limit");
    let many: String = (0..10_001).map(|_| "@@ -1,0 +1 @@\n+a: 1\n").collect();
    expect(&k8s(&many), PatchStatus::Malformed, "hunks");
    expect(
        &k8s("@@ -1,99999999999 +1 @@\n"),
        PatchStatus::Malformed,
        "bad hunk header",
    );
}

#[test]
fn outcome_serialises_snake_case() {
    let o = k8s("@@ -9 +9 @@\n-    image: httpd\n+    image: x\n");
    let v = serde_json::to_value(&o).unwrap();
    assert_eq!(v["status"], "apply_failed");
    assert_eq!(v["kind"], "unified_diff");
    assert_eq!(
        serde_json::to_value(PatchStatus::PreservationFailed).unwrap(),
        "preservation_failed"
    );
    assert_eq!(
        serde_json::to_value(PatchStatus::TargetMismatch).unwrap(),
        "target_mismatch"
    );
}

/// Found by the `patch_diff` fuzz target: a hunk stated past the end of the
/// file made the upstream profile's lenient applier slice out of range (a
/// panic reachable from any model's patch).
#[test]
fn lenient_hunk_stated_past_the_end_is_refused_not_a_panic() {
    use svbench_scan::patch::{lenient::apply_upstream, PatchStatus};
    for original in ["", "a\nb\nc\nd\ne\n"] {
        for patch in ["@@ -8 +2 @@", "@@ -500 +2 @@\n", "@@ -500,0 +2 @@\n+x\n"] {
            match apply_upstream(original, patch) {
                Ok(t) => assert!(t.len() <= original.len() + patch.len() + 1),
                Err(f) => assert_ne!(f.status, PatchStatus::Applied),
            }
        }
    }
}
