//! E1 metric acceptance tests (E1 §8.3).

use proptest::prelude::*;
use svbench_core::metrics::{ece_bin, BootstrapConfig};
use svbench_envs::e1::report::summary::E1Detection;
use svbench_envs::e1::report::{self as e1, ci::ci95, compute, E1Input, E1Sample, DEFAULT_COSTS};

const EPS: f64 = 1e-12;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= EPS
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!(close(a, b), "{} = {a}, expected {b}", stringify!($a));
    }};
}

/// (prediction, gold, confidence): prediction M, B, A or I (invalid).
fn sample(pred: char, gold: char, conf: f64) -> E1Sample {
    let g = gold == 'M';
    match pred {
        'M' => E1Sample::decided(true, g, conf),
        'B' => E1Sample::decided(false, g, conf),
        'A' => E1Sample::abstain(g),
        _ => E1Sample::invalid(g),
    }
}

fn vector_a() -> Vec<E1Sample> {
    [
        ('M', 'M', 0.9),
        ('B', 'M', 0.7),
        ('M', 'B', 0.8),
        ('B', 'B', 0.6),
        ('A', 'M', 0.3),
        ('B', 'B', 1.0),
        ('M', 'M', 0.3),
    ]
    .iter()
    .map(|(p, g, c)| sample(*p, *g, *c))
    .collect()
}

fn vector_b() -> Vec<E1Sample> {
    let mut v = vector_a();
    v.push(sample('I', 'M', 0.0));
    v.push(sample('I', 'B', 0.0));
    v
}

#[test]
fn vector_a_equals_upstream() {
    let c = compute(&vector_a(), &DEFAULT_COSTS);
    let m = &c.metrics;
    let cm = &m.confusion_matrix;
    assert_eq!((cm.tp, cm.tn, cm.fp, cm.fn_, cm.abstain), (2, 2, 1, 1, 1));
    assert_eq!(
        (
            cm.invalid,
            cm.invalid_malicious,
            cm.invalid_benign,
            cm.label_only
        ),
        (0, 0, 0, 0)
    );
    let d = &m.detection;
    assert_close!(d.tpr, 2.0 / 3.0);
    assert_close!(d.precision, 2.0 / 3.0);
    assert_close!(d.f1, 2.0 / 3.0);
    // 4 correct of 7 samples: the abstention is not correct.
    assert_close!(d.accuracy, 4.0 / 7.0);
    assert_close!(d.fpr, 1.0 / 3.0);
    assert_close!(d.fnr, 1.0 / 3.0);
    assert_close!(m.calibration.ece, 0.45);
    assert_close!(m.calibration.brier, 0.298_333_333_333_333_3);
    assert_close!(m.cost.total_cost, 11.0);
    assert_close!(m.cost.cost_weighted_accuracy, 0.816_666_666_666_666_7);
    assert_close!(m.cost.fn_cost_weight, 10.0);
    assert_close!(m.cost.fp_cost_weight, 1.0);
    assert_close!(m.abstention.abstain_rate, 1.0 / 7.0);
    assert_close!(m.abstention.accuracy_non_abstained, 2.0 / 3.0);
    assert_close!(m.abstention.aurc, 0.233_333_333_333_333_3);
    // Extras.
    assert_close!(c.extras.aurc_standard, 0.261_111_111_111_111_1);
    assert_close!(c.extras.expected_cost_v1, 0.2);
    assert_close!(c.extras.expected_utility_v1, 0.8);
    assert_close!(c.extras.invalid_rate, 0.0);
    let rc: Vec<(f64, f64, f64)> = c
        .extras
        .risk_coverage
        .iter()
        .map(|p| (p.threshold, p.coverage, p.risk))
        .collect();
    let want = [
        (1.0, 1.0 / 6.0, 0.0),
        (0.9, 2.0 / 6.0, 0.0),
        (0.8, 3.0 / 6.0, 1.0 / 3.0),
        (0.7, 4.0 / 6.0, 0.5),
        (0.6, 5.0 / 6.0, 0.4),
        (0.3, 1.0, 1.0 / 3.0),
    ];
    assert_eq!(rc.len(), want.len());
    for (got, want) in rc.iter().zip(want) {
        assert!(
            close(got.0, want.0) && close(got.1, want.1) && close(got.2, want.2),
            "{got:?} vs {want:?}"
        );
    }
    assert!(c.undefined.is_empty(), "{:?}", c.undefined);
    // Without invalid outputs the upstream way agrees (parity rule), except
    // that upstream's accuracy is the selective one.
    let u = &c.upstream;
    assert_eq!(
        u.detection,
        E1Detection {
            accuracy: m.abstention.accuracy_non_abstained,
            ..m.detection.clone()
        }
    );
    assert_eq!(u.calibration, m.calibration);
    assert_eq!(u.cost, m.cost);
    assert_eq!(u.abstention, m.abstention);
}

