//! Reading a run directory: `metadata.json` and `results.jsonl` only.

pub mod lean;
pub mod metadata;
pub mod records;

use std::path::{Path, PathBuf};

pub use lean::{LeanRecords, Tags};
pub use metadata::{canonical_environment, RunInfo};
pub use records::{meta_text, EnvFields, LoadedRecords, ObjectOrNone, RecordView};

use crate::error::ReportError;

/// A run as read from disk: its records in full ([`LoadedRecords`], for
/// `compare`) or reduced ([`LeanRecords`], for the report).
#[derive(Debug, Clone)]
pub struct LoadedRun<R = LoadedRecords> {
    /// The run directory.
    pub dir: PathBuf,
    /// Run facts from `metadata.json`.
    pub info: RunInfo,
    /// Records from `results.jsonl`.
    pub records: R,
}

/// A run with its records reduced to what the summary and plots use.
pub type LeanRun = LoadedRun<LeanRecords>;

/// Reads `RUN_DIR/metadata.json` of a run directory.
pub fn read_info(dir: &Path, strict: bool) -> Result<RunInfo, ReportError> {
    if !dir.is_dir() {
        return Err(ReportError::RunDir {
            path: dir.to_path_buf(),
        });
    }
    metadata::read_metadata(&dir.join("metadata.json"), dir, strict)
}

/// Reads `RUN_DIR/metadata.json` and `RUN_DIR/results.jsonl`.
pub fn load_run<E: EnvFields>(
    dir: &Path,
    strict: bool,
) -> Result<LoadedRun<LoadedRecords<E>>, ReportError> {
    let info = read_info(dir, strict)?;
    let records = records::read_records(&dir.join("results.jsonl"), strict)?;
    Ok(LoadedRun {
        dir: dir.to_path_buf(),
        info,
        records,
    })
}
