//! E2 id normalisation (spec E2 §3.4, acceptance 13) against the real
//! catalogues, and the oracle reader (§5.1, §8.2).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use svbench_core::upstream_data;
use svbench_envs::e2::ids::{namespace_alias, Catalogue};
use svbench_envs::e2::oracle::{
    oracle_from_list, oracle_from_row, primary_tool, row_lang, upstream_severity, OracleError,
};
use svbench_envs::e2::{Lang, NormalizedId, OracleViolation, Severity, Tool};

const SEMGREP_RANR: &str = "yaml.kubernetes.security.run-as-non-root.run-as-non-root";

fn resolved(tool: Tool, rule: &str) -> NormalizedId {
    NormalizedId::Resolved {
        tool,
        rule: rule.to_owned(),
    }
}

fn unresolved(text: &str) -> NormalizedId {
    NormalizedId::Unresolved(text.to_owned())
}

/// Checks each `(written, expected)` pair.
fn table(cases: &[(&str, NormalizedId)]) {
    let catalogue = Catalogue::builtin();
    for (written, want) in cases {
        assert_eq!(&catalogue.normalize(written), want, "{written:?}");
    }
}

#[test]
fn prefix_aliases_and_case() {
    let latest = resolved(Tool::KubeLinter, "latest-tag");
    table(&[
        ("kube-linter/latest-tag", latest.clone()),
        ("kubelinter/latest-tag", latest.clone()),
        ("kube_linter/latest-tag", latest.clone()),
        ("run_kubelinter/latest-tag", latest.clone()),
        ("Kube-Linter/LATEST-TAG", latest.clone()),
        ("  `kube-linter/latest-tag`  ", latest.clone()),
        ("\"kube-linter/latest-tag\"", latest.clone()),
        ("'kube-linter/ latest-tag '", latest.clone()),
        ("opa/K8S_001", resolved(Tool::Opa, "K8S_001")),
        ("OPA/k8s_001", resolved(Tool::Opa, "K8S_001")),
        ("run_opa/gen_001", resolved(Tool::Opa, "GEN_001")),
        ("rego/tf_003", resolved(Tool::Opa, "TF_003")),
        (
            "run_semgrep/hostpid-pod",
            resolved(
                Tool::Semgrep,
                "yaml.kubernetes.security.hostpid-pod.hostpid-pod",
            ),
        ),
    ]);
    assert_eq!(namespace_alias("KUBELINTER"), Some(Tool::KubeLinter));
    assert_eq!(namespace_alias("trivy"), None);
}

#[test]
fn semgrep_forms() {
    let ranr = resolved(Tool::Semgrep, SEMGREP_RANR);
    table(&[
        ("semgrep/run-as-non-root", ranr.clone()),
        (
            "semgrep/yaml.kubernetes.security.run-as-non-root",
            ranr.clone(),
        ),
        (&format!("semgrep/{SEMGREP_RANR}"), ranr.clone()),
        (
            "Semgrep/YAML.Kubernetes.Security.Run-As-Non-Root.Run-As-Non-Root",
            ranr.clone(),
        ),
        // Bare full and middle forms are unique to semgrep.
        (SEMGREP_RANR, ranr.clone()),
        ("yaml.kubernetes.security.run-as-non-root", ranr),
        (
            "hostnetwork-pod",
            resolved(
                Tool::Semgrep,
                "yaml.kubernetes.security.hostnetwork-pod.hostnetwork-pod",
            ),
        ),
        // Not an accepted form: the doubled short name without the prefix.
        (
            "semgrep/run-as-non-root.run-as-non-root",
            resolved(Tool::Semgrep, "run-as-non-root.run-as-non-root"),
        ),
        // Upstream's string fallback: unknown to the catalogue, keeps its text.
        (
            "semgrep/terraform-acl-public-read",
            resolved(Tool::Semgrep, "terraform-acl-public-read"),
        ),
    ]);
}

#[test]
fn bare_ids() {
    table(&[
        ("latest-tag", resolved(Tool::KubeLinter, "latest-tag")),
        ("Host-Network", resolved(Tool::KubeLinter, "host-network")),
        ("K8S_001", resolved(Tool::Opa, "K8S_001")),
        ("gen_002", resolved(Tool::Opa, "GEN_002")),
        // In kube-linter and as semgrep short names: ambiguous.
        ("run-as-non-root", unresolved("run-as-non-root")),
        ("privileged-container", unresolved("privileged-container")),
        (
            " `Privileged-Container` ",
            unresolved("Privileged-Container"),
        ),
        ("no-such-rule", unresolved("no-such-rule")),
        ("", unresolved("")),
    ]);
}

#[test]
fn unknown_prefix_and_unknown_rules() {
    table(&[
        ("trivy/latest-tag", unresolved("trivy/latest-tag")),
        (
            "kube linter/latest-tag",
            unresolved("kube linter/latest-tag"),
        ),
        ("/latest-tag", unresolved("/latest-tag")),
        (
            "kube-linter/No-Such-Check",
            resolved(Tool::KubeLinter, "No-Such-Check"),
        ),
        ("kube-linter/", resolved(Tool::KubeLinter, "")),
        // Split at the first `/` only.
        ("opa/K8S_001/x", resolved(Tool::Opa, "K8S_001/x")),
        // A namespace's rule under another namespace is not rewritten.
        ("opa/latest-tag", resolved(Tool::Opa, "latest-tag")),
    ]);
}

