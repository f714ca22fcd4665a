//! Rego evaluation through regorus and the deny-set contract (spec E2 §1.7).

use std::time::Duration;

use serde_json::json;
use svbench_scan::rego::{
    DenyFinding, PolicySet, RegoError, Severity, K8S_DENY_QUERY, TF_DENY_QUERY,
};
use svbench_scan::terraform::parse_module;

fn policies(modules: &[(&str, &str)]) -> PolicySet {
    let mut set = PolicySet::new();
    for (name, text) in modules {
        set.add_policy(name, text).unwrap();
    }
    set
}

const MIXED: &str = r#"
package sv.k8s

deny contains {"id": "OK_1", "severity": "low", "message": "fine"} if true
deny contains {"id": "OK_2", "severity": "Medium", "message": "m", "container": "web", "path": "/spec/containers/0"} if true
deny contains {"id": "OK_3", "severity": "CRITICAL", "message": "c"} if true
deny contains {"id": "BAD_SEV", "severity": "urgent", "message": "x"} if true
deny contains {"id": "bad id!", "severity": "low", "message": "x"} if true
deny contains {"id": "NO_MSG", "severity": "low"} if true
deny contains {"id": "BAD_CONT", "severity": "low", "message": "x", "container": 3} if true
deny contains {"id": "BAD_PATH", "severity": "low", "message": "x", "path": "spec"} if true
deny contains "just a string" if true
deny contains 42 if true
"#;

#[test]
fn valid_elements_become_findings_and_invalid_ones_errors() {
    let mut set = policies(&[("mixed.rego", MIXED)]);
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    let mut ids: Vec<&str> = findings.iter().map(|f| f.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["OK_1", "OK_2", "OK_3"]);
    let ok2 = findings.iter().find(|f| f.id == "OK_2").unwrap();
    assert_eq!(
        *ok2,
        DenyFinding {
            id: "OK_2".into(),
            severity: Severity::Med,
            message: "m".into(),
            container: Some("web".into()),
            path: Some("/spec/containers/0".into()),
        }
    );
    assert_eq!(errors.len(), 7, "{errors:#?}");
    assert!(errors
        .iter()
        .all(|e| matches!(e, RegoError::InvalidDeny { .. })));
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(text.iter().any(|t| t.contains("urgent")), "{text:?}");
    assert!(
        text.iter()
            .any(|t| t.contains("must be an object") && t.contains("42")),
        "{text:?}"
    );
}

#[test]
fn severities_normalise_case_insensitively() {
    for (text, want) in [
        ("low", Some(Severity::Low)),
        ("LOW", Some(Severity::Low)),
        ("med", Some(Severity::Med)),
        ("Medium", Some(Severity::Med)),
        ("high", Some(Severity::High)),
        ("Critical", Some(Severity::High)),
        ("info", None),
        ("", None),
    ] {
        assert_eq!(Severity::parse(text), want, "{text}");
    }
    let mut set = policies(&[("m.rego", MIXED)]);
    let (findings, _) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    let sev = |id: &str| findings.iter().find(|f| f.id == id).unwrap().severity;
    assert_eq!(sev("OK_1").as_str(), "low");
    assert_eq!(sev("OK_2").as_str(), "med");
    assert_eq!(sev("OK_3").as_str(), "high");
}

#[test]
fn undefined_query_yields_nothing_and_non_sets_are_errors() {
    let mut set = policies(&[("m.rego", MIXED)]);
    let (findings, errors) = set.eval_deny(TF_DENY_QUERY, &json!({}));
    assert!(findings.is_empty() && errors.is_empty(), "{errors:?}");

    let mut set = policies(&[("n.rego", "package sv.tf\n\ndeny := 3\n")]);
    let (_, errors) = set.eval_deny(TF_DENY_QUERY, &json!({}));
    assert!(
        matches!(errors[..], [RegoError::NotASet { .. }]),
        "{errors:?}"
    );
}

