//! External backends: what kube-linter, semgrep and opa print becomes
//! findings (spec E2 §1.8), and native/external cross-checks. The binaries
//! are fake shell scripts in a temp dir that is the only search path.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use svbench_scan::external::{
    crosscheck, map_semgrep_check_id, parse_deny_element, ExternalError, ExternalTool, KubeLinter,
    OpaCli, OpaInput, RegoPolicy, Semgrep,
};
use svbench_scan::rego::K8S_DENY_QUERY;
use svbench_scan::{Finding, ObjectRef, RuleInfo, Severity, Tool};

struct FakeBin {
    dir: tempfile::TempDir,
}

impl FakeBin {
    fn new() -> FakeBin {
        FakeBin {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// A data file next to the scripts (fixtures the scripts print).
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, text).expect("write file");
        path
    }

    fn tool(&self, tool: Tool) -> ExternalTool {
        ExternalTool::new(tool)
            .with_search_path(self.dir.path())
            .with_timeout(Duration::from_secs(10))
    }
}

/// The project severity the backends must report for `id`.
fn expected_severity(catalogue: &[RuleInfo], id: &str) -> Severity {
    catalogue
        .iter()
        .find(|r| r.id == id)
        .map_or(Severity::Med, |r| r.severity)
}

/// A kube-linter 0.7.6 `--format json` report for a Pod and a Deployment.
const KUBE_LINTER_REPORT: &str = r#"{
  "Checks": [{"name": "latest-tag", "description": "Indicates when a deployment-like object is running a container with an invalid container image", "template": "latest-tag", "params": {}, "remediation": "Use a container image with a specific tag other than latest.", "scope": {"objectKinds": ["DeploymentLike"]}}],
  "Reports": [
    {"Diagnostic": {"Message": "The container \"web\" is using an invalid container image, \"nginx:latest\". Please use images that are not blocked by the `BlockList` criteria : [\".*:(latest)$\" \"^[^:]*$\" \"(.*/[^:]*)$\"]"},
     "Check": "latest-tag", "Remediation": "Use a container image with a specific tag other than latest.",
     "Object": {"Metadata": {"FilePath": "./manifest.yaml"}, "K8sObject": {"Namespace": "", "Name": "bad-pod", "GroupVersionKind": {"Group": "", "Version": "v1", "Kind": "Pod"}}}},
    {"Diagnostic": {"Message": "container \"sidecar\" does not have a read-only root file system"},
     "Check": "no-read-only-root-fs", "Remediation": "Set readOnlyRootFilesystem to true in the container securityContext.",
     "Object": {"Metadata": {"FilePath": "./manifest.yaml"}, "K8sObject": {"Namespace": "", "Name": "bad-pod", "GroupVersionKind": {"Group": "", "Version": "v1", "Kind": "Pod"}}}},
    {"Diagnostic": {"Message": "object has 1 replica but minimum required replicas is 3"},
     "Check": "a-check-nobody-catalogued", "Remediation": "Increase the number of replicas.",
     "Object": {"Metadata": {"FilePath": "./manifest.yaml"}, "K8sObject": {"Namespace": "prod", "Name": "api", "GroupVersionKind": {"Group": "apps", "Version": "v1", "Kind": "Deployment"}}}}
  ],
  "Summary": {"ChecksStatus": "Failed", "CheckEndTime": "2024-05-01T10:00:00Z", "KubeLinterVersion": "v0.7.6"}
}"#;

/// Fails loudly unless called as `lint --format json [--config F] ./manifest.yaml`
/// with the file present under that name in the working directory.
fn kube_linter_script(bin: &FakeBin, then: &str) {
    bin.script(
        "kube-linter",
        &format!(
            r#"[ "$1 $2 $3" = "lint --format json" ] || {{ echo "bad args: $*" >&2; exit 9; }}
for last; do :; done
[ "$last" = ./manifest.yaml ] && grep -q 'kind: Pod' "$last" || {{ echo "no ./manifest.yaml" >&2; exit 9; }}
if [ "$4" = --config ]; then [ -f "$5" ] || exit 9; echo "$5" > '{dir}/config-seen'; fi
{then}"#,
            dir = bin.path().display()
        ),
    );
}

