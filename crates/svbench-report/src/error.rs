//! Errors of report generation.

use std::io;
use std::path::PathBuf;

/// What can go wrong while reading a run or writing its report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The run directory does not exist or is not a directory.
    #[error("run directory {} does not exist or is not a directory", path.display())]
    RunDir {
        /// The path given.
        path: PathBuf,
    },
    /// `metadata.json` is absent.
    #[error("{} not found: a run directory holds metadata.json and results.jsonl", path.display())]
    MissingMetadata {
        /// Expected path.
        path: PathBuf,
    },
    /// A file of the run could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// `metadata.json` is not usable.
    #[error("{}: {message}", path.display())]
    Metadata {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A line of `results.jsonl` (other than a torn last line) does not parse.
    #[error("{}:{line}: {message}", path.display())]
    ResultsLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// `--strict` found a problem the tolerant reader would accept.
    #[error("strict mode: {message}")]
    Strict {
        /// What is wrong.
        message: String,
    },
    /// An output file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

impl ReportError {
    /// Whether the error is about the input run (exit 3) rather than the
    /// machine (exit 1).
    pub fn is_input_error(&self) -> bool {
        !matches!(self, ReportError::Write { .. })
    }
}