#[test]
fn severities_and_full_ids() {
    let c = Catalogue::builtin();
    assert_eq!(
        c.severity(Tool::KubeLinter, "latest-tag"),
        Some(Severity::Med)
    );
    assert_eq!(
        c.severity(Tool::KubeLinter, "unset-cpu-requirements"),
        Some(Severity::Low)
    );
    assert_eq!(
        c.severity(Tool::KubeLinter, "privileged-container"),
        Some(Severity::High)
    );
    assert_eq!(c.severity(Tool::Opa, "K8S_001"), Some(Severity::High));
    assert_eq!(
        c.severity(
            Tool::Semgrep,
            "yaml.kubernetes.security.hostpid-pod.hostpid-pod"
        ),
        Some(Severity::High)
    );
    // Catalogue spelling only.
    assert_eq!(c.severity(Tool::Opa, "k8s_001"), None);
    assert_eq!(c.severity(Tool::Opa, "latest-tag"), None);

    let id = c.normalize("semgrep/run-as-non-root");
    assert_eq!(c.full_id(&id), format!("semgrep/{SEMGREP_RANR}"));
    assert_eq!(id.tool(), Some(Tool::Semgrep));
    assert_eq!(c.weight_severity(&id), Severity::Med);
    let unknown = c.normalize("kube-linter/nope");
    assert_eq!(c.full_id(&unknown), "kube-linter/nope");
    assert_eq!(c.weight_severity(&unknown), Severity::Med);
    let bare = c.normalize(" run-as-non-root ");
    assert_eq!(c.full_id(&bare), "run-as-non-root");
    assert_eq!(bare.tool(), None);
    assert_eq!(c.weight_severity(&c.normalize("host-pid")), Severity::High);

    assert_eq!(c.rules(Tool::Semgrep).count(), 8);
    assert!(c.rules(Tool::KubeLinter).any(|(r, _)| r == "latest-tag"));
    assert!(c.rules(Tool::Opa).any(|(r, _)| r == "TF_008"));
}

#[test]
fn every_catalogue_id_normalises_to_itself() {
    let c = Catalogue::builtin();
    for tool in Tool::ALL {
        for (rule, _) in c.rules(tool) {
            let full = format!("{tool}/{rule}");
            assert_eq!(c.normalize(&full), resolved(tool, rule), "{full}");
            assert_eq!(c.normalize(&full.to_uppercase()), resolved(tool, rule));
        }
    }
}

#[test]
fn from_rules_ambiguity_within_a_namespace() {
    let c = Catalogue::from_rules([
        (Tool::Opa, "X_1".to_owned(), Severity::Low),
        (Tool::Opa, "x_1".to_owned(), Severity::High),
    ]);
    // Two rules answer to `x_1` case-insensitively: the text is kept.
    assert_eq!(c.normalize("opa/X_1"), resolved(Tool::Opa, "X_1"));
    assert_eq!(c.normalize("x_1"), unresolved("x_1"));
}

// ---------------------------------------------------------------- oracle

#[test]
fn upstream_severity_normalisation() {
    let cases = [
        ("low", Severity::Low),
        ("med", Severity::Med),
        ("high", Severity::High),
        ("medium", Severity::Med),
        ("critical", Severity::High),
        ("HIGH", Severity::High),
        ("WARNING", Severity::Med),
        ("INFO", Severity::Med),
        ("error", Severity::Med),
        ("", Severity::Med),
    ];
    for (text, want) in cases {
        assert_eq!(upstream_severity(text), want, "{text}");
    }
}

fn ov(id: &str, severity: Severity) -> OracleViolation {
    OracleViolation {
        id: id.to_owned(),
        severity,
    }
}

#[test]
fn hub_rows() {
    let row = json!({
        "question": "kind: Pod",
        "info": {"violations": [
            {"tool": "kube-linter", "rule_id": "latest-tag", "severity": "medium", "msg": "m", "loc": ""},
            {"tool": "semgrep", "rule_id": SEMGREP_RANR, "severity": "INFO", "msg": "m", "loc": "x:3"},
            {"tool": "kube-linter", "rule_id": "latest-tag", "severity": "medium"}
        ], "patch": null},
        "meta": {"lang": "k8s"}
    });
    let oracle = oracle_from_row(&row).expect("a hub row");
    assert_eq!(
        oracle.namespaces,
        BTreeSet::from([Tool::KubeLinter, Tool::Semgrep])
    );
    assert_eq!(
        oracle.violations,
        vec![
            ov("kube-linter/latest-tag", Severity::Med),
            ov(&format!("semgrep/{SEMGREP_RANR}"), Severity::Med),
            ov("kube-linter/latest-tag", Severity::Med),
        ]
    );
    let tf = json!({"question": "resource {}", "info": {"violations": []}, "meta": {"lang": "Terraform"}});
    assert_eq!(row_lang(&tf), Lang::Tf);
    let oracle = oracle_from_row(&tf).expect("a tf row");
    assert_eq!(oracle.namespaces, BTreeSet::from([Tool::Semgrep]));
    assert!(oracle.violations.is_empty());
}

