//! End-to-end report generation over hand-built run directories.

mod common;

use common::{e1_record, errored_record, metadata, redact_version, sample_records, write_run, TS};
use serde_json::{json, Value};
use svbench_core::metrics::BootstrapConfig;
use svbench_report::{build_report, check_run, report_run, ReportError, ReportOptions};

fn opts() -> ReportOptions {
    ReportOptions {
        timestamp: Some(TS.to_string()),
        bootstrap: Some(BootstrapConfig {
            resamples: 200,
            seed: 1234,
        }),
        ..ReportOptions::new(common::plugins)
    }
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

#[test]
fn writes_summary_and_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let out = report_run(&dir, &opts()).expect("report");
    // report.html beside the summary: every sample, the plots inlined.
    let html = std::fs::read_to_string(&out.html_path).expect("report.html written");
    assert_eq!(out.html_path, dir.join("report.html"));
    assert!(
        html.contains("ex000") && html.contains("ex007"),
        "every sample"
    );
    assert!(html.contains("<svg"), "plots inlined");
    let summary_path = out.summary_path.expect("summary written");
    let s = read_json(&summary_path);

    // Upstream fields.
    assert_eq!(s["environment"], "sv-env-network-logs");
    assert_eq!(s["version"], "0.1.0");
    assert_eq!(s["timestamp"], TS);
    assert_eq!(s["n_examples"], 8);
    assert_eq!(s["metadata"]["git_sha"], "abc1234");
    assert_eq!(s["metadata"]["seed"], 42);
    assert!(
        s["metadata"].get("python_version").is_none(),
        "null values are omitted"
    );
    assert!(s["metadata"].get("baseline_name").is_none());
    assert_eq!(s["metadata"]["baseline_type"], "heuristic");

    // Counts: 7 scored (5 valid incl. abstain, 1 label-only, 1 invalid), 1 errored.
    let c = &s["counts"];
    assert_eq!(
        (
            &c["records"],
            &c["scored"],
            &c["errored"],
            &c["valid"],
            &c["label_only"],
            &c["invalid"]
        ),
        (
            &json!(8),
            &json!(7),
            &json!(1),
            &json!(5),
            &json!(1),
            &json!(1)
        )
    );
    assert_eq!(c["cached_requests"], 3); // indices 0, 3, 6
    assert_eq!(s["errors_by_kind"], json!({"timeout": 1}));
    assert_eq!(s["validity"]["parse_failure_rate"], json!(1.0 / 7.0));
    assert_eq!(s["validity"]["error_rate"], json!(1.0 / 8.0));
    // accuracy_strict = (TP + TN) / (scored + errored) = 3 / (7 + 1).
    assert_eq!(s["validity"]["accuracy_strict"], json!(3.0 / 8.0));

    // Metrics: TP 1, TN 2 (one label-only), FP 1, FN 1, abstain 1, invalid 1 (malicious).
    let cm = &s["metrics"]["confusion_matrix"];
    assert_eq!(
        cm,
        &json!({"tp": 1, "tn": 2, "fp": 1, "fn": 1, "abstain": 1, "invalid": 1,
                "invalid_malicious": 1, "invalid_benign": 0, "label_only": 1})
    );
    // Correct 3 of 7 scored samples (the abstention is not correct); of the
    // 6 not abstained on, 3; upstream's also drops the invalid one: 3 of 5.
    assert_eq!(s["metrics"]["detection"]["accuracy"], json!(3.0 / 7.0));
    assert_eq!(
        s["metrics"]["abstention"]["accuracy_non_abstained"],
        json!(0.5)
    );
    assert_eq!(s["upstream_compat"]["detection"]["accuracy"], json!(0.6));
    let headline: Vec<(&str, &Value)> = s["headline"]
        .as_array()
        .expect("headline")
        .iter()
        .map(|m| (m["name"].as_str().unwrap_or(""), &m["value"]))
        .collect();
    assert_eq!(headline[0], ("accuracy", &json!(3.0 / 7.0)));
    assert_eq!(headline[1], ("accuracy_non_abstained", &json!(0.5)));
    assert_eq!(s["reward"]["range"], json!([0.0, 1.3]));
    assert_eq!(
        s["upstream_compat"]["confusion_matrix"],
        json!({"tp": 1, "tn": 2, "fp": 1, "fn": 1, "abstain": 1})
    );
    assert_eq!(s["e1"]["cost_matrix_v1"]["source"], "reward_params");
    assert_eq!(s["e1"]["groups"]["source"]["iot23"]["n"], 3);
    assert!(s["e1"]["ci95"]["accuracy"].is_array());
    assert_eq!(s["bootstrap"], json!({"resamples": 200, "seed": 1234}));
    assert_eq!(s["reward"]["n"], 7);
    assert_eq!(s["reward_profile"], "v1");
    let results = std::fs::read(dir.join("results.jsonl")).expect("read");
    assert_eq!(
        s["results_sha256"],
        svbench_core::canonical::sha256_hex(&results)
    );

    let md = std::fs::read_to_string(&out.report_path).expect("report.md");
    for line in [
        "# svbench report: sv-env-network-logs · builtin:heuristic",
        "| effective model | `heuristic` |",
        "| records | 8 (7 scored, 1 errored) |",
        "## Headline",
        "Mean reward (profile `v1`): 1.0714 (range 0.0000 to 1.3000).",
        "| accuracy_strict (errored samples counted as failures) | 0.3750 |",
        "| parse failure rate | 14.29 % |",
        "| error rate | 12.50 % |",
        "| accuracy | 0.4286 | 0.6000 |",
        "| accuracy_non_abstained | 0.5000 | 0.6000 |",
        "| Malicious | 1 | 1 | 1 |",
        "| timeout | 1 |",
        "## Groups by source",
        "## Reward",
        "## Usage and latency",
    ] {
        assert!(
            md.lines().any(|l| l == line),
            "report.md lacks line {line:?}:\n{md}"
        );
    }
}

