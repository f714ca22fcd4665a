//! `svbench bench <env>`: what an environment declares to be benchmarked.
//! The environment builds its workloads (the rows, answers and inputs to
//! time) and times them; the CLI finds it in the registry, caps and checks
//! the size, and prints the figure lines. Benchmarks assert nothing.
//!
//! An environment can also offer the whole-stack benchmarks, which the CLI
//! runs for it ([`WholeStack`]): rollouts through the runner against the
//! in-process fake endpoint, and report generation over a synthetic run.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;
use svbench_core::record::RunMetadata;

/// The size of one benchmark run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchRequest {
    /// Items to time (`--completions`), already capped at
    /// [`BenchEntry::max_items`] and at least 1.
    pub items: usize,
    /// Inputs at the environment's size limits to time (`--large`, or
    /// [`LargeInputs::default`]; 0 skips); 0 for environments without
    /// [`BenchEntry::large`].
    pub large: usize,
    /// The user's own inputs to time in place of the built-in typical
    /// workload (`--corpus`); `None` for environments without
    /// [`BenchEntry::corpus`].
    pub corpus: Option<PathBuf>,
}

/// Receives each figure line as soon as it is measured.
pub type BenchOut<'a> = &'a mut dyn FnMut(&str) -> io::Result<()>;

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// Building the workload failed (a row, the environment).
    #[error("{0}")]
    Setup(String),
    /// The workload did not measure what it claims (e.g. two variants of
    /// one answer scored differently).
    #[error("{0}")]
    Check(String),
    /// Writing a figure line failed (a closed pipe, say).
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Runs the environment's benchmark, writing figure lines to the sink.
pub type RunBench = fn(&BenchRequest, BenchOut<'_>) -> Result<(), BenchError>;

/// An environment's benchmark, as `svbench bench <env>` runs it.
#[derive(Debug, Clone, Copy)]
pub struct BenchEntry {
    /// What is timed, for `svbench bench --help` (e.g. `scoring, report,
    /// rollouts`).
    pub summary: &'static str,
    /// The most items one run times (`--completions` is capped here), if
    /// building an item costs more than timing it.
    pub max_items: Option<usize>,
    /// Its workload of inputs at the size limits (`--large`), if it has one.
    pub large: Option<LargeInputs>,
    /// What `--corpus PATH` times, if the environment can time the user's
    /// own inputs.
    pub corpus: Option<CorpusInputs>,
    /// What the whole-stack benchmarks need from it, if it offers them.
    pub whole_stack: Option<WholeStack>,
    /// Builds the workloads and times them.
    pub run: RunBench,
}

/// An environment's workload of inputs at its size limits: `--large N`
/// times `N` of them (0 skips).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LargeInputs {
    /// What one input is, for `bench --help` (e.g. `1 MB emails`).
    pub what: &'static str,
    /// How many a run times when `--large` is not given.
    pub default: usize,
    /// The environment's former name for `--large`, still accepted
    /// (e.g. `large-emails`), if it had one.
    pub alias: Option<&'static str>,
}

/// The user's own inputs an environment can time: `--corpus PATH` times
/// them in place of its built-in typical workload, with the same figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusInputs {
    /// What `PATH` holds, for `bench --help` (e.g. `a folder of emails`).
    pub what: &'static str,
}

/// Writes a synthetic run of `n` scored samples into a directory:
/// `metadata.json` and `results.jsonl`, as `svbench eval` writes them.
pub type WriteRun = fn(&Path, usize) -> Result<(), BenchError>;

/// What the whole-stack benchmarks take from an environment. The CLI runs
/// them: rows from the environment's first generator, loaded and scored
/// through its registry entry, answered by the fake endpoint; then
/// `svbench report` over [`WholeStack::write_run`]'s run.
#[derive(Debug, Clone, Copy)]
pub struct WholeStack {
    /// The fake endpoint's answer to every rollout: one the environment
    /// parses and scores.
    pub answer: &'static str,
    /// Writes the run the report benchmark reads.
    pub write_run: WriteRun,
}

/// Metadata of a synthetic benchmark run of `n` samples of environment
/// `env` (canonical name) at `version`, scored with reward profile `v1`.
/// The reward weights, constants and config hash are the caller's to set.
///
/// # Errors
/// [`BenchError::Setup`] if the template no longer matches [`RunMetadata`].
pub fn run_metadata(env: &str, version: &str, n: usize) -> Result<RunMetadata, BenchError> {
    // Two objects: one would pass `json!`'s macro recursion limit.
    let mut fields = json!({
        "environment": env, "env_version": version,
        "model": "builtin:bench", "effective_model": "bench", "dataset": "bench",
        "dataset_revision": "sha256:0", "timestamp": "2026-01-01T00:00:00Z", "num_examples": n,
        "git_commit": null, "python_version": null, "verifiers_version": null,
        "svbench_version": env!("CARGO_PKG_VERSION"), "rustc_version": "", "target": "",
        "seed": 42, "temperature": null, "max_tokens": 2048, "max_turns": 1, "tool_budget": 0,
        "include_tools": false, "tool_versions": {}, "evaluation_type": "single-turn",
        "max_consecutive_errors": 3, "baseline_name": null, "baseline_type": "bench",
        "system_prompt_file": null, "system_prompt_sha256": null, "run_id": "bench",
    });
    let rest = json!({
        "status": "completed", "abort_reason": null, "started_at": "2026-01-01T00:00:00.000Z",
        "finished_at": "2026-01-01T00:00:01.000Z", "split": "test", "dataset_rows": n,
        "dataset_warnings": [], "dataset_sha256": "0", "selected_sha256": "0",
        "dataset_file_sha256": null,
        "selection": {"mode": "first", "num_examples": n, "rollouts_per_example": 1, "seed": 42},
        "rollouts_per_example": 1, "env_args": {}, "reward_profile": "v1",
        "reward_config_hash": "", "reward_weights": {},
        "reward_params": {}, "reward_config_file": null, "env_provenance": {}, "replay_source": null,
        "sampling_params": {}, "concurrency": 1, "cache_mode": "off", "endpoint": null,
        "counts": {"planned": n, "completed": n, "errored": 0, "pending": 0}, "argv": []
    });
    if let (Some(fields), serde_json::Value::Object(rest)) = (fields.as_object_mut(), rest) {
        fields.extend(rest);
    }
    serde_json::from_value(fields).map_err(setup)
}

/// The value at quantile `p` (0..=1) of sorted samples (nearest rank);
/// NaN when there are none.
#[must_use]
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    sorted
        .get((last as f64 * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// A benchmark step's error as a setup failure.
pub(crate) fn setup(e: impl std::fmt::Display) -> BenchError {
    BenchError::Setup(e.to_string())
}
