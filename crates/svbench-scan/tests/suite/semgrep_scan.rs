//! Behaviour of the native semgrep scan around the rules (spec E2 §1.6):
//! collapsing, `nosemgrep`, YAML errors, the finding's object, container and
//! document, rule selection, and robustness.

use proptest::prelude::*;
use svbench_scan::{
    parse_documents, semgrep, Analysis, Enabled, Limits, ObjectRef, Severity, Tool,
};

const PREFIX: &str = "yaml.kubernetes.security.";

fn scan_with(yaml: &str, enabled: &Enabled) -> Analysis {
    let docs = parse_documents(yaml, &Limits::default());
    semgrep::scan("manifest.yaml", yaml, &docs, enabled)
}

fn scan(yaml: &str) -> Analysis {
    scan_with(yaml, &Enabled::defaults(semgrep::catalogue()))
}

/// `(short rule name, line)` of every finding, sorted.
fn hits(yaml: &str) -> Vec<(String, usize)> {
    let analysis = scan(yaml);
    assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
    let mut hits: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| {
            let short = f.rule_id.rsplit('.').next().unwrap_or_default().to_owned();
            (short, f.line.unwrap_or_default())
        })
        .collect();
    hits.sort();
    hits
}

fn full(short: &str) -> String {
    format!("{PREFIX}{short}.{short}")
}

/// A pod whose only finding is hostNetwork at line 5.
const HOST_NETWORK_POD: &str = "\
kind: Pod
spec:
  securityContext:
    runAsNonRoot: true
  hostNetwork: true
  containers: []
";

#[test]
fn findings_carry_object_container_document_and_project_severity() {
    let yaml = "\
apiVersion: v1
kind: Service
metadata:
  name: first
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      securityContext: {}
      containers:
      - name: app
        image: nginx
";
    let analysis = scan(yaml);
    assert_eq!(analysis.errors, vec![]);
    assert_eq!(analysis.findings.len(), 1);
    let f = &analysis.findings[0];
    assert_eq!(f.tool, Tool::Semgrep);
    assert_eq!(f.rule_id, full("writable-filesystem-container"));
    assert_eq!(f.severity, Severity::Med);
    assert_eq!(f.file, "manifest.yaml");
    assert_eq!(f.line, Some(16));
    assert_eq!(f.location(), "manifest.yaml:16");
    assert_eq!(f.doc_index, Some(1));
    assert_eq!(f.container.as_deref(), Some("app"));
    assert!(f.message.contains("\"app\""), "{}", f.message);
    assert_eq!(
        f.object,
        Some(ObjectRef::K8s {
            api_version: Some("apps/v1".into()),
            kind: "Deployment".into(),
            name: Some("web".into()),
            namespace: Some("shop".into()),
        })
    );
}

#[test]
fn pod_level_findings_have_no_container_and_kindless_documents_no_object() {
    let analysis = scan("spec:\n  hostPID: true\n");
    let f = &analysis.findings[0];
    assert_eq!(f.rule_id, full("hostpid-pod"));
    assert_eq!(f.severity, Severity::High);
    assert_eq!(f.container, None);
    assert_eq!(f.object, None);
    assert_eq!(f.doc_index, Some(0));
}

#[test]
fn severities_follow_the_spec_table() {
    for info in semgrep::catalogue() {
        let short = info.id.rsplit('.').next().unwrap_or_default();
        let want = match short {
            "writable-filesystem-container" | "run-as-non-root" | "allow-privilege-escalation" => {
                Severity::Med
            }
            _ => Severity::High,
        };
        assert_eq!(info.severity, want, "{short}");
        assert_eq!(info.tool, Tool::Semgrep);
    }
}

#[test]
fn identical_rule_and_line_matches_collapse() {
    // The aliased container keeps its anchor's lines: one finding, not two.
    let yaml = "\
a:
  spec:
    securityContext: {}
    containers:
    - &web
      name: web
      image: nginx
b:
  spec:
    securityContext: {}
    containers:
    - *web
";
    assert_eq!(
        hits(yaml),
        vec![("writable-filesystem-container".into(), 6)]
    );
}

