//! Reading a run directory: `metadata.json` and `results.jsonl` only.

pub mod lean;
pub mod metadata;
pub mod records;

use std::path::{Path, PathBuf};

pub use lean::{LeanRecords, Tags};
pub use metadata::{canonical_environment, RunInfo, E1_NAME, E2_NAME, E4_NAME};
pub use records::{LoadedRecords, RecordView};

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

/// Reads `RUN_DIR/metadata.json` and `RUN_DIR/results.jsonl`, reducing each
/// record as it is read ([`lean`]).
pub fn load_lean(dir: &Path, strict: bool) -> Result<LeanRun, ReportError> {
    if !dir.is_dir() {
        return Err(ReportError::RunDir {
            path: dir.to_path_buf(),
        });
    }
    let info = metadata::read_metadata(&dir.join("metadata.json"), dir, strict)?;
    // E2 metrics read whole records (findings, patches); E4's read a
    // sample reduced from each record as it is read, so a 200,000-record
    // E4 run holds its samples, not its records.
    let keep = lean::Keep {
        e1: info.environment == E1_NAME,
        e4: info.environment == E4_NAME,
        full: info.environment == E2_NAME,
    };
    let records = lean::read_lean(&dir.join("results.jsonl"), strict, keep)?;
    Ok(LoadedRun {
        dir: dir.to_path_buf(),
        info,
        records,
    })
}

/// Reads `RUN_DIR/metadata.json` and `RUN_DIR/results.jsonl`.
pub fn load_run(dir: &Path, strict: bool) -> Result<LoadedRun, ReportError> {
    if !dir.is_dir() {
        return Err(ReportError::RunDir {
            path: dir.to_path_buf(),
        });
    }
    let info = metadata::read_metadata(&dir.join("metadata.json"), dir, strict)?;
    let records = records::read_records(&dir.join("results.jsonl"), strict)?;
    Ok(LoadedRun {
        dir: dir.to_path_buf(),
        info,
        records,
    })
}
