//! One request's YAML node budget: a question of many documents, each under
//! the per-document node limit, used to cost N times that limit in every
//! parse of one score (20 alias documents in a ~5 KB question aborted the
//! server on allocation failure). Scoring draws every parse of one request
//! — the live oracle's scan, the JSON Patch applier's reading, both files of
//! the preservation check, the re-scans — from one budget, and a request
//! that exhausts it is a per-sample error.

use serde_json::json;
use svbench_core::Completion;
use svbench_envs::e2::env::RequestNodes;
use svbench_envs::environment::{Deadline, Environment, ScoreErrorKind};
use svbench_scan::patch::PatchStatus;

use crate::e2_env::{answer, env, example};

/// One ConfigMap expanding through aliases to ~900,000 nodes (under the
/// per-document limit of 1,000,000) from 226 bytes.
fn bomb() -> String {
    let mut doc = String::from("apiVersion: v1\nkind: ConfigMap\n");
    doc.push_str("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
    let mut prev = 'a';
    for name in ['b', 'c', 'd', 'e'] {
        let items = vec![format!("*{prev}"); 10].join(",");
        doc.push_str(&format!("{name}: &{name} [{items}]\n"));
        prev = name;
    }
    doc.push_str(&format!("f: [{}]\n", ["*e"; 7].join(",")));
    doc
}

fn bombs(n: usize) -> String {
    vec![bomb(); n].join("---\n")
}

fn json_patch_answer() -> Completion {
    let patch = json!([{"op": "replace", "path": "/0/a/0", "value": "y"}]).to_string();
    Completion::assistant_text(answer(&[], &patch))
}

#[test]
fn many_alias_documents_in_the_question_are_an_error_not_an_abort() {
    for oracle in ["oracle=dataset", "oracle=live"] {
        let e2 = env("v1", &[oracle]);
        let ex = example("bombs", &bombs(20), "k8s", vec![]);
        let err = e2
            .score(&ex, &json_patch_answer())
            .expect_err("20 alias documents exceed the request's budget");
        assert_eq!(err.kind, ScoreErrorKind::Reference, "{oracle}: {err}");
        assert!(
            err.message.contains("more than 1000000 YAML nodes in all"),
            "{oracle}: {err}"
        );
    }
}

#[test]
fn the_budget_covers_every_parse_of_the_request_not_each_one() {
    // One alias document fits the budget once; scoring it with a JSON Patch
    // reads it again (applier, preservation, re-scan): the request as a
    // whole is over its budget.
    let e2 = env("v1", &["oracle=dataset"]);
    let ex = example("bomb", &bomb(), "k8s", vec![]);
    let err = e2
        .score(&ex, &json_patch_answer())
        .expect_err("the documents are read more than once");
    assert!(err.message.contains("nodes in all"), "{err}");
    // Without a patch nothing is parsed with the dataset oracle: it scores.
    let no_patch = Completion::assistant_text(answer(&[], ""));
    assert!(e2.score(&ex, &no_patch).is_ok());
}

#[test]
fn the_request_budgets_grow_with_the_request_within_their_cap() {
    let text = Completion::assistant_text("x".repeat(1_500_000));
    let nodes = RequestNodes::new("a: 1\n", &text);
    assert_eq!(nodes.config.limit(), 1_000_000);
    assert_eq!(nodes.patched.limit(), 1_500_005);
    let huge = "a: 1\n".repeat(1_000_000);
    let nodes = RequestNodes::new(&huge, &Completion::assistant_text("{}"));
    assert_eq!(nodes.config.limit(), 2_000_000);
    assert_eq!(nodes.patched.limit(), 2_000_000);
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: nginx:latest\n";

#[test]
fn a_patch_that_adds_alias_documents_is_too_large_not_fixed_and_not_an_error() {
    // The patched file's re-scan stops at the patched file's node budget: its
    // empty findings must not read as "every finding fixed", and the sample
    // is scored (a failed patch), not voided as an error.
    // The alias lines of the bomb, under a new top-level key of the Pod.
    let bomb_lines: Vec<String> = bomb().lines().skip(2).map(|l| format!("+  {l}")).collect();
    let diff = format!(
        "@@ -8,0 +9,{} @@\n+x:\n{}\n",
        bomb_lines.len() + 1,
        bomb_lines.join("\n")
    );
    let e2 = env("v1", &["oracle=dataset"]);
    let ex = example(
        "pod",
        POD,
        "k8s",
        vec![json!({"tool": "kube-linter", "rule_id": "latest-tag", "severity": "med"})],
    );
    let completion = Completion::assistant_text(answer(&[], &diff));
    let item = e2.item(&ex).expect("item");
    let scored = e2
        .score_item(&item, &completion, &Deadline::NONE)
        .expect("scored");
    let outcome = scored.outcome.expect("a v1 patch was given");
    assert_eq!(
        outcome.status,
        PatchStatus::TooLarge,
        "{:?}",
        outcome.reason
    );
    assert!(
        outcome.reason.unwrap_or_default().contains("patched file"),
        "the reason names the patched file's budget"
    );
    assert_eq!(scored.evaluation.status(), "too_large");
    assert_eq!(scored.upstream_patch.status, "too_large");
    // Through the environment: a reward, not an error.
    assert!(e2.score(&ex, &completion).is_ok());
}

#[test]
fn ordinary_configs_with_patches_still_score() {
    // Many ordinary documents and a JSON Patch: far inside the budget.
    let config: String = (0..200)
        .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  namespace: prod\ndata:\n  k: v\n"))
        .collect();
    for oracle in ["oracle=dataset", "oracle=live"] {
        let e2 = env("v1", &[oracle]);
        let ex = example("many", &config, "k8s", vec![]);
        let patch = json!([{"op": "replace", "path": "/3/data/k", "value": "w"}]).to_string();
        let scored = e2
            .score(&ex, &Completion::assistant_text(answer(&[], &patch)))
            .unwrap_or_else(|e| panic!("{oracle}: {e}"));
        assert!(scored.reward.total.is_finite());
    }
}
