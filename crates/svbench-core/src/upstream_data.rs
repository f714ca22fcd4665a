//! Test support: where parity tests find the upstream project's data.
//!
//! The parity tests compare svbench with the upstream Python project on the
//! data it published. That data is never copied into this repository; a
//! checkout finds it at `shared/data/upstream-sv` in an ancestor of the crate
//! directory (the directory next to the workspace, in practice). Where it is
//! absent a parity test prints one notice and checks nothing, so that a
//! checkout without it still passes its tests. Unless
//! [`REQUIRE_VAR`]`=1` (CI sets it): then a missing directory or file is a
//! failure, and the parity tests cannot pass vacuously where the data is
//! supposed to be.
//!
//! Call from tests only: the functions panic by design.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that turns absent upstream data into a failure.
pub const REQUIRE_VAR: &str = "SVBENCH_REQUIRE_UPSTREAM";

/// Where the data lives relative to an ancestor of the crate directory.
pub const REL_DIR: &str = "shared/data/upstream-sv";

/// What a test does when the data it asks for is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenAbsent {
    /// Print a notice and let the test return without checking.
    Skip,
    /// Panic: the environment promised the data.
    Fail,
}

/// The decision for a value of [`REQUIRE_VAR`] (`None` when unset). Any
/// value other than empty or `0` requires the data, so that a misspelt
/// `true` cannot quietly skip.
pub fn when_absent(require: Option<&OsStr>) -> WhenAbsent {
    match require {
        Some(v) if !v.is_empty() && v != "0" => WhenAbsent::Fail,
        _ => WhenAbsent::Skip,
    }
}

/// The first `ancestor/shared/data/upstream-sv` directory of `manifest_dir`
/// (the calling crate's `CARGO_MANIFEST_DIR`), if any.
pub fn locate(manifest_dir: &Path) -> Option<PathBuf> {
    locate_below(manifest_dir, None)
}

/// [`locate`], looking no higher than `ceiling` when one is given (the unit
/// tests' temporary root: the machine's own `/tmp/shared` must not leak in).
fn locate_below(manifest_dir: &Path, ceiling: Option<&Path>) -> Option<PathBuf> {
    let mut ancestors = manifest_dir.ancestors();
    let within = std::iter::from_fn(|| {
        let a = ancestors.next()?;
        (ceiling.is_none_or(|c| a.starts_with(c))).then_some(a)
    });
    within.map(|a| a.join(REL_DIR)).find(|p| p.is_dir())
}

/// The upstream data directory; `None`, after one notice on stderr, when it
/// is absent. Pass `env!("CARGO_MANIFEST_DIR")`.
///
/// # Panics
/// When it is absent and [`REQUIRE_VAR`] is set (see [`when_absent`]).
#[track_caller]
pub fn dir(manifest_dir: &str) -> Option<PathBuf> {
    path(manifest_dir, "")
}

/// `rel` inside the upstream data directory (for example
/// `public_mini/e2.jsonl`); `None`, after one notice on stderr, when the
/// directory or that file is absent. Pass `env!("CARGO_MANIFEST_DIR")`.
///
/// # Panics
/// When it is absent and [`REQUIRE_VAR`] is set (see [`when_absent`]).
#[track_caller]
pub fn path(manifest_dir: &str, rel: &str) -> Option<PathBuf> {
    let require = std::env::var_os(REQUIRE_VAR);
    let mut notice = Vec::new();
    let found = resolve(
        Path::new(manifest_dir),
        rel,
        when_absent(require.as_deref()),
        &mut notice,
    );
    // Straight to the stream, not `eprintln!`, which the test harness
    // captures and hides for a passing test; one write, so that tests
    // running in parallel do not interleave it.
    let _ = std::io::stderr().lock().write_all(&notice);
    found
}

/// The text of `rel` inside the upstream data directory, like [`path`].
///
/// # Panics
/// As [`path`] does, and when the file exists but cannot be read as UTF-8.
#[track_caller]
pub fn read(manifest_dir: &str, rel: &str) -> Option<String> {
    let p = path(manifest_dir, rel)?;
    match std::fs::read_to_string(&p) {
        Ok(text) => Some(text),
        Err(e) => panic!("upstream data {}: {e}", p.display()),
    }
}

/// [`path`] with the decision made by the caller and the notice written to
/// `notice`: the environment-free core that the unit tests drive.
///
/// # Panics
/// When the file is absent and `absent` is [`WhenAbsent::Fail`].
#[track_caller]
pub fn resolve(
    manifest_dir: &Path,
    rel: &str,
    absent: WhenAbsent,
    notice: &mut impl Write,
) -> Option<PathBuf> {
    resolve_below(manifest_dir, None, rel, absent, notice)
}

