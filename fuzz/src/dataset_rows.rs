//! Dataset row parsing: a JSONL file as `eval --dataset FILE` reads it, by
//! E1's loader (from a file, as the CLI does) and E2's (from text).
//!
//! Input: the file's bytes.
//!
//! Invariants: no panic; a loaded dataset is non-empty, its example ids are
//! unique and its indices are positions, every E1 gold label is one of the
//! two classes, hashes are 64 hex digits; a row error names a line of the
//! file.

use std::path::PathBuf;
use std::sync::OnceLock;

use svbench_core::example::DatasetError;
use svbench_core::Example;
use svbench_envs::e1::dataset as e1;
use svbench_envs::e2::dataset as e2;

/// A file of this process for E1's loader, which reads paths.
fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("svbench-fuzz-rows-{}.jsonl", std::process::id()))
    })
}

/// One input: a JSONL file.
pub fn run(data: &[u8]) {
    let last_line = data.iter().filter(|b| **b == b'\n').count() + 2;

    let path = scratch();
    std::fs::write(path, data).expect("scratch file writable");
    let loaded = e1::load(
        &e1::DatasetSpec::File(path.clone()),
        &e1::SplitRequest(None),
        &e1::SelectionRequest {
            max_examples: None,
            shuffle: false,
            seed: 42,
        },
    );
    match loaded {
        Ok(d) => {
            check_examples(&d.examples);
            assert_eq!(d.gold.len(), d.examples.len());
            check_hash(&d.provenance.dataset_sha256);
            check_hash(&d.provenance.selected_sha256);
        }
        Err(e) => check_error(&e, last_line),
    }

    let Some(text) = crate::utf8(data) else {
        return;
    };
    for split in [None, Some("all")] {
        match e2::load_text(text, PathBuf::from("rows.jsonl"), split) {
            Ok(d) => {
                check_examples(&d.examples);
                assert_eq!(d.provenance.split_rows, d.examples.len());
                check_hash(&d.provenance.dataset_sha256);
            }
            Err(e) => check_error(&e, last_line),
        }
    }
}

fn check_examples(examples: &[Example]) {
    assert!(!examples.is_empty(), "loaded an empty dataset");
    let mut ids = std::collections::BTreeSet::new();
    for (i, ex) in examples.iter().enumerate() {
        assert_eq!(ex.index, i, "example index is not its position");
        assert!(
            ids.insert(ex.id.as_str()),
            "duplicate example id {:?}",
            ex.id
        );
        assert!(ex.info_value().is_object(), "row metadata is not an object");
    }
}

fn check_hash(h: &str) {
    assert!(
        h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()),
        "bad hash {h:?}"
    );
}

fn check_error(e: &DatasetError, last_line: usize) {
    if let DatasetError::Row { line, .. } = e {
        assert!(
            (1..=last_line).contains(line),
            "row error at line {line} of a {last_line}-line file: {e}"
        );
    }
}
