//! E1 dataset loading (E1 §1.2–1.5, §8.6.3; harness §0, §9.2).

use std::path::PathBuf;

use svbench_envs::e1::dataset::{
    load, normalize_gold, DatasetSpec, SelectionRequest, SplitRequest,
};
use svbench_envs::e1::Gold;

fn all() -> SelectionRequest {
    SelectionRequest {
        max_examples: None,
        shuffle: false,
        seed: 42,
    }
}

fn file(text: &str) -> (tempfile::TempDir, DatasetSpec) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl");
    std::fs::write(&path, text).unwrap();
    (dir, DatasetSpec::File(path))
}

#[test]
fn gold_normalisation_is_strict() {
    use serde_json::json;
    assert_eq!(normalize_gold(&json!(" malicious\t")), Ok(Gold::Malicious));
    assert_eq!(normalize_gold(&json!("BENIGN")), Ok(Gold::Benign));
    assert_eq!(normalize_gold(&json!(true)), Ok(Gold::Malicious));
    assert_eq!(normalize_gold(&json!(false)), Ok(Gold::Benign));
    assert_eq!(normalize_gold(&json!(1)), Ok(Gold::Malicious));
    assert_eq!(normalize_gold(&json!(0)), Ok(Gold::Benign));
    for bad in [
        json!(2),
        json!(-1),
        json!(1.0),
        json!(null),
        json!("Abstain"),
        json!("mal"),
        json!([1]),
    ] {
        assert!(normalize_gold(&bad).is_err(), "{bad}");
    }
}

#[test]
fn bad_gold_names_its_line() {
    for bad in ["2", "\"Abstain\"", "null"] {
        let (_d, spec) = file(&format!(
            "{{\"question\":\"a\",\"answer\":\"Benign\"}}\n{{\"question\":\"b\",\"answer\":{bad}}}\n"
        ));
        let err = load(&spec, &SplitRequest(None), &all())
            .unwrap_err()
            .to_string();
        assert!(err.contains("rows.jsonl:2:"), "{err}");
    }
}

#[test]
fn missing_file_and_empty_split_are_errors() {
    let spec = DatasetSpec::File(PathBuf::from("/nonexistent/e1.jsonl"));
    let err = load(&spec, &SplitRequest(None), &all())
        .unwrap_err()
        .to_string();
    assert!(err.contains("/nonexistent/e1.jsonl"), "{err}");

    let (_d, spec) =
        file("{\"question\":\"a\",\"answer\":\"Benign\",\"meta\":{\"split\":\"train\"}}\n");
    let err = load(&spec, &SplitRequest(None), &all())
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("no rows in split `test`; the file has: train (1)"),
        "{err}"
    );
    let err = load(&spec, &SplitRequest(Some("bogus".into())), &all())
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown split"), "{err}");
}

#[test]
fn splits_filter_and_default_to_test() {
    let (_d, spec) = file(
        "{\"question\":\"a\",\"answer\":\"Benign\",\"meta\":{\"split\":\"train\"}}\n\
         {\"question\":\"b\",\"answer\":\"Malicious\",\"meta\":{\"split\":\"test\"}}\n\
         {\"question\":\"c\",\"answer\":\"Benign\",\"split\":\"test\"}\n",
    );
    let d = load(&spec, &SplitRequest(None), &all()).unwrap();
    assert_eq!(d.provenance.split, "test");
    assert_eq!(d.examples.len(), 2);
    assert_eq!(d.gold, vec![Gold::Malicious, Gold::Benign]);
    let d = load(&spec, &SplitRequest(Some("all".into())), &all()).unwrap();
    assert_eq!(d.examples.len(), 3);
    assert_eq!(d.provenance.split_rows, 3);
}

#[test]
fn hashes_ignore_key_order_and_whitespace_and_ids_deduplicate() {
    let (_a, spec_a) = file(
        "{\"question\":\"q\u{2192}1\",\"answer\":\"Benign\",\"meta\":{\"hash\":\"h\",\"split\":\"test\"}}\n\
         {\"question\":\"q2\",\"answer\":\"Benign\",\"meta\":{\"hash\":\"h\",\"split\":\"test\"}}\n",
    );
    let (_b, spec_b) = file(
        "{ \"meta\" : {\"split\":\"test\",\"hash\":\"h\"}, \"answer\":\"Benign\", \"question\":\"q\\u2192\x31\" }\n\n\
         {\"answer\":\"Benign\",\"meta\":{\"split\":\"test\",\"hash\":\"h\"},\"question\":\"q2\"}\n",
    );
    let a = load(&spec_a, &SplitRequest(None), &all()).unwrap();
    let b = load(&spec_b, &SplitRequest(None), &all()).unwrap();
    assert_eq!(a.provenance.dataset_sha256, b.provenance.dataset_sha256);
    assert_eq!(a.provenance.selected_sha256, b.provenance.selected_sha256);
    assert_ne!(a.provenance.file_sha256, b.provenance.file_sha256);
    assert_eq!(
        a.examples[0].question, "q→1",
        "escaped and raw UTF-8 read alike"
    );
    assert_eq!(a.examples[0].id, "h");
    assert_eq!(a.examples[1].id, "h~1");
    assert_eq!(a.provenance.warnings.len(), 1);
}

