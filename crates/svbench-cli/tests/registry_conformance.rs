//! Every registered environment has every piece the harness offers: builtin
//! policies, generators, a benchmark, and a report plugin of its own whose
//! metrics, sections, plots, sample grading and compare metrics show up in
//! a real run. A new environment that forgets one fails here instead of
//! silently getting the generic report.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use svbench_envs::registry::{EnvEntry, REGISTRY};
use svbench_report::plugin::EnvSections;

fn svbench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(args)
        .output()
        .expect("run svbench")
}

/// The builtin a short run uses: the default one, else the first that
/// needs no file.
fn builtin_of(entry: &EnvEntry) -> String {
    let name = entry.default_policy.unwrap_or_else(|| {
        entry
            .builtins
            .iter()
            .map(|b| b.name)
            .find(|n| !n.contains("FILE"))
            .expect("a builtin that needs no file")
    });
    format!("builtin:{name}")
}

/// The one run directory under `root`.
fn run_dir(root: &Path) -> PathBuf {
    let env_dir = std::fs::read_dir(root)
        .expect("output root")
        .next()
        .expect("an environment directory")
        .expect("entry")
        .path();
    std::fs::read_dir(env_dir)
        .expect("environment directory")
        .next()
        .expect("a run directory")
        .expect("entry")
        .path()
}

#[test]
fn every_environment_declares_every_piece() {
    for entry in REGISTRY {
        let name = entry.name();
        assert!(!entry.builtins.is_empty(), "{name}: no builtin policy");
        assert!(!entry.generators.is_empty(), "{name}: no generator");
        assert!(entry.bench.is_some(), "{name}: no benchmark");
        let plugin = entry.report;
        assert_eq!(
            plugin.grading_name(),
            entry.identity.short,
            "{name}: its report plugin grades no sample (the generic one?)"
        );
        assert!(
            !plugin.compare_metrics().is_empty(),
            "{name}: no compare metric"
        );
        assert_ne!(
            plugin.legend(),
            svbench_report::plugin::GenericReport.legend(),
            "{name}: the generic legend"
        );
    }
}

#[test]
fn every_environment_gets_its_own_report_from_a_real_run() {
    for entry in REGISTRY {
        let name = entry.name();
        let short = entry.identity.short;
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("evals");
        let model = builtin_of(entry);
        let out = svbench(&[
            "eval",
            short,
            "--model",
            &model,
            "-n",
            "4",
            "--no-progress",
            "--output-dir",
            root.to_str().expect("utf-8 path"),
        ]);
        assert!(
            out.status.success(),
            "{name}: eval failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = run_dir(&root);
        let summary: Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).expect("summary.json"))
                .expect("summary JSON");
        assert_eq!(summary["environment"], name);
        let warnings = summary["warnings"].to_string();
        assert!(
            !warnings.contains("not computed by this report version"),
            "{name}: generic metrics: {warnings}"
        );
        assert!(
            summary["headline"]
                .as_array()
                .is_some_and(|h| !h.is_empty()),
            "{name}: no headline"
        );
        let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
        assert!(
            !md.contains("computes no environment-specific metrics"),
            "{name}: report.md has the generic metrics section"
        );
        let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
        assert!(
            html.contains(&format!("{{\"grading\":\"{short}\"")),
            "{name}: report.html does not grade with the environment's rule"
        );
        let plots = std::fs::read_dir(dir.join("plots")).expect("plots").count();
        assert!(plots > 3, "{name}: only the common plots ({plots})");

        let dir_s = dir.to_str().expect("utf-8 path");
        let cmp_path = tmp.path().join("cmp.json");
        let cmp = svbench(&[
            "compare",
            dir_s,
            dir_s,
            "--bootstrap",
            "100",
            "--out",
            cmp_path.to_str().expect("utf-8 path"),
        ]);
        assert!(
            cmp.status.success(),
            "{name}: compare failed: {}",
            String::from_utf8_lossy(&cmp.stderr)
        );
        let cmp: Value = serde_json::from_slice(&std::fs::read(&cmp_path).expect("compare JSON"))
            .expect("compare JSON");
        let metrics = cmp["metrics"].to_string();
        assert!(
            entry
                .report
                .compare_metrics()
                .iter()
                .any(|m| metrics.contains(&format!("\"{m}\""))),
            "{name}: compare lists none of the environment's metrics: {metrics}"
        );
    }
}
