//! Ctrl-C mid-run leaves a valid, resumable `results.jsonl` (exit 130).

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

#[test]
fn sigint_leaves_a_resumable_run() {
    let sb = Sandbox::new();
    // A dataset large enough that the run is still going when we interrupt it.
    let n = 30_000;
    {
        let mut f =
            std::io::BufWriter::new(std::fs::File::create(sb.path().join("big.jsonl")).unwrap());
        for i in 0..n {
            let answer = if i % 2 == 0 { "Malicious" } else { "Benign" };
            writeln!(
                f,
                "{{\"id\":\"r{i}\",\"question\":\"tcp {i}→{}\",\"answer\":\"{answer}\"}}",
                i % 1000
            )
            .unwrap();
        }
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args([
            "eval",
            "e1",
            "--dataset",
            "big.jsonl",
            "--run-id",
            "int",
            "--no-progress",
        ])
        .current_dir(sb.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let results_path = sb
        .path()
        .join("outputs/evals/sv-env-network-logs--heuristic/int/results.jsonl");
    let start = Instant::now();
    while std::fs::metadata(&results_path)
        .map(|m| m.len())
        .unwrap_or(0)
        < 10_000
    {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "run never started writing"
        );
        if let Ok(Some(status)) = child.try_wait() {
            panic!("run finished before the interrupt: {status}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        eprintln!("notice: the run finished before SIGINT arrived; nothing to check");
        return;
    }
    assert_eq!(out.status.code(), Some(130), "stderr: {}", stderr(&out));
    let dir = results_path.parent().unwrap();
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["status"], "interrupted");
    let recs = results(dir);
    assert!(!recs.is_empty() && recs.len() < n, "{} records", recs.len());
    assert_eq!(
        meta["counts"]["completed"].as_u64().unwrap() as usize,
        recs.len()
    );

    let out = sb.run(&[
        "eval",
        "e1",
        "--resume",
        dir.to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = results(dir);
    assert_eq!(recs.len(), n, "resume finished exactly the missing samples");
    assert_eq!(read_json(&dir.join("metadata.json"))["status"], "completed");
}
