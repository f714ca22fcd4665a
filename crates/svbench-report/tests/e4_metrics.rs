//! E4 metrics (E4 §8, §10 item 9): a hand-computed vector through the
//! whole report, groups, evidence applicability and `report --check`.

mod common;

use common::e4::{e4_errored, e4_metadata, metrics_vector};
use common::{write_run, TS};
use svbench_core::summary::Summary;
use svbench_envs::e4::report::summary::E4UpstreamMetrics;
use svbench_envs::e4::report::summary::{E4MetricSet, E4Metrics};
use svbench_report::{build_report, check_run, report_run, ReportOptions};

fn close(got: Option<f64>, want: f64, what: &str) {
    let g = got.unwrap_or_else(|| panic!("{what} is null"));
    assert!((g - want).abs() < 1e-12, "{what}: got {g}, want {want}");
}

fn summary() -> Summary {
    summary_of(&metrics_vector())
}

fn summary_of(records: &[serde_json::Value]) -> Summary {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e4_metadata(), records);
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        no_plots: true,
        ..ReportOptions::new(common::plugins)
    };
    build_report(&dir, &opts)
        .expect("report")
        .summary
        .expect("summary")
}

fn e4(s: &Summary) -> E4Metrics {
    match s.metrics_as::<E4Metrics>() {
        Some(m) => m,
        None => panic!("not E4 metrics: {:?}", s.metrics),
    }
}

#[test]
fn hand_computed_vector() {
    let s = summary();
    let m = e4(&s);
    let a = &m.all;
    let c = &a.confusion;
    assert_eq!(
        [
            c.phishing.phishing,
            c.phishing.legitimate,
            c.phishing.abstain,
            c.phishing.invalid
        ],
        [1, 1, 1, 1]
    );
    assert_eq!(
        [
            c.legitimate.phishing,
            c.legitimate.legitimate,
            c.legitimate.abstain,
            c.legitimate.invalid
        ],
        [1, 2, 1, 0]
    );
    assert_eq!(
        [
            c.abstain.phishing,
            c.abstain.legitimate,
            c.abstain.abstain,
            c.abstain.invalid
        ],
        [1, 1, 1, 0]
    );
    assert_eq!(c.label_only, 1);

    // TP 1, FN 1 + invalid 1, FP 1, TN 2.
    close(a.precision, 0.5, "precision");
    close(a.recall, 1.0 / 3.0, "recall");
    close(a.recall_strict, 0.25, "recall_strict");
    close(a.f1, 0.4, "f1");
    close(a.fnr, 2.0 / 3.0, "fnr");
    close(a.fpr, 1.0 / 3.0, "fpr");
    close(a.accuracy, 4.0 / 11.0, "accuracy");

    // Points: .9 ok, .6 x, .8 x, .7 ok, .6 x (gold Abstain), .4 x,
    // invalid 1.0 x, label-only 0.0 ok.
    close(a.brier, 3.62 / 8.0, "brier");
    close(a.ece, 4.6 / 8.0, "ece");
    close(a.aurc_standard, 299.0 / 448.0, "aurc_standard");
    close(a.risk_at_coverage_0_8, 5.0 / 7.0, "risk at 0.8");
    close(a.risk_at_coverage_0_9, 5.0 / 8.0, "risk at 0.9");
    assert_eq!(a.risk_coverage.len(), 7);

    close(a.abstention.abstain_rate, 3.0 / 11.0, "abstain_rate");
    close(
        a.abstention.abstain_on_ambiguous,
        1.0 / 3.0,
        "abstain_on_ambiguous",
    );
    close(a.abstention.over_abstention, 0.25, "over_abstention");

    // Costs 0, 1, .3, .5, 0, .3, .3, .6, 0, invalid 1, 0.
    close(a.cost.expected_cost_v1, 4.0 / 11.0, "expected_cost_v1");
    close(
        a.cost.expected_utility_v1,
        7.0 / 11.0,
        "expected_utility_v1",
    );
    assert_eq!(a.cost.total_cost, 21.0);
    close(
        a.cost.cost_weighted_accuracy,
        0.65,
        "cost_weighted_accuracy",
    );
    assert_eq!(m.cost_matrix_v1.source, "reward_params");

    // Evidence over the nine applicable rows.
    assert_eq!(a.evidence_na_rows, 2);
    let e = &a.evidence.all;
    assert_eq!((e.rows, e.items), (9, 10));
    close(e.precision_micro, 0.5, "evidence precision_micro");
    close(e.precision_macro, 17.0 / 36.0, "evidence precision_macro");
    close(e.recall_micro, 0.4, "evidence recall_micro");
    close(e.recall_macro, 7.0 / 18.0, "evidence recall_macro");
    close(e.f1, 46.0 / 135.0, "evidence f1");
    close(e.grounding_rate, 0.7, "grounding_rate");
    close(e.mean_items, 10.0 / 9.0, "mean_items");
    let reasons: Vec<(&str, u64)> = e
        .invalid_item_reasons
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        reasons,
        [("duplicate", 1), ("not_found", 1), ("too_short", 1)]
    );
    let cat = |k: &str| {
        let c = &e.recall_by_category[k];
        (c.gold, c.recalled)
    };
    assert_eq!(cat("url"), (6, 3));
    assert_eq!(cat("urgency"), (4, 1));
    assert_eq!(cat("signature"), (5, 2));
    let by = &a.evidence.by_gold_source;
    assert_eq!(by.keys().collect::<Vec<_>>(), ["annotated", "extractor"]);
    assert_eq!(by["annotated"].rows + by["extractor"].rows, 9);
    close(
        by["extractor"].precision_micro,
        1.0 / 3.0,
        "extractor precision",
    );

    let Some(u) = s.upstream_compat_as::<E4UpstreamMetrics>() else {
        panic!("no E4 upstream_compat");
    };
    // Invalid dropped: TP 1, FN 1, FP 1, TN 2 over ten labelled rows.
    assert_eq!(u.n, 10);
    assert!((u.recall - 0.5).abs() < 1e-12);
    assert!((u.fnr - 0.5).abs() < 1e-12);
    assert!((u.accuracy - 0.4).abs() < 1e-12);
    assert!((u.abstain_rate - 0.3).abs() < 1e-12);
    assert!((u.brier - 2.62 / 7.0).abs() < 1e-12);

    let ci = m.ci95.as_ref().expect("ci95");
    assert!(ci.accuracy.is_some() && ci.evidence_f1.is_some() && ci.reward_mean.is_some());
    let names: Vec<&str> = s.headline.iter().map(|h| h.name.as_str()).collect();
    assert!(names.contains(&"f1") && names.contains(&"evidence_f1"));
}

