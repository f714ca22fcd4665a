//! Finding, starting and bounding external processes, and the temporary
//! workspace they read from.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::ExternalError;

/// Finds `program`: a value containing `/` is used as a path; a bare name is
/// looked up in the directories of `search_path` (`PATH` syntax; empty
/// entries, which would mean the current directory, are skipped).
///
/// # Errors
/// [`ExternalError::BinaryNotFound`] naming the binary and what was searched.
pub fn resolve_binary(program: &Path, search_path: &OsStr) -> Result<PathBuf, ExternalError> {
    let not_found = |searched: String| ExternalError::BinaryNotFound {
        binary: program.display().to_string(),
        search_path: searched,
    };
    if program.as_os_str().as_bytes().contains(&b'/') {
        return if is_executable_file(program) {
            Ok(program.to_owned())
        } else {
            Err(not_found("explicit path".to_owned()))
        };
    }
    if program.as_os_str().is_empty() {
        return Err(not_found(search_path.to_string_lossy().into_owned()));
    }
    std::env::split_paths(search_path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable_file(candidate))
        .ok_or_else(|| not_found(search_path.to_string_lossy().into_owned()))
}

fn is_executable_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A fresh private directory under the system temp dir, removed on drop.
#[derive(Debug)]
pub(crate) struct TempWorkspace {
    dir: PathBuf,
}