#[test]
fn kube_linter_reports_become_findings_with_containers_from_messages() {
    let bin = FakeBin::new();
    let report = bin.file("report.json", KUBE_LINTER_REPORT);
    kube_linter_script(&bin, &format!("cat '{}'; exit 1", report.display()));
    let analysis = KubeLinter::with_tool(bin.tool(Tool::KubeLinter))
        .lint("deploy/manifest.yaml", b"kind: Pod\n")
        .unwrap();
    let catalogue = svbench_scan::kube_linter::catalogue();
    let got: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| {
            (
                f.finding.rule_id.as_str(),
                f.finding.container.as_deref(),
                f.finding.object.clone(),
            )
        })
        .collect();
    let pod = ObjectRef::K8s {
        api_version: Some("v1".into()),
        kind: "Pod".into(),
        name: Some("bad-pod".into()),
        namespace: None,
    };
    let deployment = ObjectRef::K8s {
        api_version: Some("apps/v1".into()),
        kind: "Deployment".into(),
        name: Some("api".into()),
        namespace: Some("prod".into()),
    };
    assert_eq!(
        got,
        vec![
            ("a-check-nobody-catalogued", None, Some(deployment)),
            ("latest-tag", Some("web"), Some(pod.clone())),
            ("no-read-only-root-fs", Some("sidecar"), Some(pod)),
        ]
    );
    for f in &analysis.findings {
        assert_eq!(f.finding.tool, Tool::KubeLinter);
        assert_eq!(f.finding.file, "deploy/manifest.yaml");
        assert_eq!(f.finding.line, None);
        assert_eq!(f.finding.doc_index, None);
        assert_eq!(f.tool_severity, None);
        assert_eq!(
            f.finding.severity,
            expected_severity(catalogue, &f.finding.rule_id)
        );
    }
    assert!(analysis.findings[1]
        .finding
        .message
        .starts_with("The container \"web\" is using"));
    assert!(
        analysis
            .notes
            .iter()
            .any(|n| n.contains("kube-linter/a-check-nobody-catalogued")),
        "{:?}",
        analysis.notes
    );
    assert!(analysis.errors.is_empty());
}

#[test]
fn kube_linter_passes_its_config_file() {
    let bin = FakeBin::new();
    let config = bin.file("kl.yaml", "checks:\n  addAllBuiltIn: true\n");
    kube_linter_script(&bin, "exit 0");
    let mut linter = KubeLinter::with_tool(bin.tool(Tool::KubeLinter));
    linter.config = Some(config.clone());
    let analysis = linter.lint("manifest.yaml", b"kind: Pod\n").unwrap();
    assert!(analysis.findings.is_empty());
    let seen = fs::read_to_string(bin.path().join("config-seen")).unwrap();
    assert_eq!(Path::new(seen.trim()), config);
}

#[test]
fn kube_linter_empty_stdout_with_exit_0_means_no_valid_objects() {
    let bin = FakeBin::new();
    kube_linter_script(&bin, "exit 0");
    let analysis = KubeLinter::with_tool(bin.tool(Tool::KubeLinter))
        .lint("manifest.yaml", b"kind: Pod\n")
        .unwrap();
    assert!(analysis.findings.is_empty() && analysis.errors.is_empty());
}

#[test]
fn kube_linter_clean_report_is_no_findings() {
    let bin = FakeBin::new();
    kube_linter_script(
        &bin,
        r#"echo '{"Checks":[],"Reports":null,"Summary":{"ChecksStatus":"Passed"}}'"#,
    );
    let analysis = KubeLinter::with_tool(bin.tool(Tool::KubeLinter))
        .lint("manifest.yaml", b"kind: Pod\n")
        .unwrap();
    assert!(analysis.findings.is_empty());
}

#[test]
fn kube_linter_errors_are_never_clean() {
    let bin = FakeBin::new();
    // Exit 1 without a report: a lint error, e.g. a bad config.
    kube_linter_script(&bin, "echo 'Error: failed to load config' >&2; exit 1");
    let linter = KubeLinter::with_tool(bin.tool(Tool::KubeLinter));
    let err = linter.lint("manifest.yaml", b"kind: Pod\n").unwrap_err();
    assert!(
        matches!(&err, ExternalError::Failed { stderr, .. } if stderr.contains("failed to load config")),
        "{err:?}"
    );
    // Other exit codes.
    kube_linter_script(&bin, "exit 2");
    let err = linter.lint("manifest.yaml", b"kind: Pod\n").unwrap_err();
    assert!(matches!(err, ExternalError::Failed { .. }), "{err:?}");
    // Exit 0 with garbage.
    kube_linter_script(&bin, "echo 'not json'");
    let err = linter.lint("manifest.yaml", b"kind: Pod\n").unwrap_err();
    assert!(matches!(err, ExternalError::BadOutput { .. }), "{err:?}");
}

