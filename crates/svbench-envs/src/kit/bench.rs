//! `svbench bench <env>`: what an environment declares to be benchmarked.
//! The environment builds its workloads (the rows, answers and inputs to
//! time) and times them; the CLI finds it in the registry, caps and checks
//! the size, and prints the figure lines. Benchmarks assert nothing.

use std::io;

/// The size of one benchmark run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchRequest {
    /// Items to time (`--completions`), already capped at
    /// [`BenchEntry::max_items`] and at least 1.
    pub items: usize,
    /// Inputs at the environment's size limits to time (`--large-emails`;
    /// 0 skips), for environments that have such a workload.
    pub large: usize,
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
    /// Whether this environment's benchmark also times the whole stack —
    /// rollouts against the in-process fake endpoint and report generation.
    /// Those two benchmarks are written against E1's rows and records, so
    /// at most one entry sets this.
    pub whole_stack: bool,
    /// Builds the workloads and times them.
    pub run: RunBench,
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
