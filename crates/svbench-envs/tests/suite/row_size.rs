//! Dataset rows have a maximum size: a row (one line) longer than the
//! limit is refused with an error naming the file, the line and the limit,
//! after reading no more of it than the limit — whatever precedes it.

use std::io::Write;

use svbench_core::example::DatasetError;
use svbench_envs::e1::dataset::{DatasetSpec, SelectionRequest, SplitRequest, FORMAT};
use svbench_envs::kit::rows::{self, RowFormat, MAX_ROW_BYTES};

fn committed_rows() -> Vec<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/e1/test.jsonl");
    std::fs::read_to_string(path)
        .expect("committed rows")
        .lines()
        .map(str::to_string)
        .collect()
}

/// A row of `bytes` bytes: a committed row with `meta.pad` filling it up.
fn row_of(bytes: usize, template: &str) -> String {
    let mut row: serde_json::Value = serde_json::from_str(template).expect("row");
    row["meta"]["pad"] = serde_json::Value::from("");
    let base = row.to_string().len();
    row["meta"]["pad"] = serde_json::Value::from("x".repeat(bytes - base));
    let text = row.to_string();
    assert_eq!(text.len(), bytes);
    text
}

#[test]
fn a_row_over_the_limit_is_named_by_file_and_line_after_many_good_rows() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("rows.jsonl");
    let good = committed_rows();
    let limit = 4096;
    let format = RowFormat {
        max_row_bytes: limit,
        ..FORMAT
    };
    let open = |path: &std::path::Path| {
        rows::open(
            &format,
            &DatasetSpec::File(path.to_path_buf()),
            &SplitRequest(Some("all".into())),
            &SelectionRequest {
                max_examples: None,
                shuffle: false,
                seed: 0,
            },
        )
    };
    // 2,000 good rows, one exactly at the limit, then one byte over it.
    let mut file = std::fs::File::create(&path).expect("create");
    for i in 0..2000 {
        writeln!(file, "{}", good[i % good.len()]).expect("write");
    }
    writeln!(file, "{}", row_of(limit, &good[0])).expect("write");
    file.flush().expect("flush");
    let ok = open(&path).expect("a row at the limit loads");
    assert_eq!(ok.provenance.split_rows, 2001);
    writeln!(file, "{}", row_of(limit + 1, &good[1])).expect("write");
    drop(file);
    let e = open(&path).unwrap_err();
    let DatasetError::Row {
        path: p,
        line,
        message,
    } = &e
    else {
        panic!("not a row error: {e}");
    };
    assert_eq!((p, *line), (&path, 2002), "{e}");
    assert!(message.contains("maximum row size of 4 KiB"), "{e}");
    assert!(e.to_string().contains("rows.jsonl:2002"), "{e}");
}

#[test]
fn the_default_limit_is_16_mib() {
    assert_eq!(MAX_ROW_BYTES, 16 << 20);
    assert_eq!(FORMAT.max_row_bytes, MAX_ROW_BYTES);
}

#[test]
fn an_e2_file_with_a_row_over_the_limit_is_named_by_file_and_line() {
    use svbench_envs::e2::dataset::{load, DatasetSpec as E2Spec};
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("e2.jsonl");
    let good = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/e2/test.jsonl"),
    )
    .expect("committed rows");
    let good: Vec<&str> = good.lines().take(50).collect();
    let mut file = std::fs::File::create(&path).expect("create");
    for row in &good {
        writeln!(file, "{row}").expect("write");
    }
    file.flush().expect("flush");
    assert_eq!(
        load(&E2Spec::File(path.clone()), Some("all"))
            .expect("good rows load")
            .examples
            .len(),
        good.len()
    );
    // One line a byte over the limit (no newline inside): refused by number.
    let mut long = String::with_capacity(MAX_ROW_BYTES + 2);
    long.push_str("{\"question\": \"");
    long.push_str(&"x".repeat(MAX_ROW_BYTES + 1 - long.len() - 2));
    long.push_str("\"}");
    assert_eq!(long.len(), MAX_ROW_BYTES + 1);
    writeln!(file, "{long}").expect("write");
    drop(file);
    let e = load(&E2Spec::File(path.clone()), Some("all")).unwrap_err();
    let DatasetError::Row { line, message, .. } = &e else {
        panic!("not a row error: {e}");
    };
    assert_eq!(*line, good.len() + 1, "{e}");
    assert!(message.contains("maximum row size of 16 MiB"), "{e}");
}
