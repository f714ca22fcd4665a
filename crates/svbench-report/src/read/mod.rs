//! Reading a run directory: `metadata.json` and `results.jsonl` only.

pub mod metadata;
pub mod records;

use std::path::{Path, PathBuf};

pub use metadata::{canonical_environment, RunInfo, E1_NAME, E2_NAME};
pub use records::{LoadedRecords, RecordView};

use crate::error::ReportError;

/// A run as read from disk.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    /// The run directory.
    pub dir: PathBuf,
    /// Run facts from `metadata.json`.
    pub info: RunInfo,
    /// Records from `results.jsonl`.
    pub records: LoadedRecords,
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
