//! Helpers for CLI integration tests: run the real binary in a temp dir.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch directory in which `svbench` runs.
#[derive(Debug)]
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
}

impl Sandbox {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `svbench ARGS` with the sandbox as working directory, to run.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_svbench"));
        command
            .args(args)
            .current_dir(self.path())
            .env("NO_COLOR", "1");
        command
    }

    /// Runs `svbench ARGS` with the sandbox as working directory.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run svbench")
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Reads results.jsonl as JSON values.
pub fn results(run_dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(run_dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Question → gold label of an embedded E1 split.
pub fn e1_gold_by_question(split: &str) -> std::collections::HashMap<String, String> {
    use svbench_envs::e1::dataset::{load, DatasetSpec, SelectionRequest, SplitRequest};
    let d = load(
        &DatasetSpec::Embedded,
        &SplitRequest(Some(split.into())),
        &SelectionRequest {
            max_examples: None,
            shuffle: false,
            seed: 0,
        },
    )
    .expect("the embedded E1 split loads");
    d.examples
        .iter()
        .map(|e| {
            (
                e.question.clone(),
                e.answer.as_str().expect("a label").to_string(),
            )
        })
        .collect()
}