#[test]
fn workspace_names_without_a_file_name_are_rejected() {
    let bin = FakeBin::new();
    kube_linter_script(&bin, "exit 0");
    let err = KubeLinter::with_tool(bin.tool(Tool::KubeLinter))
        .lint("..", b"kind: Pod\n")
        .unwrap_err();
    assert!(
        matches!(err, ExternalError::InvalidFileName { .. }),
        "{err:?}"
    );
}

const SEMGREP_OUTPUT: &str = r#"{
  "version": "1.85.0",
  "results": [
    {"check_id": "tmp.rules.run-as-non-root.run-as-non-root", "path": "main.yaml",
     "start": {"line": 5, "col": 1, "offset": 40}, "end": {"line": 5, "col": 5, "offset": 44},
     "extra": {"message": "When running containers in Kubernetes, it's important to ensure that they\nare properly secured.\n", "severity": "INFO", "metadata": {}, "lines": "spec:"}},
    {"check_id": "yaml.kubernetes.security.privileged-container.privileged-container", "path": "main.yaml",
     "start": {"line": 9, "col": 7}, "end": {"line": 12, "col": 1},
     "extra": {"message": "Container or pod is running in privileged mode.", "severity": "WARNING"}},
    {"check_id": "yaml.kubernetes.security.privileged-container.privileged-container", "path": "main.yaml",
     "start": {"line": 9, "col": 7}, "end": {"line": 12, "col": 1},
     "extra": {"message": "Container or pod is running in privileged mode.", "severity": "WARNING"}}
  ],
  "errors": [{"code": 3, "level": "warn", "type": "Syntax error", "message": "Syntax error at line main.yaml:20"}],
  "paths": {"scanned": ["main.yaml"]}
}"#;

fn semgrep_script(bin: &FakeBin, then: &str) {
    bin.script(
        "semgrep",
        &format!(
            r#"[ "$1" = --version ] && {{ echo 1.85.0; exit 0; }}
[ "$1 $2 $3 $4 $5" = "scan --json --quiet --metrics=off --config" ] || {{ echo "bad args: $*" >&2; exit 7; }}
[ -f "$6" ] || {{ echo "no rules at $6" >&2; exit 7; }}
[ "$7" = ./main.yaml ] && [ -f ./main.yaml ] || {{ echo "no ./main.yaml" >&2; exit 7; }}
[ "$SEMGREP_ENABLE_VERSION_CHECK" = 0 ] || exit 7
{then}"#
        ),
    );
}

#[test]
fn semgrep_results_map_to_catalogue_ids_and_keep_the_tool_severity() {
    let bin = FakeBin::new();
    let output = bin.file("out.json", SEMGREP_OUTPUT);
    let rules = bin.file("rules.yaml", "rules: []\n");
    semgrep_script(&bin, &format!("cat '{}'", output.display()));
    let semgrep = Semgrep::new(bin.tool(Tool::Semgrep), Some(&rules)).unwrap();
    assert_eq!(semgrep.tool().version().unwrap(), "1.85.0");
    let analysis = semgrep.scan("main.yaml", b"kind: Pod\n").unwrap();
    let catalogue = svbench_scan::semgrep::catalogue();
    let got: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| {
            (
                f.finding.rule_id.as_str(),
                f.finding.line,
                f.tool_severity.as_deref(),
                f.tool_rule_id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "yaml.kubernetes.security.run-as-non-root.run-as-non-root",
                Some(5),
                Some("INFO"),
                "tmp.rules.run-as-non-root.run-as-non-root"
            ),
            (
                "yaml.kubernetes.security.privileged-container.privileged-container",
                Some(9),
                Some("WARNING"),
                "yaml.kubernetes.security.privileged-container.privileged-container"
            ),
        ]
    );
    for f in &analysis.findings {
        assert_eq!(f.finding.tool, Tool::Semgrep);
        assert_eq!(f.finding.file, "main.yaml");
        assert_eq!(
            f.finding.severity,
            expected_severity(catalogue, &f.finding.rule_id)
        );
    }
    assert!(analysis.findings[0]
        .finding
        .message
        .ends_with("properly secured."));
    assert_eq!(analysis.errors.len(), 1);
    assert!(analysis.errors[0].message.contains("main.yaml:20"));
    // Serialized with the tool's level beside the project severity.
    let value = serde_json::to_value(&analysis.findings[1]).unwrap();
    assert_eq!(value["tool_severity"], "WARNING");
    assert_eq!(
        value["id"],
        "semgrep/yaml.kubernetes.security.privileged-container.privileged-container"
    );
}