#[test]
fn kubernetes_like_input_per_container() {
    let policy = r#"
package sv.k8s

deny contains f if {
    some i, c in input.object.spec.containers
    c.securityContext.privileged == true
    f := {"id": "K8S_T2", "severity": "high", "container": c.name,
          "message": sprintf("container %q is privileged", [c.name]),
          "path": sprintf("/spec/containers/%d/securityContext/privileged", [i])}
}
"#;
    let input = json!({
        "object": {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [
                {"name": "web", "securityContext": {"privileged": true}},
                {"name": "side"},
                {"name": "db", "securityContext": {"privileged": true}}
            ]}
        },
        "doc_index": 0, "file": "manifest.yaml", "objects": []
    });
    let mut set = policies(&[("k8s.rego", policy)]);
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &input);
    assert!(errors.is_empty(), "{errors:?}");
    let mut got: Vec<(String, String)> = findings
        .iter()
        .map(|f| (f.container.clone().unwrap(), f.path.clone().unwrap()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (
                "db".to_owned(),
                "/spec/containers/2/securityContext/privileged".to_owned()
            ),
            (
                "web".to_owned(),
                "/spec/containers/0/securityContext/privileged".to_owned()
            ),
        ]
    );
    assert_eq!(findings[0].message, "container \"db\" is privileged");
}

#[test]
fn terraform_block_input_from_the_parser() {
    let tf = r#"
resource "aws_s3_bucket" "enc" {
  bucket = "a"
}

resource "aws_s3_bucket" "plain" {
  bucket = "b"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "e" {
  bucket = aws_s3_bucket.enc.id
}
"#;
    let policy = r#"
package sv.tf

encrypted_by_companion(name) if {
    some cfg in input.module.resources
    some r in cfg.bucket.refs
    startswith(r, sprintf("aws_s3_bucket.%s.", [name]))
}

deny contains {"id": "TF_T1", "severity": "HIGH", "message": sprintf("bucket %s is not encrypted", [input.block.address])} if {
    input.block.type == "aws_s3_bucket"
    not input.block.config.server_side_encryption_configuration
    not encrypted_by_companion(input.block.name)
}
"#;
    let module = parse_module(tf).unwrap();
    let mut set = policies(&[("tf.rego", policy)]);
    let mut flagged = Vec::new();
    for input in module.policy_inputs("main.tf") {
        let (findings, errors) = set.eval_deny(TF_DENY_QUERY, &input);
        assert!(errors.is_empty(), "{errors:?}");
        flagged.extend(findings.into_iter().map(|f| f.message));
    }
    assert_eq!(flagged, ["bucket aws_s3_bucket.plain is not encrypted"]);
}

#[test]
fn meta_rules_register_catalogue_severities() {
    let policy = r#"
package sv.meta

rules := {
    "USR_1": {"severity": "Critical", "title": "one"},
    "USR_2": {"severity": "low"},
    "USR_3": {"severity": "nope"}
}
"#;
    let mut set = policies(&[("meta.rego", policy)]);
    let (rules, errors) = set.meta_rules();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules["USR_1"].severity, Severity::High);
    assert_eq!(rules["USR_1"].title.as_deref(), Some("one"));
    assert_eq!(rules["USR_2"].title, None);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (rules, errors) = PolicySet::new().meta_rules();
    assert!(rules.is_empty() && errors.is_empty());
}

#[test]
fn syntax_errors_are_errors_not_panics() {
    let mut set = PolicySet::new();
    let err = set
        .add_policy(
            "broken.rego",
            "package sv.k8s\n\ndeny contains x if {\n  x := \n",
        )
        .unwrap_err();
    assert!(
        matches!(err, RegoError::Parse { ref name, .. } if name == "broken.rego"),
        "{err:?}"
    );
    assert!(set.sources().is_empty());
    // Rego v0 syntax is rejected: v1 is required.
    let v0 = "package sv.k8s\n\ndeny[msg] {\n  msg := \"x\"\n}\n";
    assert!(set.add_policy("v0.rego", v0).is_err());
}

