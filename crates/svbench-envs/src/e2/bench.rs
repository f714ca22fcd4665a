//! `svbench bench e2`: the full E2 score of one answer (parse both ways,
//! apply the patch, re-scan, preservation, both reward profiles). Prints
//! figures; asserts nothing.
//!
//! The environment caches scan reports per content, so scoring the same
//! answer twice is cheaper than the first time. The **cold** figures give
//! every iteration its own config (the Pod's `metadata.name` differs), so
//! each score scans the original and the patched text afresh — the cost of
//! scoring a new rollout. The **warm** figures repeat one config.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use svbench_core::Completion;

use super::dataset::load_text;
use super::env::{E2Args, E2Env};
use crate::environment::Environment;
use crate::kit::bench::{percentile, setup, BenchEntry, BenchError, BenchOut, BenchRequest};

/// E2's benchmark in the registry: each cold score builds its own row, so
/// 10,000 answers keep the run short.
pub static BENCH: BenchEntry = BenchEntry {
    summary: "scoring an answer with a patch; `--completions` answers, at most 10,000",
    max_items: Some(10_000),
    large: None,
    corpus: None,
    whole_stack: None,
    run,
};

/// Upstream public-mini row 0 (spec E2 §5 worked cases): a Pod with image
/// `nginx`, no securityContext, no resources.
const ROW0: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: NAME\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

/// The §5.2 patch that adds `readOnlyRootFilesystem: true`.
const PATCH: &str = "--- a/manifest.yaml\n+++ b/manifest.yaml\n@@ -9 +9,3 @@\n-    image: nginx\n+    image: nginx\n+    securityContext:\n+      readOnlyRootFilesystem: true\n";

/// The benchmark row for one config variant (`name` is the Pod's name).
fn example(name: &str) -> Result<svbench_core::Example, BenchError> {
    let row = json!({
        "question": ROW0.replace("NAME", name),
        "info": {"violations": [
            {"tool": "kube-linter", "rule_id": "latest-tag", "severity": "medium", "msg": "", "loc": ""},
            {"tool": "kube-linter", "rule_id": "no-read-only-root-fs", "severity": "medium", "msg": "", "loc": ""},
            {"tool": "kube-linter", "rule_id": "run-as-non-root", "severity": "medium", "msg": "", "loc": ""},
        ]},
        "meta": {"lang": "k8s"},
    });
    let loaded = load_text(&row.to_string(), PathBuf::from("bench"), None).map_err(setup)?;
    loaded
        .examples
        .into_iter()
        .next()
        .ok_or_else(|| setup("the benchmark row did not load"))
}

/// Runs the benchmark: `n` cold and `n` warm scores, with a patch and without.
fn run(req: &BenchRequest, out: BenchOut<'_>) -> Result<(), BenchError> {
    let n = req.items.max(1);
    let args = E2Args::parse::<&str>(&[]).map_err(setup)?;
    let env = E2Env::new("v1", None, args).map_err(setup)?;
    let ids = [
        "kube-linter/latest-tag",
        "kube-linter/no-read-only-root-fs",
        "kube-linter/run-as-non-root",
    ];
    // Built before timing: loading rows is not part of scoring.
    let cold: Vec<_> = (0..n)
        .map(|i| example(&format!("nginx-{i}")))
        .collect::<Result<_, _>>()?;
    let warm = example("nginx-dummy")?;
    for (label, patch) in [("with a patch", PATCH), ("without a patch", "")] {
        let answer = json!({
            "violations": ids.iter().map(|id| json!({"id": id, "severity": "med"})).collect::<Vec<_>>(),
            "patch": patch,
            "confidence": 0.8,
        })
        .to_string();
        let completion = Completion::assistant_text(answer);
        let reward = env.score(&warm, &completion).map_err(setup)?.reward.total;
        for (cache, examples) in [("cold", None), ("warm", Some(&warm))] {
            let mut latencies = Vec::with_capacity(n);
            for (i, cold_example) in cold.iter().enumerate().take(n) {
                let example = examples.unwrap_or(cold_example);
                let start = Instant::now();
                let scored = std::hint::black_box(env.score(example, &completion).map_err(setup)?);
                latencies.push(start.elapsed().as_secs_f64() * 1e3);
                if i == 0 && (scored.reward.total - reward).abs() > 1e-12 {
                    return Err(BenchError::Check(
                        "a renamed Pod scored differently: the benchmark is not measuring one answer"
                            .into(),
                    ));
                }
            }
            latencies.sort_by(f64::total_cmp);
            let pct = |p: f64| percentile(&latencies, p);
            out(&format!(
                "e2 score {label}, {cache} cache: {n} answers; p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms per answer on one core (reward {reward:.3})",
                pct(0.5),
                pct(0.9),
                pct(0.99),
            ))?;
        }
    }
    Ok(())
}
