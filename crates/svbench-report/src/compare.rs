//! `svbench compare RUN_A RUN_B` (harness §5.3): pairs two runs of one
//! environment by `example_id` (mean over rollouts), checks that they are
//! comparable (same environment, split, dataset and examples; parity fields
//! equal unless named in `vary`), and reports per-metric paired deltas with a
//! paired bootstrap interval, the sign test and, for binary metrics, the
//! exact McNemar test. Everything comes from the runs' artifacts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use svbench_core::compare::{
    Comparison, ExampleDelta, FieldMismatch, McNemarRecord, MetricComparison, RunRef,
    SignTestRecord,
};
use svbench_core::metrics::{mcnemar, paired_bootstrap_ci, sign_test, BootstrapConfig};

use crate::error::ReportError;
use crate::plugin::{plugin_for, PluginLookup, ReportPlugin};
use crate::read::{read_info, LoadedRun};

/// Parity fields of upstream `bench/compare_rewards.py`, plus svbench's
/// `sampling_params` and `seed`, plus the reward design.
pub const PARITY_FIELDS: [&str; 19] = [
    "environment_id",
    "dataset_id",
    "dataset_revision",
    "split",
    "model_id",
    "model_revision_or_digest",
    "max_steps",
    "rollouts_per_example",
    "max_tokens",
    "max_turns",
    "tool_budget",
    "trainer",
    "training_config_sha256",
    "training_budget_sha256",
    "few_shot",
    "sampling_params",
    "seed",
    "reward_profile",
    "reward_config_hash",
];

/// Hosted-identity fields (checked separately).
pub const HOSTED_FIELDS: [&str; 2] = ["prime_environment_id", "environment_version"];

/// Default `--vary`.
pub const DEFAULT_VARY: [&str; 2] = ["model_id", "model_revision_or_digest"];

/// How to compare.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Finds the runs' environment's plugin (its per-example metrics).
    pub plugins: PluginLookup,
    /// Metrics to report (empty: every metric both runs define).
    pub metrics: Vec<String>,
    /// Parity fields allowed to differ.
    pub vary: Vec<String>,
    /// Report even when the runs do not match (marked exploratory).
    pub allow_unmatched: bool,
    /// Bootstrap resamples and seed.
    pub bootstrap: BootstrapConfig,
    /// Interval level.
    pub ci: f64,
}

/// Why two runs could not be compared at all.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A run could not be read.
    #[error("{}: {source}", path.display())]
    Run {
        /// The run directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: ReportError,
    },
    /// An unknown `--vary` field.
    #[error("--vary {0}: not a parity field (one of: {all})", all = PARITY_FIELDS.join(", "))]
    UnknownVary(String),
    /// An unknown `--metric`.
    #[error("--metric {name}: not available for these runs (available: {available})")]
    UnknownMetric {
        /// The metric asked for.
        name: String,
        /// What the runs define.
        available: String,
    },
}

/// A computed comparison and its per-example deltas.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// The summary.
    pub comparison: Comparison,
    /// Per example and metric.
    pub deltas: Vec<ExampleDelta>,
}

impl CompareOutcome {
    /// Whether the runs matched (a refusal without `--allow-unmatched`).
    pub fn matched(&self) -> bool {
        let c = &self.comparison;
        c.mismatches.is_empty() && c.budget_mismatches.is_empty()
    }
}

/// Metric → per-example value (mean over rollouts).
type Values = BTreeMap<String, f64>;

/// One shared example: its id and both sides' values.
type Pair<'a> = (&'a String, &'a Values, &'a Values);

/// Per example while reading: any rollout errored, metric → (sum, count).
type ExampleAcc = (bool, BTreeMap<String, (f64, u32)>);

/// One run, read for comparison.
struct Side {
    path: PathBuf,
    run: LoadedRun,
    parity: BTreeMap<&'static str, Value>,
    hosted: BTreeMap<&'static str, Value>,
    /// example id → metric → mean over rollouts; `None` if a rollout errored.
    examples: BTreeMap<String, Option<Values>>,
}