#[test]
fn identical_inputs_give_identical_bytes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = write_run(tmp.path(), "a", &metadata("v1"), &sample_records());
    let b = write_run(tmp.path(), "b", &metadata("v1"), &sample_records());
    report_run(&a, &opts()).expect("a");
    report_run(&b, &opts()).expect("b");
    for f in ["summary.json", "report.md"] {
        assert_eq!(
            std::fs::read(a.join(f)).expect("a"),
            std::fs::read(b.join(f)).expect("b"),
            "{f}"
        );
    }
    // Line order in results.jsonl does not matter (records are sorted), but
    // the bytes hash does; compare everything else.
    let mut shuffled = sample_records();
    shuffled.reverse();
    let c = write_run(tmp.path(), "c", &metadata("v1"), &shuffled);
    report_run(&c, &opts()).expect("c");
    let mut x = read_json(&a.join("summary.json"));
    let mut y = read_json(&c.join("summary.json"));
    x.as_object_mut().expect("obj").remove("results_sha256");
    y.as_object_mut().expect("obj").remove("results_sha256");
    assert_eq!(x, y);
}

#[test]
fn out_dir_and_no_records() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &[]);
    let out = report_run(&dir, &opts()).expect("report");
    assert!(out.summary_path.is_none());
    assert!(!dir.join("summary.json").exists());
    let md = std::fs::read_to_string(&out.report_path).expect("md");
    assert!(md.contains("**No records.**"), "{md}");
    assert!(check_run(&dir, &opts()).expect("check").passed());

    let other = tmp.path().join("elsewhere");
    let dir2 = write_run(tmp.path(), "run2", &metadata("v1"), &sample_records());
    let o = ReportOptions {
        out_dir: Some(other.clone()),
        ..opts()
    };
    let out = report_run(&dir2, &o).expect("report");
    assert_eq!(
        out.summary_path.as_deref(),
        Some(other.join("summary.json").as_path())
    );
    assert!(!dir2.join("summary.json").exists());
}

#[test]
fn only_errors_says_so() {
    let tmp = tempfile::tempdir().expect("tmp");
    let recs = vec![
        errored_record(0, "Benign", "timeout"),
        errored_record(1, "Malicious", "http_status"),
    ];
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &recs);
    let out = report_run(&dir, &opts()).expect("report");
    let s = out.summary.expect("summary");
    assert_eq!(s.counts.scored, 0);
    let e1: svbench_envs::e1::report::summary::E1Summary = s.extension("e1").expect("e1");
    assert!(e1.ci95.is_none());
    assert!(s
        .warnings
        .iter()
        .any(|w| w.contains("no sample was scored")));
    assert_eq!(s.reward.mean, None);
    let md = std::fs::read_to_string(&out.report_path).expect("md");
    assert!(md.contains("**No sample was scored**"));
}