#[test]
fn vector_b_equals_spec() {
    let c = compute(&vector_b(), &DEFAULT_COSTS);
    let m = &c.metrics;
    // 4 correct of 9 samples; of the 8 not abstained on, 4.
    assert_close!(m.detection.accuracy, 4.0 / 9.0);
    assert_close!(m.abstention.accuracy_non_abstained, 0.5);
    assert_close!(m.detection.tpr, 0.5);
    assert_close!(m.detection.fnr, 0.5);
    assert_close!(m.detection.fpr, 1.0 / 3.0);
    assert_close!(m.detection.precision, 2.0 / 3.0);
    assert_close!(m.detection.f1, 0.571_428_571_428_571_4);
    assert_close!(m.calibration.ece, 0.5625);
    assert_close!(m.calibration.brier, 0.47375);
    assert_close!(m.cost.total_cost, 22.0);
    assert_close!(m.cost.cost_weighted_accuracy, 0.725);
    assert_close!(m.abstention.abstain_rate, 1.0 / 9.0);
    assert_close!(c.extras.invalid_rate, 2.0 / 9.0);
    assert_close!(m.abstention.aurc, 0.365_178_571_428_571_4);
    assert_close!(c.extras.aurc_standard, 0.604_761_904_761_904_8);
    assert_close!(c.extras.expected_cost_v1, 0.377_777_777_777_777_8);
    let cm = &m.confusion_matrix;
    assert_eq!(
        (cm.invalid, cm.invalid_malicious, cm.invalid_benign),
        (2, 1, 1)
    );
    // upstream_compat drops the invalid outputs: vector A's values.
    let a = compute(&vector_a(), &DEFAULT_COSTS);
    assert_eq!(c.upstream, a.upstream);
}

#[test]
fn ece_edges_land_in_their_bins() {
    for (c, bin) in [(0.0, 0), (0.3, 3), (0.7, 7), (0.9, 9), (1.0, 9)] {
        assert_eq!(ece_bin(c), Some(bin), "confidence {c}");
    }
    // 1.0 is not dropped: a correct answer at 1.0 is perfectly calibrated,
    // a wrong one contributes fully.
    let c = compute(&[sample('M', 'M', 1.0)], &DEFAULT_COSTS);
    assert_close!(c.metrics.calibration.ece, 0.0);
    let c = compute(&[sample('M', 'B', 1.0)], &DEFAULT_COSTS);
    assert_close!(c.metrics.calibration.ece, 1.0);
}

fn has(und: &[String], names: &[&str]) -> bool {
    names.iter().all(|n| und.iter().any(|u| u == n))
}