#[test]
fn different_lines_do_not_collapse() {
    let yaml = "\
spec:
  securityContext: {}
  containers:
  - name: a
    image: x
  - name: b
    image: y
";
    assert_eq!(
        hits(yaml),
        vec![
            ("writable-filesystem-container".into(), 4),
            ("writable-filesystem-container".into(), 6),
        ]
    );
}

#[test]
fn nosemgrep_on_the_finding_line_silences_every_rule() {
    let yaml = HOST_NETWORK_POD.replace("hostNetwork: true", "hostNetwork: true # nosemgrep");
    assert_eq!(hits(&yaml), vec![]);
    let upper = HOST_NETWORK_POD.replace("hostNetwork: true", "hostNetwork: true  # NOSEMGREP");
    assert_eq!(hits(&upper), vec![]);
}

#[test]
fn nosemgrep_on_a_comment_line_before_silences() {
    let yaml = HOST_NETWORK_POD.replace("  hostNetwork", "  # nosemgrep\n  hostNetwork");
    assert_eq!(hits(&yaml), vec![]);
}

#[test]
fn nosemgrep_trailing_the_previous_line_does_not_reach_the_next() {
    let yaml = HOST_NETWORK_POD.replace("runAsNonRoot: true", "runAsNonRoot: true # nosemgrep");
    assert_eq!(hits(&yaml), vec![("hostnetwork-pod".into(), 5)]);
}

#[test]
fn nosemgrep_two_lines_before_does_not_silence() {
    let yaml = HOST_NETWORK_POD.replace("  hostNetwork", "  # nosemgrep\n\n  hostNetwork");
    assert_eq!(hits(&yaml), vec![("hostnetwork-pod".into(), 7)]);
}

#[test]
fn nosemgrep_with_ids_silences_only_the_named_rules() {
    let named = |comment: &str| {
        hits(&HOST_NETWORK_POD.replace(
            "hostNetwork: true",
            &format!("hostNetwork: true # {comment}"),
        ))
    };
    assert_eq!(
        named(&format!("nosemgrep: {}", full("hostnetwork-pod"))),
        vec![]
    );
    assert_eq!(named("nosemgrep: hostnetwork-pod"), vec![]);
    assert_eq!(named("nosemgrep: hostnetwork-pod.hostnetwork-pod"), vec![]);
    assert_eq!(named("nosemgrep:hostpid-pod, hostnetwork-pod"), vec![]);
    assert_eq!(
        named("nosemgrep: hostpid-pod"),
        vec![("hostnetwork-pod".into(), 5)]
    );
    // A partial word is not a suffix at a dot boundary.
    assert_eq!(
        named("nosemgrep: network-pod"),
        vec![("hostnetwork-pod".into(), 5)]
    );
}

#[test]
fn nosemgrep_must_be_in_a_comment() {
    let yaml = "\
kind: Pod
metadata:
  annotations:
    note: nosemgrep
spec:
  hostPID: true
";
    assert_eq!(hits(yaml), vec![("hostpid-pod".into(), 6)]);
    let in_value = "spec:\n  hostPID: true\n  x: a#nosemgrep\n";
    assert_eq!(hits(in_value), vec![("hostpid-pod".into(), 2)]);
}

#[test]
fn multi_line_match_is_silenced_on_its_first_line() {
    let yaml = "\
spec:
  securityContext: {}
  containers:
  - image: agent # nosemgrep: privileged-container
    securityContext:
      privileged: true
";
    assert_eq!(hits(yaml), vec![]);
}

