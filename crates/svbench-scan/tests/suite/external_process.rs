//! External backends: binary lookup, version probes and the process bounds
//! (timeout with group kill, output cap), with fake binaries written as
//! shell scripts into a temp dir that is the only search path.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use svbench_scan::external::{ExternalError, ExternalTool, KubeLinter};
use svbench_scan::Tool;

/// A directory of fake binaries, searched alone.
struct FakeBin {
    dir: tempfile::TempDir,
}

impl FakeBin {
    fn new() -> FakeBin {
        FakeBin {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes an executable `#!/bin/sh` script `name` with `body`.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    fn tool(&self, tool: Tool) -> ExternalTool {
        ExternalTool::new(tool)
            .with_search_path(self.dir.path())
            .with_timeout(Duration::from_secs(10))
    }
}

/// Alive = `kill -0` succeeds and the process is not a zombie.
fn is_alive(pid: u32) -> bool {
    let signalable = Command::new("/bin/sh")
        .args(["-c", "kill -0 \"$1\" 2>/dev/null", "sh"])
        .arg(pid.to_string())
        .status()
        .is_ok_and(|s| s.success());
    let zombie = fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit_once(')').is_some_and(|(_, rest)| {
                matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))
            })
        })
        .unwrap_or(true);
    signalable && !zombie
}

fn wait_dead(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if !is_alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn versions_are_probed_per_tool_convention() {
    let bin = FakeBin::new();
    bin.script(
        "kube-linter",
        r#"[ "$1" = version ] || exit 3; echo "0.7.6""#,
    );
    bin.script(
        "semgrep",
        r#"[ "$1" = --version ] || exit 3; echo "A new version of Semgrep is available."; echo "1.85.0"; echo"#,
    );
    bin.script(
        "opa",
        r#"[ "$1" = version ] || exit 3; printf 'Version: 0.68.0\nBuild Commit: abc\nGo Version: go1.22\n'"#,
    );
    assert_eq!(bin.tool(Tool::KubeLinter).version().unwrap(), "0.7.6");
    assert_eq!(bin.tool(Tool::Semgrep).version().unwrap(), "1.85.0");
    assert_eq!(bin.tool(Tool::Opa).version().unwrap(), "Version: 0.68.0");
}

#[test]
fn a_failing_or_silent_version_probe_is_an_error() {
    let bin = FakeBin::new();
    bin.script("opa", "echo broken >&2; exit 4");
    bin.script("kube-linter", "exit 0");
    let err = bin.tool(Tool::Opa).version().unwrap_err();
    assert!(
        matches!(&err, ExternalError::Failed { status, stderr, .. } if status == "exit status 4" && stderr == "broken"),
        "{err:?}"
    );
    let err = bin.tool(Tool::KubeLinter).version().unwrap_err();
    assert!(matches!(err, ExternalError::BadOutput { .. }), "{err:?}");
}

#[test]
fn a_missing_binary_is_a_typed_error_naming_it_and_the_search_path() {
    let bin = FakeBin::new();
    let err = bin.tool(Tool::Semgrep).version().unwrap_err();
    let ExternalError::BinaryNotFound {
        binary,
        search_path,
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(binary, "semgrep");
    assert_eq!(Path::new(search_path), bin.path());
    let text = err.to_string();
    assert!(text.contains("semgrep") && text.contains(&bin.path().display().to_string()));

    // Running, not only probing, fails the same way.
    let err = KubeLinter::with_tool(bin.tool(Tool::KubeLinter))
        .lint("manifest.yaml", b"kind: Pod\n")
        .unwrap_err();
    assert!(
        matches!(err, ExternalError::BinaryNotFound { .. }),
        "{err:?}"
    );

    // An explicit path that does not exist.
    let err = bin
        .tool(Tool::Opa)
        .with_program(bin.path().join("nope/opa"))
        .version()
        .unwrap_err();
    assert!(
        matches!(&err, ExternalError::BinaryNotFound { search_path, .. } if search_path == "explicit path"),
        "{err:?}"
    );
}

#[test]
fn non_executable_files_and_other_names_are_not_found() {
    let bin = FakeBin::new();
    fs::write(bin.path().join("opa"), "#!/bin/sh\necho 1\n").unwrap();
    bin.script("opa-1.0", "echo 1");
    let err = bin.tool(Tool::Opa).version().unwrap_err();
    assert!(
        matches!(err, ExternalError::BinaryNotFound { .. }),
        "{err:?}"
    );
}

#[test]
fn an_explicit_program_path_is_used_as_is() {
    let bin = FakeBin::new();
    let path = bin.script("my-opa", "echo 'Version: 1.0.0'");
    let tool = ExternalTool::new(Tool::Opa)
        .with_search_path("")
        .with_program(&path);
    assert_eq!(tool.resolve().unwrap(), path);
    assert_eq!(tool.version().unwrap(), "Version: 1.0.0");
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let bin = FakeBin::new();
    let pids = bin.path().join("pids");
    bin.script(
        "kube-linter",
        &format!(
            "sleep 100 &\necho $! > '{p}.child'\necho $$ > '{p}.leader'\nsleep 100",
            p = pids.display()
        ),
    );
    let tool = bin
        .tool(Tool::KubeLinter)
        .with_timeout(Duration::from_secs(1));
    let started = Instant::now();
    let err = KubeLinter::with_tool(tool)
        .lint("manifest.yaml", b"kind: Pod\n")
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(
        matches!(&err, ExternalError::Timeout { timeout, .. } if *timeout == Duration::from_secs(1)),
        "{err:?}"
    );
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    for suffix in ["leader", "child"] {
        let text = fs::read_to_string(pids.with_extension(suffix)).expect("pid file");
        let pid: u32 = text.trim().parse().expect("a pid");
        assert!(wait_dead(pid), "{suffix} {pid} survived the timeout");
    }
}

#[test]
fn a_background_process_left_by_a_finished_tool_is_killed() {
    let bin = FakeBin::new();
    let pid_file = bin.path().join("bg.pid");
    bin.script(
        "kube-linter",
        &format!("sleep 100 &\necho $! > '{}'\nexit 0", pid_file.display()),
    );
    let started = Instant::now();
    let analysis = KubeLinter::with_tool(bin.tool(Tool::KubeLinter))
        .lint("manifest.yaml", b"kind: Pod\n")
        .unwrap();
    assert!(analysis.findings.is_empty());
    assert!(started.elapsed() < Duration::from_secs(4));
    let pid: u32 = fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_dead(pid), "background {pid} survived");
}

#[test]
fn oversized_output_is_an_error_and_stops_the_tool() {
    let bin = FakeBin::new();
    bin.script("kube-linter", "exec yes");
    bin.script("opa", "head -c 50000 /dev/zero >&2; echo 'Version: 1'");
    let started = Instant::now();
    let err = bin
        .tool(Tool::KubeLinter)
        .with_output_limit(10_000)
        .version()
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ExternalError::OutputTooLarge {
                stream: "stdout",
                limit: 10_000,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
    let err = bin
        .tool(Tool::Opa)
        .with_output_limit(10_000)
        .version()
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ExternalError::OutputTooLarge {
                stream: "stderr",
                ..
            }
        ),
        "{err:?}"
    );
    // Within the limit, the same output is fine.
    assert_eq!(bin.tool(Tool::Opa).version().unwrap(), "Version: 1");
}