#[test]
fn semgrep_exit_2_or_more_is_an_error() {
    let bin = FakeBin::new();
    let rules = bin.file("rules.yaml", "rules: []\n");
    semgrep_script(
        &bin,
        r#"echo '{"results":[],"errors":[{"message":"invalid rule"}]}'; exit 2"#,
    );
    let semgrep = Semgrep::new(bin.tool(Tool::Semgrep), Some(&rules)).unwrap();
    let err = semgrep.scan("main.yaml", b"kind: Pod\n").unwrap_err();
    assert!(
        matches!(&err, ExternalError::Failed { status, .. } if status == "exit status 2"),
        "{err:?}"
    );
}

#[test]
fn semgrep_needs_a_local_rule_config() {
    let bin = FakeBin::new();
    let tool = bin.tool(Tool::Semgrep);
    let err = Semgrep::new(tool.clone(), None).unwrap_err();
    assert_eq!(err, ExternalError::SemgrepConfigMissing);
    assert!(err.to_string().contains("network"));
    for registry in ["p/kubernetes", "auto", "https://semgrep.dev/c/p/ci"] {
        let err = Semgrep::new(tool.clone(), Some(Path::new(registry))).unwrap_err();
        assert!(
            matches!(&err, ExternalError::SemgrepConfigInvalid { message, .. } if message.contains("network")),
            "{registry}: {err:?}"
        );
    }
    let err = Semgrep::new(tool, Some(&bin.path().join("missing.yaml"))).unwrap_err();
    assert!(
        matches!(err, ExternalError::SemgrepConfigInvalid { .. }),
        "{err:?}"
    );
}

#[test]
fn semgrep_check_ids_keep_their_last_two_components() {
    assert_eq!(
        map_semgrep_check_id("home.me.rules.hostpid-pod.hostpid-pod"),
        "yaml.kubernetes.security.hostpid-pod.hostpid-pod"
    );
    assert_eq!(
        map_semgrep_check_id("hostpid-pod.hostpid-pod"),
        "yaml.kubernetes.security.hostpid-pod.hostpid-pod"
    );
    assert_eq!(map_semgrep_check_id("lonely"), "lonely");
    assert_eq!(map_semgrep_check_id("trailing."), "trailing.");
}

/// Prints a deny set when the input is privileged, `{}` (undefined) otherwise;
/// fails unless called as `eval --format=json --stdin-input -d <file>... -- <query>`.
fn opa_script(bin: &FakeBin) {
    let privileged = bin.file(
        "privileged.json",
        r#"{"result":[{"expressions":[{"value":[
            {"id":"K8S_002","severity":"HIGH","message":"container web is privileged","container":"web","path":"/spec/containers/0/securityContext/privileged"},
            {"id":"GEN_002","severity":"low","message":"default namespace"},
            {"id":"BAD","severity":"urgent","message":"x"},
            "just a string"
        ],"text":"data.sv.k8s.deny","location":{"row":1,"col":1}}]}]}"#,
    );
    bin.script(
        "opa",
        &format!(
            r#"[ "$1" = version ] && {{ echo 'Version: 0.68.0'; echo 'Build Commit: x'; exit 0; }}
[ "$1 $2 $3" = "eval --format=json --stdin-input" ] || {{ echo "bad args: $*" >&2; exit 5; }}
shift 3
while [ "$1" = -d ]; do [ -f "$2" ] || {{ echo "no policy $2" >&2; exit 5; }}; shift 2; done
[ "$1 $2" = "-- data.sv.k8s.deny" ] || {{ echo "bad query: $*" >&2; exit 5; }}
input=$(cat)
case "$input" in
  *privileged*) cat '{}' ;;
  *broken*) echo '{{"errors":[{{"message":"rego_type_error"}}]}}'; exit 1 ;;
  *) echo '{{}}' ;;
