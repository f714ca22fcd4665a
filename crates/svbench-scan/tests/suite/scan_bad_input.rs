//! Hostile and broken inputs through the whole scanner (issue 4 "Bad input"):
//! each gives a clear per-file error in bounded time, and never stops the
//! other analyzers or documents.

use std::time::{Duration, Instant};

use svbench_scan::scan::{FileReport, FileType, ScanOptions, Scanner};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  hostPID: true\n  containers:\n  - name: c\n    image: nginx:1.25\n";

fn scan(bytes: &[u8], ty: FileType) -> (FileReport, Duration) {
    let mut scanner = Scanner::new(&ScanOptions::default()).unwrap();
    let start = Instant::now();
    let name = if ty == FileType::Tf {
        "main.tf"
    } else {
        "manifest.yaml"
    };
    let report = scanner.scan(name, bytes, ty);
    (report, start.elapsed())
}

fn messages(report: &FileReport) -> String {
    report
        .errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn alias_bomb_is_an_error_and_the_next_document_still_scans() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let prev = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    text.push_str("---\n");
    text.push_str(POD);
    let (report, _) = scan(text.as_bytes(), FileType::K8s);
    assert!(!report.errors.is_empty());
    assert!(messages(&report).contains("node"), "{}", messages(&report));
    assert!(report
        .findings
        .iter()
        .any(|f| f.rule_id == "host-pid" && f.doc_index == Some(1)));
}

#[test]
fn deep_nesting_binary_and_invalid_utf8_are_errors() {
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let (report, _) = scan(deep.as_bytes(), FileType::K8s);
    assert!(!report.errors.is_empty());
    assert!(report.findings.is_empty());

    let (report, _) = scan(b"\x7fELF\x02\x01\x01\x00\x00\x00", FileType::K8s);
    assert_eq!(report.errors.len(), 1, "{}", messages(&report));
    assert!(report.errors[0].tool.is_none());

    let (report, _) = scan(b"apiVersion: v1\nkind: \xff\xfe\n", FileType::K8s);
    assert!(messages(&report).contains("UTF-8"), "{}", messages(&report));
}

#[test]
fn unknown_kinds_are_reported_not_guessed() {
    let text =
        format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n---\n{POD}");
    let (report, _) = scan(text.as_bytes(), FileType::K8s);
    assert!(
        report
            .errors
            .iter()
            .any(|e| e.doc_index == Some(0) && e.message.contains("Widget")),
        "{}",
        messages(&report)
    );
    assert!(report.findings.iter().any(|f| f.rule_id == "host-pid"));
}

#[test]
fn hcl_syntax_errors_name_a_line() {
    let (report, _) = scan(
        b"resource \"aws_s3_bucket\" \"b\" {\n  acl = \n}\n",
        FileType::Tf,
    );
    assert_eq!(report.errors.len(), 1);
    assert!(
        report.errors[0].message.contains("line"),
        "{}",
        messages(&report)
    );
}

#[test]
fn oversized_input_is_refused_before_parsing() {
    let big = vec![b'#'; (64 << 20) + 1];
    let (report, _) = scan(&big, FileType::K8s);
    assert!(messages(&report).contains("limit"), "{}", messages(&report));
}

#[test]
fn hostile_user_policy_times_out_per_object() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("spin.rego"),
        "package sv.k8s\n\ndeny contains {\"id\": \"SPIN\", \"severity\": \"low\", \"message\": \"x\"} if {\n    some i in numbers.range(1, 100000)\n    some j in numbers.range(1, 100000)\n    i == j + 100000\n}\n",
    )
    .unwrap();
    let options = ScanOptions {
        policy_dirs: vec![dir.path().to_owned()],
        ..ScanOptions::default()
    };
    let mut scanner = Scanner::new(&options).unwrap();
    let start = Instant::now();
    let report = scanner.scan("manifest.yaml", POD.as_bytes(), FileType::K8s);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert!(
        report.errors.iter().any(|e| e.message.contains("limit")),
        "{}",
        messages(&report)
    );
    // The other analyzers were not affected.
    assert!(report.findings.iter().any(|f| f.rule_id == "host-pid"));
}

#[test]
fn k8s_objects_counts_what_kube_linter_loads() {
    let scanner = Scanner::new(&ScanOptions::default()).unwrap();
    let count = |text: &str| scanner.k8s_objects(text.as_bytes());
    assert_eq!(count(POD), 1);
    // A ConfigMap is a valid object without findings.
    assert_eq!(
        count("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
        1
    );
    // A List counts its items; a bad document counts nothing, the rest do.
    let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n";
    assert_eq!(count(list), 2);
    assert_eq!(count(&format!("{POD}---\nkind: [broken\n---\n{POD}")), 2);
    // No valid object: empty, comments only, a custom resource, bad YAML,
    // bytes that are not text.
    for none in [
        "",
        "# nothing\n",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
        "kind: [",
        "just text\n",
    ] {
        assert_eq!(count(none), 0, "{none:?}");
    }
    assert_eq!(scanner.k8s_objects(&[0xff, 0xfe, 0x00]), 0);
}
