//! `svbench bench ENV`: benchmarks of scoring and report generation.
//! Prints measured figures; asserts nothing.
//!
//! Each environment's benchmark is its registry entry's (`EnvEntry::bench`):
//! this command finds it, checks and caps the size and prints the figures.
//! For an environment that offers them (`BenchEntry::whole_stack`), it also
//! times the whole stack with the environment's hooks: rollouts through the
//! runner against the fake endpoint (`bench_rollouts`) and `svbench report`
//! over the environment's synthetic run. No environment is named here.
//! `scan` and `serve` are not environments; they have their own modules.

use crate::out::outln;
use std::time::Instant;

use clap::Args;
use svbench_envs::kit::bench::{BenchError, BenchRequest, WholeStack};
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

/// `--large`'s help: what each environment's large inputs are.
fn large_help() -> String {
    let each: Vec<String> = REGISTRY
        .iter()
        .filter_map(|e| {
            let large = e.bench?.large?;
            Some(format!(
                "{}: {}, default {}",
                e.identity.short, large.what, large.default
            ))
        })
        .collect();
    format!(
        "Inputs at the environment's size limits to time, 0 skips ({})",
        each.join("; ")
    )
}

/// The environments' former names of `--large`, still accepted.
fn large_aliases() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter_map(|e| e.bench?.large?.alias)
        .collect()
}

/// No environment in this build has large inputs: `--large` is hidden.
fn no_large_inputs() -> bool {
    !REGISTRY
        .iter()
        .any(|e| e.bench.is_some_and(|b| b.large.is_some()))
}

/// `--corpus`'s help: what each environment times from it.
fn corpus_help() -> String {
    let each: Vec<String> = REGISTRY
        .iter()
        .filter_map(|e| Some(format!("{}: {}", e.identity.short, e.bench?.corpus?.what)))
        .collect();
    format!(
        "Your own inputs to time, with the same figures ({})",
        each.join("; ")
    )
}

/// No environment in this build times the user's inputs: `--corpus` is hidden.
fn no_corpus_inputs() -> bool {
    !REGISTRY
        .iter()
        .any(|e| e.bench.is_some_and(|b| b.corpus.is_some()))
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
    /// Large inputs to time (the environment's own default when not given).
    #[arg(long, value_name = "N", help = large_help(), aliases = large_aliases(), hide = no_large_inputs())]
    pub large: Option<usize>,
    /// A file or folder of the user's own inputs to time.
    #[arg(long, value_name = "PATH", help = corpus_help(), hide = no_corpus_inputs())]
    pub corpus: Option<std::path::PathBuf>,
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
    let short = entry.identity.short;
    let large = match (args.large, bench.large) {
        (Some(n), Some(_)) => n,
        (None, Some(declared)) => declared.default,
        (None, None) => 0,
        (Some(_), None) => {
            return Err(exit::usage(format!(
                "`{short}`'s benchmark has no large inputs: drop --large"
            )))
        }
    };
    let corpus = match (args.corpus, bench.corpus) {
        (Some(path), Some(_)) if !path.exists() => {
            return Err(exit::usage(format!(
                "--corpus {}: no such file or folder",
                path.display()
            )))
        }
        (Some(_), None) => {
            return Err(exit::usage(format!(
                "`{short}`'s benchmark does not time your own inputs: drop --corpus"
            )))
        }
        (corpus, _) => corpus,
    };
    if let Some(whole) = bench.whole_stack {
        if args.completions == 0 || args.records == 0 || args.rollouts == 0 || args.concurrency == 0
        {
            return Err(exit::usage(
                "--completions, --records, --rollouts and --concurrency must be positive",
            ));
        }
        // First, so the peak memory it reports is the rollout run's own.
        let r = super::bench_rollouts::bench_rollouts(
            entry,
            whole.answer,
            args.rollouts,
            args.concurrency,
        )?;
        outln!(
            "{short} rollouts: {} single-turn rollouts against the fake endpoint at concurrency {} in {:.3} s = {:.0} rollouts/s; peak RSS {}",
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
        large,
        corpus,
    };
    (bench.run)(&req, &mut |line| outln!("{line}")).map_err(bench_error)?;
    if let Some(whole) = bench.whole_stack {
        bench_report(short, whole, args.records)?;
    }
    Ok(exit::OK)
}

fn bench_error(e: BenchError) -> anyhow::Error {
    match e {
        // Kept as an I/O error, so a closed pipe ends the command quietly.
        BenchError::Io(io) => anyhow::Error::from(io),
        other => anyhow::anyhow!("{other}"),
    }
}

/// Times `svbench report` over the environment's synthetic run of `n`
/// records, without plots and then with them.
fn bench_report(short: &str, whole: WholeStack, n: usize) -> anyhow::Result<()> {
    let dir = tempdir()?;
    let run = dir.join("run");
    std::fs::create_dir_all(&run)?;
    (whole.write_run)(&run, n).map_err(bench_error)?;
    let bytes = std::fs::metadata(run.join("results.jsonl"))?.len();
    // Without plots first, so the plot cost can be read off the difference.
    let start = Instant::now();
    let no_plots = svbench_report::ReportOptions {
        no_plots: true,
        ..svbench_report::ReportOptions::new(registry::report_plugin)
    };
    svbench_report::report_run(&run, &no_plots)?;
    let bare = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let outcome = svbench_report::report_run(
        &run,
        &svbench_report::ReportOptions::new(registry::report_plugin),
    )?;
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "{short} report: {n} results ({:.0} MB results.jsonl) → summary.json + report.md + {} plots in {secs:.3} s (without plots: {bare:.3} s){}",
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
