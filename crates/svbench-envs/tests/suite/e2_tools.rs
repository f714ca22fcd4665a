//! E2 tools (spec E2 §2.2, §10 item 9): lexical path resolution over the
//! virtual workspace, argument and tool-name errors, result shape,
//! truncation, and `run_kubelinter` on Terraform.

use serde_json::{json, Value};
use svbench_core::Example;
use svbench_envs::e2::env::{E2Args, E2Env};
use svbench_envs::e2::tools::{
    parse_arguments, resolve_paths, tool_specs, ArgumentsError, PathOutsideWorkspace,
};
use svbench_envs::environment::Environment;

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\nspec:\n  containers:\n  - name: web\n    image: nginx\n";

const TF: &str = "resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"logs\"\n}\n";

fn example(question: &str, lang: &str) -> Example {
    let info = json!({"info": {"violations": []}, "meta": {"lang": lang}});
    Example {
        index: 0,
        id: "t".into(),
        split: None,
        question: question.into(),
        answer: Value::Null,
        info: serde_json::value::RawValue::from_string(info.to_string()).expect("json"),
    }
}

fn env_with(args: &[&str]) -> E2Env {
    E2Env::new("v1", None, E2Args::parse(args).expect("args")).expect("env")
}

/// Calls a tool on a fresh episode and returns (ok, parsed content).
fn call(env: &E2Env, ex: &Example, tool: &str, arguments: &str) -> (bool, Value) {
    let mut episode = env.start_episode(ex);
    let result = episode.call_tool(tool, arguments);
    let content: Value = serde_json::from_str(&result.content).expect("tool results are JSON");
    (result.ok, content)
}

fn paths(list: &[&str]) -> String {
    json!({ "paths": list }).to_string()
}

#[test]
fn paths_outside_the_workspace_are_rejected_whole_call() {
    let env = env_with(&[]);
    let ex = example(POD, "k8s");
    let dir = tempfile::tempdir().expect("tempdir");
    let host_file = dir.path().join("manifest.yaml");
    std::fs::write(&host_file, "kind: Secret\n").expect("write");
    let host = host_file.display().to_string();
    for bad in [
        "/etc/passwd",
        "../manifest.yaml",
        "main.tf",
        "https://example.com/manifest.yaml",
        "file:///etc/passwd",
        "*.yaml",
        "/workspace/../etc/passwd",
        "./../manifest.yaml",
        "MANIFEST.yaml",
        host.as_str(),
    ] {
        for list in [vec![bad], vec!["manifest.yaml", bad]] {
            let (ok, content) = call(&env, &ex, "run_kubelinter", &paths(&list));
            assert!(!ok, "{bad} accepted");
            assert_eq!(content["error"]["code"], "path_not_in_workspace", "{bad}");
            assert_eq!(content["error"]["path"], bad);
            assert!(content.get("findings").is_none());
        }
    }
}