#[test]
fn hostile_slow_policy_hits_the_execution_limit() {
    let policy = r#"
package sv.k8s

deny contains {"id": "SLOW", "severity": "low", "message": "never"} if {
    some i in numbers.range(1, 100000)
    some j in numbers.range(1, 100000)
    some k in numbers.range(1, 100000)
    i + j + k < 0
}
"#;
    let mut set = PolicySet::with_limit(Duration::from_millis(200));
    set.add_policy("slow.rego", policy).unwrap();
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    assert!(findings.is_empty());
    assert!(
        matches!(errors[..], [RegoError::Timeout { .. }]),
        "{errors:?}"
    );
    // The set stays usable after a timeout.
    let (_, errors) = set.eval_deny(TF_DENY_QUERY, &json!({}));
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn recursive_functions_are_rejected_before_evaluation() {
    let direct = "package sv.k8s\n\nf(x) := f(x)\n\ndeny contains y if {\n  y := f(1)\n}\n";
    let mut set = PolicySet::new();
    let err = set.add_policy("rec.rego", direct).unwrap_err();
    assert!(
        matches!(err, RegoError::Recursion { ref functions, .. } if functions == &["sv.k8s.f"]),
        "{err:?}"
    );
    assert!(set.sources().is_empty());

    // Through another function and a fully qualified reference.
    let mutual =
        "package sv.k8s\n\nf(x) := y if { y := g(x) }\ng(x) := data.sv.k8s.f(x)\nh(x) := x + 1\n";
    assert!(matches!(
        set.add_policy("mutual.rego", mutual),
        Err(RegoError::Recursion { .. })
    ));

    // Across modules: the second module closes the cycle and is rejected alone.
    set.add_policy("a.rego", "package sv.a\n\nf(x) := data.sv.b.g(x)\n")
        .unwrap();
    let err = set
        .add_policy("b.rego", "package sv.b\n\ng(x) := data.sv.a.f(x)\n")
        .unwrap_err();
    assert!(matches!(err, RegoError::Recursion { .. }), "{err:?}");
    assert_eq!(set.sources().len(), 1);

    // Plain helper functions are fine and the set still evaluates.
    set.add_policy("ok.rego", "package sv.k8s\n\ninc(x) := x + 1\n\ndeny contains {\"id\": \"T\", \"severity\": \"low\", \"message\": sprintf(\"%d\", [inc(1)])} if true\n")
        .unwrap();
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(findings[0].message, "2");
}

#[test]
fn an_engine_panic_is_an_error_and_the_set_recovers() {
    // regorus 0.14 panics on a sprintf width written with a non-ASCII digit;
    // a format built at run time escapes the load-time check.
    let policy = "package sv.k8s\n\ndeny contains {\"id\": \"P\", \"severity\": \"low\", \"message\": sprintf(concat(\"\", [\"%\", \"\u{663}\", \"d\"]), [1])} if true\n";
    let mut set = policies(&[("panic.rego", policy)]);
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    assert!(findings.is_empty());
    assert!(
        matches!(errors[..], [RegoError::Eval { ref message, .. }] if message.contains("panicked")),
        "{errors:?}"
    );
    set.add_policy("ok.rego", "package sv.tf\n\ndeny contains {\"id\": \"T\", \"severity\": \"low\", \"message\": \"m\"} if true\n")
        .unwrap();
    let (findings, errors) = set.eval_deny(TF_DENY_QUERY, &json!({}));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(findings.len(), 1);
}

#[test]
fn ranges_are_bounded_and_still_work() {
    let policy = r#"
package sv.k8s

deny contains {"id": "R", "severity": "low", "message": sprintf("%v %v %v", [numbers.range(1, 3), numbers.range(3, 1), numbers.range_step(0, 10, 4)])} if true
"#;
    let mut set = policies(&[("range.rego", policy)]);
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(findings[0].message, "[1, 2, 3] [3, 2, 1] [0, 4, 8]");

    // A range that would allocate terabytes is an error, not an abort.
    let bomb = "package sv.k8s\n\ndeny contains {\"id\": \"B\", \"severity\": \"low\", \"message\": \"m\"} if {\n  some i in numbers.range(0, 1000000000000)\n  i < 0\n}\n";
    let mut set = policies(&[("bomb.rego", bomb)]);
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    assert!(findings.is_empty());
    assert!(
        matches!(errors[..], [RegoError::Eval { ref message, .. }] if message.contains("exceed")),
        "{errors:?}"
    );
}

#[test]
fn literal_sprintf_formats_with_huge_widths_are_rejected() {
    let module = |format: &str| {
        format!("package sv.k8s\n\ndeny contains {{\"id\": \"W\", \"severity\": \"low\", \"message\": sprintf({format:?}, [1])}} if true\n")
    };
    let mut set = PolicySet::new();
    for bad in [
        "%999999999d",
        "%\u{663}d",
        "ok %5d then %00000000000000000000099999v",
        "%.99999999f",
    ] {
        let err = set.add_policy("w.rego", &module(bad)).unwrap_err();
        assert!(
            matches!(err, RegoError::Parse { ref message, .. } if message.contains("width")),
            "{bad}: {err:?}"
        );
    }
    assert!(set.sources().is_empty());
    set.add_policy("fine.rego", &module("100%% %5d")).unwrap();
    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({}));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(findings[0].message, "100%     1");
}
