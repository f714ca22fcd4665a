//! `svbench report`: recompute `summary.json`, `report.md`, the SVG plots
//! and `run_manifest.json` from run directories (harness §1.2, §4, §5.4).

use crate::out::{out, outln};
use std::path::{Path, PathBuf};

use clap::Args;
use svbench_core::metrics::BootstrapConfig;
use svbench_report::schema::{schema_text, SCHEMA_NAMES};
use svbench_report::{check_run, report_run, ReportError, ReportOptions};
use svbench_runner::integrity::{check_results_file, read_selected_ids, IntegrityError};
use svbench_runner::verify::{verify_run, VerifyError};

use super::GlobalArgs;
use crate::exit;

/// Arguments of `svbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run directories, each holding metadata.json and results.jsonl.
    #[arg(value_name = "RUN_DIR", required_unless_present = "print_schema")]
    pub run_dirs: Vec<PathBuf>,
    /// Write the outputs into DIR instead of the run directory (one run only).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Recompute and compare with the existing summary.json (ignoring
    /// `timestamp`); exit 6 on any difference. Writes nothing.
    #[arg(long)]
    pub check: bool,
    /// Re-score every record from its stored transcript against the
    /// dataset and reward config the run recorded (by hash), through the
    /// environment's own scoring; exit 6 naming the first record whose row,
    /// completion, tool results or score differs. Writes nothing; with
    /// --check, the summary is checked too.
    #[arg(long)]
    pub verify: bool,
    /// Treat incomplete artifacts (missing fields, unknown environment) as errors.
    #[arg(long)]
    pub strict: bool,
    /// Bootstrap resamples for confidence intervals [default: 1000; with
    /// --check: the summary's recorded value].
    #[arg(long, value_name = "N")]
    pub bootstrap: Option<usize>,
    /// Bootstrap seed [default: 1234; with --check: the summary's recorded value].
    #[arg(long, value_name = "S")]
    pub bootstrap_seed: Option<u64>,
    /// Do not compute or write the SVG plots (`plots/*.svg`) or link them
    /// from report.md.
    #[arg(long)]
    pub no_plots: bool,
    /// Print the JSON Schema of an artifact and exit.
    #[arg(long, value_name = "NAME", value_parser = SCHEMA_NAMES)]
    pub print_schema: Option<String>,
}

/// Runs the command; returns the exit code.
pub fn run(args: ReportArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    if let Some(name) = &args.print_schema {
        let envs: Vec<_> = svbench_envs::registry::REGISTRY
            .iter()
            .map(|e| (e.identity, e.report))
            .collect();
        let text = schema_text(name, &envs)
            .ok_or_else(|| exit::usage(format!("unknown schema `{name}`")))?;
        out!("{text}")?;
        return Ok(exit::OK);
    }
    if args.out.is_some() && args.run_dirs.len() > 1 {
        return Err(exit::usage("--out takes a single RUN_DIR"));
    }
    if args.bootstrap == Some(0) {
        return Err(exit::usage("--bootstrap must be at least 1"));
    }
    let bootstrap = match (args.bootstrap, args.bootstrap_seed) {
        (None, None) => None,
        (n, s) => Some(BootstrapConfig {
            resamples: n.unwrap_or(BootstrapConfig::DEFAULT_RESAMPLES),
            seed: s.unwrap_or(BootstrapConfig::DEFAULT_SEED),
        }),
    };
    let opts = ReportOptions {
        plugins: svbench_envs::registry::report_plugin,
        out_dir: args.out.clone(),
        strict: args.strict,
        bootstrap,
        timestamp: None,
        no_plots: args.no_plots,
    };
    let single = args.run_dirs.len() == 1;
    let mut code = exit::OK;
    for dir in &args.run_dirs {
        let result = match (args.verify, args.check) {
            (true, check) => verify_one(dir).and_then(|c| match (c, check) {
                (exit::OK, true) => check_one(dir, &opts),
                (c, _) => Ok(c),
            }),
            (false, true) => check_one(dir, &opts),
            (false, false) => report_one(dir, &opts),
        };
        match result {
            Ok(c) => code = code.max(c),
            Err(e) if single => return Err(e),
            Err(e) => {
                let c = exit::code_for(&e);
                eprintln!("error: {e:#}");
                if let Some(hint) = exit::hint_for(&e) {
                    eprintln!("hint: {hint}");
                }
                code = code.max(c);
            }
        }
    }
    Ok(code)
}