/// [`resolve`] with the search bounded by `ceiling` (see [`locate_below`]).
#[track_caller]
fn resolve_below(
    manifest_dir: &Path,
    ceiling: Option<&Path>,
    rel: &str,
    absent: WhenAbsent,
    notice: &mut impl Write,
) -> Option<PathBuf> {
    let missing = match locate_below(manifest_dir, ceiling) {
        Some(dir) => {
            let p = if rel.is_empty() { dir } else { dir.join(rel) };
            if p.exists() {
                return Some(p);
            }
            p.display().to_string()
        }
        None => format!(
            "{} (no ancestor of {} has it)",
            if rel.is_empty() {
                PathBuf::from(REL_DIR)
            } else {
                Path::new(REL_DIR).join(rel)
            }
            .display(),
            manifest_dir.display()
        ),
    };
    // libtest names each test's thread after the test.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("<unnamed test>");
    let at = std::panic::Location::caller();
    match absent {
        WhenAbsent::Fail => panic!(
            "{test} ({at}): upstream data {missing} is absent, \
             and {REQUIRE_VAR} is set, so this parity test may not skip"
        ),
        WhenAbsent::Skip => {
            let _ = writeln!(
                notice,
                "notice: {test} ({at}) skipped: upstream data {missing} is absent \
                 (set {REQUIRE_VAR}=1 to make this a failure)"
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_decides() {
        assert_eq!(when_absent(None), WhenAbsent::Skip);
        assert_eq!(when_absent(Some(OsStr::new(""))), WhenAbsent::Skip);
        assert_eq!(when_absent(Some(OsStr::new("0"))), WhenAbsent::Skip);
        assert_eq!(when_absent(Some(OsStr::new("1"))), WhenAbsent::Fail);
        assert_eq!(when_absent(Some(OsStr::new("true"))), WhenAbsent::Fail);
    }

    /// A crate directory inside a fresh temporary directory; the tests
    /// search no higher than that directory, so a `shared/` next to the
    /// machine's temporary directory cannot be found.
    fn lonely_crate() -> (tempfile::TempDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let krate = root.path().join("ws/crates/c");
        std::fs::create_dir_all(&krate).unwrap();
        assert_eq!(locate_below(&krate, Some(root.path())), None);
        (root, krate)
    }

    #[test]
    fn absent_and_not_required_is_none_after_one_notice() {
        let (root, krate) = lonely_crate();
        let mut notice = Vec::new();
        assert_eq!(
            resolve_below(
                &krate,
                Some(root.path()),
                "e1/x.jsonl",
                WhenAbsent::Skip,
                &mut notice
            ),
            None
        );
        let notice = String::from_utf8(notice).unwrap();
        assert_eq!(notice.lines().count(), 1, "{notice}");
        for part in [
            "absent_and_not_required_is_none_after_one_notice",
            "shared/data/upstream-sv/e1/x.jsonl",
            REQUIRE_VAR,
        ] {
            assert!(notice.contains(part), "{part} in {notice}");
        }
        let mut notice = Vec::new();
        assert_eq!(
            resolve_below(&krate, Some(root.path()), "", WhenAbsent::Skip, &mut notice),
            None
        );
        assert!(!notice.is_empty());
    }

    #[test]
    #[should_panic(expected = "SVBENCH_REQUIRE_UPSTREAM is set")]
    fn absent_and_required_panics() {
        let (root, krate) = lonely_crate();
        resolve_below(
            &krate,
            Some(root.path()),
            "",
            WhenAbsent::Fail,
            &mut Vec::new(),
        );
    }

    #[test]
    fn found_upward_and_a_missing_file_inside_it_is_absent_too() {
        let (root, krate) = lonely_crate();
        let data = root.path().join(REL_DIR);
        std::fs::create_dir_all(data.join("e1")).unwrap();
        std::fs::write(data.join("e1/x.jsonl"), "{}\n").unwrap();
        let mut notice = Vec::new();
        assert_eq!(
            resolve_below(&krate, Some(root.path()), "", WhenAbsent::Fail, &mut notice),
            Some(data.clone())
        );
        assert_eq!(
            resolve_below(
                &krate,
                Some(root.path()),
                "e1/x.jsonl",
                WhenAbsent::Fail,
                &mut notice
            ),
            Some(data.join("e1/x.jsonl"))
        );
        assert!(notice.is_empty(), "no notice when found");
        assert_eq!(
            resolve_below(
                &krate,
                Some(root.path()),
                "e1/y.jsonl",
                WhenAbsent::Skip,
                &mut notice
            ),
            None
        );
        assert!(!notice.is_empty());
        let missing = std::panic::catch_unwind(|| {
            resolve_below(
                &krate,
                Some(root.path()),
                "e1/y.jsonl",
                WhenAbsent::Fail,
                &mut Vec::new(),
            )
        });
        assert!(missing.is_err());
    }
}