#[test]
fn the_accepted_path_forms_all_analyse_the_workspace_file() {
    let env = env_with(&[]);
    let ex = example(POD, "k8s");
    let mut results = Vec::new();
    for list in [
        vec!["manifest.yaml"],
        vec!["./manifest.yaml"],
        vec!["/workspace/manifest.yaml"],
        vec!["."],
        vec!["/workspace"],
        vec![],
    ] {
        let (ok, content) = call(&env, &ex, "run_kubelinter", &paths(&list));
        assert!(ok, "{list:?}: {content}");
        assert_eq!(content["tool"], "kube-linter");
        assert_eq!(content["backend"], "native");
        assert!(content["version"].as_str().is_some_and(|v| !v.is_empty()));
        assert_eq!(content["truncated"], false);
        let ids: Vec<&str> = content["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["id"].as_str().expect("id"))
            .collect();
        assert!(ids.contains(&"kube-linter/latest-tag"), "{ids:?}");
        assert!(ids.iter().all(|id| id.starts_with("kube-linter/")));
        results.push(content);
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(resolve_paths("main.tf", &["./main.tf".into()]), Ok(()));
    assert_eq!(
        resolve_paths("main.tf", &["manifest.yaml".into()]),
        Err(PathOutsideWorkspace {
            path: "manifest.yaml".into()
        })
    );
}

#[test]
fn each_tool_reports_only_its_namespace() {
    let env = env_with(&[]);
    let ex = example(POD, "k8s");
    for (tool, ns) in [("run_semgrep", "semgrep"), ("run_opa", "opa")] {
        let (ok, content) = call(&env, &ex, tool, &paths(&["manifest.yaml"]));
        assert!(ok);
        assert_eq!(content["tool"], ns);
        for f in content["findings"].as_array().expect("findings") {
            assert_eq!(f["tool"], ns);
            assert_eq!(f["file"], "manifest.yaml");
        }
    }
}

#[test]
fn unknown_tools_and_bad_arguments_are_errors() {
    let env = env_with(&[]);
    let ex = example(POD, "k8s");
    let (ok, c) = call(&env, &ex, "run_bash", &paths(&["manifest.yaml"]));
    assert!(!ok);
    assert_eq!(c["error"]["code"], "unknown_tool");
    for bad in [
        "",
        "not json",
        "[]",
        "{}",
        r#"{"paths": "manifest.yaml"}"#,
        r#"{"paths": [1]}"#,
        r#"{"paths": [], "cmd": "cat /etc/passwd"}"#,
    ] {
        let (ok, c) = call(&env, &ex, "run_opa", bad);
        assert!(!ok, "{bad}");
        assert_eq!(c["error"]["code"], "invalid_arguments", "{bad}");
    }
    assert_eq!(parse_arguments(r#"{"paths":[]}"#), Ok(vec![]));
    assert_eq!(
        parse_arguments(r#"{"paths": [], "cmd": "x"}"#),
        Err(ArgumentsError::Unknown("cmd".into()))
    );
    assert_eq!(
        parse_arguments("[]").map_err(|e| e.to_string()),
        Err(r#"arguments must be a JSON object {"paths": [string]}"#.to_string())
    );
}

#[test]
fn kube_linter_on_terraform_is_an_error_in_the_result() {
    let env = env_with(&[]);
    let ex = example(TF, "tf");
    let (ok, c) = call(&env, &ex, "run_kubelinter", &paths(&["main.tf"]));
    assert!(ok);
    assert_eq!(c["findings"], json!([]));
    assert_eq!(c["errors"][0]["message"], "not a Kubernetes manifest");
    let (_, c) = call(&env, &ex, "run_opa", &paths(&["/workspace/main.tf"]));
    let ids: Vec<&str> = c["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert!(ids.contains(&"opa/TF_001"), "{ids:?}");
    // main.tf is the workspace name of a Terraform item only.
    let (_, c) = call(&env, &ex, "run_opa", &paths(&["manifest.yaml"]));
    assert_eq!(c["error"]["code"], "path_not_in_workspace");
}

#[test]
fn results_are_truncated_at_max_findings_per_result() {
    let env = env_with(&["max_findings_per_result=1"]);
    let ex = example(POD, "k8s");
    let (ok, c) = call(&env, &ex, "run_kubelinter", &paths(&[]));
    assert!(ok);
    assert_eq!(c["findings"].as_array().map(Vec::len), Some(1));
    assert_eq!(c["truncated"], true);
}

#[test]
fn include_tools_false_offers_and_runs_nothing() {
    let env = env_with(&["include_tools=false"]);
    assert!(env.tools().is_empty());
    let ex = example(POD, "k8s");
    let (ok, c) = call(&env, &ex, "run_kubelinter", &paths(&[]));
    assert!(!ok);
    assert_eq!(c["error"]["code"], "unknown_tool");
}

#[test]
fn tool_specs_are_json_schema_functions() {
    let specs = tool_specs();
    let names: Vec<&str> = specs
        .iter()
        .map(|s| s["function"]["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["run_kubelinter", "run_semgrep", "run_opa"]);
    for s in &specs {
        assert_eq!(s["type"], "function");
        assert_eq!(s["function"]["parameters"]["required"], json!(["paths"]));
        assert_eq!(
            s["function"]["parameters"]["properties"]["paths"]["items"]["type"],
            "string"
        );
    }
}

#[test]
fn env_args_are_validated() {
    assert!(E2Args::parse(&["nope=1"]).is_err());
    assert!(E2Args::parse(&["oracle=maybe"]).is_err());
    assert!(E2Args::parse(&["include_tools"]).is_err());
    assert!(E2Args::parse(&["backend=remote"]).is_err());
    // External backends parse; their binaries are probed by E2Env::new
    // (tests/suite/e2_external.rs).
    assert!(E2Args::parse(&["backend=external"]).is_ok());
    let args = E2Args::parse(&["oracle=live", "show_catalog=false", "lang=tf"]).expect("ok");
    assert_eq!(args.to_record()["oracle"], "live");
    assert!(E2Env::new(
        "v1",
        None,
        E2Args::parse(&["kube_linter_checks=no-such-check"]).expect("parses")
    )
    .is_err());
    assert!(E2Env::new(
        "v1",
        None,
        E2Args::parse(&["kube_linter_checks=all"]).expect("parses")
    )
    .is_ok());
}
