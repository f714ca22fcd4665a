//! `svbench data gen e2` through the real binary: the committed manifest
//! regenerates the committed corpus byte for byte (spec E2 §8.4, harness §1.2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn svbench(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run svbench")
}

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/e2")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_manifest_regenerates_the_committed_corpus_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = dataset_dir().join("manifest.json");
    let out = tmp.path().join("e2");
    let o = svbench(
        tmp.path(),
        &[
            "data",
            "gen",
            "e2",
            "--manifest",
            manifest.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for name in [
        "train.jsonl",
        "dev.jsonl",
        "test.jsonl",
        "manifest.json",
        "README.md",
    ] {
        let want = std::fs::read(dataset_dir().join(name)).unwrap();
        let got = std::fs::read(out.join(name)).unwrap();
        assert!(want == got, "{name} differs");
    }
    assert!(o.stdout.is_empty(), "data files only, nothing on stdout");
}

#[test]
fn one_split_to_stdout_and_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let o = svbench(
        tmp.path(),
        &[
            "data",
            "gen",
            "config-verification",
            "--split",
            "dev",
            "-n",
            "5",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r["meta"]["split"] == "dev"));

    let o = svbench(tmp.path(), &["data", "gen", "e2", "-n", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = svbench(tmp.path(), &["data", "gen", "e2", "--split", "ood"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
