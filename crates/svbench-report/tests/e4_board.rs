//! The E4 scoreboard: entries from two hand-built runs (an indicators-like
//! run and an oracle-like one), merging, `--check`, the Markdown and the
//! oracle's upper-bound label.

mod common;

use std::path::{Path, PathBuf};

use common::e4::{e4_metadata, e4_record, item, metrics_vector, span, Row};
use common::write_run;
use serde_json::{json, Value};
use svbench_core::identity::{NETWORK_LOGS, PHISHING_DETECTION};
use svbench_core::scoreboard::{BoardEntry, E4Entry};
use svbench_report::scoreboard::{self, Board, ScoreboardError};

fn close(got: Option<f64>, want: f64, what: &str) {
    let g = got.unwrap_or_else(|| panic!("{what} is null"));
    assert!((g - want).abs() < 1e-12, "{what}: got {g}, want {want}");
}

fn run_metadata(model: &str, baseline_type: &str, run_id: &str, finished: &str) -> Value {
    let mut m = e4_metadata();
    let o = m.as_object_mut().expect("object");
    o.insert("model".into(), json!(model));
    o.insert("baseline_type".into(), json!(baseline_type));
    o.insert("run_id".into(), json!(run_id));
    o.insert("finished_at".into(), json!(finished));
    m
}

/// An oracle-like run: every email answered with its gold label at
/// confidence 1.0, quoting exactly its relevant gold span.
fn oracle_records() -> Vec<Value> {
    ["Phishing", "Legitimate", "Abstain", "Phishing"]
        .iter()
        .enumerate()
        .map(|(i, gold)| {
            // The span relevant to the gold label: the benign one for
            // Legitimate, the phishing one otherwise.
            let matched = usize::from(*gold == "Legitimate");
            let spans = vec![
                span(0, 4, "http", "url", "phish"),
                span(10, 14, "sign", "signature", "benign"),
            ];
            e4_record(
                i,
                &Row {
                    gold,
                    label: gold,
                    conf: Some(1.0),
                    gold_source: "annotated",
                    applicable: *gold != "Abstain",
                    family: "f",
                    difficulty: Some("easy"),
                    spans,
                    items: vec![item("valid", &[matched], Some((0, 4)))],
                    f1: (*gold != "Abstain").then_some(1.0),
                    question: "http urge sign and more text",
                },
            )
        })
        .collect()
}

/// `(indicators run, oracle run)` under `root`.
fn two_runs(root: &Path) -> (PathBuf, PathBuf) {
    let indicators = write_run(
        root,
        "indicators",
        &run_metadata(
            "builtin:indicators",
            "indicators",
            "run-indicators",
            "2025-01-01T00:01:00.000Z",
        ),
        &metrics_vector(),
    );
    let oracle = write_run(
        root,
        "oracle",
        &run_metadata(
            "builtin:oracle",
            "oracle",
            "run-oracle",
            "2025-01-03T00:00:00.000Z",
        ),
        &oracle_records(),
    );
    (indicators, oracle)
}

fn e4(e: &BoardEntry) -> E4Entry {
    scoreboard::typed(e).unwrap_or_else(|| panic!("not an E4 entry: {e:?}"))
}

/// E4's board, as the registry's plugin gives it.
fn e4_board() -> Board {
    Board::of(
        &PHISHING_DETECTION,
        common::plugins(PHISHING_DETECTION.name).expect("plugin").1,
    )
    .expect("E4 has a board")
}

/// E1's board.
fn e1_board() -> Board {
    Board::of(
        &NETWORK_LOGS,
        common::plugins(NETWORK_LOGS.name).expect("plugin").1,
    )
    .expect("E1 has a board")
}

#[test]
fn e4_board_is_named_by_its_short_id() {
    assert_eq!(e4_board().short(), "e4");
    assert!(e4_board()
        .json_path(Path::new("d"))
        .ends_with("e4_scoreboard.json"));
}

