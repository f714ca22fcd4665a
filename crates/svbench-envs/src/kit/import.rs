//! `svbench data import ENV --format FMT …` and `svbench data inspect`: the
//! flags every importer may read, and what an environment declares to
//! import. Each importer says which flags apply to which format and refuses
//! the rest; nothing is defaulted silently.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Every import flag, as given on the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportFlags {
    /// `--format`.
    pub format: String,
    /// `--text-col`.
    pub text_col: Option<String>,
    /// `--label-col`.
    pub label_col: Option<String>,
    /// `--label-map`.
    pub label_map: Option<String>,
    /// `--text-kind`.
    pub text_kind: Option<String>,
    /// `--subject-col`.
    pub subject_col: Option<String>,
    /// `--from-col`.
    pub from_col: Option<String>,
    /// `--id-col`.
    pub id_col: Option<String>,
    /// `--drop-unmapped`.
    pub drop_unmapped: bool,
    /// `--drop-empty`.
    pub drop_empty: bool,
    /// `--label`.
    pub label: Option<String>,
    /// `--labels`.
    pub labels: Option<PathBuf>,
    /// `--evidence-gold`.
    pub evidence_gold: Option<String>,
    /// `--split`.
    pub split: Option<String>,
    /// `--split-ratios` as train, dev, test shares.
    pub split_ratios: Option<[f64; 3]>,
    /// `--seed`.
    pub seed: u64,
}

/// What an import produced: the rows, and lines for stderr (counts of what
/// was dropped, and why).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// Rows in the environment's format, in input order.
    pub rows: Vec<Value>,
    /// Summary lines.
    pub notes: Vec<String>,
}

/// Why an import failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportFailure {
    /// Flags missing, conflicting or malformed (a usage error).
    #[error("{0}")]
    Usage(String),
    /// The input does not convert (a data error).
    #[error("{0}")]
    Data(String),
}

/// Converts input files with the given flags.
pub type RunImport = fn(&[PathBuf], &ImportFlags) -> Result<ImportReport, ImportFailure>;

/// Summarises a table and suggests import flags.
pub type InspectTable = fn(&Path) -> Result<String, ImportFailure>;

/// An environment's importers.
#[derive(Debug, Clone, Copy)]
pub struct ImporterEntry {
    /// `--format` values, with one line each on what they read.
    pub formats: &'static [(&'static str, &'static str)],
    /// Converts the inputs.
    pub run: RunImport,
    /// `data inspect`: a summary of a file with suggested flags, if the
    /// environment imports tables.
    pub inspect: Option<InspectTable>,
}