#[test]
fn project_rows() {
    let row = json!({
        "id": "e2-k8s-000123",
        "question": "kind: Pod",
        "info": {"violations": [{"tool": "opa", "rule_id": "K8S_002", "severity": "high"}],
                 "patch": null, "labelled_namespaces": ["kube-linter", "semgrep", "opa"]},
        "meta": {"lang": "k8s"}
    });
    let oracle = oracle_from_row(&row).expect("a project row");
    assert_eq!(oracle.namespaces, Tool::ALL.into_iter().collect());
    assert_eq!(oracle.violations, vec![ov("opa/K8S_002", Severity::High)]);
    let bad = json!({"info": {"violations": [], "labelled_namespaces": ["trivy"]}});
    assert!(matches!(
        oracle_from_row(&bad),
        Err(OracleError::UnknownNamespace(_))
    ));
}

#[test]
fn env_rows_and_oracle_lists() {
    let answer = json!({
        "oracle": [{"id": "opa/TF_001", "severity": "critical"}, {"id": "semgrep/terraform-acl-public-read", "severity": "high"}],
        "fixture_type": "tf"
    });
    let row = json!({"question": "resource {}", "answer": answer.to_string()});
    assert_eq!(row_lang(&row), Lang::Tf);
    let oracle = oracle_from_row(&row).expect("an env row");
    assert_eq!(
        oracle.namespaces,
        BTreeSet::from([Tool::Semgrep, Tool::Opa])
    );
    assert_eq!(
        oracle.violations,
        vec![
            ov("opa/TF_001", Severity::High),
            ov("semgrep/terraform-acl-public-read", Severity::High)
        ]
    );
    // An `answer` object and a top-level `oracle` work too.
    let row = json!({"answer": {"oracle": []}});
    let oracle = oracle_from_row(&row).expect("an env row");
    assert_eq!(oracle.namespaces, BTreeSet::from([Tool::KubeLinter]));
    let row = json!({"oracle": [{"id": "latest-tag"}], "fixture_type": "k8s"});
    let oracle = oracle_from_row(&row).expect("a top-level oracle");
    assert_eq!(oracle.violations, vec![ov("latest-tag", Severity::Med)]);
    assert_eq!(oracle.namespaces, BTreeSet::from([Tool::KubeLinter]));
    assert_eq!(primary_tool(Lang::Tf), Tool::Semgrep);

    // Errors.
    assert_eq!(oracle_from_row(&json!([])), Err(OracleError::RowNotObject));
    assert_eq!(
        oracle_from_row(&json!({"question": "x"})),
        Err(OracleError::Missing)
    );
    assert!(matches!(
        oracle_from_row(&json!({"answer": "not json"})),
        Err(OracleError::AnswerNotJson(_))
    ));
    assert_eq!(
        oracle_from_row(&json!({"info": {"violations": [{"tool": "kube-linter"}]}})),
        Err(OracleError::BadEntry {
            list: "info.violations",
            index: 0,
            field: "rule_id"
        })
    );
    assert_eq!(
        oracle_from_list(&json!([{"id": 1}]), Lang::K8s),
        Err(OracleError::BadEntry {
            list: "oracle",
            index: 0,
            field: "id"
        })
    );
    assert_eq!(
        oracle_from_list(&json!({}), Lang::K8s),
        Err(OracleError::NotArray("oracle"))
    );
}

/// Every upstream label id is a catalogue id in catalogue spelling, so the
/// dataset oracle and normalised predictions meet (skips without the data).
#[test]
fn upstream_labels_are_catalogue_ids() {
    let here = env!("CARGO_MANIFEST_DIR");
    let Some(text) = upstream_data::read(here, "public_mini/e2.jsonl") else {
        return;
    };
    let c = Catalogue::builtin();
    let mut entries = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).expect("a JSON row");
        let oracle = oracle_from_row(&row).expect("an upstream row");
        for entry in &oracle.violations {
            let id = c.normalize(&entry.id);
            assert!(matches!(id, NormalizedId::Resolved { .. }), "{}", entry.id);
            assert_eq!(c.full_id(&id), entry.id);
            assert_eq!(entry.severity, Severity::Med);
            entries += 1;
        }
    }
    assert_eq!(entries, 366);

    let Some(bad_pod) = upstream_data::read(here, "e2/oracle/bad_pod.json") else {
        return;
    };
    let list: Value = serde_json::from_str(&bad_pod).expect("JSON");
    let oracle = oracle_from_list(&list, Lang::K8s).expect("an oracle list");
    assert_eq!(oracle.violations.len(), 5);
    assert_eq!(oracle.namespaces, BTreeSet::from([Tool::KubeLinter]));
}
