//! One request's YAML node budget: a question of many documents, each under
//! the per-document node limit, used to cost N times that limit in every
//! parse of one score (20 alias documents in a ~5 KB question aborted the
//! server on allocation failure). Scoring draws every parse of one request
//! — the live oracle's scan, the JSON Patch applier's reading, both files of
//! the preservation check, the re-scans — from one budget, and a request
//! that exhausts it is a per-sample error.

use serde_json::json;
use svbench_core::Completion;
use svbench_envs::e2::env::E2Env;
use svbench_envs::environment::{Environment, ScoreErrorKind};

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
fn the_request_budget_grows_with_the_request_within_its_cap() {
    let text = Completion::assistant_text("x".repeat(1_500_000));
    assert_eq!(E2Env::request_budget("a: 1\n", &text).limit(), 1_500_005);
    let small = Completion::assistant_text("{}");
    assert_eq!(E2Env::request_budget("a: 1\n", &small).limit(), 1_000_000);
    let huge = "a: 1\n".repeat(1_000_000);
    assert_eq!(E2Env::request_budget(&huge, &small).limit(), 2_000_000);
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
