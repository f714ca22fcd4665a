//! Which files a scan reads: command-line paths and directory walks.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use svbench_mail::{is_mbox_separator, EmailLimits};
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

/// Why a walked file was skipped: YAML or JSON that is not a manifest.
const NOT_A_MANIFEST: &str =
    "YAML or JSON without an apiVersion key: not a Kubernetes manifest (--type k8s scans it anyway)";
/// Why a walked file was skipped: nothing reads it.
const NO_ANALYZER: &str = "not a Kubernetes manifest, Terraform file (.tf) or e-mail (.eml, .mbox, or a file that starts with a message header block or an mbox `From ` line)";

/// What a file is to the scan.
enum Kind {
    Config(FileType),
    Email,
    Skip(&'static str),
}

/// Expands the command-line paths. A file named explicitly must have a
/// recognisable type (or `--type`); files in walked directories that match
/// nothing are skipped and listed with why.
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
                    Kind::Config(file_type) => inputs.push(Input::File {
                        path: file,
                        file_type,
                    }),
                    Kind::Email => inputs.push(Input::Email { path: file }),
                    Kind::Skip(reason) => skipped.push(Skipped {
                        path: file.display().to_string(),
                        reason,
                    }),
                }
            }
        } else {
            refuse_non_regular(path, &meta, "")?;
            if email(path) {
                inputs.push(Input::Email { path: path.clone() });
                continue;
            }
            match classify(path, forced) {
                Kind::Config(file_type) => inputs.push(Input::File {
                    path: path.clone(),
                    file_type,
                }),
                Kind::Email => inputs.push(Input::Email { path: path.clone() }),
                Kind::Skip(_) => {
                    return Err(exit::usage(format!(
                        "{}: not recognised as Kubernetes YAML (.yaml/.yml/.json with an apiVersion key), \
                         Terraform (.tf) or e-mail (.eml/.mbox, or a message header block); \
                         pass --type k8s|tf|email to scan it anyway",
                        path.display()
                    )))
                }
            }
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

/// The type of a file: forced, or detected from its name and first bytes
/// (a message saved without `.eml`, as mail folders hold them, is e-mail).
/// Unreadable files are given to the scanner (which reports the error) when
/// their extension is one the analyzers read.
fn classify(path: &Path, forced: Option<FileType>) -> Kind {
    if let Some(file_type) = forced {
        return Kind::Config(file_type);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let yaml = matches!(ext.as_deref(), Some("yaml" | "yml" | "json"));
    match read_capped(path, SNIFF_BYTES) {
        Ok(head) => match detect_type(path, &head) {
            Some(file_type) => Kind::Config(file_type),
            None if yaml => Kind::Skip(NOT_A_MANIFEST),
            None if is_message(&head) => Kind::Email,
            None => Kind::Skip(NO_ANALYZER),
        },
        Err(_) => match ext.as_deref() {
            Some("tf") => Kind::Config(FileType::Tf),
            Some("yaml" | "yml") => Kind::Config(FileType::K8s),
            _ => Kind::Skip(NO_ANALYZER),
        },
    }
}

/// Whether a file's first bytes are a mailbox or a message's header block.
fn is_message(head: &[u8]) -> bool {
    is_mbox_separator(head)
        || svbench_envs::e4::import::sniff(head, &EmailLimits::default()).is_ok()
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
