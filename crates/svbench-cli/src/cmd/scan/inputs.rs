//! Which files a scan reads: command-line paths and directory walks.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use svbench_scan::scan::{detect_type, FileType};

use crate::exit;

/// One thing to scan.
#[derive(Debug)]
pub enum Input {
    /// A file on disk (read when scanned, so memory holds one file at a time).
    File { path: PathBuf, file_type: FileType },
    /// An e-mail file (`.eml`, `.mbox`, or anything under `--type email`).
    Email { path: PathBuf },
    /// An e-mail read from standard input.
    EmailBytes { name: String, bytes: Vec<u8> },
    /// Bytes already read (standard input).
    Bytes {
        name: String,
        bytes: Vec<u8>,
        file_type: FileType,
    },
}

/// A file met in a directory walk that no analyzer reads.
#[derive(Debug, Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: &'static str,
}

/// Bytes sniffed for type detection (an `apiVersion` key sits near the top
/// of a manifest; a directory of large non-manifest YAML is not read whole).
const SNIFF_BYTES: u64 = 1 << 20;

/// Expands the command-line paths. A file named explicitly must have a
/// recognisable type (or `--type`); files in walked directories that match
/// nothing are skipped and listed.
pub fn collect_inputs(
    paths: &[PathBuf],
    forced: Option<FileType>,
    email_forced: bool,
) -> anyhow::Result<(Vec<Input>, Vec<Skipped>)> {
    // `.eml`/`.mbox` are e-mail unless another type is forced.
    let email =
        |path: &Path| email_forced || (forced.is_none() && super::email::is_email_path(path));
    let mut inputs = Vec::new();
    let mut skipped = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).map_err(|e| exit::usage(format!("{}: {e}", path.display())))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)?;
            // Byte order of whole paths (`a-x` before `a/b`), not per directory.
            files.sort_by(|a, b| {
                a.as_os_str()
                    .as_encoded_bytes()
                    .cmp(b.as_os_str().as_encoded_bytes())
            });
            for file in files {
                if email(&file) {
                    inputs.push(Input::Email { path: file });
                    continue;
                }
                match classify(&file, forced) {
                    Some(file_type) => inputs.push(Input::File {
                        path: file,
                        file_type,
                    }),
                    None => skipped.push(Skipped {
                        path: file.display().to_string(),
                        reason: "not a Kubernetes manifest, Terraform file or e-mail",
                    }),
                }
            }
        } else {
            refuse_non_regular(path, &meta, "")?;
            if email(path) {
                inputs.push(Input::Email { path: path.clone() });
                continue;
            }
            let file_type = classify(path, forced).ok_or_else(|| {
                exit::usage(format!(
                    "{}: not recognised as Kubernetes YAML (.yaml/.yml/.json with an apiVersion key) \
                     Terraform (.tf) or e-mail (.eml/.mbox); pass --type k8s|tf|email to scan it anyway",
                    path.display()
                ))
            })?;
            inputs.push(Input::File {
                path: path.clone(),
                file_type,
            });
        }
    }
    Ok((inputs, skipped))
}

/// A path named on the command line that is neither a directory nor a
/// regular file (a FIFO, socket or device) would block or never end when
/// read: a usage error (exit 2). `what` prefixes the message (e.g. `--patch `).
pub fn refuse_non_regular(path: &Path, meta: &std::fs::Metadata, what: &str) -> anyhow::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let kind = file_kind(meta);
    Err(exit::usage(format!(
        "{what}{}: not a regular file ({kind}); scan reads regular files and directories \
         (use --stdin for piped input)",
        path.display()
    )))
}

#[cfg(unix)]
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn file_kind(_meta: &std::fs::Metadata) -> &'static str {
    "not a file"
}

/// The type of a file: forced, or detected from its name and first bytes.
/// Unreadable files are given to the scanner (which reports the error) when
/// their extension is one the analyzers read.
fn classify(path: &Path, forced: Option<FileType>) -> Option<FileType> {
    if forced.is_some() {
        return forced;
    }
    match read_capped(path, SNIFF_BYTES) {
        Ok(head) => detect_type(path, &head),
        Err(_) => match path.extension().and_then(|e| e.to_str()) {
            Some("tf") => Some(FileType::Tf),
            Some("yaml" | "yml") => Some(FileType::K8s),
            _ => None,
        },
    }
}

/// Files under `dir`, recursively. Symbolic links to directories are not followed (no cycles).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| exit::usage(format!("{}: {e}", dir.display())))?
        .collect::<Result<_, _>>()
        .map_err(|e| exit::usage(format!("{}: {e}", dir.display())))?;
    for entry in entries {
        let path = entry.path();
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            walk(&path, out)?;
        } else if file_type.is_file() || (file_type.is_symlink() && path.is_file()) {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads at most `cap` bytes of a file.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(cap)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}
