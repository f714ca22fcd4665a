//! `svbench scan` end to end: formats, exit codes, check selection, user
//! policies, directory walks past bad files.

mod common;

use common::{stdout, Sandbox};
use serde_json::Value;

/// A Deployment every default check, semgrep rule and project policy accepts.
const CLEAN: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
      containers:
      - name: web
        image: nginx:1.25.3
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
          limits:
            cpu: 500m
            memory: 128Mi
        securityContext:
          readOnlyRootFilesystem: true
          allowPrivilegeEscalation: false
          capabilities:
            drop: [\"ALL\"]
";

const BAD_POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  hostNetwork: true
  containers:
  - name: app
    image: nginx:latest
    securityContext:
      privileged: true
";

fn json_out(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn ids(file: &Value) -> Vec<String> {
    file["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn clean_manifest_exits_zero() {
    let sb = Sandbox::new();
    sb.write("ok.yaml", CLEAN);
    let o = sb.run(&["scan", "ok.yaml", "--format", "json"]);
    let out = json_out(&o);
    assert_eq!(
        ids(&out["files"][0]),
        Vec::<String>::new(),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(0));
    for ns in ["kube-linter", "semgrep", "opa"] {
        assert_eq!(out["analyzers"][ns]["backend"], "native", "{ns}");
        assert!(out["analyzers"][ns]["version"]
            .as_str()
            .unwrap()
            .contains("svbench-scan"));
    }
}

#[test]
fn findings_exit_one_in_every_format() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);

    let o = sb.run(&["scan", "pod.yaml", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let out = json_out(&o);
    let file = &out["files"][0];
    assert_eq!(file["path"], "pod.yaml");
    assert_eq!(file["type"], "k8s");
    assert!(file["post_patch"].is_null());
    let ids = ids(file);
    for want in [
        "kube-linter/privileged-container",
        "kube-linter/host-network",
        "kube-linter/latest-tag",
        "semgrep/yaml.kubernetes.security.privileged-container.privileged-container",
        "opa/K8S_002",
    ] {
        assert!(ids.iter().any(|i| i == want), "{want} not in {ids:?}");
    }
    let f = file["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "kube-linter/privileged-container")
        .unwrap();
    assert_eq!(f["severity"], "high");
    assert_eq!(f["container"], "app");
    assert_eq!(f["object"]["kind"], "Pod");
    assert_eq!(f["object"]["name"], "bad");
    assert!(f["object"]["namespace"].is_null());
    assert!(f["location"].as_str().unwrap().starts_with("pod.yaml:"));

    let o = sb.run(&["scan", "pod.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("kube-linter/host-network [high]"), "{text}");
    assert!(text.contains("1 file scanned"), "{text}");

    let o = sb.run(&["scan", "pod.yaml", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let sarif = json_out(&o);
    assert_eq!(sarif["version"], "2.1.0");
    let runs = sarif["runs"].as_array().unwrap();
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["tool"]["driver"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["kube-linter", "semgrep", "opa"]);
    let kl = &runs[0];
    let result = kl["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "host-network")
        .unwrap();
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "pod.yaml"
    );
    assert!(result["locations"][0]["physicalLocation"]["region"]["startLine"].is_u64());
}

#[test]
fn directory_walk_continues_past_bad_files_and_lists_skipped() {
    let sb = Sandbox::new();
    sb.write("cfg/a/ok.yaml", CLEAN);
    sb.write("cfg/b/pod.yaml", BAD_POD);
    sb.write("cfg/notes.txt", "hello");
    sb.write("cfg/values.yaml", "replicas: 3\n");
    std::fs::write(sb.path().join("cfg/c.yaml"), b"apiVersion: v1\x00\xff\xfe").unwrap();
    let o = sb.run(&["scan", "cfg", "--format", "json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let out = json_out(&o);
    let paths: Vec<&str> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["cfg/a/ok.yaml", "cfg/b/pod.yaml", "cfg/c.yaml"]);
    assert!(!out["files"][1]["findings"].as_array().unwrap().is_empty());
    let err = &out["files"][2]["errors"][0];
    assert!(err["message"].as_str().unwrap().contains("UTF-8"), "{err}");
    let skipped: Vec<&str> = out["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["cfg/notes.txt", "cfg/values.yaml"]);
}

#[test]
fn usage_errors_exit_two() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);
    sb.write("notes.txt", "x");
    for args in [
        &["scan", "pod.yaml", "--include", "no-such-check"][..],
        &["scan", "pod.yaml", "--tools", "kubelinter"],
        &["scan", "notes.txt"],
        &["scan", "missing.yaml"],
        &["scan", "--stdin"],
        &["scan", "pod.yaml", "--patch", "missing.diff"],
        &["scan", "pod.yaml", "--type", "py"],
    ] {
        let o = sb.run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", common::stderr(&o));
        assert!(!common::stderr(&o).is_empty(), "{args:?}");
    }
}

#[test]
fn planned_types_are_not_advertised_and_say_they_are_planned() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);
    let help = common::stdout(&sb.run(&["scan", "--help"]));
    assert!(!help.contains("py,") && !help.contains(", py"), "{help}");
    let o = sb.run(&["scan", "pod.yaml", "--type", "py"]);
    assert_eq!(o.status.code(), Some(2));
    let err = common::stderr(&o);
    assert!(
        err.contains("Python code analyzers are planned but not in this build")
            && err.contains("hint: this build scans Kubernetes manifests (--type k8s)"),
        "{err}"
    );
}

#[test]
fn include_exclude_and_tools_change_what_runs() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);
    let run = |extra: &[&str]| {
        let mut args = vec!["scan", "pod.yaml", "--format", "json"];
        args.extend_from_slice(extra);
        ids(&json_out(&sb.run(&args))["files"][0])
    };
    let default = run(&[]);
    assert!(!default.iter().any(|i| i == "kube-linter/no-liveness-probe"));
    let included = run(&["--include", "no-liveness-probe"]);
    assert!(included
        .iter()
        .any(|i| i == "kube-linter/no-liveness-probe"));
    let excluded = run(&["--exclude", "kube-linter/latest-tag,K8S_002"]);
    assert!(!excluded.iter().any(|i| i == "kube-linter/latest-tag"));
    assert!(!excluded.iter().any(|i| i == "opa/K8S_002"));
    let primary = run(&["--tools", "primary"]);
    assert!(
        primary.iter().all(|i| i.starts_with("kube-linter/")),
        "{primary:?}"
    );
    let opa_only = run(&["--tools", "opa"]);
    assert!(
        opa_only.iter().all(|i| i.starts_with("opa/")),
        "{opa_only:?}"
    );
}

#[test]
fn user_policy_dirs_add_findings() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);
    sb.write(
        "policies/names.rego",
        "package sv.k8s\n\ndeny contains {\"id\": \"USR_NAME\", \"severity\": \"low\", \"message\": \"short name\"} if {\n    count(input.object.metadata.name) < 4\n}\n",
    );
    let o = sb.run(&[
        "scan",
        "pod.yaml",
        "--tools",
        "opa",
        "--policy-dir",
        "policies",
        "--format",
        "json",
    ]);
    let out = json_out(&o);
    let f = out["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "opa/USR_NAME")
        .unwrap_or_else(|| panic!("{}", stdout(&o)))
        .clone();
    assert_eq!(f["severity"], "low");
    sb.write("bad/broken.rego", "package sv.k8s\ndeny contains x if {");
    let o = sb.run(&["scan", "pod.yaml", "--policy-dir", "bad"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
}

#[test]
fn terraform_and_stdin() {
    let sb = Sandbox::new();
    sb.write(
        "main.tf",
        "resource \"aws_db_instance\" \"db\" {\n  storage_encrypted = false\n}\n",
    );
    let o = sb.run(&["scan", "main.tf", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let out = json_out(&o);
    assert_eq!(out["files"][0]["type"], "tf");
    let f = &out["files"][0]["findings"][0];
    assert_eq!(f["id"], "opa/TF_004");
    assert_eq!(f["object"]["kind"], "terraform_resource");
    assert_eq!(f["object"]["name"], "aws_db_instance.db");
    // Upstream's notion: semgrep is the Terraform analyzer, and it has no rules.
    let o = sb.run(&["scan", "main.tf", "--tools", "primary"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(["scan", "--stdin", "--type", "k8s", "--format", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(BAD_POD.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json_out(&o)["files"][0]["path"], "<stdin>");
}

#[test]
fn list_checks_names_every_namespace() {
    let o = Sandbox::new().run(&["scan", "--list-checks"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for want in [
        "run-as-non-root",
        "no-liveness-probe",
        "yaml.kubernetes.security.hostpid-pod.hostpid-pod",
        "TF_008",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

/// `--backend external` runs whatever `kube-linter` is on PATH (here a
/// fake printing a recorded-style report) and `crosscheck` lists the
/// differences; a missing binary is a usage error, never a fallback.
#[test]
fn external_backend_uses_real_binaries_or_refuses() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);
    let bin = sb.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("kube-linter");
    std::fs::write(
        &script,
        r#"#!/bin/sh
if [ "$1" = "version" ]; then echo 0.7.6; exit 0; fi
# PATH holds only this directory: shell builtins only.
echo '{"Checks":[],"Reports":[{"Diagnostic":{"Message":"container \"app\" is Privileged hence has host access."},"Check":"privileged-container","Remediation":"x","Object":{"Metadata":{"FilePath":"pod.yaml"},"K8sObject":{"Namespace":"","Name":"bad","GroupVersionKind":{"Group":"","Version":"v1","Kind":"Pod"}}}},{"Diagnostic":{"Message":"made up"},"Check":"host-ipc","Remediation":"x","Object":{"Metadata":{"FilePath":"pod.yaml"},"K8sObject":{"Namespace":"","Name":"bad","GroupVersionKind":{"Group":"","Version":"v1","Kind":"Pod"}}}}],"Summary":{"ChecksStatus":"Failed","KubeLinterVersion":"0.7.6"}}'
exit 1
"#,
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |args: &[&str], path: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_svbench"))
            .args(args)
            .current_dir(sb.path())
            .env("PATH", path)
            .output()
            .unwrap()
    };

    let o = run(
        &[
            "scan",
            "pod.yaml",
            "--backend",
            "external",
            "--tools",
            "kube-linter",
            "--format",
            "json",
        ],
        &bin,
    );
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let out = json_out(&o);
    assert_eq!(out["analyzers"]["kube-linter"]["backend"], "external");
    assert_eq!(out["analyzers"]["kube-linter"]["version"], "0.7.6");
    let f = out["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "kube-linter/privileged-container")
        .unwrap();
    assert_eq!(f["container"], "app");
    assert!(f["line"].is_null(), "kube-linter reports no lines");
    assert_eq!(f["severity"], "high");

    let o = run(
        &[
            "scan",
            "pod.yaml",
            "--backend",
            "crosscheck",
            "--tools",
            "kube-linter",
            "--format",
            "json",
        ],
        &bin,
    );
    let out = json_out(&o);
    let check = &out["files"][0]["crosscheck"];
    assert_eq!(check["only_external"][0]["rule_id"], "host-ipc");
    assert!(check["only_native"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule_id"] == "latest-tag"));
    assert_eq!(
        out["external_analyzers"]["kube-linter"]["backend"],
        "external"
    );
    assert_eq!(out["analyzers"]["kube-linter"]["backend"], "native");

    let empty = sb.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = run(&["scan", "pod.yaml", "--backend", "external"], &empty);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("kube-linter"),
        "{}",
        common::stderr(&o)
    );
}

/// `--patch` applies a diff in memory and reports what remains; a patch that
/// does not apply (or breaks preservation) exits 3 with its reason.
#[test]
fn patch_reports_findings_after_the_fix() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", BAD_POD);
    sb.write(
        "fix.diff",
        "--- a/pod.yaml\n+++ b/pod.yaml\n@@ -3,9 +3,8 @@\n metadata:\n   name: bad\n spec:\n-  hostNetwork: true\n   containers:\n   - name: app\n     image: nginx:latest\n     securityContext:\n-      privileged: true\n+      privileged: false\n",
    );
    let o = sb.run(&[
        "scan", "pod.yaml", "--patch", "fix.diff", "--format", "json",
    ]);
    let out = json_out(&o);
    let post = &out["files"][0]["post_patch"];
    assert_eq!(post["status"], "applied", "{post}");
    assert_eq!(post["patch_applied"], true);
    let after: Vec<&str> = post["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(!after.contains(&"kube-linter/host-network"), "{after:?}");
    assert!(
        !after.contains(&"kube-linter/privileged-container"),
        "{after:?}"
    );
    assert!(after.contains(&"kube-linter/latest-tag"), "{after:?}");
    // Findings before the patch are still reported.
    assert!(ids(&out["files"][0]).contains(&"kube-linter/host-network".to_owned()));
    assert_eq!(o.status.code(), Some(1), "findings remain after the patch");

    sb.write(
        "swap.diff",
        "--- a/pod.yaml\n+++ b/pod.yaml\n@@ -8,1 +8,1 @@\n-    image: nginx:latest\n+    image: busybox:1.36\n",
    );
    let o = sb.run(&[
        "scan",
        "pod.yaml",
        "--patch",
        "swap.diff",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let post = &json_out(&o)["files"][0]["post_patch"];
    assert_eq!(post["status"], "preservation_failed", "{post}");
    assert!(post["reason"].as_str().unwrap().contains("image"), "{post}");

    sb.write("other.yaml", CLEAN);
    let o = sb.run(&["scan", "pod.yaml", "other.yaml", "--patch", "fix.diff"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A FIFO (or any non-regular file) named on the command line, or as
/// `--patch`, is refused at once (exit 2) instead of blocking on the read.
#[cfg(unix)]
#[test]
fn a_fifo_on_the_command_line_is_refused_not_read() {
    use std::process::{Command, Stdio};
    let sb = Sandbox::new();
    let fifo = sb.path().join("pipe.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let good = sb.write("ok.yaml", CLEAN);
    for args in [
        vec![fifo.to_str().unwrap().to_string()],
        vec![
            good.to_str().unwrap().to_string(),
            "--patch".into(),
            fifo.to_str().unwrap().to_string(),
        ],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_svbench"))
            .arg("scan")
            .args(&args)
            .current_dir(sb.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A hang guard, not a timing assertion: without the fix the read
        // never returns, and the test must fail rather than hang the suite.
        let mut waited = 0;
        while child.try_wait().unwrap().is_none() && waited < 600 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            waited += 1;
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("scan {args:?} blocked on the FIFO");
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("not a regular file (a FIFO)"), "{err}");
    }
}

/// The fixture docs/scan.md uses for `--dedupe`.
const PRIVILEGED_POD: &str = include_str!("../../svbench-scan/tests/fixtures/privileged-pod.yaml");

#[test]
fn dedupe_shows_one_row_per_issue_with_the_tools_that_agree() {
    let sb = Sandbox::new();
    sb.write("pod.yaml", PRIVILEGED_POD);

    let o = sb.run(&["scan", "pod.yaml", "--dedupe"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let privileged: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("privileged-container [high]"))
        .collect();
    assert_eq!(
        privileged,
        ["pod.yaml:13: privileged-container [high] container \"shell\" is privileged (Pod debug-shell) [kube-linter, semgrep, opa]"],
        "{text}"
    );
    assert!(!text.contains("opa/K8S_002"), "{text}");
    assert!(
        text.contains("pod.yaml:8: host-network [high] pod shares the node's network namespace (hostNetwork: true) (Pod debug-shell) [kube-linter, semgrep]"),
        "{text}"
    );
    // Escalation is its own issue, whatever line it shares.
    assert!(
        text.contains("pod.yaml:13: kube-linter/privilege-escalation-container [high]"),
        "{text}"
    );
    assert!(
        text.contains("1 file scanned: 11 issues (15 findings), 0 errors"),
        "{text}"
    );

    let all = json_out(&sb.run(&["scan", "pod.yaml", "--format", "json"]));
    let o = sb.run(&["scan", "pod.yaml", "--format", "json", "--dedupe"]);
    assert_eq!(o.status.code(), Some(1));
    let out = json_out(&o);
    let file = &out["files"][0];
    assert!(file.get("findings").is_none(), "{file}");
    let issues = file["issues"].as_array().unwrap();
    let row = issues
        .iter()
        .find(|r| r["issue"] == "privileged-container")
        .unwrap();
    assert_eq!(row["line"], 13);
    assert_eq!(row["severity"], "high");
    assert_eq!(row["container"], "shell");
    assert_eq!(
        row["tools"],
        serde_json::json!(["kube-linter", "semgrep", "opa"])
    );
    assert_eq!(
        row["ids"],
        serde_json::json!([
            "kube-linter/privileged-container",
            "opa/K8S_002",
            "semgrep/yaml.kubernetes.security.privileged-container.privileged-container"
        ])
    );
    // Every finding is kept inside exactly one row.
    let mut grouped: Vec<String> = issues
        .iter()
        .flat_map(|r| r["findings"].as_array().unwrap())
        .map(|f| f.to_string())
        .collect();
    let mut plain: Vec<String> = all["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    grouped.sort();
    plain.sort();
    assert_eq!(grouped, plain);
}
