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
