//! `svbench compare RUN_A RUN_B`: paired deltas of run B against run A
//! (harness §5.3). Refuses (exit 5) when the runs do not match unless
//! `--allow-unmatched`.

use crate::out::{out, outln};
use std::path::{Path, PathBuf};

use clap::Args;
use svbench_core::metrics::BootstrapConfig;
use svbench_report::compare::{
    compare, comparison_markdown, CompareError, CompareOptions, DEFAULT_VARY,
};

use super::GlobalArgs;
use crate::exit;

/// Arguments of `svbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Run A (the reference).
    #[arg(value_name = "RUN_A")]
    pub run_a: PathBuf,
    /// Run B (deltas are B − A).
    #[arg(value_name = "RUN_B")]
    pub run_b: PathBuf,
    /// Metric to report (repeatable; default: every metric both runs define).
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
    /// Parity fields allowed to differ (comma list; repeatable).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub vary: Vec<String>,
    /// Report even when the runs do not match (marked exploratory).
    #[arg(long)]
    pub allow_unmatched: bool,
    /// Paired bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub bootstrap: usize,
    /// Interval level.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.95)]
    pub ci: f64,
    /// Bootstrap seed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Write the comparison JSON here, with `<stem>.md` and
    /// `<stem>.deltas.jsonl` beside it (default: Markdown on stdout).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// upstream's three-way reward-source comparison (not implemented).
    #[arg(long)]
    pub reward_sources: bool,
}

/// Runs the command; returns the exit code.
pub fn run(args: CompareArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    if args.reward_sources {
        return Err(exit::usage(
            "--reward-sources (upstream's three-way executable/judge/hybrid shape) is not implemented in this build",
        ));
    }
    if args.bootstrap == 0 {
        return Err(exit::usage("--bootstrap must be at least 1"));
    }
    if !(args.ci > 0.0 && args.ci < 1.0) {
        return Err(exit::usage("--ci must lie strictly between 0 and 1"));
    }
    let vary = if args.vary.is_empty() {
        DEFAULT_VARY.iter().map(|s| s.to_string()).collect()
    } else {
        args.vary.clone()
    };
    let opts = CompareOptions {
        plugins: svbench_envs::registry::report_plugin,
        metrics: args.metrics.clone(),
        vary,
        allow_unmatched: args.allow_unmatched,
        bootstrap: BootstrapConfig {
            resamples: args.bootstrap,
            seed: args.seed,
        },
        ci: args.ci,
    };
    let outcome = compare(&args.run_a, &args.run_b, &opts).map_err(coded)?;
    let c = &outcome.comparison;
    if !outcome.matched() && !args.allow_unmatched {
        eprintln!("refused: the runs do not match");
        for m in &c.mismatches {
            eprintln!("  {m}");
        }
        for m in &c.budget_mismatches {
            eprintln!("  {} differs: A {}, B {}", m.field, m.a, m.b);
        }
        eprintln!("hint: name fields that are meant to differ with --vary (e.g. --vary reward_profile,reward_config_hash), or pass --allow-unmatched for an exploratory report");
        return Ok(exit::REFUSED);
    }
    let markdown = comparison_markdown(c);
    match &args.out {
        None => out!("{markdown}")?,
        Some(path) => {
            let mut json = serde_json::to_string_pretty(c)?;
            json.push('\n');
            write(path, json.as_bytes())?;
            let md = path.with_extension("md");
            write(&md, markdown.as_bytes())?;
            let deltas = sibling(path, "deltas.jsonl");
            let mut lines = String::new();
            for d in &outcome.deltas {
                lines.push_str(&serde_json::to_string(d)?);
                lines.push('\n');
            }
            write(&deltas, lines.as_bytes())?;
            for p in [path, &md, &deltas] {
                outln!("{}", p.display())?;
            }
        }
    }
    Ok(exit::OK)
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "compare".to_string());
    path.with_file_name(format!("{stem}.{suffix}"))
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    svbench_report::write::write_atomic(path, bytes)?;
    Ok(())
}

fn coded(e: CompareError) -> anyhow::Error {
    match &e {
        CompareError::UnknownVary(_) | CompareError::UnknownMetric { .. } => {
            exit::usage(e.to_string())
        }
        CompareError::Run { source, .. } if source.is_input_error() => exit::data(e.to_string()),
        CompareError::Run { .. } => anyhow::Error::new(e),
    }
}
