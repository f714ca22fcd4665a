//! The analyzers end to end (`svbench scan` of one file): kube-linter,
//! semgrep and Rego checks on Kubernetes YAML, Rego checks on Terraform.
//!
//! Input: a first byte `t` for Terraform (anything else: Kubernetes YAML),
//! then the file's bytes.
//!
//! Invariants: no panic; every finding names the scanned file and a line in
//! it; findings come sorted in output order; the scan finishes within
//! `-timeout` (a superlinear rule shows up as a timeout or as a slow unit).

use std::sync::{Mutex, OnceLock};

use svbench_scan::scan::{FileType, ScanOptions, Scanner};
use svbench_scan::Finding;

fn scanner() -> &'static Mutex<Scanner> {
    static SCANNER: OnceLock<Mutex<Scanner>> = OnceLock::new();
    SCANNER.get_or_init(|| {
        Mutex::new(Scanner::new(&ScanOptions::default()).expect("the built-in policies load"))
    })
}

/// One input: a type byte and a file.
pub fn run(data: &[u8]) {
    let Some((&kind, bytes)) = data.split_first() else {
        return;
    };
    let (file_type, path) = if kind == b't' {
        (FileType::Tf, "main.tf")
    } else {
        (FileType::K8s, "manifest.yaml")
    };
    let report = scanner()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .scan(path, bytes, file_type);
    let last_line = crate::max_line_bytes(bytes);
    for f in &report.findings {
        assert_eq!(f.file, path, "finding names another file");
        if let Some(line) = f.line {
            assert!(
                (1..=last_line).contains(&line),
                "{} at line {line} outside the file ({last_line})",
                f.full_id()
            );
        }
    }
    assert!(
        report
            .findings
            .windows(2)
            .all(|w| Finding::output_order(&w[0], &w[1]) != std::cmp::Ordering::Greater),
        "findings are not in output order"
    );
}