#[test]
fn selection_truncates_and_shuffles_deterministically() {
    let rows: String = (0..50)
        .map(|i| format!("{{\"id\":\"r{i}\",\"question\":\"q{i}\",\"answer\":\"Benign\"}}\n"))
        .collect();
    let (_d, spec) = file(&rows);
    let first = load(
        &spec,
        &SplitRequest(None),
        &SelectionRequest {
            max_examples: Some(5),
            shuffle: false,
            seed: 1,
        },
    )
    .unwrap();
    let ids: Vec<_> = first.examples.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["r0", "r1", "r2", "r3", "r4"]);
    let shuffled = |seed| {
        load(
            &spec,
            &SplitRequest(None),
            &SelectionRequest {
                max_examples: Some(5),
                shuffle: true,
                seed,
            },
        )
        .unwrap()
    };
    assert_eq!(
        shuffled(3).provenance.selected_sha256,
        shuffled(3).provenance.selected_sha256
    );
    assert_ne!(
        shuffled(3).provenance.selected_sha256,
        shuffled(4).provenance.selected_sha256
    );
    assert_eq!(
        shuffled(3).provenance.dataset_sha256,
        first.provenance.dataset_sha256
    );
    let s = shuffled(3);
    for (i, e) in s.examples.iter().enumerate() {
        assert_eq!(e.index, i);
    }
}

#[test]
fn embedded_set_loads_every_split() {
    for (split, n) in [("train", 240), ("dev", 40), ("test", 80), ("ood", 80)] {
        let d = load(
            &DatasetSpec::Embedded,
            &SplitRequest(Some(split.into())),
            &all(),
        )
        .unwrap();
        assert_eq!(d.examples.len(), n, "{split}");
        assert!(d.provenance.file_sha256.is_none());
        assert!(d.provenance.warnings.is_empty());
    }
    let d = load(&DatasetSpec::Embedded, &SplitRequest(None), &all()).unwrap();
    assert_eq!(d.provenance.split, "test");
}

#[test]
fn synthetic_spec_matches_the_generator() {
    let spec = DatasetSpec::parse("synthetic:9:12").unwrap();
    let d = load(&spec, &SplitRequest(Some("dev".into())), &all()).unwrap();
    assert_eq!(d.examples.len(), 12);
    assert!(d.examples.iter().all(|e| e.split.as_deref() == Some("dev")));
    for bad in [
        "synthetic:x:1",
        "synthetic:1:0",
        "synthetic:1",
        "embedded:nope",
    ] {
        assert!(DatasetSpec::parse(bad).is_err(), "{bad}");
    }
    let err = load(&spec, &SplitRequest(Some("all".into())), &all()).unwrap_err();
    assert!(err.to_string().contains("one split"));
}

/// A loader error's text.
fn load_err(text: &str) -> String {
    let (_d, spec) = file(text);
    load(&spec, &SplitRequest(None), &all())
        .expect_err("the file is refused")
        .to_string()
}

#[test]
fn a_bom_before_line_1_is_stripped() {
    let rows = "\u{feff}{\"id\":\"a\",\"question\":\"q\",\"answer\":\"Benign\"}\n\
                {\"id\":\"b\",\"question\":\"q2\",\"answer\":\"Malicious\"}\n";
    let (_d, spec) = file(rows);
    let with_bom = load(&spec, &SplitRequest(None), &all()).expect("a BOM is accepted");
    let (_d2, spec2) = file(rows.trim_start_matches('\u{feff}'));
    let without = load(&spec2, &SplitRequest(None), &all()).unwrap();
    assert_eq!(with_bom.examples[0].id, "a");
    assert_eq!(
        with_bom.provenance.dataset_sha256,
        without.provenance.dataset_sha256
    );
}

