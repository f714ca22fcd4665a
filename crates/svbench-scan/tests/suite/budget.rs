//! The node budget of a whole file or request: documents multiplied, each
//! under the per-document limit, cost no more than the file's budget.

use std::time::Duration;

use svbench_scan::patch::lenient::apply_upstream_within;
use svbench_scan::patch::{apply_patch, apply_patch_within, PatchStatus, PatchStop};
use svbench_scan::scan::{FileType, ScanOptions, Scanner};
use svbench_scan::{
    budget_error, parse_documents, parse_documents_within, Deadline, Limits, Node, NodeBudget,
    NodeKind, YamlError,
};

/// One document that expands through aliases to 902,246 nodes (just under
/// the per-document limit of 1,000,000) from 226 bytes.
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

fn count(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Scalar(_) => 1,
        NodeKind::Sequence(items) => 1 + items.iter().map(count).sum::<usize>(),
        NodeKind::Mapping(pairs) => {
            1 + pairs
                .iter()
                .map(|(k, v)| count(k) + count(v))
                .sum::<usize>()
        }
    }
}

#[test]
fn one_alias_document_fits_the_per_document_limit() {
    let text = bomb();
    let docs = parse_documents(&text, &Limits::default());
    assert_eq!(docs.len(), 1);
    let node = docs[0]
        .result
        .as_ref()
        .expect("one document is within the limits");
    assert_eq!(count(node), 901_244);
}

#[test]
fn many_documents_each_under_the_limit_exhaust_the_files_budget() {
    let limits = Limits::default();
    let text = bombs(20);
    assert_eq!(limits.file_nodes(text.len()), 1_000_000);
    let docs = parse_documents(&text, &limits);
    // The first document fits, the second runs out: reading stops there.
    assert_eq!(docs.len(), 2, "reading stops at the budget error");
    assert!(docs[0].result.is_ok());
    let err = budget_error(&docs).expect("the file's budget ran out");
    assert_eq!(
        *err,
        YamlError::BudgetExceeded {
            line: 16,
            limit: 1_000_000
        }
    );
    assert!(
        err.to_string().contains("more than 1000000 nodes in all"),
        "{err}"
    );
}

#[test]
fn the_budget_is_shared_by_every_parse_that_draws_from_it() {
    let limits = Limits::default();
    let budget = NodeBudget::new(1_000_000);
    let first = parse_documents_within(&bomb(), &limits, &budget);
    assert!(first[0].result.is_ok());
    assert!(!budget.exceeded());
    assert!(budget.used() > 900_000, "{} nodes used", budget.used());
    // The same text again: a second parse of one request does not start over.
    let second = parse_documents_within(&bomb(), &limits, &budget);
    assert!(budget_error(&second).is_some());
    assert!(budget.exceeded());
    assert!(budget.used() <= budget.limit());
}

#[test]
fn a_large_file_of_many_plain_documents_is_bounded_in_total() {
    // 300,000 small Pods (~33 MB): each document is tiny, the file's total
    // is what the budget bounds (at most 2,000,000 nodes in all).
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n";
    let text = vec![pod; 300_000].join("---\n");
    let limits = Limits::default();
    assert_eq!(limits.file_nodes(text.len()), 2_000_000);
    let docs = parse_documents(&text, &limits);
    let parsed: usize = docs
        .iter()
        .filter_map(|d| d.result.as_ref().ok())
        .map(count)
        .sum();
    assert!(parsed <= 2_000_000, "{parsed} nodes held");
    assert!(
        docs.len() < 300_000,
        "reading stopped at the budget, {} documents",
        docs.len()
    );
    assert!(matches!(
        budget_error(&docs),
        Some(YamlError::BudgetExceeded {
            limit: 2_000_000,
            ..
        })
    ));
    // The same documents in a file under the budget all parse.
    let small = vec![pod; 1_000].join("---\n");
    let docs = parse_documents(&small, &limits);
    assert_eq!(docs.len(), 1_000);
    assert!(docs.iter().all(|d| d.result.is_ok()));
}

#[test]
fn a_scan_of_many_alias_documents_is_one_error_and_no_findings() {
    let mut scanner = Scanner::new(&ScanOptions::default()).expect("scanner");
    let text = bombs(5);
    let report = scanner.scan("bombs.yaml", text.as_bytes(), FileType::K8s);
    assert!(report.findings.is_empty());
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert!(
        report.errors[0].message.contains("nodes in all"),
        "{}",
        report.errors[0].message
    );
    assert_eq!(scanner.k8s_objects(text.as_bytes()), 0);
    // One such document alone is still scanned.
    let one = scanner.scan("bomb.yaml", bomb().as_bytes(), FileType::K8s);
    assert!(one.errors.is_empty(), "{:?}", one.errors);
}

