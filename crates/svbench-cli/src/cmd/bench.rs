//! `svbench bench ENV`: benchmarks of scoring and report generation.
//! Prints measured figures; asserts nothing.
//!
//! Each environment's benchmark is its registry entry's (`EnvEntry::bench`):
//! this command finds it, checks and caps the size and prints the figures.
//! `scan` and `serve` are not environments; they have their own modules.

use crate::out::outln;
use std::path::Path;
use std::time::Instant;

use clap::Args;
use serde_json::json;
use svbench_core::record::{CompatFields, EnvPart, ResultRecord, RunMetadata};
use svbench_core::Completion;
use svbench_envs::e1::bench::ANSWERS;
use svbench_envs::e1::env::E1Env;
use svbench_envs::e1::Gold;
use svbench_envs::kit::bench::{BenchError, BenchRequest};
use svbench_envs::registry::{self, EnvEntry, REGISTRY};

use super::GlobalArgs;
use crate::exit;

/// Benchmarks that are not an environment's, with what they time.
const OTHER_BENCHMARKS: [(&str, &str); 2] = [
    ("scan", "the config analyzers"),
    (
        "serve",
        "a load test of `svbench serve` run as a second process",
    ),
];

/// `ENV`'s help: every environment's benchmark, then the others.
fn env_help() -> String {
    let mut parts: Vec<String> = REGISTRY
        .iter()
        .filter_map(|e| Some(format!("{} ({})", e.identity.short, e.bench?.summary)))
        .collect();
    parts.extend(
        OTHER_BENCHMARKS
            .iter()
            .map(|(n, what)| format!("{n} ({what})")),
    );
    let last = parts.pop().unwrap_or_default();
    format!("What to benchmark: {} or {last}", parts.join(", "))
}

