//! The `upstream` profile's patch path through the environment's scoring
//! (spec E2 §5.1 "Upstream patch path"): lenient GNU-`patch`-style apply,
//! re-scan with the primary analyzer only, no preservation check, the
//! adapter error, and the Terraform quirk.

use crate::WrittenJson;
use serde_json::{json, Value};
use svbench_core::{Completion, Example};
use svbench_envs::environment::{Environment, ScoredAnswer};

use crate::e2_env::{answer, approx, env, example, row0, K, ROW0_YAML, TF_BUCKET};

/// A completion whose final message is `text` (no tools).
fn said(text: String) -> Completion {
    Completion::Messages(vec![json!({"role": "assistant", "content": text})])
}

fn k_ids() -> Vec<String> {
    K.iter().map(|r| format!("kube-linter/{r}")).collect()
}

fn score(profile: &str, ex: &Example, ids: &[String], patch: &str) -> ScoredAnswer {
    env(profile, &[])
        .score(ex, &said(answer(ids, patch)))
        .expect("scored")
}

/// A diff replacing every line of row 0 by `new` (no headers).
fn replace_row0(new: &str) -> String {
    let old: Vec<&str> = ROW0_YAML.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let mut patch = format!("@@ -1,{} +1,{} @@\n", old.len(), new.len());
    for l in old {
        patch.push_str(&format!("-{l}\n"));
    }
    for l in new {
        patch.push_str(&format!("+{l}\n"));
    }
    patch
}

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nginx-dummy\n  namespace: default\ndata:\n  a: b\n";

fn rca(s: &ScoredAnswer) -> f64 {
    s.reward.component("reward_config_auditing").expect("rca")
}

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("list")
        .iter()
        .filter_map(|v| v["id"].as_str())
        .collect()
}

#[test]
fn replacing_the_pod_by_a_configmap_scores_the_5_1_row() {
    // "the 5 K ids + patch replacing the Pod by a ConfigMap (all 5 gone)":
    // P/R/F1 1, rca min(2, 1 + 3.0 + .05) = 2, total 2.05.
    let patch = replace_row0(CONFIGMAP);
    let s = score("upstream", &row0(), &k_ids(), &patch);
    approx(rca(&s), 2.0, "rca");
    approx(s.reward.total, 2.05, "total");
    let up = &s.parsed()["upstream_patch"];
    assert_eq!(up["status"], "applied");
    assert_eq!(up["reason"], Value::Null);
    assert_eq!(up["after"], json!([]));
    approx(up["bonus"].as_f64().expect("bonus"), 3.0, "bonus");
    assert_eq!(s.compat()["patch_applied"], true);
    assert_eq!(s.compat()["post_patch_violations"], json!([]));

    // The v1 path refuses the same patch (§4.3 objects changed), and under
    // the v1 profile the compat fields follow it.
    let v = score("v1", &row0(), &k_ids(), &patch);
    assert_eq!(v.parsed()["v1_patch"]["status"], "preservation_failed");
    assert_eq!(v.parsed()["upstream_patch"]["status"], "applied");
    assert_eq!(v.compat()["patch_applied"], false);
    assert_eq!(v.compat()["post_patch_violations"], json!([]));
}

#[test]
fn a_patch_leaving_no_valid_object_is_an_adapter_error_and_scores_rca_0() {
    for leftover in [
        "# nothing left\n",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n",
    ] {
        let s = score("upstream", &row0(), &k_ids(), &replace_row0(leftover));
        let up = &s.parsed()["upstream_patch"];
        assert_eq!(up["status"], "adapter_error", "{leftover:?}");
        assert!(up["reason"]
            .as_str()
            .is_some_and(|r| r.contains("no valid Kubernetes object")));
        assert!(up.get("after").is_none());
        approx(rca(&s), 0.0, "rca");
        // Format credit stays: the answer itself was valid.
        approx(s.reward.total, 0.05, "total");
        assert_eq!(s.compat()["patch_applied"], false);
    }
}

#[test]
fn a_document_left_undecodable_drops_its_findings_which_count_as_fixed() {
    // The Pod becomes a custom resource (undecodable) and a ConfigMap is
    // appended: one valid object remains, so the scan runs, and the Pod's
    // five findings are gone.
    let patch = "@@ -1,2 +1,2 @@\n-apiVersion: v1\n+apiVersion: example.com/v1\n kind: Pod\n@@ -18 +18,8 @@\n       driver: \"k8s/dummy\"\n+---\n+apiVersion: v1\n+kind: ConfigMap\n+metadata:\n+  name: extra\n+  namespace: default\n+data:\n+  a: b\n";
    let s = score("upstream", &row0(), &k_ids(), patch);
    assert_eq!(s.parsed()["upstream_patch"]["status"], "applied");
    assert_eq!(s.parsed()["upstream_patch"]["after"], json!([]));
    approx(rca(&s), 2.0, "rca");
}