#[test]
fn edge_case_empty_set() {
    let c = compute(&[], &DEFAULT_COSTS);
    let m = &c.metrics;
    let d = &m.detection;
    assert_eq!(
        (d.tpr, d.fpr, d.precision, d.f1, d.accuracy),
        (0.0, 0.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(d.fnr, 1.0);
    assert_eq!(m.cost.cost_weighted_accuracy, 1.0);
    assert_eq!(m.cost.total_cost, 0.0);
    assert_eq!(
        (m.calibration.ece, m.calibration.brier, m.abstention.aurc),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(c.extras.aurc_standard, 0.0);
    assert_eq!(m.abstention.abstain_rate, 0.0);
    assert!(has(
        &c.undefined,
        &[
            "accuracy",
            "tpr",
            "fnr",
            "fpr",
            "precision",
            "f1",
            "ece",
            "brier",
            "aurc",
            "aurc_standard",
            "cost_weighted_accuracy",
            "abstain_rate",
            "accuracy_non_abstained",
            "invalid_rate",
            "expected_cost_v1",
            "expected_utility_v1",
        ]
    ));
    assert!(ci95(&[], &[], BootstrapConfig::default()).is_none());
}

#[test]
fn edge_case_no_malicious_gold() {
    let c = compute(
        &[sample('B', 'B', 0.9), sample('M', 'B', 0.6)],
        &DEFAULT_COSTS,
    );
    let d = &c.metrics.detection;
    assert_eq!((d.tpr, d.fnr, d.f1), (0.0, 1.0, 0.0));
    assert!(has(&c.undefined, &["tpr", "fnr", "f1"]));
    assert!(!has(&c.undefined, &["precision"]));
    assert!(!has(&c.undefined, &["fpr"]));
}

#[test]
fn edge_case_no_positive_calls_and_no_negatives() {
    // TP + FP = 0 and FP + TN = 0: only misses on malicious gold.
    let c = compute(&[sample('B', 'M', 0.9)], &DEFAULT_COSTS);
    let d = &c.metrics.detection;
    assert_eq!((d.precision, d.fpr, d.f1, d.tpr), (0.0, 0.0, 0.0, 0.0));
    assert!(has(&c.undefined, &["precision", "fpr", "f1"]));
    assert!(!has(&c.undefined, &["tpr"]));
    assert!(!has(&c.undefined, &["accuracy"]));
}

#[test]
fn edge_case_all_abstain() {
    let c = compute(
        &[sample('A', 'M', 0.5), sample('A', 'B', 0.5)],
        &DEFAULT_COSTS,
    );
    let m = &c.metrics;
    // Defined: nothing is correct. Its selective twin has no denominator.
    assert_eq!(m.detection.accuracy, 0.0);
    assert_eq!(
        (
            m.calibration.ece,
            m.calibration.brier,
            m.abstention.aurc,
            c.extras.aurc_standard
        ),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(m.cost.total_cost, 0.0);
    assert_eq!(m.cost.cost_weighted_accuracy, 1.0);
    assert_eq!(m.abstention.abstain_rate, 1.0);
    assert_close!(c.extras.expected_cost_v1, DEFAULT_COSTS.cost_abstain);
    assert!(has(
        &c.undefined,
        &[
            "accuracy_non_abstained",
            "ece",
            "brier",
            "aurc",
            "aurc_standard",
            "cost_weighted_accuracy"
        ]
    ));
    assert!(!has(
        &c.undefined,
        &["accuracy", "abstain_rate", "expected_cost_v1"]
    ));
}

/// A direct port of upstream `bench/report.py`'s E1 formulas (harness §4.1,
/// E1 §4.2), kept independent of the implementation under test.
mod upstream_port {
    pub struct Out {
        pub tpr: f64,
        pub fpr: f64,
        pub fnr: f64,
        pub precision: f64,
        pub f1: f64,
        pub accuracy: f64,
        pub ece: f64,
        pub brier: f64,
        pub total_cost: f64,
        pub cost_weighted_accuracy: f64,
        pub abstain_rate: f64,
        pub aurc: f64,
    }

    /// `preds`: lower-case label ("" = unparseable), gold, confidence.
    pub fn metrics(rows: &[(&str, &str, f64)]) -> Out {
        let valid: Vec<_> = rows.iter().filter(|r| !r.0.is_empty()).collect();
        let abstains = valid.iter().filter(|r| r.0 == "abstain").count();
        let decided: Vec<_> = valid.iter().filter(|r| r.0 != "abstain").collect();
        let n = decided.len();
        let (mut tp, mut tn, mut fp, mut fn_) = (0usize, 0usize, 0usize, 0usize);
        for r in &decided {
            match (r.0, r.1) {
                ("malicious", "malicious") => tp += 1,
                ("benign", "benign") => tn += 1,
                ("malicious", "benign") => fp += 1,
                ("benign", "malicious") => fn_ += 1,
                _ => {}
            }
        }
        let div = |a: usize, b: usize| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        let tpr = div(tp, tp + fn_);
        let fpr = div(fp, fp + tn);
        let fnr = 1.0 - tpr;
        let precision = div(tp, tp + fp);
        let f1 = if precision + tpr > 0.0 {
            2.0 * precision * tpr / (precision + tpr)
        } else {
            0.0
        };
        let accuracy = div(tp + tn, n);
        let conf: Vec<f64> = decided.iter().map(|r| r.2).collect();
        let correct: Vec<f64> = decided
            .iter()
            .map(|r| if r.0 == r.1 { 1.0 } else { 0.0 })
            .collect();
        // ECE: bins = linspace-like edges i/10; last bin closed.
        let mut ece = 0.0;
        if n > 0 {
            for i in 0..10 {
                let lo = i as f64 / 10.0;
                let hi = (i + 1) as f64 / 10.0;
                let idx: Vec<usize> = (0..n)
                    .filter(|&k| conf[k] >= lo && (conf[k] < hi || (i == 9 && conf[k] <= hi)))
                    .collect();
                if idx.is_empty() {
                    continue;
                }
                let cnt = idx.len() as f64;
                let acc = idx.iter().map(|&k| correct[k]).sum::<f64>() / cnt;
                let avg = idx.iter().map(|&k| conf[k]).sum::<f64>() / cnt;
                ece += (cnt / n as f64) * (avg - acc).abs();
            }
        }
        let brier = if n > 0 {
            (0..n).map(|k| (conf[k] - correct[k]).powi(2)).sum::<f64>() / n as f64
        } else {
            0.0
        };
        let total_cost = (10 * fn_ + fp) as f64;
        let cost_weighted_accuracy = if n > 0 {
            1.0 - total_cost / (10.0 * n as f64)
        } else {
            1.0
        };
        let abstain_rate = div(abstains, valid.len());
        let mut aurc = 0.0;
        if n > 0 {
            let mut covs = Vec::new();
            let mut risks = Vec::new();
            for j in 0..=100 {
                let t = j as f64 / 100.0;
                let sel: Vec<usize> = (0..n).filter(|&k| conf[k] >= t).collect();
                covs.push(sel.len() as f64 / n as f64);
                risks.push(if sel.is_empty() {
                    0.0
                } else {
                    sel.iter().map(|&k| 1.0 - correct[k]).sum::<f64>() / sel.len() as f64
                });
            }
            for j in 1..=100 {
                aurc += (covs[j - 1] - covs[j]) * (risks[j] + risks[j - 1]) / 2.0;
            }
            aurc = aurc.max(0.0);
        }
        Out {
            tpr,
            fpr,
            fnr,
            precision,
            f1,
            accuracy,
            ece,
            brier,
            total_cost,
            cost_weighted_accuracy,
            abstain_rate,
            aurc,
        }
    }
}

fn arb_sample(with_invalid: bool) -> impl Strategy<Value = E1Sample> {
    let preds = if with_invalid { 4u8 } else { 3u8 };
    (
        0..preds,
        any::<bool>(),
        0u32..=100,
        0.0f64..=1.0,
        any::<bool>(),
    )
        .prop_map(|(p, g, grid, cont, use_grid)| {
            // Mix grid confidences (ties, bin edges) and continuous ones.
            let c = if use_grid {
                f64::from(grid) / 100.0
            } else {
                cont
            };
            match p {
                0 => E1Sample::decided(true, g, c),
                1 => E1Sample::decided(false, g, c),
                2 => E1Sample::abstain(g),
                _ => E1Sample::invalid(g),
            }
        })
}

fn triple(s: &E1Sample) -> (&'static str, &'static str, f64) {
    use svbench_envs::e1::report::Prediction::*;
    let p = match s.prediction {
        Malicious => "malicious",
        Benign => "benign",
        Abstain => "abstain",
        Invalid => "",
    };
    (
        p,
        if s.gold_malicious {
            "malicious"
        } else {
            "benign"
        },
        s.confidence,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Parity: without invalid outputs, the project's upstream-named metrics
    /// equal a direct port of upstream's formulas within 1e-12; with them,
    /// `upstream_compat` does.
    #[test]
    fn parity_with_upstream_port(samples in prop::collection::vec(arb_sample(false), 0..60),
                                 invalid in prop::collection::vec(arb_sample(true), 0..5)) {
        let c = compute(&samples, &DEFAULT_COSTS);
        let rows: Vec<_> = samples.iter().map(triple).collect();
        let u = upstream_port::metrics(&rows);
        let m = &c.metrics;
        for (got, want, name) in [
            (m.detection.tpr, u.tpr, "tpr"), (m.detection.fpr, u.fpr, "fpr"), (m.detection.fnr, u.fnr, "fnr"),
            (m.detection.precision, u.precision, "precision"), (m.detection.f1, u.f1, "f1"),
            (c.upstream.detection.accuracy, u.accuracy, "accuracy"), (m.calibration.ece, u.ece, "ece"),
            (m.calibration.brier, u.brier, "brier"), (m.cost.total_cost, u.total_cost, "total_cost"),
            (m.cost.cost_weighted_accuracy, u.cost_weighted_accuracy, "cwa"),
            (m.abstention.abstain_rate, u.abstain_rate, "abstain_rate"), (m.abstention.aurc, u.aurc, "aurc"),
            (m.abstention.accuracy_non_abstained, u.accuracy, "accuracy_non_abstained"),
        ] {
            prop_assert!(close(got, want), "{name}: {got} vs upstream {want}");
        }
        // svbench's accuracy: correct over every sample, abstentions included.
        let correct = samples.iter().filter(|s| {
            matches!(s.prediction, e1::Prediction::Malicious | e1::Prediction::Benign)
                && (s.prediction == e1::Prediction::Malicious) == s.gold_malicious
        }).count();
        if !samples.is_empty() {
            prop_assert!(close(m.detection.accuracy, correct as f64 / samples.len() as f64));
        }
        // Mixed in invalid outputs: upstream_compat still equals upstream's way.
        let mut mixed = samples.clone();
        for (k, s) in invalid.iter().enumerate() {
            mixed.insert((k * 7) % (mixed.len() + 1), *s);
        }
        let c2 = compute(&mixed, &DEFAULT_COSTS);
        let rows2: Vec<_> = mixed.iter().map(triple).collect();
        let u2 = upstream_port::metrics(&rows2);
        let m2 = &c2.upstream;
        prop_assert!(close(m2.detection.accuracy, u2.accuracy));
        prop_assert!(close(m2.detection.tpr, u2.tpr));
        prop_assert!(close(m2.calibration.ece, u2.ece));
        prop_assert!(close(m2.calibration.brier, u2.brier));
        prop_assert!(close(m2.cost.total_cost, u2.total_cost));
        prop_assert!(close(m2.abstention.abstain_rate, u2.abstain_rate));
        prop_assert!(close(m2.abstention.aurc, u2.aurc));
    }

    /// Replacing a decided prediction by an invalid output never raises
    /// accuracy, tpr, cost-weighted accuracy or expected_utility_v1 and never
    /// lowers total_cost or Brier (E1 §8.3 item 5).
    #[test]
    fn invalid_never_helps(samples in prop::collection::vec(arb_sample(true), 1..60), pick in any::<prop::sample::Index>()) {
        let decided: Vec<usize> = samples.iter().enumerate()
            .filter(|(_, s)| matches!(s.prediction, e1::Prediction::Malicious | e1::Prediction::Benign))
            .map(|(i, _)| i).collect();
        prop_assume!(!decided.is_empty());
        let i = decided[pick.index(decided.len())];
        let mut worse = samples.clone();
        worse[i] = E1Sample::invalid(samples[i].gold_malicious);
        let a = compute(&samples, &DEFAULT_COSTS);
        let b = compute(&worse, &DEFAULT_COSTS);
        let (am, bm) = (&a.metrics, &b.metrics);
        prop_assert!(bm.detection.accuracy <= am.detection.accuracy + EPS);
        prop_assert!(bm.detection.tpr <= am.detection.tpr + EPS);
        prop_assert!(bm.cost.cost_weighted_accuracy <= am.cost.cost_weighted_accuracy + EPS);
        prop_assert!(b.extras.expected_utility_v1 <= a.extras.expected_utility_v1 + EPS);
        prop_assert!(bm.cost.total_cost >= am.cost.total_cost - EPS);
        prop_assert!(bm.calibration.brier >= am.calibration.brier - EPS);
    }
}

fn input_of(samples: &[E1Sample], sources: &[&str]) -> E1Input {
    let mut input = E1Input::default();
    for (i, s) in samples.iter().enumerate() {
        let src = sources[i % sources.len()];
        input.push(*s, &format!("ex{i}"), Some(src.to_string()), None);
    }
    input
}

#[test]
fn bootstrap_same_seed_same_intervals() {
    let input = input_of(&vector_b(), &["a"]);
    let cfg = BootstrapConfig::default();
    let x = ci95(&input.samples, &input.units, cfg).expect("ci");
    let y = ci95(&input.samples, &input.units, cfg).expect("ci");
    assert_eq!(x, y);
    assert!(x.accuracy[0] <= x.accuracy[1]);
    let z = ci95(
        &input.samples,
        &input.units,
        BootstrapConfig { seed: 99, ..cfg },
    )
    .expect("ci");
    assert_ne!(x, z);
}

#[test]
fn bootstrap_all_correct_accuracy_is_one() {
    let samples: Vec<E1Sample> = (0..40)
        .map(|i| {
            sample(
                if i % 2 == 0 { 'M' } else { 'B' },
                if i % 2 == 0 { 'M' } else { 'B' },
                0.8,
            )
        })
        .collect();
    let input = input_of(&samples, &["a"]);
    let ci = ci95(&input.samples, &input.units, BootstrapConfig::default()).expect("ci");
    assert_eq!(ci.accuracy, [1.0, 1.0]);
}

#[test]
fn groups_partition_the_samples() {
    let samples: Vec<E1Sample> = vector_b().into_iter().cycle().take(45).collect();
    let mut input = E1Input::default();
    for (i, s) in samples.iter().enumerate() {
        let source = ["iot23", "cic", "unsw"][i % 3].to_string();
        let scenario = if i % 4 == 0 {
            None
        } else {
            Some(format!("s{}", i % 5))
        };
        input.push(*s, &format!("ex{i}"), Some(source), scenario);
    }
    let rep = e1::e1_report(
        &input,
        e1::cost_matrix(None, &Default::default(), None),
        BootstrapConfig {
            resamples: 50,
            seed: 1,
        },
    );
    let n = samples.len() as u64;
    assert_eq!(rep.e1.groups.source.values().map(|g| g.n).sum::<u64>(), n);
    assert_eq!(rep.e1.groups.scenario.values().map(|g| g.n).sum::<u64>(), n);
    assert!(rep.e1.groups.scenario.contains_key("unknown"));
    let cm = |m: &svbench_envs::e1::report::summary::E1Metrics| {
        let c = &m.confusion_matrix;
        c.tp + c.tn + c.fp + c.fn_ + c.abstain + c.invalid
    };
    assert_eq!(
        rep.e1
            .groups
            .source
            .values()
            .map(|g| cm(&g.metrics))
            .sum::<u64>(),
        n
    );
    assert_eq!(rep.e1.cost_matrix_v1.source, "defaults");
}

#[test]
fn cost_matrix_comes_from_v1_reward_params() {
    let mut params = std::collections::BTreeMap::new();
    params.insert("cost_fp".to_string(), serde_json::json!(0.5));
    params.insert("cost_fn".to_string(), serde_json::json!(2.0));
    params.insert("cost_abstain".to_string(), serde_json::json!(0.2));
    let (m, rec) = e1::cost_matrix(Some("v1"), &params, None);
    assert_eq!((m.cost_fp, m.cost_fn, m.cost_abstain), (0.5, 2.0, 0.2));
    assert_eq!(rec.source, "reward_params");
    let (m, rec) = e1::cost_matrix(Some("upstream"), &params, None);
    assert_eq!(m, DEFAULT_COSTS);
    assert_eq!(rec.source, "defaults");
}