/// Refuses a `results.jsonl` that cannot belong to its run (harness §4):
/// a sample recorded twice (an errored record followed by its retry is
/// fine), a rollout index beyond `rollouts_per_example`, more distinct
/// samples than `counts.planned`, a damaged line before the last. Exit 3.
/// Without a readable metadata.json there is nothing to check against; the
/// report itself says so.
fn check_integrity(dir: &Path) -> anyhow::Result<()> {
    let Ok(text) = std::fs::read_to_string(dir.join("metadata.json")) else {
        return Ok(());
    };
    let Ok(meta) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(());
    };
    let field = |v: Option<&serde_json::Value>| v.and_then(serde_json::Value::as_u64);
    let (Some(planned), Some(rollouts)) = (
        field(meta.pointer("/counts/planned")),
        field(meta.get("rollouts_per_example")),
    ) else {
        return Ok(());
    };
    let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let hint = |e: IntegrityError| {
        exit::with_hint(
            exit::DATA,
            e.to_string(),
            "results.jsonl was changed outside svbench; remove the named line(s) by hand, \
             or re-run the evaluation",
        )
    };
    // Runs record their selection; older runs are checked without it.
    let selection = read_selected_ids(dir, to_usize(rollouts)).map_err(|e| {
        exit::with_hint(
            exit::DATA,
            e.to_string(),
            "selected_ids.jsonl is damaged; restore it from the run, or delete it to check \
             without the selection",
        )
    })?;
    check_results_file(
        &dir.join("results.jsonl"),
        to_usize(planned),
        to_usize(rollouts),
        selection.as_ref(),
    )
    .map_err(hint)?;
    Ok(())
}

fn report_one(dir: &Path, opts: &ReportOptions) -> anyhow::Result<u8> {
    check_integrity(dir)?;
    let outcome = report_run(dir, opts).map_err(|e| coded(dir, e))?;
    if let Some(summary) = &outcome.summary {
        for w in &summary.warnings {
            eprintln!("warning: {}: {w}", dir.display());
        }
    } else {
        eprintln!(
            "warning: {}: no result record; wrote report.md only",
            dir.display()
        );
    }
    if let Some(p) = &outcome.summary_path {
        outln!("{}", p.display())?;
    }
    outln!("{}", outcome.report_path.display())?;
    outln!("{}", outcome.html_path.display())?;
    for p in &outcome.plot_paths {
        outln!("{}", p.display())?;
    }
    match (&outcome.manifest_path, &outcome.manifest_gaps) {
        (Some(p), _) => outln!("{}", p.display())?,
        (None, Some(gaps)) if outcome.summary.is_some() => {
            eprintln!("warning: {}: no run_manifest.json: {gaps}", dir.display())
        }
        _ => {}
    }
    Ok(exit::OK)
}

fn check_one(dir: &Path, opts: &ReportOptions) -> anyhow::Result<u8> {
    check_integrity(dir)?;
    let outcome = check_run(dir, opts).map_err(|e| coded(dir, e))?;
    if outcome.passed() {
        eprintln!(
            "✓ {}: summary.json matches the recomputation",
            dir.display()
        );
        Ok(exit::OK)
    } else {
        eprintln!(
            "✗ {}: summary.json differs from the recomputation:",
            dir.display()
        );
        for d in &outcome.differences {
            eprintln!("  {d}");
        }
        Ok(exit::CHECK_FAILED)
    }
}

/// `--verify`: re-scores the run's records (exit 6 naming the first that
/// differs); inputs that cannot be opened or differ from the recorded ones
/// exit 3.
fn verify_one(dir: &Path) -> anyhow::Result<u8> {
    check_integrity(dir)?;
    let outcome = verify_run(dir).map_err(|e| match &e {
        VerifyError::Inputs { source, .. } => match &source.hint {
            Some(hint) => exit::with_hint(exit::DATA, e.to_string(), hint.clone()),
            None => exit::data(e.to_string()),
        },
        VerifyError::InputsChanged { .. } => exit::with_hint(
            exit::DATA,
            e.to_string(),
            "verify with the dataset and reward config the run used (the paths in its \
             metadata.json, unchanged)",
        ),
        _ => exit::data(e.to_string()),
    })?;
    match &outcome.mismatch {
        None => {
            eprintln!(
                "✓ {}: {} record(s) match the dataset and re-score as recorded ({} re-scored, {} errored)",
                dir.display(),
                outcome.records,
                outcome.rescored,
                outcome.errored
            );
            Ok(exit::OK)
        }
        Some(m) => {
            eprintln!("✗ {}: {m}", dir.display());
            eprintln!(
                "hint: the record was changed after the run, or written from other data; \
                 re-run the evaluation"
            );
            Ok(exit::CHECK_FAILED)
        }
    }
}

/// Maps a report error onto its exit code: input problems exit 3, failed
/// writes exit 1.
fn coded(dir: &Path, e: ReportError) -> anyhow::Error {
    let message = e.to_string();
    match &e {
        ReportError::RunDir { .. } | ReportError::MissingMetadata { .. } => exit::with_hint(
            exit::DATA,
            message,
            format!(
                "{} should be a run directory written by `svbench eval` (it holds metadata.json and results.jsonl)",
                dir.display()
            ),
        ),
        ReportError::ResultsLine { .. } => exit::with_hint(
            exit::DATA,
            message,
            "only a torn last line is skipped; a damaged line in the middle needs fixing or removing by hand",
        ),
        _ if e.is_input_error() => exit::data(message),
        _ => anyhow::Error::new(e),
    }
}