fn sum_groups(
    groups: &std::collections::BTreeMap<String, svbench_envs::e4::report::summary::E4Group>,
) -> u64 {
    groups.values().map(|g| g.n).sum()
}

fn cells(m: &E4MetricSet) -> u64 {
    let c = &m.confusion;
    [c.phishing, c.legitimate, c.abstain]
        .iter()
        .map(|r| r.phishing + r.legitimate + r.abstain + r.invalid)
        .sum()
}

#[test]
fn groups_partition_the_rows() {
    let s = summary();
    let g = &e4(&s).groups;
    for (name, map) in [
        ("phishing_type", &g.phishing_type),
        ("difficulty", &g.difficulty),
        ("family", &g.family),
        ("gold", &g.gold),
    ] {
        assert_eq!(sum_groups(map), 11, "{name}");
        for (k, grp) in map {
            assert_eq!(cells(&grp.metrics), grp.n, "{name}.{k}");
        }
        let na: u64 = map.values().map(|x| x.metrics.evidence_na_rows).sum();
        assert_eq!(na, 2, "{name}");
    }
    assert_eq!(g.phishing_type.keys().collect::<Vec<_>>(), ["unknown"]);
    assert_eq!(g.difficulty["easy"].n, 6);
    assert_eq!(g.difficulty["unknown"].n, 5);
    assert_eq!(
        [
            g.gold["Phishing"].n,
            g.gold["Legitimate"].n,
            g.gold["Abstain"].n
        ],
        [4, 4, 3]
    );
    // Gold Abstain: one of three abstained on, and its one applicable-less row left out.
    let amb = &g.gold["Abstain"].metrics;
    close(
        amb.abstention.abstain_on_ambiguous,
        1.0 / 3.0,
        "amb abstain",
    );
    assert_eq!(amb.evidence_na_rows, 1);
    assert_eq!(amb.evidence.all.rows, 2);
}