#[test]
fn torn_last_line_is_skipped_with_a_warning() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let mut bytes = std::fs::read(dir.join("results.jsonl")).expect("read");
    bytes.extend_from_slice(br#"{"index": 8, "rollout_index": 0, "exam"#);
    std::fs::write(dir.join("results.jsonl"), &bytes).expect("write");
    let out = report_run(&dir, &opts()).expect("report");
    let s = out.summary.expect("summary");
    assert_eq!(s.counts.records, 8);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("line 9") && w.contains("torn")),
        "{:?}",
        s.warnings
    );
    let md = std::fs::read_to_string(&out.report_path).expect("md");
    assert!(md.contains("line 9 is torn"), "{md}");
}

#[test]
fn unparseable_middle_line_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("read");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{not json";
    std::fs::write(dir.join("results.jsonl"), lines.join("\n") + "\n").expect("write");
    match report_run(&dir, &opts()) {
        Err(ReportError::ResultsLine { line, .. }) => assert_eq!(line, 3),
        other => panic!("expected a line error, got {other:?}"),
    }
}

#[test]
fn repeated_keys_last_line_wins() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut recs = vec![errored_record(0, "Malicious", "timeout")];
    recs.push(e1_record(1, "Benign", "Benign", Some(0.9), "iot23", "v1"));
    // Retried after the error: same key, now scored.
    recs.push(e1_record(
        0,
        "Malicious",
        "Malicious",
        Some(0.8),
        "iot23",
        "v1",
    ));
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &recs);
    let s = report_run(&dir, &opts())
        .expect("report")
        .summary
        .expect("summary");
    assert_eq!(s.counts.records, 2);
    assert_eq!(s.counts.errored, 0);
    let md = std::fs::read_to_string(dir.join("report.md")).expect("md");
    assert!(md.contains("1 earlier line(s) superseded"), "{md}");
}

#[test]
fn mixed_profiles_are_flagged_not_averaged() {
    let tmp = tempfile::tempdir().expect("tmp");
    let recs = vec![
        e1_record(0, "Malicious", "Malicious", Some(0.9), "iot23", "v1"),
        e1_record(1, "Benign", "Benign", Some(0.9), "iot23", "v1"),
        e1_record(2, "Benign", "Malicious", Some(0.9), "iot23", "upstream"),
    ];
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &recs);
    let out = report_run(&dir, &opts()).expect("report");
    let s = out.summary.expect("summary");
    assert_eq!(s.reward.n, 2);
    assert_eq!(s.counts.scored, 3);
    assert!(s
        .warnings
        .iter()
        .any(|w| w.contains("more than one reward profile")));
    let Some(m) = s.metrics_as::<svbench_envs::e1::report::summary::E1Metrics>() else {
        panic!("E1 metrics expected")
    };
    assert_eq!(
        m.detection.accuracy, 1.0,
        "the upstream-profile record is left out"
    );
    let md = std::fs::read_to_string(&out.report_path).expect("md");
    assert!(md.contains("**Mixed reward profiles.**"), "{md}");
}

#[test]
fn upstream_style_records_are_readable() {
    let tmp = tempfile::tempdir().expect("tmp");
    let meta = json!({
        "environment": "sv-env-network-logs",
        "model": "gpt-4o-mini",
        "dataset": "iot23-train-dev-test-v1.jsonl",
        "timestamp": "2025-01-01T00:00:00Z",
        "num_examples": 4,
        "git_commit": "27f7c04",
        "python_version": "3.12.1",
        "verifiers_version": "0.1.3",
        "seed": 42
    });
    let recs = vec![
        json!({"index": 0, "answer": "Malicious", "predicted_label": "malicious", "confidence": 0.9, "completion": "x"}),
        json!({"index": 1, "answer": "Benign", "predicted_label": "Benign", "confidence": 0.8}),
        json!({"index": 2, "answer": "Benign", "predicted_label": "", "confidence": 0.0}),
        json!({"index": 3, "answer": "Malicious", "predicted_label": "Abstain", "confidence": 0.5,
               "completion": [{"role": "assistant", "content": "x"}]}),
    ];
    let dir = write_run(tmp.path(), "20250101-up", &meta, &recs);
    let s = report_run(&dir, &opts())
        .expect("report")
        .summary
        .expect("summary");
    assert_eq!(s.run_id, "20250101-up");
    assert_eq!(s.counts.invalid, 1);
    assert_eq!(s.counts.valid, 3);
    let Some(u) = s.upstream_compat_as::<svbench_envs::e1::report::summary::E1UpstreamMetrics>()
    else {
        panic!("upstream_compat expected")
    };
    assert_eq!(u.detection.accuracy, 1.0);
    assert_eq!(u.abstention.abstain_rate, 1.0 / 3.0);
    // Strict mode wants the full svbench shape.
    let strict = ReportOptions {
        strict: true,
        ..opts()
    };
    assert!(matches!(
        build_report(&dir, &strict),
        Err(ReportError::Strict { .. })
    ));
}