#[test]
fn a_yaml_syntax_error_anywhere_yields_no_findings_and_one_error() {
    let yaml = "\
spec:
  hostPID: true
---
cell: {{cell}}
";
    let analysis = scan(yaml);
    assert_eq!(analysis.findings, vec![]);
    assert_eq!(analysis.errors.len(), 1);
    let e = &analysis.errors[0];
    assert_eq!(e.tool, Some(Tool::Semgrep));
    assert_eq!(e.file, "manifest.yaml");
    assert_eq!(e.doc_index, Some(1));
    assert!(e.message.contains("line 4"), "{}", e.message);
}

#[test]
fn a_bad_document_separator_also_stops_the_file() {
    let analysis = scan("spec:\n  hostPID: true\n--- junk\nspec:\n  hostIPC: true\n");
    assert_eq!(analysis.findings, vec![]);
    assert_eq!(analysis.errors.len(), 1);
}

#[test]
fn only_enabled_rules_run() {
    let yaml = "spec:\n  hostPID: true\n  hostIPC: true\n";
    let analysis = scan_with(yaml, &Enabled::only([full("hostipc-pod")]));
    let ids: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| f.rule_id.clone())
        .collect();
    assert_eq!(ids, vec![full("hostipc-pod")]);
    // Nothing enabled: no work, and no error even for unreadable YAML.
    let none = scan_with("a: {{b}}\n", &Enabled::default());
    assert_eq!(none, Analysis::default());
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    // The parser caps flow nesting, but alias chains nest as deep as the
    // limits allow: each level wraps the previous anchor once. The walk is
    // iterative; the depth here stays within what the model itself builds.
    let depth = 500;
    let mut yaml = String::from("l0: &l0 [x]\n");
    for i in 1..depth {
        yaml.push_str(&format!("l{i}: &l{i} [*l{}]\n", i - 1));
    }
    yaml.push_str(&format!("spec:\n  deep: *l{}\n", depth - 1));
    let docs = parse_documents(&yaml, &Limits::default());
    for d in &docs {
        assert!(d.result.is_ok(), "{:?}", d.result.as_ref().err());
    }
    let analysis = semgrep::scan(
        "manifest.yaml",
        &yaml,
        &docs,
        &Enabled::defaults(semgrep::catalogue()),
    );
    assert_eq!(analysis.findings, vec![]);
}

proptest! {
    /// Any text: no panic, and findings only when every document was read.
    #[test]
    fn never_panics(text in "[ a-zA-Z:#\\-\\[\\]{}\"'\n|>&*!,.0-9]{0,200}") {
        let docs = parse_documents(&text, &Limits::default());
        let analysis = semgrep::scan(
            "manifest.yaml",
            &text,
            &docs,
            &Enabled::all(semgrep::catalogue()),
        );
        if docs.iter().any(|d| d.result.is_err()) {
            prop_assert!(analysis.findings.is_empty());
            prop_assert_eq!(analysis.errors.len(), 1);
        }
    }

    /// Kubernetes-shaped documents built from relevant keys: no panic, every
    /// finding has a line inside the file.
    #[test]
    fn findings_point_into_the_file(
        keys in proptest::collection::vec(
            prop::sample::select(vec![
                "spec:", "containers:", "- name: a", "image: x", "securityContext:",
                "privileged: true", "hostPID: true", "volumes:", "hostPath:",
                "path: /var/run/docker.sock", "runAsNonRoot: true", "# nosemgrep", "---",
            ]),
            0..30,
        ),
        indents in proptest::collection::vec(0usize..4, 30),
    ) {
        let text: String = keys
            .iter()
            .zip(&indents)
            .map(|(k, i)| format!("{}{k}\n", "  ".repeat(*i)))
            .collect();
        let lines = text.lines().count();
        let docs = parse_documents(&text, &Limits::default());
        let analysis = semgrep::scan(
            "manifest.yaml",
            &text,
            &docs,
            &Enabled::all(semgrep::catalogue()),
        );
        for f in &analysis.findings {
            prop_assert!(f.line.is_some_and(|l| (1..=lines).contains(&l)));
        }
    }
}
