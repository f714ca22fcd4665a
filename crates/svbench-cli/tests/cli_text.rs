//! The CLI's texts as reviewed snapshots (tests/snapshots/, docs/testing.md):
//! `--help` of the binary and of every subcommand, found by walking the
//! `Commands:` lists so that a new subcommand cannot go without one, and
//! the messages of common usage and data errors with their exit codes.

mod common;

use common::*;

/// The subcommands a help text lists under `Commands:`, `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        // Entries are indented by two spaces, wrapped descriptions by more.
        .filter_map(|l| l.strip_prefix("  ").filter(|rest| !rest.starts_with(' ')))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn help_texts() {
    let sb = Sandbox::new();
    let mut queue: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = queue.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        // No terminal here; a fixed width makes the wrapping reproducible.
        let out = sb
            .command(&args)
            .env("COLUMNS", "100")
            .output()
            .expect("run svbench");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
        let help = stdout(&out);
        let name = if path.is_empty() {
            // `bench` is listed only in a build with the `bench` feature
            // (CI's); each build checks its own list.
            if cfg!(feature = "bench") {
                "help".to_owned()
            } else {
                "help_without_bench".to_owned()
            }
        } else {
            format!("help_{}", path.join("_"))
        };
        insta::assert_snapshot!(name, help);
        seen += 1;
        for sub in subcommands(&help) {
            let mut next = path.clone();
            next.push(sub);
            queue.push(next);
        }
    }
    // The walk reached the subcommands (eval, report, data gen, ...).
    assert!(seen > 10, "{seen} help texts");
}

/// `svbench bench` exists only in a build with the `bench` feature (it runs
/// the fake endpoint, which the shipped binary leaves out).
#[test]
fn bench_exists_only_with_its_feature() {
    let sb = Sandbox::new();
    let out = sb.run(&["bench", "nope"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let expected = if cfg!(feature = "bench") {
        "no benchmark for `nope` in this build"
    } else {
        "unrecognized subcommand 'bench'"
    };
    assert!(stderr(&out).contains(expected), "{}", stderr(&out));
}

/// Exit code and stderr of a failing run, the sandbox path made `[SANDBOX]`.
fn failure(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.run(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_eq!(stdout(&out), "", "{args:?}");
    let text = format!("exit code: {:?}\n{}", out.status.code(), stderr(&out));
    text.replace(&sb.path().display().to_string(), "[SANDBOX]")
}

#[test]
fn usage_and_data_errors() {
    let sb = Sandbox::new();
    sb.write(
        "bad.jsonl",
        "{\"question\":\"x\",\"answer\":\"Benign\"}\n{not json\n",
    );
    for (name, args) in [
        ("unknown_environment", &["eval", "e9"][..]),
        ("bad_split", &["eval", "e1", "--split", "nope"]),
        (
            "unknown_builtin",
            &["eval", "e1", "--model", "builtin:nope"],
        ),
        ("e2_without_model", &["eval", "e2"]),
        (
            "malformed_dataset_row",
            &["eval", "e1", "--dataset", "bad.jsonl", "--split", "all"],
        ),
    ] {
        insta::assert_snapshot!(name, failure(&sb, args));
    }
    // None of them got as far as a run directory.
    assert!(!sb.path().join("outputs").exists());
}