/// Compares run B against run A.
pub fn compare(a: &Path, b: &Path, opts: &CompareOptions) -> Result<CompareOutcome, CompareError> {
    for v in &opts.vary {
        if !PARITY_FIELDS.contains(&v.as_str()) {
            return Err(CompareError::UnknownVary(v.clone()));
        }
    }
    let side_a = read_side(a, opts.plugins)?;
    let side_b = read_side(b, opts.plugins)?;
    let environment = side_a.run.info.environment.clone();

    let mut mismatches = Vec::new();
    let info = (&side_a.run.info, &side_b.run.info);
    for (what, x, y) in [
        (
            "environment",
            Some(&info.0.environment),
            Some(&info.1.environment),
        ),
        ("split", info.0.split.as_ref(), info.1.split.as_ref()),
        (
            "dataset_sha256",
            info.0.dataset_sha256.as_ref(),
            info.1.dataset_sha256.as_ref(),
        ),
    ] {
        if x != y {
            mismatches.push(format!(
                "{what} differs: A {}, B {}",
                x.map_or("none", String::as_str),
                y.map_or("none", String::as_str)
            ));
        }
    }
    let ids_a: BTreeSet<&String> = side_a.examples.keys().collect();
    let ids_b: BTreeSet<&String> = side_b.examples.keys().collect();
    let only_a = ids_a.difference(&ids_b).count() as u64;
    let only_b = ids_b.difference(&ids_a).count() as u64;
    if only_a + only_b > 0 {
        mismatches.push(format!(
            "example sets differ: {only_a} only in A, {only_b} only in B (only shared examples are paired)"
        ));
    }
    let field_diff =
        |fields: &[&'static str], pa: &BTreeMap<&str, Value>, pb: &BTreeMap<&str, Value>| {
            fields
                .iter()
                .filter(|f| !opts.vary.iter().any(|v| v == *f))
                .filter_map(|f| {
                    let (x, y) = (
                        pa.get(f).cloned().unwrap_or(Value::Null),
                        pb.get(f).cloned().unwrap_or(Value::Null),
                    );
                    (x != y).then(|| FieldMismatch {
                        field: f.to_string(),
                        a: x,
                        b: y,
                    })
                })
                .collect::<Vec<_>>()
        };
    let budget_mismatches = field_diff(&PARITY_FIELDS, &side_a.parity, &side_b.parity);
    let hosted_identity_mismatches = field_diff(&HOSTED_FIELDS, &side_a.hosted, &side_b.hosted);

    // Pairs: shared examples where neither side errored.
    let mut n_excluded_errors = 0u64;
    let mut pairs: Vec<Pair<'_>> = Vec::new();
    for (id, va) in &side_a.examples {
        let Some(vb) = side_b.examples.get(id) else {
            continue;
        };
        match (va, vb) {
            (Some(x), Some(y)) => pairs.push((id, x, y)),
            _ => n_excluded_errors += 1,
        }
    }

    let available = metric_names(&pairs, plugin_for(opts.plugins, &environment));
    let selected: Vec<String> = if opts.metrics.is_empty() {
        available.clone()
    } else {
        for m in &opts.metrics {
            if !available.contains(m) {
                return Err(CompareError::UnknownMetric {
                    name: m.clone(),
                    available: available.join(", "),
                });
            }
        }
        opts.metrics.clone()
    };

    let mut metrics = Vec::new();
    let mut deltas = Vec::new();
    for metric in &selected {
        let values: Vec<(&String, f64, f64)> = pairs
            .iter()
            .filter_map(|(id, x, y)| Some((*id, *x.get(metric)?, *y.get(metric)?)))
            .collect();
        let d: Vec<f64> = values.iter().map(|(_, a, b)| b - a).collect();
        let n = values.len();
        let mean = |f: &dyn Fn(&(&String, f64, f64)) -> f64| {
            (n > 0).then(|| values.iter().map(f).sum::<f64>() / n as f64)
        };
        let ci = paired_bootstrap_ci(&d, opts.bootstrap, opts.ci);
        let s = sign_test(&d);
        let binary = n > 0
            && values
                .iter()
                .all(|(_, a, b)| (*a == 0.0 || *a == 1.0) && (*b == 0.0 || *b == 1.0));
        let m = binary.then(|| {
            let outcomes: Vec<(bool, bool)> = values
                .iter()
                .map(|(_, a, b)| (*a == 1.0, *b == 1.0))
                .collect();
            let m = mcnemar(&outcomes);
            McNemarRecord {
                b: m.b,
                c: m.c,
                p_value: m.p_value,
            }
        });
        metrics.push(MetricComparison {
            metric: metric.clone(),
            n: n as u64,
            mean_a: mean(&|v| v.1),
            mean_b: mean(&|v| v.2),
            mean_delta: mean(&|v| v.2 - v.1),
            ci_low: ci.map(|c| c[0]),
            ci_high: ci.map(|c| c[1]),
            ci_level: opts.ci,
            bootstrap_samples: opts.bootstrap.resamples as u64,
            seed: opts.bootstrap.seed,
            sign_test: SignTestRecord {
                n_pos: s.n_pos,
                n_neg: s.n_neg,
                n_zero: s.n_zero,
                p_value: s.p_value,
            },
            mcnemar: m,
        });
        deltas.extend(values.iter().map(|(id, a, b)| ExampleDelta {
            example_id: (*id).clone(),
            metric: metric.clone(),
            a: *a,
            b: *b,
            delta: b - a,
        }));
    }

    let run_ref = |s: &Side| RunRef {
        run_id: s.run.info.run_id.clone(),
        path: s.path.display().to_string(),
        model: s.run.info.model.clone(),
        reward_profile: s.run.info.reward_profile.clone(),
        reward_range: s.run.info.reward_profile.as_deref().and_then(|p| {
            let plugin = plugin_for(opts.plugins, &s.run.info.environment);
            let bounds = svbench_core::reward::bounds_of(plugin.component_bounds(), p);
            svbench_core::reward::total_range(bounds, &s.run.info.reward_weights)
        }),
    };
    let matched = mismatches.is_empty() && budget_mismatches.is_empty();
    let comparison = Comparison {
        environment,
        a: run_ref(&side_a),
        b: run_ref(&side_b),
        allow_unmatched: opts.allow_unmatched,
        exploratory: !matched,
        vary: opts.vary.clone(),
        budget_fields: PARITY_FIELDS.iter().map(|f| f.to_string()).collect(),
        budget_mismatches,
        hosted_identity_mismatches,
        mismatches,
        n_pairs: pairs.len() as u64,
        n_excluded_errors,
        n_only_a: only_a,
        n_only_b: only_b,
        metrics,
    };
    Ok(CompareOutcome { comparison, deltas })
}

