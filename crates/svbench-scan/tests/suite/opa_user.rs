//! User policy directories in the opa namespace (spec E2 §1.7): catalogue
//! registration through `data.sv.meta.rules` or the first observed severity,
//! the cross-object input, contract violations and hostile policies becoming
//! errors, never findings.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use svbench_scan::opa::{Opa, OpaRule};
use svbench_scan::rego::PolicySet;
use svbench_scan::terraform::parse_module;
use svbench_scan::{parse_documents, Analysis, Limits, Severity, Tool};

const PODS: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: one
  namespace: prod
spec:
  containers:
    - name: web
      image: nginx
      resources:
        limits: {cpu: 1, memory: 1Gi}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: prod}
";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn opa_with(files: &[(&str, &str)]) -> (Opa, Result<(), Vec<svbench_scan::rego::RegoError>>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        write(dir.path(), name, text);
    }
    let mut opa = Opa::builtin().unwrap();
    let result = opa.add_policy_dir(dir.path());
    (opa, result)
}

fn scan(opa: &mut Opa, yaml: &str) -> Analysis {
    let docs = parse_documents(yaml, &Limits::default());
    opa.scan_k8s("manifest.yaml", &docs, &BTreeSet::new())
}

fn rule<'a>(analysis: &'a Analysis, id: &str) -> Vec<&'a svbench_scan::Finding> {
    analysis
        .findings
        .iter()
        .filter(|f| f.rule_id == id)
        .collect()
}

const IMAGE_POLICY: &str = r#"
package sv.k8s

# Every container image must come from the company registry.
deny contains {
	"id": "CORP_001",
	"severity": "CRITICAL",
	"message": sprintf("container %q pulls %s", [c.name, c.image]),
	"container": c.name,
	"path": sprintf("/spec/containers/%d/image", [i]),
} if {
	input.object.kind == "Pod"
	some i, c in input.object.spec.containers
	not startswith(c.image, "registry.corp/")
}
"#;

#[test]
fn user_rule_with_meta_registration_uses_the_catalogue_severity() {
    let meta = r#"
package sv.meta

rules.CORP_001 := {"severity": "low", "title": "Image from an unapproved registry"}
"#;
    let (mut opa, result) = opa_with(&[("images.rego", IMAGE_POLICY), ("meta/corp.rego", meta)]);
    result.unwrap();
    assert!(opa.rules().contains(&OpaRule {
        id: "CORP_001".into(),
        severity: Severity::Low,
        title: "Image from an unapproved registry".into(),
    }));
    assert_eq!(opa.rules().len(), 16);
    let analysis = scan(&mut opa, PODS);
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    let found = rule(&analysis, "CORP_001");
    assert_eq!(found.len(), 1);
    // The element said CRITICAL; the catalogue says low.
    assert_eq!(found[0].severity, Severity::Low);
    assert_eq!(found[0].container.as_deref(), Some("web"));
    assert_eq!(found[0].line, Some(9), "the line of `image:`");
    assert_eq!(found[0].tool, Tool::Opa);
}

#[test]
fn user_rule_without_meta_registers_its_first_observed_severity() {
    let (mut opa, result) = opa_with(&[("images.rego", IMAGE_POLICY)]);
    result.unwrap();
    assert!(!opa.rules().iter().any(|r| r.id == "CORP_001"));
    let analysis = scan(&mut opa, PODS);
    assert_eq!(rule(&analysis, "CORP_001")[0].severity, Severity::High);
    let registered = opa
        .rules()
        .into_iter()
        .find(|r| r.id == "CORP_001")
        .unwrap();
    assert_eq!(registered.severity, Severity::High);
}

#[test]
fn a_later_element_with_another_severity_gets_the_registered_one() {
    let two_levels = r#"
package sv.k8s

deny contains {"id": "CORP_009", "severity": "high", "message": "pod"} if input.object.kind == "Pod"

deny contains {"id": "CORP_009", "severity": "low", "message": "service"} if input.object.kind == "Service"
"#;
    let (mut opa, result) = opa_with(&[("two.rego", two_levels)]);
    result.unwrap();
    // The Pod (document 0) is evaluated first: its `high` is registered.
    let analysis = scan(&mut opa, PODS);
    let found = rule(&analysis, "CORP_009");
    assert_eq!(found.len(), 2);
    assert!(found.iter().all(|f| f.severity == Severity::High));
}

#[test]
fn user_policies_see_every_object_of_the_file() {
    let cross = r#"
package sv.k8s

# A Pod without any Service in the file.
deny contains {"id": "CORP_002", "severity": "med", "message": "no Service", "path": "/metadata/name"} if {
	input.object.kind == "Pod"
	count([o | some o in input.objects; o.kind == "Service"]) == 0
}

# Each object knows its document and file.
deny contains {"id": "CORP_003", "severity": "low", "message": sprintf("%s #%d", [input.file, input.doc_index])} if {
	input.object.kind == "Service"
}
"#;
    let (mut opa, result) = opa_with(&[("cross.rego", cross)]);
    result.unwrap();
    let analysis = scan(&mut opa, PODS);
    assert!(rule(&analysis, "CORP_002").is_empty());
    assert_eq!(rule(&analysis, "CORP_003")[0].message, "manifest.yaml #1");
    let alone = scan(&mut opa, PODS.split("---").next().unwrap());
    let found = rule(&alone, "CORP_002");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, Some(4));
}

