//! `svbench bench`: environments' benchmarks come from the registry.

use std::process::{Command, Output};

fn svbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run svbench")
}

#[test]
fn an_environment_benchmark_prints_its_figures() {
    let o = svbench(&["bench", "config-verification", "--completions", "1"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8(o.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text.lines().all(|l| l.starts_with("e2 score ")), "{text}");
}

#[test]
fn an_unknown_benchmark_lists_the_registry_s_and_the_others() {
    let o = svbench(&["bench", "e3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("no benchmark for `e3` in this build (available: e1, e2, e4, scan, serve)"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = svbench(&["bench", "e4", "--completions", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

/// An environment with whole-stack hooks gets the rollout and report
/// benchmarks too, named by its id.
#[test]
fn a_whole_stack_benchmark_runs_rollouts_and_the_report() {
    let o = svbench(&[
        "bench",
        "network-logs",
        "--completions",
        "3",
        "--records",
        "3",
        "--rollouts",
        "3",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8(o.stdout).expect("utf-8");
    let starts: Vec<&str> = text
        .lines()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        starts,
        [
            "e1 rollouts",
            "e1 scoring (v1)",
            "e1 scoring (upstream)",
            "e1 report"
        ],
        "{text}"
    );
    assert!(
        text.starts_with(
            "e1 rollouts: 3 single-turn rollouts against the fake endpoint at concurrency 64 in "
        ),
        "{text}"
    );
}

/// `--large` (or an environment's former name for it) sets the large
/// inputs; an environment without any refuses it.
#[test]
fn large_inputs_are_the_environment_s_own() {
    for flag in ["--large", "--large-emails"] {
        let o = svbench(&["bench", "e4", "--completions", "1", flag, "1"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8(o.stdout).expect("utf-8");
        assert!(
            text.lines()
                .any(|l| l.starts_with("e4 1 MB emails: 1 emails")),
            "{flag}: {text}"
        );
    }
    let o = svbench(&["bench", "e2", "--completions", "1", "--large", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("`e2`'s benchmark has no large inputs: drop --large"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `--corpus` times the user's own inputs where the environment can; an
/// environment that cannot refuses it.
#[test]
fn a_corpus_is_timed_by_the_environment_that_reads_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("a.eml"),
        "From: Ana <ana@acme-corp.example>\nSubject: Notes\n\nThe notes are attached.\n",
    )
    .expect("write");
    let corpus = dir.path().to_str().expect("utf-8 path");
    let o = svbench(&[
        "bench",
        "e4",
        "--completions",
        "2",
        "--large",
        "0",
        "--corpus",
        corpus,
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("e4 corpus ")
                && l.contains("2 emails (1 distinct messages from 1 files")),
        "{text}"
    );
    let o = svbench(&["bench", "e2", "--completions", "1", "--corpus", corpus]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("drop --corpus"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