/// Metric names defined on some pair: `reward`, `reward.<component>`
/// (sorted), then the environment's metrics in a fixed order.
fn metric_names(pairs: &[Pair<'_>], plugin: &dyn ReportPlugin) -> Vec<String> {
    let defined: BTreeSet<&String> = pairs
        .iter()
        .flat_map(|(_, a, b)| a.keys().filter(|k| b.contains_key(*k)))
        .collect();
    let env_order = plugin.compare_metrics();
    let mut out = Vec::new();
    if defined.iter().any(|k| *k == "reward") {
        out.push("reward".to_string());
    }
    out.extend(
        defined
            .iter()
            .filter(|k| k.starts_with("reward."))
            .map(|k| k.to_string()),
    );
    out.extend(
        env_order
            .iter()
            .filter(|m| defined.iter().any(|k| k == m))
            .map(|m| m.to_string()),
    );
    out
}

fn read_side(path: &Path, plugins: PluginLookup) -> Result<Side, CompareError> {
    let err = |source| CompareError::Run {
        path: path.to_path_buf(),
        source,
    };
    // The run's environment decides whose fields its records are read with.
    let environment = read_info(path, false).map_err(err)?.environment;
    let plugin = plugin_for(plugins, &environment);
    let mut env_values: Vec<(usize, String, f64)> = Vec::new();
    let run = plugin
        .load_for_compare(path, &mut |pos, name, v| {
            env_values.push((pos, name.to_string(), v));
        })
        .map_err(err)?;
    let metadata = read_object(&path.join("metadata.json"));
    let manifest = read_object(&path.join("run_manifest.json"));
    let get = |k: &str| metadata.get(k).cloned().unwrap_or(Value::Null);
    let info = &run.info;
    let mut parity: BTreeMap<&'static str, Value> = BTreeMap::new();
    parity.insert("environment_id", Value::String(info.environment.clone()));
    parity.insert("dataset_id", get("dataset"));
    parity.insert("dataset_revision", get("dataset_revision"));
    parity.insert("split", get("split"));
    parity.insert(
        "model_id",
        metadata
            .get("effective_model")
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or_else(|| get("model")),
    );
    // As the run manifest records it (observed responses); a run written
    // before manifests existed falls back to the responses in its records.
    parity.insert(
        "model_revision_or_digest",
        manifest
            .get("model_revision_or_digest")
            .cloned()
            .unwrap_or_else(|| Value::String(crate::manifest::observed_revision(&run))),
    );
    // Training provenance as `eval --trainer/--max-steps` recorded it.
    parity.insert(
        "max_steps",
        metadata.get("max_steps").cloned().unwrap_or(Value::from(0)),
    );
    parity.insert(
        "trainer",
        metadata
            .get("trainer")
            .cloned()
            .unwrap_or_else(|| Value::String("none".to_string())),
    );
    for k in ["training_config_sha256", "training_budget_sha256"] {
        parity.insert(k, get(k));
    }
    // Worked examples in the prompt (`eval --few-shot`): 0 for zero-shot.
    parity.insert(
        "few_shot",
        metadata
            .get("few_shot")
            .and_then(|f| f.get("k"))
            .cloned()
            .unwrap_or(Value::from(0)),
    );
    for k in [
        "rollouts_per_example",
        "max_tokens",
        "max_turns",
        "tool_budget",
        "sampling_params",
        "seed",
        "reward_profile",
        "reward_config_hash",
    ] {
        let key: &'static str = PARITY_FIELDS
            .iter()
            .find(|f| **f == k)
            .copied()
            .unwrap_or("");
        parity.insert(key, get(k));
    }
    let mut hosted = BTreeMap::new();
    hosted.insert(
        "prime_environment_id",
        manifest
            .get("prime_environment_id")
            .cloned()
            .unwrap_or(Value::Null),
    );
    hosted.insert("environment_version", get("env_version"));

    // example id → (errored?, metric → (sum, count))
    let mut acc: BTreeMap<String, ExampleAcc> = BTreeMap::new();
    let mut env_values = env_values.into_iter().peekable();
    for (pos, r) in run.records.records.iter().enumerate() {
        let entry = acc.entry(r.example_id.clone()).or_default();
        if r.is_errored() {
            entry.0 = true;
            continue;
        }
        let mut add = |name: String, v: f64| {
            if v.is_finite() {
                let e = entry.1.entry(name).or_default();
                e.0 += v;
                e.1 += 1;
            }
        };
        if let Some(x) = r.reward {
            add("reward".to_string(), x);
        }
        for (k, v) in &r.rewards {
            if let Some(v) = v {
                add(format!("reward.{k}"), *v);
            }
        }
        while let Some((_, name, v)) = env_values.next_if(|(p, _, _)| *p == pos) {
            add(name, v);
        }
    }
    let examples = acc
        .into_iter()
        .map(|(id, (errored, m))| {
            let means = (!errored).then(|| {
                m.into_iter()
                    .map(|(k, (sum, n))| (k, sum / f64::from(n)))
                    .collect()
            });
            (id, means)
        })
        .collect();
    Ok(Side {
        path: path.to_path_buf(),
        run,
        parity,
        hosted,
        examples,
    })
}

fn read_object(path: &Path) -> Map<String, Value> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default()
}

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.4}"))
        .unwrap_or_else(|| crate::markdown::NA.to_string())
}