/// Every benchmark name, for messages.
fn available() -> String {
    REGISTRY
        .iter()
        .filter(|e| e.bench.is_some())
        .map(|e| e.identity.short)
        .chain(OTHER_BENCHMARKS.iter().map(|(n, _)| *n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Arguments of `svbench bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to benchmark.
    #[arg(help = env_help())]
    pub env: String,
    /// scan: an E2 JSONL file of configs (`question`, `meta.lang`) [default:
    /// the upstream mini set in ../shared, when present].
    #[arg(long, value_name = "FILE")]
    pub configs: Option<std::path::PathBuf>,
    /// scan: generated multi-document manifests to benchmark.
    #[arg(long, default_value_t = 2_000)]
    pub manifests: usize,
    /// scan: namespaces to run (as `svbench scan --tools`) [default: all three].
    #[arg(long, value_name = "LIST")]
    pub tools: Option<String>,
    /// Completions to score in the scoring benchmark.
    #[arg(long, default_value_t = 2_000_000)]
    pub completions: usize,
    /// e4: 1 MB emails to time (0 skips).
    #[arg(long, default_value_t = 200)]
    pub large_emails: usize,
    /// Result records in the report benchmark.
    #[arg(long, default_value_t = 100_000)]
    pub records: usize,
    /// Rollouts against the fake endpoint in the throughput benchmark.
    #[arg(long, default_value_t = 100_000)]
    pub rollouts: usize,
    /// Samples in flight in the throughput benchmark.
    #[arg(long, default_value_t = 64)]
    pub concurrency: usize,
    /// serve: requests per scenario at most.
    #[arg(long, default_value_t = 100_000)]
    pub requests: usize,
    /// serve: keep-alive connections, one request in flight on each.
    #[arg(long, default_value_t = 32)]
    pub connections: usize,
    /// serve: seconds per scenario at most.
    #[arg(long, default_value_t = 20.0)]
    pub max_seconds: f64,
    /// serve: slow-loris clients held while /healthz is timed (0 skips).
    #[arg(long, default_value_t = 1_000)]
    pub slow_clients: usize,
    /// serve: connections opened with half a request head and dropped
    /// before the server's RSS is read again (0 skips).
    #[arg(long, default_value_t = 20_000)]
    pub dropped_connections: usize,
}

/// Runs the command; returns the exit code.
pub fn run(args: BenchArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    if args.env == "serve" {
        return super::bench_serve::run(super::bench_serve::Limits {
            requests: args.requests,
            connections: args.connections,
            max_seconds: args.max_seconds,
            slow_clients: args.slow_clients,
            dropped_connections: args.dropped_connections,
        });
    }
    if args.env == "scan" {
        return super::bench_scan::run(
            args.configs.as_deref(),
            args.manifests,
            args.tools.as_deref(),
        );
    }
    // Benchmarks are per environment (what each one times differs); the
    // registry resolves the name and holds the benchmark.
    let no_benchmark = || {
        exit::usage(format!(
            "no benchmark for `{}` in this build (available: {})",
            args.env,
            available()
        ))
    };
    let entry: &EnvEntry = registry::find(&args.env).map_err(|_| no_benchmark())?;
    let bench = entry.bench.ok_or_else(no_benchmark)?;
    if bench.whole_stack {
        if args.completions == 0 || args.records == 0 || args.rollouts == 0 || args.concurrency == 0
        {
            return Err(exit::usage(
                "--completions, --records, --rollouts and --concurrency must be positive",
            ));
        }
        // First, so the peak memory it reports is the rollout run's own.
        let r = super::bench_rollouts::bench_rollouts(args.rollouts, args.concurrency)?;
        outln!(
            "e1 rollouts: {} single-turn rollouts against the fake endpoint at concurrency {} in {:.3} s = {:.0} rollouts/s; peak RSS {}",
            r.samples,
            args.concurrency,
            r.seconds,
            r.samples as f64 / r.seconds,
            r.peak_rss_mb
                .map(|m| format!("{m:.0} MB"))
                .unwrap_or_else(|| "unknown".into())
        )?;
    } else if args.completions == 0 {
        return Err(exit::usage("--completions must be positive"));
    }
    let req = BenchRequest {
        items: bench
            .max_items
            .map_or(args.completions, |max| args.completions.min(max)),
        large: args.large_emails,
    };
    (bench.run)(&req, &mut |line| outln!("{line}")).map_err(|e| match e {
        // Kept as an I/O error, so a closed pipe ends the command quietly.
        BenchError::Io(io) => anyhow::Error::from(io),
        other => anyhow::anyhow!("{other}"),
    })?;
    if bench.whole_stack {
        bench_report(args.records)?;
    }
    Ok(exit::OK)
}

fn bench_report(n: usize) -> anyhow::Result<()> {
    let dir = tempdir()?;
    let run = dir.join("run");
    std::fs::create_dir_all(&run)?;
    write_synthetic_run(&run, n)?;
    let bytes = std::fs::metadata(run.join("results.jsonl"))?.len();
    // Without plots first, so the plot cost can be read off the difference.
    let start = Instant::now();
    let no_plots = svbench_report::ReportOptions {
        no_plots: true,
        ..svbench_report::ReportOptions::new(svbench_envs::registry::report_plugin)
    };
    svbench_report::report_run(&run, &no_plots)?;
    let bare = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let outcome = svbench_report::report_run(
        &run,
        &svbench_report::ReportOptions::new(svbench_envs::registry::report_plugin),
    )?;
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "e1 report: {n} results ({:.0} MB results.jsonl) → summary.json + report.md + {} plots in {secs:.3} s (without plots: {bare:.3} s){}",
        bytes as f64 / 1e6,
        outcome.plot_paths.len(),
        if outcome.summary_path.is_some() { "" } else { " (no summary written!)" }
    )?;
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn tempdir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("svbench-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Writes metadata.json and `n` E1 records scored by the real environment.
fn write_synthetic_run(dir: &Path, n: usize) -> anyhow::Result<()> {
    use std::io::Write;
    let env = E1Env::new("v1", None).expect("built-in reward config is valid");
    let mut meta: RunMetadata = serde_json::from_value(template_metadata(n))?;
    meta.reward_params = env.rewards.params.clone();
    meta.reward_config_hash = env.rewards.config_hash();
    std::fs::write(dir.join("metadata.json"), serde_json::to_vec_pretty(&meta)?)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("results.jsonl"))?);
    for i in 0..n {
        let gold = if i % 3 == 0 {
            Gold::Malicious
        } else {
            Gold::Benign
        };
        let text = ANSWERS[i % ANSWERS.len()];
        let s = env.score(&Completion::assistant_text(text), gold);
        let source = ["sv-synth-e1", "iot23"][i % 2];
        // Records as large as real ones: the full prompt is stored per sample.
        let question = format!(
            "Zeek conn 2024-03-07T14:05:{:02}Z device=ip-camera proto=tcp service=? {}→23 duration=? \
             orig_bytes=? resp_bytes=? orig_pkts=1 resp_pkts=0 conn_state=S0 flags=S",
            i % 60,
            1024 + i % 60000
        );
        let rec = ResultRecord {
            index: i,
            example_id: format!("ex{i:07}"),
            split: "test".into(),
            prompt: env.initial_messages(&question),
            question,
            answer: json!(gold.as_str()),
            info: json!({"meta": {"source": source, "scenario": format!("s{}", i % 7)}}),
            completion: Some(text.to_string()),
            completion_messages: vec![json!({"role": "assistant", "content": text})],
            parsed: s.parsed().map(|p| EnvPart::of(&p)),
            parse: Some(s.parse_record()),
            reward: Some(s.reward.total),
            rewards: s.reward.values(),
            reward_profile: "v1".into(),
            latency_ms: (i % 100) as f64 * 0.5,
            turns: 1,
            compat: CompatFields::of(&s.compat()),
            ..Default::default()
        };
        serde_json::to_writer(&mut out, &rec)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

pub fn template_metadata(n: usize) -> serde_json::Value {
    json!({
        "environment": svbench_envs::e1::NAME, "env_version": svbench_envs::e1::VERSION,
        "model": "builtin:bench", "effective_model": "bench", "dataset": "bench",
        "dataset_revision": "sha256:0", "timestamp": "2026-01-01T00:00:00Z", "num_examples": n,
        "git_commit": null, "python_version": null, "verifiers_version": null,
        "svbench_version": env!("CARGO_PKG_VERSION"), "rustc_version": "", "target": "",
        "seed": 42, "temperature": null, "max_tokens": 2048, "max_turns": 1, "tool_budget": 0,
        "include_tools": false, "tool_versions": {}, "evaluation_type": "single-turn",
        "max_consecutive_errors": 3, "baseline_name": null, "baseline_type": "bench",
        "system_prompt_file": null, "system_prompt_sha256": null, "run_id": "bench",
        "status": "completed", "abort_reason": null, "started_at": "2026-01-01T00:00:00.000Z",
        "finished_at": "2026-01-01T00:00:01.000Z", "split": "test", "dataset_rows": n,
        "dataset_warnings": [], "dataset_sha256": "0", "selected_sha256": "0",
        "dataset_file_sha256": null,
        "selection": {"mode": "first", "num_examples": n, "rollouts_per_example": 1, "seed": 42},
        "rollouts_per_example": 1, "env_args": {}, "reward_profile": "v1",
        "reward_config_hash": "", "reward_weights": {"utility": 1.0, "calibration": 0.25, "format": 0.05},
        "reward_params": {}, "reward_config_file": null, "env_provenance": {}, "replay_source": null,
        "sampling_params": {}, "concurrency": 1, "cache_mode": "off", "endpoint": null,
        "counts": {"planned": n, "completed": n, "errored": 0, "pending": 0}, "argv": []
    })
}
