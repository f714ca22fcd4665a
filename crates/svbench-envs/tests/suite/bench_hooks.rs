//! Every registered benchmark builds its workloads and measures them at the
//! smallest size, writing figure lines named by its environment.

use svbench_envs::kit::bench::BenchRequest;
use svbench_envs::registry::REGISTRY;

#[test]
fn every_bench_hook_runs_at_the_smallest_size() {
    let mut ran = 0;
    for entry in REGISTRY {
        let Some(bench) = entry.bench else {
            continue;
        };
        let mut lines = Vec::new();
        let req = BenchRequest {
            items: 1,
            large: 1,
            corpus: None,
        };
        (bench.run)(&req, &mut |line| {
            lines.push(line.to_string());
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", entry.name()));
        assert!(!lines.is_empty(), "{}: no figures", entry.name());
        let prefix = format!("{} ", entry.identity.short);
        for line in &lines {
            assert!(line.starts_with(&prefix), "{}: {line}", entry.name());
        }
        ran += 1;
    }
    assert!(ran >= 3, "{ran} benchmarks");
}

#[test]
fn a_closed_sink_stops_the_benchmark_with_its_error() {
    let e1 = svbench_envs::registry::find("e1").expect("e1");
    let bench = e1.bench.expect("e1 has a benchmark");
    let err = (bench.run)(
        &BenchRequest {
            items: 1,
            large: 0,
            corpus: None,
        },
        &mut |_| Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
    )
    .expect_err("the sink refused");
    assert!(matches!(
        err,
        svbench_envs::kit::bench::BenchError::Io(ref io) if io.kind() == std::io::ErrorKind::BrokenPipe
    ));
}

/// `--corpus` times the user's own mail: message files (whatever their
/// name) and mailboxes, files that are not messages counted as skipped.
#[test]
fn e4_times_a_corpus_of_the_user_s_mail() {
    let dir = tempfile::tempdir().unwrap();
    let msg = "From: Ana <ana@acme-corp.example>\nTo: team@acme-corp.example\nSubject: Notes\n\nThe notes are attached.\n";
    std::fs::write(dir.path().join("a.eml"), msg).unwrap();
    std::fs::write(dir.path().join("saved-without-extension"), msg).unwrap();
    std::fs::write(
        dir.path().join("box.mbox"),
        format!("From ana@acme-corp.example Tue Mar  4 09:12:44 2025\n{msg}\nFrom ana@acme-corp.example Tue Mar  4 10:12:44 2025\n{msg}"),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "Shopping list\nmilk\n").unwrap();
    let e4 = svbench_envs::registry::find("e4").expect("e4");
    let bench = e4.bench.expect("e4 has a benchmark");
    assert!(bench.corpus.is_some());
    let req = BenchRequest {
        items: 8,
        large: 0,
        corpus: Some(dir.path().to_path_buf()),
    };
    let mut lines = Vec::new();
    (bench.run)(&req, &mut |line| {
        lines.push(line.to_string());
        Ok(())
    })
    .expect("the corpus is timed");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0]
            .contains(": 8 emails (4 distinct messages from 4 files, 1 skipped as not messages")
            && lines[0].contains("emails/s on one core (parse, render, indicators)"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("e4 corpus, mean per email: parse "),
        "{}",
        lines[1]
    );
    // A folder with no message is an error, not a figure of nothing.
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.txt"), "no mail here\n").unwrap();
    let req = BenchRequest {
        corpus: Some(empty.path().to_path_buf()),
        ..req
    };
    assert!((bench.run)(&req, &mut |_| Ok(())).is_err());
}