fn range(r: Option<[f64; 2]>) -> String {
    r.map(|[lo, hi]| format!("{lo:.4} to {hi:.4}"))
        .unwrap_or_else(|| "—".to_string())
}

fn pval(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// The Markdown rendering of a comparison.
pub fn comparison_markdown(c: &Comparison) -> String {
    let mut s = format!(
        "# svbench compare: {}\n\n| | run | model | reward profile | reward range |\n|---|---|---|---|---|\n| A | `{}` | {} | {} | {} |\n| B | `{}` | {} | {} | {} |\n\n",
        c.environment,
        c.a.run_id,
        c.a.model.replace('|', "\\|"),
        c.a.reward_profile.as_deref().unwrap_or("—"),
        range(c.a.reward_range),
        c.b.run_id,
        c.b.model.replace('|', "\\|"),
        c.b.reward_profile.as_deref().unwrap_or("—"),
        range(c.b.reward_range),
    );
    if c.exploratory {
        s.push_str(
            "> **Exploratory**: the runs do not match (compared with `--allow-unmatched`):\n",
        );
        for m in &c.mismatches {
            let _ = writeln!(s, "> - {m}");
        }
        for m in &c.budget_mismatches {
            let _ = writeln!(s, "> - {} differs: A {}, B {}", m.field, m.a, m.b);
        }
        s.push('\n');
    } else {
        let _ = writeln!(
            s,
            "Matched: same environment, split, dataset and examples; parity fields equal except {}.\n",
            if c.vary.is_empty() {
                "none".to_string()
            } else {
                c.vary.join(", ")
            }
        );
    }
    for m in &c.hosted_identity_mismatches {
        let _ = writeln!(
            s,
            "Note: hosted identity `{}` differs: A {}, B {}.\n",
            m.field, m.a, m.b
        );
    }
    let _ = writeln!(
        s,
        "{} paired example(s); {} left out because a side errored; {} only in A, {} only in B. Deltas are B − A (mean over rollouts per example).\n",
        c.n_pairs, c.n_excluded_errors, c.n_only_a, c.n_only_b
    );
    s.push_str("| metric | n | mean A | mean B | Δ | CI | sign test p | McNemar p |\n|---|---:|---:|---:|---:|---|---:|---:|\n");
    for m in &c.metrics {
        let ci = match (m.ci_low, m.ci_high) {
            (Some(l), Some(h)) => format!("[{l:.4}, {h:.4}] ({:.0} %)", m.ci_level * 100.0),
            _ => "—".to_string(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {ci} | {} | {} |",
            m.metric,
            m.n,
            num(m.mean_a),
            num(m.mean_b),
            num(m.mean_delta),
            pval(m.sign_test.p_value),
            m.mcnemar.as_ref().map_or("—".to_string(), |x| format!(
                "{} (b {}, c {})",
                pval(x.p_value),
                x.b,
                x.c
            ))
        );
    }
    if let Some(m) = c.metrics.first() {
        let _ = writeln!(
            s,
            "\nPaired bootstrap: {} resamples of the pairs, seed {}, percentile interval with linear interpolation.",
            m.bootstrap_samples, m.seed
        );
    }
    s
}
