//! Atomic file writes: a temporary file in the target directory, flushed,
//! then renamed over the destination (harness §3).

use std::io::Write;
use std::path::Path;

use crate::error::ReportError;

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    write_atomic_with(path, &mut |w| w.write_all(bytes))
}

/// Writes what `fill` produces to `path` atomically, streamed through a
/// buffer (the content is never held whole in memory).
pub fn write_atomic_with(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), ReportError> {
    let err = |source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let f = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(err)
}