#[test]
fn invalid_deny_elements_are_errors_not_findings() {
    let bad = r#"
package sv.k8s

deny contains {"id": "BAD_SEV", "severity": "urgent", "message": "x"} if input.object.kind == "Pod"
deny contains {"id": "bad id", "severity": "low", "message": "x"} if input.object.kind == "Pod"
deny contains {"id": "NO_MESSAGE", "severity": "low"} if input.object.kind == "Pod"
deny contains "a string" if input.object.kind == "Pod"
"#;
    let (mut opa, result) = opa_with(&[("bad.rego", bad)]);
    result.unwrap();
    let analysis = scan(&mut opa, PODS);
    assert!(analysis
        .findings
        .iter()
        .all(|f| !["BAD_SEV", "bad id", "NO_MESSAGE"].contains(&f.rule_id.as_str())));
    assert_eq!(analysis.errors.len(), 4, "{:#?}", analysis.errors);
    for error in &analysis.errors {
        assert_eq!(error.tool, Some(Tool::Opa));
        assert_eq!(error.doc_index, Some(0));
        assert_eq!(error.file, "manifest.yaml");
    }
}

#[test]
fn a_policy_that_does_not_load_is_reported_and_the_others_stay() {
    let (mut opa, result) = opa_with(&[
        ("broken.rego", "package sv.k8s\n\ndeny contains x if {"),
        ("images.rego", IMAGE_POLICY),
        ("images_test.rego", "this is not even rego"),
    ]);
    let errors = result.unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].to_string().contains("broken.rego"));
    let analysis = scan(&mut opa, PODS);
    assert_eq!(rule(&analysis, "CORP_001").len(), 1);
}

#[test]
fn a_conflicting_meta_catalogue_is_an_error_at_load() {
    // `rules := {...}` (a complete definition) clashes with the built-in
    // per-id entries and would break every built-in rule; the file is
    // rejected at load time with a hint.
    let meta = "package sv.meta\n\nrules := {\"CORP_001\": {\"severity\": \"low\"}}\n";
    let (opa, result) = opa_with(&[("meta.rego", meta)]);
    let errors = result.unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let text = errors[0].to_string();
    assert!(
        text.contains("meta.rego") && text.contains("hint:"),
        "{text}"
    );
    // The built-in catalogue is kept.
    assert_eq!(opa.rules().len(), 15);
    // And the built-in rules still evaluate.
    let mut opa = opa;
    let analysis = scan(&mut opa, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    assert_eq!(rule(&analysis, "GEN_002").len(), 1);
}

#[test]
fn an_endless_policy_times_out_within_bounded_time() {
    let slow = r#"
package sv.k8s

deny contains {"id": "SLOW", "severity": "low", "message": "never"} if {
	some i in numbers.range(1, 1000000)
	some j in numbers.range(1, 1000000)
	i * j < 0
}
"#;
    let (mut opa, result) = opa_with(&[("slow.rego", slow)]);
    result.unwrap();
    let start = Instant::now();
    let analysis = scan(&mut opa, PODS);
    let elapsed = start.elapsed();
    // Two objects, each stopped at the 1 s limit.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert_eq!(analysis.errors.len(), 2, "{:#?}", analysis.errors);
    assert!(analysis
        .errors
        .iter()
        .all(|e| e.message.contains("execution limit")));
    assert!(
        analysis.findings.is_empty(),
        "a timeout drops the object's findings"
    );
}

#[test]
fn terraform_user_rules_get_lines_from_paths() {
    let tf_policy = r#"
package sv.tf

deny contains {"id": "CORP_TF_1", "severity": "med", "message": "untagged", "path": "/tags"} if {
	input.block.type == "aws_instance"
	not input.block.config.tags.owner
}

deny contains {"id": "CORP_TF_2", "severity": "low", "message": "t2", "path": "/ebs_block_device/1/volume_size"} if {
	input.block.type == "aws_instance"
}
"#;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tf.rego", tf_policy);
    let mut opa = Opa::builtin_with(PolicySet::with_limit(Duration::from_secs(1))).unwrap();
    opa.add_policy_dir(dir.path()).unwrap();
    let module = parse_module(
        "resource \"aws_instance\" \"i\" {\n  ami = \"x\"\n  tags = {\n    team = \"a\"\n  }\n  ebs_block_device {\n    volume_size = 8\n  }\n  ebs_block_device {\n    volume_size = 9\n  }\n}\n",
    )
    .unwrap();
    let analysis = opa.scan_tf("main.tf", &module, &BTreeSet::new());
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    let line = |id: &str| rule(&analysis, id)[0].line;
    assert_eq!(line("CORP_TF_1"), Some(3));
    assert_eq!(line("CORP_TF_2"), Some(10));
}
