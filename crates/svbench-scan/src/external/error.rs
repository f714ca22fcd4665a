//! Why an external backend could not produce a result.

use std::path::PathBuf;
use std::time::Duration;

/// A failed run of an external binary. Every variant means "no result": the
/// caller records it as an error for the file, never as a clean scan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExternalError {
    /// The binary is not on the search path (or the explicit path is not an
    /// executable file). Requested backends never fall back to native ones.
    #[error("`{binary}` not found (searched: {search_path})")]
    BinaryNotFound {
        /// The binary as configured (name or path).
        binary: String,
        /// The directories searched, `:`-separated, or `explicit path`.
        search_path: String,
    },
    /// The binary was found but could not be started.
    #[error("could not start `{binary}`: {message}")]
    Spawn {
        /// The resolved binary.
        binary: String,
        /// The OS error.
        message: String,
    },
    /// The run exceeded its hard timeout; its whole process group was killed.
    #[error("`{binary}` did not finish within {timeout:?}; its process group was killed")]
    Timeout {
        /// The resolved binary.
        binary: String,
        /// The limit in force.
        timeout: Duration,
    },
    /// stdout or stderr grew beyond the capture limit; the group was killed.
    #[error("`{binary}` wrote more than {limit} bytes to {stream}; its process group was killed")]
    OutputTooLarge {
        /// The resolved binary.
        binary: String,
        /// `stdout` or `stderr`.
        stream: &'static str,
        /// The limit in bytes.
        limit: usize,
    },
    /// The tool exited with a status that means failure for this tool.
    #[error("`{binary}` failed ({status}): {stderr}")]
    Failed {
        /// The resolved binary.
        binary: String,
        /// `exit status N` or `killed by signal N`.
        status: String,
        /// The end of its stderr (or stdout when stderr is empty), trimmed.
        stderr: String,
    },
    /// The tool's output is not in the documented format.
    #[error("`{binary}` produced unreadable output: {message}")]
    BadOutput {
        /// The resolved binary.
        binary: String,
        /// What did not parse.
        message: String,
    },
    /// semgrep was requested without a local rule configuration.
    #[error("semgrep needs a local rule file (--config); registry configs need network, which svbench never uses")]
    SemgrepConfigMissing,
    /// The semgrep config names a registry ruleset or URL, or a local path that does not exist.
    #[error("semgrep config {config:?} is not a local rule file or directory: {message}")]
    SemgrepConfigInvalid {
        /// The configured value.
        config: String,
        /// Why it is rejected.
        message: String,
    },
    /// The workspace file name cannot be used as a file name.
    #[error("cannot write the workspace file under the name {name:?}")]
    InvalidFileName {
        /// The name given.
        name: String,
    },
    /// Creating or writing the temporary workspace failed.
    #[error("{path}: {message}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
}

/// Why a tool's JSON output is not in its documented shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// Not JSON (the parser's message).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object; `what` names the document (`output`,
    /// `report`).
    #[error("the {what} is not a JSON object")]
    NotAnObject {
        /// The document.
        what: &'static str,
    },
    /// A field that must be an array is something else.
    #[error("`{field}` is not an array")]
    NotAnArray {
        /// The field.
        field: &'static str,
    },
    /// A required top-level array is absent (or not an array).
    #[error("no `{field}` array")]
    NoArray {
        /// The field.
        field: &'static str,
    },
    /// An entry lacks a required field; `field` says what was expected
    /// (``"`check_id`"``, ``"`expressions` array"``).
    #[error("{entry} has no {field}")]
    Missing {
        /// The entry (`results[3]`, `a result`).
        entry: String,
        /// The field expected.
        field: &'static str,
    },
}
