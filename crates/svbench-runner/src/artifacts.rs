//! Run directories: slugs, run ids, the advisory lock and atomic JSON writes.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Errors creating or writing run artifacts.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArtifactError {
    /// Filesystem error.
    #[error("{path}: {source}")]
    Io {
        /// Path involved.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The run directory exists and is not empty.
    #[error("run directory {0} already exists and is not empty (choose another --run-id, or --resume it)")]
    Exists(PathBuf),
    /// Another process holds the run's lock.
    #[error("run directory {0} is locked by another svbench process")]
    Locked(PathBuf),
    /// The run id has characters outside `[A-Za-z0-9._-]` or a bad length.
    #[error("invalid run id `{0}`: use 1–128 characters from A-Z a-z 0-9 . _ -")]
    BadRunId(String),
    /// `results.jsonl` holds something that cannot belong to the run
    /// (an input-data error: exit 3).
    #[error(transparent)]
    Integrity(#[from] crate::integrity::IntegrityError),
    /// JSON serialisation failed.
    #[error("cannot serialise {what}: {message}")]
    Serialize {
        /// Which artifact.
        what: &'static str,
        /// Cause.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ArtifactError + '_ {
    move |source| ArtifactError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Directory slug of a model reference (harness §3): without `@profile`,
/// `/` → `__`, other characters outside `[A-Za-z0-9._-]` → `_`.
pub fn model_slug(model: &str) -> String {
    let base = model.split('@').next().unwrap_or(model);
    let mut out = String::with_capacity(base.len());
    for c in base.chars() {
        match c {
            '/' => out.push_str("__"),
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') => out.push(c),
            _ => out.push('_'),
        }
    }
    out
}

/// Checks the run-id alphabet and length.
pub fn validate_run_id(id: &str) -> Result<(), ArtifactError> {
    let ok = (1..=128).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ArtifactError::BadRunId(id.to_string()))
    }
}

/// A fresh run id: `<yyyymmddThhmmssZ>-<8 hex>`.
pub fn new_run_id(now: chrono::DateTime<chrono::Utc>) -> String {
    let nanos = now.timestamp_subsec_nanos() as u64;
    let pid = std::process::id() as u64;
    let mix = (nanos ^ (pid << 32) ^ (now.timestamp() as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!(
        "{}-{:08x}",
        now.format("%Y%m%dT%H%M%SZ"),
        (mix >> 32) as u32
    )
}

/// `<output_dir>/<env>--<slug>/<run_id>`.
pub fn run_dir(output_dir: &Path, env: &str, model: &str, run_id: &str) -> PathBuf {
    output_dir
        .join(format!("{env}--{}", model_slug(model)))
        .join(run_id)
}

/// Creates a new run directory; refuses a non-empty existing one.
pub fn create_run_dir(dir: &Path) -> Result<(), ArtifactError> {
    if dir.exists() {
        let non_empty = fs::read_dir(dir).map_err(io(dir))?.next().is_some();
        if non_empty {
            return Err(ArtifactError::Exists(dir.to_path_buf()));
        }
    }
    fs::create_dir_all(dir).map_err(io(dir))
}

/// The advisory `.lock` held by a run's writer for its lifetime.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock or fails at once if another process holds it.
    pub fn acquire(dir: &Path) -> Result<Self, ArtifactError> {
        let path = dir.join(".lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(ArtifactError::Locked(dir.to_path_buf())),
            Err(std::fs::TryLockError::Error(e)) => Err(ArtifactError::Io { path, source: e }),
        }
    }
}

/// Writes pretty JSON atomically (temp file + rename), with a final newline.
pub fn write_json_atomic<T: Serialize>(
    path: &Path,
    what: &'static str,
    value: &T,
) -> Result<(), ArtifactError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| ArtifactError::Serialize {
        what,
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Writes bytes atomically (temp file in the same directory + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ArtifactError> {
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    {
        let mut f = File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    fs::rename(&tmp, path).map_err(io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_rule() {
        assert_eq!(model_slug("qwen/qwen3-14b"), "qwen__qwen3-14b");
        assert_eq!(model_slug("builtin:heuristic"), "builtin_heuristic");
        assert_eq!(model_slug("my model:v1@local"), "my_model_v1");
    }

    #[test]
    fn run_ids_validate() {
        assert!(validate_run_id("20260101T000000Z-deadbeef").is_ok());
        assert!(validate_run_id("a/b").is_err());
        assert!(validate_run_id("").is_err());
        let id = new_run_id(chrono::Utc::now());
        assert!(validate_run_id(&id).is_ok(), "{id}");
    }

    #[test]
    fn lock_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let _a = RunLock::acquire(dir.path()).unwrap();
        assert!(matches!(
            RunLock::acquire(dir.path()),
            Err(ArtifactError::Locked(_))
        ));
    }
}