#[test]
fn entries_carry_e4_headline_values_and_label_the_oracle() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (ind, ora) = two_runs(tmp.path());
    let entries = scoreboard::entries(e4_board(), &[ora, ind], common::plugins).expect("entries");
    let board = scoreboard::merge(Vec::new(), entries);
    assert_eq!(board.len(), 2);

    // Sorted by baseline: indicators before oracle.
    let i = e4(&board[0]);
    assert_eq!(i.baseline, "builtin:indicators");
    assert_eq!(i.n, 11);
    assert_eq!(i.policy_label, None);
    // The hand-computed vector of e4_metrics: TP 1, FN 1 + invalid 1, FP 1, TN 2.
    close(i.f1, 0.4, "f1");
    close(i.precision, 0.5, "precision");
    close(i.recall_strict, 0.25, "recall_strict");
    close(i.fpr, 1.0 / 3.0, "fpr");
    close(i.accuracy, 4.0 / 11.0, "accuracy");
    close(i.abstain_rate, 3.0 / 11.0, "abstain_rate");
    close(
        i.common.parse_failure_rate,
        1.0 / 11.0,
        "parse_failure_rate",
    );
    close(i.common.error_rate, 0.0, "error_rate");
    assert!(i.evidence_f1.is_some() && i.ece.is_some() && i.expected_cost_v1.is_some());
    let keys: Vec<&str> = i.common.ci95.keys().map(String::as_str).collect();
    assert_eq!(keys, ["accuracy", "evidence_f1", "f1"]);

    let o = e4(&board[1]);
    assert_eq!(o.baseline, "builtin:oracle");
    assert_eq!(o.policy_label.as_deref(), Some("oracle (upper bound)"));
    for (v, what) in [
        (o.f1, "f1"),
        (o.precision, "precision"),
        (o.recall_strict, "recall_strict"),
        (o.accuracy, "accuracy"),
        (o.evidence_f1, "evidence_f1"),
    ] {
        close(v, 1.0, what);
    }
    close(o.fpr, 0.0, "fpr");

    // report.md says so too, as it does for an E2 oracle.
    let opts = svbench_report::ReportOptions {
        timestamp: Some(common::TS.to_string()),
        no_plots: true,
        ..svbench_report::ReportOptions::new(common::plugins)
    };
    let md = |dir: &Path| {
        svbench_report::build_report(dir, &opts)
            .expect("report")
            .report_md
    };
    assert!(md(&tmp.path().join("oracle"))
        .contains("> **oracle (upper bound)**: this run answers with the oracle itself."));
    assert!(!md(&tmp.path().join("indicators")).contains("upper bound"));
    close(o.expected_cost_v1, 0.0, "expected_cost_v1");
}

#[test]
fn board_files_merge_check_and_render() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (ind, ora) = two_runs(tmp.path());
    let out = tmp.path().join("boards");
    scoreboard::update(
        e4_board(),
        &[ind.clone(), ora.clone()],
        &out,
        common::plugins,
    )
    .expect("update");
    let json = std::fs::read_to_string(e4_board().json_path(&out)).expect("json");
    let md = std::fs::read_to_string(e4_board().md_path(&out)).expect("md");

    // Input order does not change the bytes.
    let other = tmp.path().join("boards2");
    scoreboard::update(
        e4_board(),
        &[ora.clone(), ind.clone()],
        &other,
        common::plugins,
    )
    .expect("update");
    assert_eq!(
        std::fs::read_to_string(e4_board().json_path(&other)).expect("json"),
        json
    );

    // Updating with one run keeps the other's entry as an E4 entry.
    scoreboard::update(
        e4_board(),
        std::slice::from_ref(&ind),
        &out,
        common::plugins,
    )
    .expect("re-update");
    assert_eq!(
        std::fs::read_to_string(e4_board().json_path(&out)).expect("json"),
        json
    );
    assert!(scoreboard::check(
        e4_board(),
        &[ind.clone(), ora.clone()],
        &out,
        common::plugins
    )
    .expect("check")
    .is_empty());

    // A hand edit is caught.
    let edited = json.replacen("\"recall_strict\": 1.0", "\"recall_strict\": 0.9", 1);
    assert_ne!(edited, json, "the oracle's recall_strict is written as 1.0");
    std::fs::write(e4_board().json_path(&out), edited).expect("edit");
    let diffs = scoreboard::check(e4_board(), &[ind, ora], &out, common::plugins).expect("check");
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert!(
        diffs[0].contains("run-oracle") && diffs[0].contains("recall_strict"),
        "{diffs:?}"
    );

    assert!(md.starts_with("# E4 scoreboard\n"), "{md}");
    assert!(
        md.contains("Latest run finished 2025-01-03T00:00:00.000Z."),
        "{md}"
    );
    assert!(
        md.contains("| builtin:indicators | builtin:indicators | embedded | 11 | 0.400 | ["),
        "{md}"
    );
    assert!(
        md.contains("| builtin:oracle — **oracle (upper bound)** | builtin:oracle |"),
        "{md}"
    );
    assert!(md.contains("it is not a baseline"), "{md}");
    assert!(!md.contains("NaN") && !md.contains("inf"), "{md}");
}

#[test]
fn e4_board_refuses_other_runs_and_other_boards() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (ind, _) = two_runs(tmp.path());
    let e1 = write_run(
        tmp.path(),
        "e1",
        &common::metadata("v1"),
        &common::sample_records(),
    );
    let err = scoreboard::entries(e4_board(), std::slice::from_ref(&e1), common::plugins)
        .expect_err("an E1 run");
    assert!(
        matches!(err, ScoreboardError::WrongEnvironment { .. }),
        "{err}"
    );
    let err = scoreboard::entries(e1_board(), std::slice::from_ref(&ind), common::plugins)
        .expect_err("an E4 run");
    assert!(
        matches!(err, ScoreboardError::WrongEnvironment { .. }),
        "{err}"
    );

    // An E1 board's file given as the E4 board is a bad file, not rewritten.
    let out = tmp.path().join("boards");
    scoreboard::update(e1_board(), &[e1], &out, common::plugins).expect("e1 board");
    std::fs::rename(e1_board().json_path(&out), e4_board().json_path(&out)).expect("rename");
    let err =
        scoreboard::update(e4_board(), &[ind], &out, common::plugins).expect_err("mixed board");
    assert!(matches!(err, ScoreboardError::BadFile { .. }), "{err}");
    assert!(err.to_string().contains("not an e4 entry"), "{err}");
}