esac"#,
            privileged.display()
        ),
    );
}

fn pod(name: &str) -> ObjectRef {
    ObjectRef::K8s {
        api_version: Some("v1".into()),
        kind: "Pod".into(),
        name: Some(name.into()),
        namespace: None,
    }
}

#[test]
fn opa_deny_sets_become_findings_and_undefined_is_none() {
    let bin = FakeBin::new();
    opa_script(&bin);
    let on_disk = bin.file("k8s.rego", "package sv.k8s\n");
    let opa = OpaCli::new(
        bin.tool(Tool::Opa),
        vec![
            RegoPolicy::File(on_disk),
            RegoPolicy::Text {
                name: "builtin/k8s privileged.rego".into(),
                text: "package sv.k8s\n".into(),
            },
        ],
    );
    assert_eq!(opa.tool.version().unwrap(), "Version: 0.68.0");
    let inputs = vec![
        OpaInput {
            input: json!({"object": {"kind": "Pod", "spec": {"privileged": true}}, "doc_index": 0}),
            doc_index: Some(0),
            object: Some(pod("bad")),
            line: Some(1),
        },
        OpaInput {
            input: json!({"object": {"kind": "Pod"}, "doc_index": 1}),
            doc_index: Some(1),
            object: Some(pod("good")),
            line: Some(12),
        },
    ];
    let analysis = opa.eval(K8S_DENY_QUERY, "manifest.yaml", &inputs).unwrap();
    let got: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| {
            (
                f.finding.rule_id.as_str(),
                f.finding.severity,
                f.tool_severity.as_deref(),
                f.finding.container.as_deref(),
                f.path.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("GEN_002", Severity::Low, Some("low"), None, None),
            (
                "K8S_002",
                Severity::High,
                Some("HIGH"),
                Some("web"),
                Some("/spec/containers/0/securityContext/privileged")
            ),
        ]
    );
    for f in &analysis.findings {
        assert_eq!(f.finding.tool, Tool::Opa);
        assert_eq!(f.finding.file, "manifest.yaml");
        assert_eq!(f.finding.line, Some(1));
        assert_eq!(f.finding.doc_index, Some(0));
        assert_eq!(f.finding.object, Some(pod("bad")));
    }
    // The bad severity and the non-object are dropped with errors.
    assert_eq!(analysis.errors.len(), 2, "{:?}", analysis.errors);
    assert!(analysis.errors.iter().all(|e| e.doc_index == Some(0)));
    assert!(analysis.errors.iter().any(|e| e.message.contains("urgent")));
    assert!(analysis
        .errors
        .iter()
        .any(|e| e.message.contains("must be an object")));
}

#[test]
fn opa_evaluation_errors_fail_the_file() {
    let bin = FakeBin::new();
    opa_script(&bin);
    let opa = OpaCli::new(bin.tool(Tool::Opa), vec![]);
    let inputs = vec![OpaInput {
        input: json!({"object": {"kind": "broken"}}),
        doc_index: Some(0),
        object: None,
        line: None,
    }];
    let err = opa
        .eval(K8S_DENY_QUERY, "manifest.yaml", &inputs)
        .unwrap_err();
    assert!(
        matches!(&err, ExternalError::Failed { stderr, .. } if stderr.contains("rego_type_error")),
        "{err:?}"
    );
}

#[test]
fn opa_non_set_values_are_errors() {
    let bin = FakeBin::new();
    bin.script(
        "opa",
        r#"cat > /dev/null; echo '{"result":[{"expressions":[{"value":{"msg":true}}]}]}'"#,
    );
    let opa = OpaCli::new(bin.tool(Tool::Opa), vec![]);
    let inputs = vec![OpaInput {
        input: json!({}),
        doc_index: None,
        object: None,
        line: None,
    }];
    let analysis = opa.eval(K8S_DENY_QUERY, "manifest.yaml", &inputs).unwrap();
    assert!(analysis.findings.is_empty());
    assert_eq!(analysis.errors.len(), 1);
    assert!(analysis.errors[0].message.contains("is not a set: object"));
}