impl TempWorkspace {
    pub(crate) fn new() -> Result<TempWorkspace, ExternalError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last_error = String::new();
        for _ in 0..64 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!(
                "svbench-external-{}-{n}-{nanos}",
                std::process::id()
            ));
            match fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(TempWorkspace { dir }),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => last_error = e.to_string(),
                Err(e) => return Err(io_error(&dir, &e)),
            }
        }
        Err(ExternalError::Io {
            path: base,
            message: format!("no fresh temporary directory: {last_error}"),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `bytes` as `name` (a single path component) in the workspace.
    pub(crate) fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, ExternalError> {
        let path = self.dir.join(name);
        fs::write(&path, bytes).map_err(|e| io_error(&path, &e))?;
        Ok(path)
    }
}

impl Drop for TempWorkspace {
    fn drop(&mut self) {
        // Best effort: a leftover directory under /tmp is not worth a panic.
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The last component of a workspace name (`k8s/app.yaml` → `app.yaml`),
/// the name the file gets in the temporary directory.
pub(crate) fn workspace_file_name(name: &str) -> Result<&str, ExternalError> {
    Path::new(name)
        .file_name()
        .and_then(OsStr::to_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ExternalError::InvalidFileName {
            name: name.to_owned(),
        })
}

pub(crate) fn io_error(path: &Path, e: &std::io::Error) -> ExternalError {
    ExternalError::Io {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// One bounded run of a resolved binary.
#[derive(Debug)]
pub(crate) struct Invocation<'a> {
    pub(crate) binary: &'a Path,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: Option<&'a Path>,
    pub(crate) stdin: Option<Vec<u8>>,
    pub(crate) env: &'a [(&'a str, &'a str)],
    pub(crate) timeout: Duration,
    pub(crate) output_limit: usize,
}

/// What a finished process left behind.
#[derive(Debug)]
pub(crate) struct Captured {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
}

impl Captured {
    /// `exit status N` or `killed by signal N`.
    pub(crate) fn status_text(&self) -> String {
        match (self.status.code(), self.status.signal()) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            (None, None) => "unknown exit status".to_owned(),
        }
    }

    /// A failure with the end of stderr (or stdout) as its message.
    pub(crate) fn failed(&self, binary: &Path) -> ExternalError {
        let text = if self.stderr.iter().any(|b| !b.is_ascii_whitespace()) {
            &self.stderr
        } else {
            &self.stdout
        };
        ExternalError::Failed {
            binary: binary.display().to_string(),
            status: self.status_text(),
            stderr: tail(text, 2000),
        }
    }
}

/// The last `max` bytes of `bytes` as trimmed text.
fn tail(bytes: &[u8], max: usize) -> String {
    let start = bytes.len().saturating_sub(max);
    String::from_utf8_lossy(&bytes[start..]).trim().to_owned()
}

/// How often the child is polled at most; polling starts faster.
const MAX_POLL: Duration = Duration::from_millis(50);

/// Runs the invocation in its own process group. On timeout or oversized
/// output the whole group is killed and an error returned; after a normal
/// exit the group is killed too, so no descendant outlives the run.
pub(crate) fn run(inv: Invocation<'_>) -> Result<Captured, ExternalError> {
    let binary_text = || inv.binary.display().to_string();
    let started = Instant::now();
    let deadline = started + inv.timeout;
    let mut child = spawn(&inv)?;
    let pgid = child.id();

    if let (Some(bytes), Some(mut pipe)) = (inv.stdin, child.stdin.take()) {
        // A separate writer, so a child that writes before reading everything
        // cannot deadlock us; a child that exits early just breaks the pipe.
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let out_overflow = Arc::new(AtomicBool::new(false));
    let err_overflow = Arc::new(AtomicBool::new(false));
    let out = child
        .stdout
        .take()
        .map(|p| spawn_reader(p, inv.output_limit, Arc::clone(&out_overflow)));
    let err = child
        .stderr
        .take()
        .map(|p| spawn_reader(p, inv.output_limit, Arc::clone(&err_overflow)));

    let mut poll = Duration::from_millis(2);
    let status = loop {
        let overflow = if out_overflow.load(Ordering::Relaxed) {
            Some("stdout")
        } else if err_overflow.load(Ordering::Relaxed) {
            Some("stderr")
        } else {
            None
        };
        if let Some(stream) = overflow {
            kill_group_and_reap(&mut child, pgid);
            return Err(ExternalError::OutputTooLarge {
                binary: binary_text(),
                stream,
                limit: inv.output_limit,
            });
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                kill_group_and_reap(&mut child, pgid);
                return Err(ExternalError::Spawn {
                    binary: binary_text(),
                    message: format!("waiting for the process failed: {e}"),
                });
            }
        }
        let now = Instant::now();
        if now >= deadline {
            kill_group_and_reap(&mut child, pgid);
            return Err(ExternalError::Timeout {
                binary: binary_text(),
                timeout: inv.timeout,
            });
        }
        thread::sleep(poll.min(deadline - now));
        poll = (poll * 2).min(MAX_POLL);
    };
    // The leader is gone; descendants still in its group would keep the pipes
    // open (and outlive the run), so they go too.
    kill_group(pgid);

    // Readers end once every writer of the pipes is gone; one that escaped the
    // group could hold them open, so the wait is bounded by the deadline (with
    // a short grace for a tool that finished just in time).
    let read_deadline = deadline.max(Instant::now() + Duration::from_millis(500));
    let stdout = collect(out, read_deadline);
    let stderr = collect(err, read_deadline);
    if out_overflow.load(Ordering::Relaxed) || err_overflow.load(Ordering::Relaxed) {
        return Err(ExternalError::OutputTooLarge {
            binary: binary_text(),
            stream: if out_overflow.load(Ordering::Relaxed) {
                "stdout"
            } else {
                "stderr"
            },
            limit: inv.output_limit,
        });
    }
    match (stdout, stderr) {
        (Some(stdout), Some(stderr)) => Ok(Captured {
            status,
            stdout,
            stderr,
        }),
        _ => Err(ExternalError::Timeout {
            binary: binary_text(),
            timeout: inv.timeout,
        }),
    }
}

fn spawn(inv: &Invocation<'_>) -> Result<Child, ExternalError> {
    let mut cmd = Command::new(inv.binary);
    cmd.args(&inv.args)
        .stdin(if inv.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = inv.cwd {
        cmd.current_dir(dir);
    }
    for (key, value) in inv.env {
        cmd.env(key, value);
    }
    // ETXTBSY: a just-written script can still be open for writing in a
    // process forked concurrently by another thread; it clears quickly.
    let mut attempts = 0;
    loop {
        match cmd.spawn() {
            Ok(child) => return Ok(child),
            Err(e) if e.kind() == ErrorKind::ExecutableFileBusy && attempts < 50 => {
                attempts += 1;
                thread::sleep(Duration::from_millis(10));
            }
            Err(e) => {
                return Err(ExternalError::Spawn {
                    binary: inv.binary.display().to_string(),
                    message: e.to_string(),
                })
            }
        }
    }
}

/// Reads a pipe to its end, stopping (and raising `overflow`) past `limit`.
fn spawn_reader<R: Read + Send + 'static>(
    mut pipe: R,
    limit: usize,
    overflow: Arc<AtomicBool>,
) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if buf.len() + n > limit {
                        overflow.store(true, Ordering::Relaxed);
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(buf);
    });
    rx
}

fn collect(reader: Option<mpsc::Receiver<Vec<u8>>>, deadline: Instant) -> Option<Vec<u8>> {
    match reader {
        None => Some(Vec::new()),
        Some(rx) => rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok(),
    }
}

/// Kills the group while the leader is unreaped (its pid, hence the group id,
/// cannot be reused yet), then reaps the leader.
fn kill_group_and_reap(child: &mut Child, pgid: u32) {
    kill_group(pgid);
    let _ = child.kill();
    let _ = child.wait();
}

/// `kill -s KILL -- -<pgid>` through the POSIX shell: the crate has no
/// `unsafe`, hence no direct `kill(2)`. Errors (an already empty group) are
/// expected and ignored.
fn kill_group(pgid: u32) {
    let _ = Command::new("/bin/sh")
        .args(["-c", "kill -s KILL -- \"-$1\" 2>/dev/null", "sh"])
        .arg(pgid.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
