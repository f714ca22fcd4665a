//! E2 with external backends (spec E2 §1.8, §2.4 `backend`): the tools and
//! the live oracle run the real binaries — here fake shell scripts in a temp
//! dir that is the only search path — a missing binary stops the
//! environment from being built, a failed run is a tool error (never clean),
//! and `crosscheck` reports the differences beside the native result.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use svbench_core::Example;
use svbench_envs::e2::dataset::relabel_live;
use svbench_envs::e2::env::{E2Args, E2Env, E2EnvError};
use svbench_envs::e2::Lang;
use svbench_envs::environment::Environment;

/// A Pod the native kube-linter flags with `latest-tag` (no tag), among others.
const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\nspec:\n  containers:\n  - name: app\n    image: nginx\n";

/// What the fake kube-linter prints: `privileged-container` on container
/// `app` and `host-ipc` (neither holds for [`POD`] natively).
const KUBE_LINTER_REPORT: &str = r#"{"Checks":[],"Reports":[
 {"Diagnostic":{"Message":"container \"app\" is Privileged hence has host access."},"Check":"privileged-container","Remediation":"x",
  "Object":{"Metadata":{"FilePath":"manifest.yaml"},"K8sObject":{"Namespace":"default","Name":"web","GroupVersionKind":{"Group":"","Version":"v1","Kind":"Pod"}}}},
 {"Diagnostic":{"Message":"resource shares the host IPC namespace"},"Check":"host-ipc","Remediation":"x",
  "Object":{"Metadata":{"FilePath":"manifest.yaml"},"K8sObject":{"Namespace":"default","Name":"web","GroupVersionKind":{"Group":"","Version":"v1","Kind":"Pod"}}}}],
 "Summary":{"ChecksStatus":"Failed","KubeLinterVersion":"v0.7.6"}}"#;

/// A temp dir of fake `kube-linter`, `semgrep` and `opa` scripts (the only
/// search path) and a local semgrep rule file.
struct Fakes {
    dir: tempfile::TempDir,
}

impl Fakes {
    /// All three binaries; `kube_linter_lint` is the shell run for `lint`.
    fn new(kube_linter_lint: &str) -> Fakes {
        let fakes = Fakes {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        let report = fakes.file("report.json", KUBE_LINTER_REPORT);
        let lint = kube_linter_lint.replace("REPORT", &report.display().to_string());
        fakes.script(
            "kube-linter",
            &format!(
                "[ \"$1\" = version ] && {{ echo v0.7.6; exit 0; }}\n\
                 [ \"$1 $2 $3\" = 'lint --format json' ] || exit 9\n\
                 [ -f ./manifest.yaml ] || {{ echo 'no ./manifest.yaml' >&2; exit 9; }}\n{lint}"
            ),
        );
        fakes.script(
            "semgrep",
            "[ \"$1\" = --version ] && { echo 1.50.0; exit 0; }\necho '{\"results\":[],\"errors\":[]}'",
        );
        fakes.script(
            "opa",
            "[ \"$1\" = version ] && { echo 'Version: 0.60.0'; exit 0; }\ncat >/dev/null; echo '{}'",
        );
        fakes.file("rules.yaml", "rules: []\n");
        fakes
    }

    fn script(&self, name: &str, body: &str) {
        let path = self.dir.path().join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, text).expect("write file");
        path
    }

    /// Parsed `--env-arg`s plus this search path and `semgrep_config`.
    fn args(&self, pairs: &[&str]) -> E2Args {
        let mut args = E2Args::parse(pairs).expect("args");
        args.semgrep_config = Some(self.dir.path().join("rules.yaml"));
        args.external_search_path = Some(self.dir.path().as_os_str().to_owned());
        args.external_timeout = Some(Duration::from_secs(10));
        args
    }

    fn env(&self, pairs: &[&str]) -> E2Env {
        E2Env::new("v1", None, self.args(pairs)).expect("env")
    }
}

fn example(question: &str, lang: &str) -> Example {
    let info = json!({"info": {"violations": []}, "meta": {"lang": lang}});
    Example {
        index: 0,
        id: "ext".into(),
        split: None,
        question: question.into(),
        answer: Value::Null,
        info: serde_json::value::RawValue::from_string(info.to_string()).expect("json"),
    }
}

