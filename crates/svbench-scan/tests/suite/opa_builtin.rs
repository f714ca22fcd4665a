//! The built-in policies: every file under `policies/` is embedded, loads in
//! regorus, and registers the catalogue of spec E2 §1.7.

use std::path::{Path, PathBuf};

use svbench_scan::opa::Opa;
use svbench_scan::rego::PolicySet;
use svbench_scan::Severity;

fn policies_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../policies")
}

fn rego_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rego_files(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rego") {
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.push(format!("policies/{rel}"));
        }
    }
}

#[test]
fn every_policy_file_is_embedded() {
    let root = policies_dir();
    let mut on_disk = Vec::new();
    rego_files(&root, &root, &mut on_disk);
    on_disk.sort();
    let mut embedded: Vec<String> = Opa::builtin_policy_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    embedded.sort();
    assert_eq!(embedded, on_disk);
}

#[test]
fn every_policy_file_loads_in_regorus() {
    // Loaded as a directory, each file is parsed and checked on its own
    // (recursion, sprintf widths) and any failure is named.
    let mut set = PolicySet::new();
    let (loaded, errors) = set.add_policy_dir(&policies_dir());
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(loaded.len(), Opa::builtin_policy_names().len());
    Opa::builtin().expect("the embedded policies load");
}

#[test]
fn catalogue_lists_the_fifteen_rules_with_their_severities() {
    let opa = Opa::builtin().unwrap();
    let rules: Vec<(String, Severity)> = opa
        .rules()
        .into_iter()
        .map(|r| (r.id, r.severity))
        .collect();
    let expected = [
        ("GEN_001", Severity::Med),
        ("GEN_002", Severity::Low),
        ("K8S_001", Severity::High),
        ("K8S_002", Severity::High),
        ("K8S_003", Severity::Med),
        ("K8S_004", Severity::Med),
        ("K8S_005", Severity::Low),
        ("TF_001", Severity::High),
        ("TF_002", Severity::Med),
        ("TF_003", Severity::High),
        ("TF_004", Severity::High),
        ("TF_005", Severity::Med),
        ("TF_006", Severity::High),
        ("TF_007", Severity::High),
        ("TF_008", Severity::High),
    ];
    let expected: Vec<(String, Severity)> = expected
        .iter()
        .map(|(id, s)| ((*id).to_owned(), *s))
        .collect();
    assert_eq!(rules, expected);
    assert!(opa
        .rules()
        .iter()
        .all(|r| r.title != r.id && !r.title.is_empty()));
}

#[test]
fn version_names_the_crate_and_the_policy_hash() {
    let opa = Opa::builtin().unwrap();
    let version = opa.version();
    assert!(version.starts_with(&format!("svbench-scan {}", env!("CARGO_PKG_VERSION"))));
    assert!(
        version.contains(&opa.policies().policies_sha256()),
        "{version}"
    );
    // Same policies, same version; a clone evaluates the same set.
    assert_eq!(Opa::builtin().unwrap().version(), version);
    assert_eq!(opa.clone().version(), version);
}

/// `finding.at` reads severities from the constant in lib/catalogue.rego
/// (cheap), the host from data.sv.meta.rules: the two must agree.
#[test]
fn finding_severities_match_the_meta_catalogue() {
    let opa = Opa::builtin().unwrap();
    let mut probe = opa.policies().clone();
    probe
        .add_policy(
            "probe.rego",
            "package sv.probe\n\nimport data.sv.lib.catalogue\n\nmismatch contains id if {\n    some id, rule in data.sv.meta.rules\n    catalogue.severities[id] != rule.severity\n}\n\nmismatch contains id if {\n    some id, _ in catalogue.severities\n    not data.sv.meta.rules[id]\n}\n\ndeny contains {\"id\": \"MISMATCH\", \"severity\": \"low\", \"message\": concat(\",\", mismatch)} if count(mismatch) > 0\n",
        )
        .unwrap();
    let (findings, errors) = probe.eval_deny("data.sv.probe.deny", &serde_json::json!({}));
    assert!(errors.is_empty(), "{errors:?}");
    assert!(
        findings.is_empty(),
        "severities differ for {}",
        findings[0].message
    );
}