#[test]
fn a_json_patch_on_many_alias_documents_is_too_large() {
    let text = bombs(20);
    let patch = r#"[{"op": "replace", "path": "/0/a/0", "value": "y"}]"#;
    let outcome = apply_patch("bombs.yaml", &text, patch, FileType::K8s);
    assert_eq!(
        outcome.status,
        PatchStatus::TooLarge,
        "{:?}",
        outcome.reason
    );
    assert!(outcome.patched.is_none());
}

#[test]
fn a_json_patch_cannot_emit_the_alias_expansion_of_its_original() {
    // One alias document within every node budget: the emitted patched file
    // would be megabytes from 226 bytes, past twice the original's text.
    let patch = r#"[{"op": "replace", "path": "/a/0", "value": "y"}]"#;
    let outcome = apply_patch("bomb.yaml", &bomb(), patch, FileType::K8s);
    assert_eq!(
        outcome.status,
        PatchStatus::TooLarge,
        "{:?}",
        outcome.reason
    );
    let reason = outcome.reason.unwrap_or_default();
    assert!(reason.contains("bytes"), "{reason}");
}

#[test]
fn the_appliers_stop_at_a_passed_deadline() {
    let original: String = (0..20_000).map(|i| format!("k{i}: v\n")).collect();
    let passed = Deadline::at(std::time::Instant::now(), Duration::from_millis(5));
    let nodes = NodeBudget::for_input(&Limits::default(), original.len());
    // Many hunks: the deadline is read before each one.
    let diff: String = (0..2_000)
        .map(|i| format!("@@ -{0} +{0} @@\n-k{1}: v\n+k{1}: w\n", i * 10 + 1, i * 10))
        .collect();
    let r = apply_patch_within(
        "c.yaml",
        &original,
        &diff,
        FileType::K8s,
        &passed,
        &nodes,
        &nodes,
    );
    assert!(r.is_err(), "a passed deadline stops the diff applier");
    let r = apply_upstream_within(&original, &diff, &passed);
    assert!(matches!(r, Err(PatchStop::TimeBudget(_))), "{r:?}");
    let r = svbench_scan::patch::diff::apply_within("c.yaml", &original, &diff, &passed);
    assert!(matches!(r, Err(PatchStop::TimeBudget(_))), "{r:?}");
    let ops: String = (0..500)
        .map(|i| format!(r#"{{"op":"replace","path":"/k{i}","value":"w"}}"#))
        .collect::<Vec<_>>()
        .join(",");
    let r = apply_patch_within(
        "c.yaml",
        &original,
        &format!("[{ops}]"),
        FileType::K8s,
        &passed,
        &nodes,
        &nodes,
    );
    assert!(r.is_err(), "a passed deadline stops the JSON Patch applier");
    let raw = svbench_scan::patch::json_patch::detect(&format!("[{ops}]")).expect("ops");
    let r = svbench_scan::patch::json_patch::apply_within(
        &original,
        &raw,
        FileType::K8s,
        &passed,
        &nodes,
    );
    assert!(matches!(r, Err(PatchStop::TimeBudget(_))), "{r:?}");
    // Without a deadline the same patches apply.
    let ok = apply_patch_within(
        "c.yaml",
        &original,
        &diff,
        FileType::K8s,
        &Deadline::NONE,
        &nodes,
        &nodes,
    )
    .expect("no deadline");
    assert_eq!(ok.status, PatchStatus::Applied, "{:?}", ok.reason);
}

#[test]
fn aliases_of_a_long_scalar_count_its_text_each_time() {
    // 100,000 aliases (3 bytes each) of a 1,000-byte scalar would copy
    // 100 MB from 300 KB: each alias counts 1 + 1000/64 = 16 nodes.
    let text = format!(
        "s: &s \"{}\"\nl: [{}]\n",
        "x".repeat(1_000),
        vec!["*s"; 100_000].join(",")
    );
    let docs = parse_documents(&text, &Limits::default());
    assert!(
        matches!(docs[0].result, Err(YamlError::TooManyNodes { .. })),
        "{:?}",
        docs[0].result.as_ref().map(|_| ())
    );
    // A long tag is copied with its node just the same.
    let tagged = format!(
        "s: &s !{} x\nl: [{}]\n",
        "t".repeat(1_000),
        vec!["*s"; 100_000].join(",")
    );
    assert!(matches!(
        parse_documents(&tagged, &Limits::default())[0].result,
        Err(YamlError::TooManyNodes { .. })
    ));
    // A short scalar repeated as often is one node per alias and fits.
    let short = format!("s: &s x\nl: [{}]\n", vec!["*s"; 100_000].join(","));
    assert!(parse_documents(&short, &Limits::default())[0]
        .result
        .is_ok());
}