#[test]
fn deny_elements_follow_the_native_contract() {
    let ok =
        parse_deny_element(&json!({"id":"K8S_001","severity":"Critical","message":"m"})).unwrap();
    assert_eq!(ok.severity, Severity::High);
    assert_eq!(ok.container, None);
    for bad in [
        json!({"id":"K 1","severity":"low","message":"m"}),
        json!({"id":"X","severity":"low"}),
        json!({"id":"X","severity":"low","message":"m","container":3}),
        json!({"id":"X","severity":"low","message":"m","path":"spec"}),
        json!(["X"]),
    ] {
        assert!(parse_deny_element(&bad).is_err(), "{bad}");
    }
}

fn finding(tool: Tool, rule: &str, line: Option<usize>, container: Option<&str>) -> Finding {
    Finding {
        tool,
        rule_id: rule.into(),
        severity: Severity::Med,
        message: String::new(),
        file: "manifest.yaml".into(),
        line,
        doc_index: Some(0),
        object: Some(pod("p")),
        container: container.map(str::to_owned),
    }
}

#[test]
fn crosscheck_reports_per_file_differences() {
    let native = vec![
        finding(Tool::KubeLinter, "latest-tag", Some(8), Some("web")),
        finding(Tool::KubeLinter, "latest-tag", Some(12), Some("db")),
        finding(
            Tool::Semgrep,
            "yaml.kubernetes.security.hostpid-pod.hostpid-pod",
            Some(4),
            None,
        ),
        finding(
            Tool::Semgrep,
            "yaml.kubernetes.security.run-as-non-root.run-as-non-root",
            Some(3),
            Some("web"),
        ),
        finding(Tool::Opa, "K8S_002", Some(9), Some("web")),
    ];
    let external = vec![
        // No lines from kube-linter: matched on rule and container.
        finding(Tool::KubeLinter, "latest-tag", None, Some("web")),
        finding(Tool::KubeLinter, "no-read-only-root-fs", None, Some("web")),
        // semgrep: matched on rule and line, containers unknown.
        finding(
            Tool::Semgrep,
            "yaml.kubernetes.security.run-as-non-root.run-as-non-root",
            Some(3),
            None,
        ),
        finding(
            Tool::Semgrep,
            "yaml.kubernetes.security.hostpid-pod.hostpid-pod",
            Some(5),
            None,
        ),
        // opa: not compared (not in `tools`).
        finding(Tool::Opa, "K8S_001", Some(1), None),
    ];
    let check = crosscheck(
        "manifest.yaml",
        &[Tool::KubeLinter, Tool::Semgrep],
        &native,
        &external,
    );
    assert_eq!(check.agreed, 2);
    let ids = |fs: &[Finding]| -> Vec<(String, Option<String>)> {
        fs.iter()
            .map(|f| (f.rule_id.clone(), f.container.clone()))
            .collect()
    };
    assert_eq!(
        ids(&check.only_native),
        vec![
            (
                "yaml.kubernetes.security.hostpid-pod.hostpid-pod".into(),
                None
            ),
            ("latest-tag".into(), Some("db".into())),
        ]
    );
    assert_eq!(
        ids(&check.only_external),
        vec![
            (
                "yaml.kubernetes.security.hostpid-pod.hostpid-pod".into(),
                None
            ),
            ("no-read-only-root-fs".into(), Some("web".into())),
        ]
    );
    assert!(!check.agrees());
    let value = serde_json::to_value(&check).unwrap();
    assert_eq!(value["agreed"], 2);
    assert_eq!(
        value["only_external"][1]["id"],
        "kube-linter/no-read-only-root-fs"
    );

    // Duplicates count: two external hits do not both match one native one.
    let one = vec![finding(Tool::Opa, "K8S_002", Some(9), Some("web"))];
    let two = vec![one[0].clone(), one[0].clone()];
    let check = crosscheck("manifest.yaml", &[Tool::Opa], &one, &two);
    assert_eq!(
        (
            check.agreed,
            check.only_native.len(),
            check.only_external.len()
        ),
        (1, 0, 1)
    );
    let check = crosscheck("manifest.yaml", &[Tool::Opa], &one, &one);
    assert!(check.agrees());
}