#[test]
fn wrong_typed_split_and_repeated_keys_name_the_line() {
    let msg = load_err(
        "{\"question\":\"q\",\"answer\":\"Benign\",\"meta\":{\"split\":\"test\"}}\n\
         {\"question\":\"q2\",\"answer\":\"Benign\",\"meta\":{\"split\":7}}\n",
    );
    assert!(msg.contains(":2:"), "{msg}");
    assert!(
        msg.contains("`meta.split` has the wrong type") && msg.contains("a number (7)"),
        "{msg}"
    );
    let msg = load_err(
        "{\"question\":\"q\",\"answer\":\"Benign\"}\n\
         {\"question\":\"q2\",\"answer\":\"Benign\",\"answer\":\"Malicious\"}\n",
    );
    assert!(
        msg.contains(":2:") && msg.contains("duplicate key `answer`"),
        "{msg}"
    );
    let msg = load_err("{\"question\":\"q\",\"answer\":\"Benign\",\"meta\":{\"a\":1,\"a\":2}}\n");
    assert!(
        msg.contains(":1:") && msg.contains("duplicate key `a`"),
        "{msg}"
    );
}

/// `open` (rows kept on disk, examples built on demand) hands out exactly
/// the examples `load` builds, for files, generated rows and the embedded
/// set, with selection, shuffling and repeated ids.
#[test]
fn examples_built_on_demand_equal_the_eager_load() {
    use svbench_core::ExampleSet;
    use svbench_envs::e1::dataset::open;
    let rows = "\u{feff}{\"id\":\"x\",\"question\":\"q1\",\"answer\":\"Benign\",\"meta\":{\"split\":\"test\"}}\r\n\
                \n\
                {\"id\":\"x\",\"question\":\"q2 é\",\"answer\":1,\"meta\":{\"split\":\"test\",\"k\":[1,2]}}\n\
                {\"question\":\"q3\",\"answer\":false,\"meta\":{\"split\":\"dev\"}}\n\
                {\"question\":\"q4\",\"answer\":\"malicious\",\"meta\":{\"split\":\"test\"}}";
    let (_d, file_spec) = file(rows);
    let specs = [
        (file_spec, None),
        (DatasetSpec::Synthetic { seed: 3, n: 40 }, Some("dev")),
        (DatasetSpec::Embedded, Some("ood")),
        (DatasetSpec::Embedded, Some("all")),
    ];
    for (spec, split) in specs {
        for (shuffle, max_examples) in [
            (false, None),
            (true, None),
            (true, Some(2)),
            (false, Some(1)),
        ] {
            let selection = SelectionRequest {
                max_examples,
                shuffle,
                seed: 9,
            };
            let split = SplitRequest(split.map(str::to_string));
            let eager = load(&spec, &split, &selection).unwrap();
            let lazy = open(&spec, &split, &selection).unwrap();
            let what = format!("{spec:?} {split:?} {selection:?}");
            assert_eq!(lazy.len(), eager.examples.len(), "{what}");
            assert_eq!(lazy.gold(), eager.gold.as_slice(), "{what}");
            assert_eq!(
                lazy.provenance.selected_sha256, eager.provenance.selected_sha256,
                "{what}"
            );
            assert_eq!(
                lazy.provenance.dataset_sha256, eager.provenance.dataset_sha256,
                "{what}"
            );
            for (i, e) in eager.examples.iter().enumerate() {
                let l = lazy.example(i).unwrap();
                assert_eq!(lazy.id(i), e.id, "{what}");
                assert_eq!(
                    (
                        l.index,
                        &l.id,
                        &l.split,
                        &l.question,
                        &l.answer,
                        l.info.get()
                    ),
                    (i, &e.id, &e.split, &e.question, &e.answer, e.info.get()),
                    "{what}"
                );
            }
        }
    }
}

/// The file is read once: rows spooled at open stay what the hashes say even
/// if the file is rewritten during the run.
#[test]
fn rows_do_not_change_when_the_file_does() {
    use svbench_core::ExampleSet;
    use svbench_envs::e1::dataset::open;
    let (_d, spec) = file(
        "{\"question\":\"first\",\"answer\":\"Benign\"}\n{\"question\":\"second\",\"answer\":\"Malicious\"}\n",
    );
    let lazy = open(&spec, &SplitRequest(None), &all()).unwrap();
    let DatasetSpec::File(path) = &spec else {
        unreachable!()
    };
    std::fs::write(path, "{\"question\":\"other\",\"answer\":\"Benign\"}\n").unwrap();
    assert_eq!(lazy.example(1).unwrap().question, "second");
    assert_eq!(lazy.example(0).unwrap().question, "first");
}

/// Line numbers of a spooled file count blank lines and CRLF endings.
#[test]
fn errors_after_blank_lines_name_the_source_line() {
    let err = load_err(
        "\r\n{\"question\":\"a\",\"answer\":\"Benign\"}\r\n\r\n  \n{\"question\":\"b\"}\r\n",
    );
    assert!(err.contains("rows.jsonl:5:"), "{err}");
    assert!(err.contains("answer"), "{err}");
}