#[test]
fn report_check_recomputes_and_reads_back() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e4_metadata(), &metrics_vector());
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::new(common::plugins)
    };
    let out = report_run(&dir, &opts).expect("report");
    let text = std::fs::read_to_string(out.summary_path.expect("summary")).expect("read");
    let back: Summary = serde_json::from_str(&text).expect("summary reads back");
    assert!(back.metrics_as::<E4Metrics>().is_some());
    assert!(back.upstream_compat_as::<E4UpstreamMetrics>().is_some());
    assert!(text.contains("\"risk_at_coverage_0.8\""));
    let check = check_run(&dir, &ReportOptions::new(common::plugins)).expect("check");
    assert!(check.passed(), "{:?}", check.differences);
}

#[test]
fn report_md_and_plots_cover_e4() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e4_metadata(), &metrics_vector());
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        ..ReportOptions::new(common::plugins)
    };
    let built = build_report(&dir, &opts).expect("report");
    let md = &built.report_md;
    for section in [
        "## Detection",
        "## Confusion matrix",
        "## Calibration and selective risk",
        "## Abstention",
        "## Cost",
        "## Evidence",
        "## By family",
    ] {
        assert!(md.contains(section), "{section} missing from report.md");
    }
    assert!(md.contains("| Phishing | 1 | 1 | 1 | 1 |"));
    assert!(md.contains("| recall_strict | 0.2500 |"));
    let names: Vec<&str> = built.plots.iter().map(|p| p.name.as_str()).collect();
    for n in ["reliability", "risk_coverage", "by_family", "evidence"] {
        assert!(names.contains(&n), "plot {n} missing: {names:?}");
    }
}

#[test]
fn compare_reads_e4_metrics() {
    use svbench_core::metrics::BootstrapConfig;
    use svbench_report::compare::{compare, CompareOptions, DEFAULT_VARY};
    let tmp = tempfile::tempdir().expect("tmp");
    let a = write_run(tmp.path(), "a", &e4_metadata(), &metrics_vector());
    let b = write_run(tmp.path(), "b", &e4_metadata(), &metrics_vector());
    let opts = CompareOptions {
        plugins: common::plugins,
        metrics: Vec::new(),
        vary: DEFAULT_VARY.iter().map(|s| s.to_string()).collect(),
        allow_unmatched: false,
        bootstrap: BootstrapConfig {
            resamples: 50,
            seed: 0,
        },
        ci: 0.95,
    };
    let out = compare(&a, &b, &opts).expect("compare");
    let names: Vec<&str> = out
        .comparison
        .metrics
        .iter()
        .map(|m| m.metric.as_str())
        .collect();
    for n in ["reward", "accuracy", "cost", "evidence_f1"] {
        assert!(names.contains(&n), "{n} missing: {names:?}");
    }
}

/// `validity.recall_strict`: the strict recall with errored phishing
/// emails counted as misses; equal to `metrics.recall_strict` without
/// errors, and an errored legitimate email changes nothing.
#[test]
fn validity_recall_strict_counts_errored_phishing_emails_as_misses() {
    let s = summary();
    close(s.validity.strict["recall_strict"], 0.25, "no errors");
    assert_eq!(s.validity.strict.len(), 1, "{:?}", s.validity.strict);

    let mut records = metrics_vector();
    records.push(e4_errored(11, "Phishing"));
    records.push(e4_errored(12, "Legitimate"));
    let s = summary_of(&records);
    assert_eq!(s.counts.errored, 2);
    // TP 1 over four scored phishing emails and one errored.
    close(s.validity.strict["recall_strict"], 0.2, "with errors");
    close(e4(&s).all.recall_strict, 0.25, "metrics.recall_strict");
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e4_metadata(), &records);
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        no_plots: true,
        ..ReportOptions::new(common::plugins)
    };
    let md = build_report(&dir, &opts).expect("report").report_md;
    assert!(
        md.contains("| recall_strict (errored samples counted as failures) | 0.2000 |"),
        "{md}"
    );
}

