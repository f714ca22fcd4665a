//! Issue 13 items 2 and 4 at the environment level: a config the live
//! oracle cannot scan is a per-sample error, never "clean" (it used to be
//! labelled `[]`, `clean: true`, and `tool-only` scored 1.05 on it); scoring
//! has a total time budget that ends the work with a typed error.

use std::time::{Duration, Instant};

use serde_json::json;
use svbench_core::Completion;
use svbench_envs::e2::dataset::relabel_live;
use svbench_envs::e2::env::{E2Args, E2Env};
use svbench_envs::e2::policy::builtin as e2_builtin;
use svbench_envs::e2::tools::OracleError;
use svbench_envs::e2::Lang;
use svbench_envs::environment::{Deadline, Environment, ScoreErrorKind};

use crate::e2_env::{answer, env, example, play};

/// A billion-laughs ConfigMap: 9^8 nodes once expanded, past the YAML node
/// limit.
pub(crate) fn billion_laughs() -> String {
    let mut yaml = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..8 {
        let p = i - 1;
        yaml.push_str(&format!(
            "  l{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"
        ));
    }
    yaml
}

/// A Pod whose annotation nests deeper than the YAML depth limit.
pub(crate) fn too_deep() -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: deep\n  annotations:\n    a: {}{}\nspec:\n  containers:\n  - name: c\n    image: nginx\n",
        "[".repeat(600),
        "]".repeat(600)
    )
}

const TF_SYNTAX_ERROR: &str = "resource \"aws_s3_bucket\" \"b\" {\n  bucket = \n";

#[test]
fn an_unscannable_config_is_an_oracle_error_not_clean() {
    let live = env("v1", &["oracle=live"]);
    let tool_only = e2_builtin("tool-only", &live).expect("tool-only");
    for (id, config, lang) in [
        ("laughs", billion_laughs(), "k8s"),
        ("deep", too_deep(), "k8s"),
        ("hcl", TF_SYNTAX_ERROR.to_owned(), "tf"),
    ] {
        let ex = example(id, &config, lang, vec![]);
        let lang_ = if lang == "tf" { Lang::Tf } else { Lang::K8s };
        let err = live.live_oracle(lang_, &config).expect_err(id);
        assert!(
            matches!(err, OracleError::Unscannable { .. }),
            "{id}: {err}"
        );
        assert!(
            err.to_string().contains("could not be fully scanned"),
            "{id}: {err}"
        );

        // The tool-only builtin's answer (no findings) is not scored 1.05
        // against an empty oracle: the sample is an error.
        let (transcript, _) = play(&live, tool_only.as_ref(), &ex);
        let err = live
            .score(&ex, &Completion::Messages(transcript))
            .expect_err(id);
        assert_eq!(err.kind, ScoreErrorKind::Reference, "{id}");
        assert!(err.message.contains("live oracle"), "{id}: {err}");
        // Nor is an empty answer.
        let empty = Completion::assistant_text(answer(&[], ""));
        assert!(live.score(&ex, &empty).is_err(), "{id}");

        // Relabelling records why and keeps no labels.
        let mut items = [ex];
        assert_eq!(relabel_live(&mut items, &live), 1, "{id}");
        let info = items[0].info_value();
        assert!(info["info"]["violations"].is_null(), "{id}: {info}");
        assert!(info["info"]["oracle_error"].is_string(), "{id}: {info}");
    }
}

/// A user policy whose every evaluation runs to the 1 s per-policy limit.
const SLOW_POLICY: &str = r#"
package sv.k8s

deny contains {"id": "SLOW", "severity": "low", "message": "never"} if {
	count([x | some x in numbers.range(1, 1000000); some y in numbers.range(1, 1000000); x == y]) < 0
}
"#;

fn slow_env(oracle: &str) -> (tempfile::TempDir, E2Env) {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("slow.rego"), SLOW_POLICY).expect("write");
    let args = E2Args::parse(&[
        format!("oracle={oracle}"),
        format!("policy_dirs={}", dir.path().display()),
    ])
    .expect("args");
    (dir, E2Env::new("v1", None, args).expect("env"))
}

/// Thirty ConfigMaps: thirty one-second evaluations of the slow policy.
fn many_objects() -> String {
    (0..30)
        .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"))
        .collect()
}

#[test]
fn a_score_stops_at_its_time_budget_with_a_typed_error() {
    // Live oracle: the oracle's scan runs past the environment's budget.
    let (_dir, mut live) = slow_env("live");
    live.set_score_budget(Some(Duration::from_millis(300)));
    let ex = example("slow", &many_objects(), "k8s", vec![]);
    let err = live
        .score(&ex, &Completion::assistant_text(answer(&[], "")))
        .expect_err("30 one-second evaluations do not fit in 300 ms");
    assert_eq!(err.kind, ScoreErrorKind::TimeBudgetExceeded);
    assert!(err.message.contains("time budget"), "{err}");

    // Dataset oracle: only the patch re-scans need the analyzers; a caller's
    // deadline that has passed stops them (an answer without a patch still
    // scores: nothing is scanned).
    let (_dir, dataset) = slow_env("dataset");
    let passed = Deadline::at(Instant::now(), Duration::from_secs(2));
    let no_patch = Completion::assistant_text(answer(&[], ""));
    assert!(dataset.score_within(&ex, &no_patch, passed).is_ok());
    let patch =
        json!([{"op": "add", "path": "/0/metadata/labels", "value": {"a": "b"}}]).to_string();
    let patched = Completion::assistant_text(answer(&[], &patch));
    let err = dataset
        .score_within(&ex, &patched, passed)
        .expect_err("the re-scans cannot run");
    assert_eq!(err.kind, ScoreErrorKind::TimeBudgetExceeded);
}