#[test]
fn check_passes_fresh_and_fails_after_an_edit() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    report_run(&dir, &opts()).expect("report");
    // A later check (different time, bootstrap settings read from the summary).
    let later = ReportOptions {
        timestamp: Some("2030-01-01T00:00:00Z".to_string()),
        ..ReportOptions::new(common::plugins)
    };
    let before = std::fs::read(dir.join("summary.json")).expect("read");
    let first = check_run(&dir, &later).expect("check");
    assert!(first.passed(), "{:?}", first.differences);
    assert_eq!(
        std::fs::read(dir.join("summary.json")).expect("read"),
        before,
        "check writes nothing"
    );

    let mut s = read_json(&dir.join("summary.json"));
    s["metrics"]["detection"]["accuracy"] = json!(0.75);
    std::fs::write(
        dir.join("summary.json"),
        serde_json::to_string_pretty(&s).expect("json"),
    )
    .expect("write");
    let res = check_run(&dir, &later).expect("check");
    assert!(!res.passed());
    assert!(
        res.differences[0].contains("/metrics/detection/accuracy"),
        "{:?}",
        res.differences
    );

    std::fs::remove_file(dir.join("summary.json")).expect("rm");
    assert!(!check_run(&dir, &later).expect("check").passed());
}

#[test]
fn missing_run_dir_and_metadata_are_input_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    let err = report_run(&tmp.path().join("nope"), &opts()).expect_err("missing dir");
    assert!(err.is_input_error());
    assert!(matches!(err, ReportError::RunDir { .. }));
    let err = report_run(tmp.path(), &opts()).expect_err("missing metadata");
    assert!(matches!(err, ReportError::MissingMetadata { .. }));
    assert!(err.is_input_error());
}

#[test]
fn report_crate_cannot_reach_client_or_analyzers() {
    // svbench-report depends on neither the runner (HTTP client) nor the
    // environments or analyzers, directly or through svbench-core. (Its
    // integration tests reach the environments' plugins: a dev-dependency.)
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for manifest in [
        root.join("Cargo.toml"),
        root.join("../svbench-core/Cargo.toml"),
    ] {
        let full = std::fs::read_to_string(&manifest).expect("manifest");
        let text = full
            .split("\n[")
            .filter(|section| !section.starts_with("dev-dependencies]"))
            .collect::<Vec<_>>()
            .join("\n[");
        assert!(text.contains("[dependencies]"), "{}", manifest.display());
        for forbidden in [
            "svbench-runner",
            "svbench-envs",
            "svbench-scan",
            "svbench-sandbox",
            "reqwest",
            "hyper",
        ] {
            assert!(
                !text.lines().any(|l| l.trim_start().starts_with(forbidden)),
                "{} depends on {forbidden}",
                manifest.display()
            );
        }
    }
}

#[test]
fn rollouts_of_an_example_are_resampled_together() {
    use svbench_envs::e1::report::{ci::ci95, E1Sample};
    let tmp = tempfile::tempdir().expect("tmp");
    let mut recs = Vec::new();
    let mut samples = Vec::new();
    for i in 0..30 {
        for r in 0..2 {
            let gold = if i % 2 == 0 { "Malicious" } else { "Benign" };
            let right = (i + r) % 3 != 0;
            let label = match (gold, right) {
                ("Malicious", true) | ("Benign", false) => "Malicious",
                _ => "Benign",
            };
            let conf = 0.5 + 0.01 * (i as f64);
            let mut rec = e1_record(i, gold, label, Some(conf), "iot23", "v1");
            rec["rollout_index"] = json!(r);
            recs.push(rec);
            samples.push(E1Sample::decided(
                label == "Malicious",
                gold == "Malicious",
                conf,
            ));
        }
    }
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &recs);
    let s = report_run(&dir, &opts())
        .expect("report")
        .summary
        .expect("summary");
    assert_eq!(s.counts.records, 60);
    let units: Vec<std::ops::Range<usize>> = (0..30).map(|i| 2 * i..2 * i + 2).collect();
    let cfg = opts().bootstrap.expect("set");
    let want = ci95(&samples, &units, cfg).expect("ci");
    let e1: svbench_envs::e1::report::summary::E1Summary = s.extension("e1").expect("e1");
    assert_eq!(e1.ci95, Some(want));
}