/// Absurd recorded values (confidences of 1e308, rewards and evidence
/// scores whose sums overflow) never reach the summary as non-finite
/// numbers: they are null (0.0 in `upstream_compat`) with warnings, and
/// `report --check` still agrees with itself.
#[test]
fn absurd_recorded_values_become_null_with_warnings() {
    let mut records = metrics_vector();
    for r in records.iter_mut().take(5) {
        r["parsed"]["confidence"] = serde_json::json!(1e308);
        r["confidence"] = serde_json::json!(1e308);
        r["reward"] = serde_json::json!(1e308);
        r["rewards"]["evidence"] = serde_json::json!(1e308);
        r["parsed"]["evidence"]["f1"] = serde_json::json!(1e308);
    }
    let s = summary_of(&records);
    let m = e4(&s);
    assert_eq!(m.all.brier, None, "brier");
    assert_eq!(m.reward, None, "mean reward");
    assert_eq!(m.components["evidence"], None, "evidence component mean");
    assert_eq!(m.all.evidence.all.f1, None, "evidence f1");
    assert!(m.all.accuracy.is_some(), "counts stay defined");
    match s.upstream_compat_as::<E4UpstreamMetrics>() {
        Some(u) => assert_eq!(u.brier, 0.0),
        None => panic!("not E4 upstream_compat: {:?}", s.upstream_compat),
    }
    for name in [
        "metrics.reward was not a finite number and is written as null",
        "metrics.brier was not a finite number and is written as null",
        "metrics.evidence.f1 was not a finite number and is written as null",
        "upstream_compat.brier was not a finite number and is written as 0.0",
    ] {
        assert!(
            s.warnings.iter().any(|w| w == name),
            "missing warning `{name}`: {:?}",
            s.warnings
        );
    }
    // Debug prints a non-finite f64 as `inf`, `-inf` or `NaN`.
    let shown = format!(
        "{:?} {:?} {:?} {:?}",
        s.metrics, s.upstream_compat, s.validity, s.headline
    );
    for bad in ["inf,", "inf)", "inf ", "NaN"] {
        assert!(!shown.contains(bad), "`{bad}` in the summary: {shown}");
    }

    let tmp = tempfile::tempdir().expect("tmp");
    let dir = write_run(tmp.path(), "run", &e4_metadata(), &records);
    let opts = ReportOptions {
        timestamp: Some(TS.to_string()),
        no_plots: true,
        ..ReportOptions::new(common::plugins)
    };
    report_run(&dir, &opts).expect("report");
    let check = check_run(&dir, &ReportOptions::new(common::plugins)).expect("check");
    assert!(check.passed(), "{:?}", check.differences);
}

/// A run of another profile uses the costs the environment recorded with
/// it, not costs compiled into the report; a run that recorded none (an
/// older one) falls back to the defaults and says so.
#[test]
fn an_upstream_run_uses_the_recorded_cost_matrix() {
    let run_with = |provenance: Option<serde_json::Value>| {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut meta = e4_metadata();
        let o = meta.as_object_mut().expect("object");
        o.insert("reward_profile".into(), serde_json::json!("upstream"));
        o.insert("reward_params".into(), serde_json::json!({}));
        if let Some(p) = provenance {
            o.insert("env_provenance".into(), p);
        }
        let records: Vec<serde_json::Value> = metrics_vector()
            .into_iter()
            .map(|mut r| {
                r["reward_profile"] = serde_json::json!("upstream");
                r
            })
            .collect();
        let dir = write_run(tmp.path(), "run", &meta, &records);
        let opts = ReportOptions {
            timestamp: Some(TS.to_string()),
            no_plots: true,
            ..ReportOptions::new(common::plugins)
        };
        build_report(&dir, &opts)
            .expect("report")
            .summary
            .expect("summary")
    };
    // Every cost doubled but a miss: the expected cost differs from the
    // defaults' 4/11.
    let recorded = serde_json::json!({"cost_matrix_v1": {
        "cost_fn": 1.0, "cost_fp": 1.0, "cost_abstain": 0.6,
        "cost_amb_phishing": 0.6, "cost_amb_legitimate": 1.0}});
    let s = run_with(Some(recorded));
    let m = e4(&s);
    assert_eq!(m.cost_matrix_v1.source, "env_provenance");
    assert_eq!(m.cost_matrix_v1.cost_fp, 1.0);
    assert!(
        m.all.cost.expected_cost_v1 != Some(4.0 / 11.0),
        "{:?}",
        m.all.cost.expected_cost_v1
    );
    let old = run_with(None);
    assert_eq!(e4(&old).cost_matrix_v1.source, "defaults");
    close(e4(&old).all.cost.expected_cost_v1, 4.0 / 11.0, "defaults");
}