#[test]
fn a_fuzzy_context_diff_that_v1_rejects_applies_upstream() {
    // Stated 3 lines early, and the first leading and last trailing context
    // lines are wrong: GNU patch applies it at fuzz 1 (offset 3); the strict
    // v1 applier finds the old block nowhere.
    let patch = "--- a/manifest.yaml\n+++ b/manifest.yaml\n@@ -3,7 +3,7 @@\n sepc:\n   containers:\n   - name: nginx-dummy\n-    image: nginx\n+    image: nginx:1.27.0\n     volumeMounts:\n     - name: dummy\n       mountPath: /srv\n";
    let s = score("upstream", &row0(), &k_ids(), patch);
    let up = &s.parsed()["upstream_patch"];
    assert_eq!(up["status"], "applied");
    let after = ids(&up["after"]);
    assert!(!after.contains(&"kube-linter/latest-tag"), "{after:?}");
    assert!(after.contains(&"kube-linter/run-as-non-root"));
    assert!(after.iter().all(|id| id.starts_with("kube-linter/")));
    // F1 1 + latest-tag's .6 + .05.
    approx(up["bonus"].as_f64().expect("bonus"), 0.6, "bonus");
    approx(rca(&s), 1.65, "rca");
    approx(s.reward.total, 1.70, "total");
    assert_eq!(s.parsed()["v1_patch"]["status"], "apply_failed");

    let v = score("v1", &row0(), &k_ids(), patch);
    assert_eq!(v.parsed()["v1_patch"]["status"], "apply_failed");
    assert_eq!(v.compat()["patch_applied"], false);
}

#[test]
fn a_patch_that_does_not_apply_is_failed_with_a_reason_and_no_bonus() {
    let patch = "@@ -9 +9 @@\n-    image: httpd\n+    image: httpd:2.4\n";
    let s = score("upstream", &row0(), &k_ids(), patch);
    let up = &s.parsed()["upstream_patch"];
    assert_eq!(up["status"], "failed");
    assert!(up["reason"].as_str().is_some_and(|r| r.contains("hunk 1")));
    approx(up["bonus"].as_f64().expect("bonus"), 0.0, "bonus");
    approx(rca(&s), 1.05, "rca");
    assert_eq!(s.compat()["patch_applied"], false);
    // A JSON op list on the YAML row fails too (upstream applied op lists
    // to JSON originals only).
    let ops = r#"[{"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:1.27.0"}]"#;
    let s = score("upstream", &row0(), &k_ids(), ops);
    assert_eq!(s.parsed()["upstream_patch"]["status"], "failed");
    // No patch: status none, no reason.
    let s = score("upstream", &row0(), &k_ids(), "");
    assert_eq!(
        s.parsed()["upstream_patch"],
        json!({"status": "none", "reason": null, "bonus": 0.0})
    );
}

#[test]
fn terraform_applied_patches_earn_the_full_bonus_the_upstream_quirk() {
    // Upstream re-scanned a suffix-less temporary file with semgrep, which
    // then finds nothing: every primary (semgrep) oracle id counts as fixed
    // whatever the patch does. Here the patch only adds a comment.
    let label = json!({"tool": "semgrep", "rule_id": "terraform.aws.security.s3-public-read-acl",
                       "severity": "WARNING", "msg": "", "loc": ""});
    let ex = example("tf", TF_BUCKET, "tf", vec![label]);
    let id = vec!["semgrep/terraform.aws.security.s3-public-read-acl".to_owned()];
    let patch = "@@ -1,2 +1,3 @@\n resource \"aws_s3_bucket\" \"logs\" {\n+  # reviewed\n   bucket = \"logs\"\n";
    let s = score("upstream", &ex, &id, patch);
    let up = &s.parsed()["upstream_patch"];
    assert_eq!(up["status"], "applied");
    assert_eq!(up["after"], json!([]));
    approx(up["bonus"].as_f64().expect("bonus"), 0.6, "bonus");
    approx(rca(&s), 1.65, "rca");
    approx(s.reward.total, 1.70, "total");
    assert_eq!(s.compat()["patch_applied"], true);
    assert_eq!(s.compat()["post_patch_violations"], json!([]));
}