/// Calls `run_kubelinter` on a fresh episode: (ok, parsed content).
fn run_kubelinter(env: &E2Env, ex: &Example) -> (bool, Value) {
    let mut episode = env.start_episode(ex);
    let result = episode.call_tool("run_kubelinter", r#"{"paths": ["."]}"#);
    let content = serde_json::from_str(&result.content).expect("tool results are JSON");
    (result.ok, content)
}

fn ids(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .expect("array")
        .iter()
        .map(|v| v.get("id").unwrap_or(v).as_str().expect("id").to_owned())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn backend_values_parse_and_are_recorded() {
    for backend in ["native", "external", "crosscheck"] {
        let args = E2Args::parse(&[format!("backend={backend}")]).expect("parses");
        assert_eq!(args.to_record()["backend"], backend);
    }
    assert!(E2Args::parse(&["backend=remote"]).is_err());
    let args = E2Args::parse(&["semgrep_config=rules.yaml"]).expect("parses");
    assert_eq!(args.to_record()["semgrep_config"], "rules.yaml");
    assert!(!E2Args::default().to_record().contains_key("semgrep_config"));
}

#[test]
fn a_missing_binary_or_semgrep_rule_file_is_an_error_never_a_fallback() {
    let empty = tempfile::tempdir().expect("temp dir");
    let fakes = Fakes::new("cat REPORT; exit 1");
    for backend in ["backend=external", "backend=crosscheck"] {
        let mut args = fakes.args(&[backend]);
        args.external_search_path = Some(empty.path().as_os_str().to_owned());
        let err = E2Env::new("v1", None, args).expect_err("no binaries");
        assert!(matches!(err, E2EnvError::Backend { .. }), "{err:?}");
        assert!(err.to_string().contains("`kube-linter` not found"), "{err}");

        let mut args = fakes.args(&[backend]);
        args.semgrep_config = None;
        let err = E2Env::new("v1", None, args).expect_err("no rules");
        assert!(err.to_string().contains("semgrep_config=PATH"), "{err}");
    }
    // opa missing alone is named too.
    fs::remove_file(fakes.dir.path().join("opa")).expect("rm");
    let err = E2Env::new("v1", None, fakes.args(&["backend=external"])).expect_err("no opa");
    assert!(err.to_string().contains("`opa` not found"), "{err}");
    // The native default never probes anything.
    let args = E2Args {
        external_search_path: Some(empty.path().as_os_str().to_owned()),
        ..E2Args::default()
    };
    assert!(E2Env::new("v1", None, args).is_ok());
}

#[test]
fn external_tools_return_the_binarys_findings_and_versions() {
    let fakes = Fakes::new("cat REPORT; exit 1");
    let env = fakes.env(&["backend=external"]);
    let (ok, content) = run_kubelinter(&env, &example(POD, "k8s"));
    assert!(ok, "{content}");
    assert_eq!(content["tool"], "kube-linter");
    assert_eq!(content["backend"], "external");
    assert_eq!(content["version"], "v0.7.6");
    assert_eq!(
        ids(&content["findings"]),
        set(&["kube-linter/host-ipc", "kube-linter/privileged-container"])
    );
    let privileged = content["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["id"] == "kube-linter/privileged-container")
        .expect("privileged");
    assert_eq!(privileged["container"], "app");
    assert_eq!(content["errors"], json!([]));
    assert_eq!(content["truncated"], false);

    let versions = env.analyzers().versions_record();
    assert_eq!(
        versions["kube-linter"],
        json!({"backend": "external", "version": "v0.7.6"})
    );
    assert_eq!(
        versions["semgrep"],
        json!({"backend": "external", "version": "1.50.0"})
    );
    assert_eq!(
        versions["opa"],
        json!({"backend": "external", "version": "Version: 0.60.0"})
    );
    assert_eq!(env.args().to_record()["backend"], "external");

    // kube-linter on Terraform is still "not a Kubernetes manifest".
    let (_, content) = run_kubelinter(&env, &example("resource \"a\" \"b\" {}\n", "tf"));
    assert_eq!(content["backend"], "external");
    assert_eq!(content["errors"][0]["message"], "not a Kubernetes manifest");
}

#[test]
fn a_binary_that_times_out_is_a_tool_error_not_a_clean_result() {
    let fakes = Fakes::new("sleep 30");
    let mut args = fakes.args(&["backend=external", "oracle=live"]);
    args.external_timeout = Some(Duration::from_millis(500));
    let env = E2Env::new("v1", None, args).expect("env");
    let ex = example(POD, "k8s");
    let (ok, content) = run_kubelinter(&env, &ex);
    assert!(!ok, "a failed run is not ok: {content}");
    assert_eq!(content["backend"], "external");
    assert_eq!(content["findings"], json!([]));
    let message = content["errors"][0]["message"].as_str().expect("error");
    assert!(message.contains("did not finish"), "{message}");
    assert_eq!(content["errors"][0]["tool"], "kube-linter");

    // The live oracle cannot label the item either: an error, not "clean".
    assert!(env.live_oracle(Lang::K8s, POD).is_err());
    let mut items = [ex];
    assert_eq!(relabel_live(&mut items, &env), 1, "unlabelled");
    let info = items[0].info_value();
    assert!(info["info"]["violations"].is_null(), "{info}");
    assert!(info["info"]["oracle_error"]
        .as_str()
        .is_some_and(|m| m.contains("did not finish")));
}

#[test]
fn crosscheck_returns_the_native_result_with_the_differences() {
    let fakes = Fakes::new("cat REPORT; exit 1");
    let env = fakes.env(&["backend=crosscheck", "oracle=live"]);
    let native =
        E2Env::new("v1", None, E2Args::parse(&["oracle=live"]).expect("args")).expect("native env");
    let ex = example(POD, "k8s");
    let (ok, content) = run_kubelinter(&env, &ex);
    let (_, native_content) = run_kubelinter(&native, &ex);
    assert!(ok, "{content}");
    assert_eq!(content["backend"], "native");
    assert_eq!(content["findings"], native_content["findings"]);
    let check = &content["crosscheck"];
    assert_eq!(check["backend"], "external");
    assert_eq!(check["version"], "v0.7.6");
    assert_eq!(check["agrees"], false);
    let only_native = ids(&check["only_native"]);
    assert!(only_native.contains("kube-linter/latest-tag"), "{check}");
    assert_eq!(
        ids(&check["only_external"]),
        set(&["kube-linter/host-ipc", "kube-linter/privileged-container"])
    );

    // Tools stay native, and so does the live oracle; both are recorded.
    let versions = env.analyzers().versions_record();
    assert_eq!(versions["kube-linter"]["backend"], "native");
    assert_eq!(versions["kube-linter"]["crosscheck"]["version"], "v0.7.6");
    assert_eq!(
        env.live_oracle(Lang::K8s, POD).expect("native"),
        native.live_oracle(Lang::K8s, POD).expect("native")
    );

    // A failing binary shows as the crosscheck's error; the result stays ok.
    let fakes = Fakes::new("exit 7");
    let env = fakes.env(&["backend=crosscheck"]);
    let (ok, content) = run_kubelinter(&env, &ex);
    assert!(ok);
    assert!(content["crosscheck"]["error"]
        .as_str()
        .is_some_and(|e| e.contains("exit status 7")));
}

#[test]
fn the_live_oracle_labels_with_the_external_findings() {
    let fakes = Fakes::new("cat REPORT; exit 1");
    let env = fakes.env(&["backend=external", "oracle=live"]);
    let ex = example(POD, "k8s");
    let item = env.item(&ex).expect("item");
    let oracle: BTreeSet<String> = item
        .oracle
        .violations
        .iter()
        .map(|v| v.id.clone())
        .collect();
    // semgrep and opa fakes report nothing; kube-linter's two findings.
    assert_eq!(
        oracle,
        set(&["kube-linter/host-ipc", "kube-linter/privileged-container"])
    );
    let mut examples = [ex];
    assert_eq!(relabel_live(&mut examples, &env), 0, "labelled");
    let info = examples[0].info_value();
    let labelled: BTreeSet<String> = info["info"]["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            format!(
                "{}/{}",
                v["tool"].as_str().expect("tool"),
                v["rule_id"].as_str().expect("rule")
            )
        })
        .collect();
    assert_eq!(labelled, oracle);
    // The dataset oracle is unaffected by the backend.
    let env = fakes.env(&["backend=external"]);
    assert!(env
        .item(&example(POD, "k8s"))
        .expect("item")
        .oracle
        .violations
        .is_empty());
}