/// The plot files of an E1 run, in the order report.md lists them.
const E1_PLOTS: [&str; 6] = [
    "reliability",
    "risk_coverage",
    "confusion",
    "reward",
    "reward_components",
    "latency",
];

#[test]
fn plots_are_written_linked_and_listed_in_the_manifest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let out = report_run(&dir, &opts()).expect("report");
    let md = std::fs::read_to_string(&out.report_path).expect("md");
    assert!(md.lines().any(|l| l == "## Plots"), "{md}");
    assert_eq!(out.plot_paths.len(), E1_PLOTS.len());
    for name in E1_PLOTS {
        let path = dir.join("plots").join(format!("{name}.svg"));
        let svg = std::fs::read_to_string(&path).expect("plot written");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
        assert!(
            md.lines()
                .any(|l| l.starts_with("![") && l.ends_with(&format!("](plots/{name}.svg)"))),
            "report.md links {name}"
        );
    }
    let reliability = std::fs::read_to_string(dir.join("plots/reliability.svg")).expect("svg");
    assert!(reliability.contains(">n="), "bin counts are shown");
    let manifest = read_json(&dir.join("run_manifest.json"));
    let plots: Vec<&str> = manifest["output_artifacts"]
        .as_array()
        .expect("artifacts")
        .iter()
        .filter(|a| a["role"] == "plot")
        .map(|a| a["path"].as_str().expect("path"))
        .collect();
    assert_eq!(plots.len(), E1_PLOTS.len());
    assert!(plots.contains(&"plots/reliability.svg"), "{plots:?}");

    // Identical inputs give identical plot bytes.
    let again = write_run(tmp.path(), "again", &metadata("v1"), &sample_records());
    report_run(&again, &opts()).expect("again");
    for name in E1_PLOTS {
        let f = format!("plots/{name}.svg");
        assert_eq!(
            std::fs::read(dir.join(&f)).expect("a"),
            std::fs::read(again.join(&f)).expect("b"),
            "{f}"
        );
    }
    // The built report carries the same plots for report.html.
    let built = build_report(&dir, &opts()).expect("build");
    assert_eq!(built.plots.len(), E1_PLOTS.len());
    assert_eq!(
        built.plots[0].svg,
        std::fs::read_to_string(dir.join("plots/reliability.svg")).expect("svg")
    );
}

#[test]
fn no_plots_writes_and_links_none() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let o = ReportOptions {
        no_plots: true,
        ..opts()
    };
    let out = report_run(&dir, &o).expect("report");
    assert!(out.plot_paths.is_empty());
    assert!(!dir.join("plots").exists());
    let md = std::fs::read_to_string(&out.report_path).expect("md");
    assert!(!md.contains("## Plots") && !md.contains("plots/"), "{md}");
    assert!(build_report(&dir, &o).expect("build").plots.is_empty());
    // Without records there is nothing to plot.
    let empty = write_run(tmp.path(), "empty", &metadata("v1"), &[]);
    assert!(report_run(&empty, &opts())
        .expect("empty")
        .plot_paths
        .is_empty());
    assert!(!empty.join("plots").exists());
}

#[test]
fn plots_of_a_run_with_only_errors_or_one_record() {
    let tmp = tempfile::tempdir().expect("tmp");
    let errs = vec![errored_record(0, "Benign", "timeout")];
    let dir = write_run(tmp.path(), "errs", &metadata("v1"), &errs);
    let out = report_run(&dir, &opts()).expect("report");
    assert_eq!(out.plot_paths.len(), E1_PLOTS.len());
    let reward = std::fs::read_to_string(dir.join("plots/reward.svg")).expect("svg");
    assert!(reward.contains("No finite value"), "{reward}");
    let one = vec![sample_records().remove(0)];
    let dir = write_run(tmp.path(), "one", &metadata("v1"), &one);
    let out = report_run(&dir, &opts()).expect("report");
    assert_eq!(out.plot_paths.len(), E1_PLOTS.len());
}

/// report.md of the sample run, whole, as a reviewed snapshot: every change
/// to its wording or layout shows up in review (docs/testing.md).
#[test]
fn report_md_snapshot() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &metadata("v1"), &sample_records());
    let out = report_run(&dir, &opts()).expect("report");
    let md = std::fs::read_to_string(&out.report_path).expect("report.md");
    assert!(!md.contains(&tmp.path().display().to_string()), "{md}");
    insta::assert_snapshot!("e1_report_md", redact_version(&md));
}