#[test]
fn a_tool_killed_by_a_signal_is_a_failure() {
    let bin = FakeBin::new();
    bin.script("opa", "kill -s KILL $$");
    let err = bin.tool(Tool::Opa).version().unwrap_err();
    assert!(
        matches!(&err, ExternalError::Failed { status, .. } if status == "killed by signal 9"),
        "{err:?}"
    );
}

#[test]
fn errors_become_scan_errors_of_the_file() {
    let err = ExternalError::Timeout {
        binary: "/x/opa".into(),
        timeout: Duration::from_secs(15),
    };
    let recorded = err.to_scan_error("manifest.yaml", Tool::Opa);
    assert_eq!(recorded.file, "manifest.yaml");
    assert_eq!(recorded.tool, Some(Tool::Opa));
    assert!(
        recorded.message.contains("did not finish within 15s"),
        "{}",
        recorded.message
    );
}

#[test]
fn defaults_follow_the_spec() {
    assert_eq!(
        ExternalTool::default_timeout(Tool::KubeLinter),
        Duration::from_secs(30)
    );
    assert_eq!(
        ExternalTool::default_timeout(Tool::Semgrep),
        Duration::from_secs(60)
    );
    assert_eq!(
        ExternalTool::default_timeout(Tool::Opa),
        Duration::from_secs(15)
    );
    let tool = ExternalTool::new(Tool::KubeLinter);
    assert_eq!(tool.program, Path::new("kube-linter"));
    assert_eq!(tool.output_limit, 64 * 1024 * 1024);
}
