//! E1 reward acceptance tests (E1 §8.2): worked tables, properties of the v1
//! profile, config validation.

use svbench_core::reward_config::RewardConfigError;
use svbench_core::ParseOutcome;
use svbench_envs::e1::reward::{score_upstream, score_v1, E1Rewards, V1Params};
use svbench_envs::e1::{Gold, Label};
use svbench_envs::kit::reward::V1Constants;

fn valid(label: Label, c: f64, format_ok: bool) -> ParseOutcome<Label> {
    ParseOutcome::Valid {
        label,
        confidence: c,
        format_ok,
        format_reason: None,
        rationale: None,
    }
}

fn label_only(label: Label) -> ParseOutcome<Label> {
    ParseOutcome::LabelOnly {
        label,
        reason: "confidence_missing".into(),
    }
}

fn invalid() -> ParseOutcome<Label> {
    ParseOutcome::Invalid {
        reason: "no_json_object".into(),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// E1 §3.1 worked cases: (outcome, gold, [acc, fmt, cal, cost], total).
#[test]
fn upstream_worked_table() {
    use Gold::*;
    use Label as L;
    // Upstream mode: a missing confidence is 0.0 and a numeric string earns no
    // format credit; both are Valid outcomes with those values.
    let cases: Vec<(ParseOutcome<Label>, Gold, [f64; 4], f64)> = vec![
        (
            valid(L::Malicious, 0.9, true),
            Malicious,
            [1.0, 1.0, 0.9, 1.0],
            1.78,
        ),
        (
            valid(L::Malicious, 0.9, true),
            Benign,
            [0.0, 1.0, 0.1, 0.0],
            0.12,
        ),
        (
            valid(L::Benign, 0.7, true),
            Malicious,
            [0.0, 1.0, 0.3, -1.0],
            -0.34,
        ),
        (
            valid(L::Benign, 0.0, true),
            Malicious,
            [0.0, 1.0, 1.0, -1.0],
            -0.20,
        ),
        (
            valid(L::Abstain, 0.0, true),
            Malicious,
            [0.0, 1.0, 1.0, 0.0],
            0.30,
        ),
        (
            valid(L::Abstain, 0.0, true),
            Benign,
            [0.0, 1.0, 1.0, 0.0],
            0.30,
        ),
        (
            valid(L::Malicious, 0.0, false),
            Malicious,
            [1.0, 0.0, 0.0, 1.0],
            1.50,
        ),
        (
            valid(L::Malicious, 0.0, false),
            Benign,
            [0.0, 0.0, 1.0, 0.0],
            0.20,
        ),
        (
            valid(L::Benign, 0.0, false),
            Malicious,
            [0.0, 0.0, 1.0, -1.0],
            -0.30,
        ),
        (
            valid(L::Malicious, 0.9, false),
            Malicious,
            [1.0, 0.0, 0.9, 1.0],
            1.68,
        ),
        (invalid(), Malicious, [0.0; 4], 0.0),
    ];
    let names = [
        "reward_accuracy",
        "format_reward",
        "reward_calibration",
        "reward_asymmetric_cost",
    ];
    for (i, (outcome, gold, comps, total)) in cases.into_iter().enumerate() {
        let r = score_upstream(&outcome, gold);
        assert_eq!(r.profile, "upstream");
        for (name, want) in names.iter().zip(comps) {
            let got = r.component(name).unwrap();
            assert!(close(got, want), "case {i} {name}: {got} != {want}");
        }
        assert!(
            close(r.total, total),
            "case {i}: total {} != {total}",
            r.total
        );
    }
}

/// E1 §3.2 worked cases with the default constants.
#[test]
fn v1_worked_table() {
    use Gold::*;
    use Label as L;
    let p = V1Params::default();
    let cases: Vec<(ParseOutcome<Label>, Gold, [f64; 3], f64)> = vec![
        (
            valid(L::Malicious, 0.9, true),
            Malicious,
            [1.0, 0.99, 1.0],
            1.2975,
        ),
        (
            valid(L::Malicious, 1.0, true),
            Malicious,
            [1.0, 1.0, 1.0],
            1.30,
        ),
        (
            valid(L::Malicious, 0.9, true),
            Benign,
            [0.75, 0.19, 1.0],
            0.8475,
        ),
        (
            valid(L::Benign, 0.7, true),
            Malicious,
            [0.0, 0.51, 1.0],
            0.1775,
        ),
        (
            valid(L::Benign, 1.0, true),
            Malicious,
            [0.0, 0.0, 1.0],
            0.05,
        ),
        (
            valid(L::Abstain, 0.3, true),
            Malicious,
            [0.85, 0.75, 1.0],
            1.0875,
        ),
        (
            valid(L::Abstain, 0.9, true),
            Benign,
            [0.85, 0.75, 1.0],
            1.0875,
        ),
        (label_only(L::Malicious), Malicious, [1.0, 0.0, 0.0], 1.00),
        (label_only(L::Abstain), Benign, [0.85, 0.0, 0.0], 0.85),
        (label_only(L::Benign), Malicious, [0.0, 0.0, 0.0], 0.00),
        (
            valid(L::Malicious, 0.9, false),
            Malicious,
            [1.0, 0.99, 0.0],
            1.2475,
        ),
        (invalid(), Benign, [0.0, 0.0, 0.0], 0.0),
    ];
    for (i, (outcome, gold, comps, total)) in cases.into_iter().enumerate() {
        let r = score_v1(&p, &outcome, gold);
        for (name, want) in ["utility", "calibration", "format"].iter().zip(comps) {
            let got = r.component(name).unwrap();
            assert!(close(got, want), "case {i} {name}: {got} != {want}");
        }
        assert!(
            close(r.total, total),
            "case {i}: total {} != {total}",
            r.total
        );
    }
}

/// Property 1: the Brier calibration is proper — expected credit peaks at c = p.
#[test]
fn calibration_is_proper() {
    let grid: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
    for &p in &grid {
        let expected = |c: f64| p * (1.0 - (c - 1.0).powi(2)) + (1.0 - p) * (1.0 - c * c);
        let best = grid
            .iter()
            .copied()
            .max_by(|a, b| expected(*a).total_cmp(&expected(*b)))
            .unwrap();
        assert!((best - p).abs() < 1e-9, "p {p}: best c {best}");
    }
}

fn random_configs() -> Vec<V1Params> {
    // Deterministic pseudo-random valid configs.
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut out = vec![V1Params::default()];
    for _ in 0..200 {
        let cost_fn = 0.1 + 2.0 * next();
        let mut p = V1Params::default();
        p.costs.cost_fn = cost_fn;
        p.costs.cost_fp = cost_fn * next();
        p.costs.cost_abstain = cost_fn * next();
        p.w_calibration = next();
        p.w_format = 0.001 + 0.2 * next();
        p.abstain_calibration = next();
        p.validate().unwrap();
        out.push(p);
    }
    out
}

/// Properties 2, 4 and 5 over many valid configs.
#[test]
fn v1_ordering_and_differences() {
    let cs: Vec<f64> = (0..=20).map(|i| i as f64 / 20.0).collect();
    for p in random_configs() {
        let a = p.costs.cost_fp / p.costs.cost_fn;
        let w = p.w_calibration;
        let inv = score_v1(&p, &invalid(), Gold::Malicious).total;
        assert_eq!(inv, 0.0);
        for gold in [Gold::Benign, Gold::Malicious] {
            for label in [Label::Benign, Label::Malicious, Label::Abstain] {
                let lo = score_v1(&p, &label_only(label), gold).total;
                assert!(lo >= 0.0);
                for &c in &cs {
                    let v_fmt = score_v1(&p, &valid(label, c, true), gold);
                    let v_nofmt = score_v1(&p, &valid(label, c, false), gold).total;
                    assert!(inv < v_fmt.total, "invalid must lose to every valid answer");
                    assert!(v_fmt.total >= p.w_format - 1e-12);
                    assert!(lo <= v_nofmt + 1e-12);
                    assert!(lo < v_fmt.total);
                    // Property 5: total = Σ weight × component.
                    let sum: f64 = v_fmt.components.iter().map(|c| c.weight * c.value).sum();
                    assert_eq!(sum, v_fmt.total);
                    assert_eq!(v_fmt.components.len(), 3);
                }
            }
        }
        for &c in &cs {
            let fp = score_v1(&p, &valid(Label::Malicious, c, true), Gold::Benign).total;
            let fnn = score_v1(&p, &valid(Label::Benign, c, true), Gold::Malicious).total;
            let ok = score_v1(&p, &valid(Label::Malicious, c, true), Gold::Malicious).total;
            assert!(((fp - fnn) - (1.0 - a)).abs() < 1e-9);
            assert!(((ok - fp) - (a + w * (2.0 * c - 1.0))).abs() < 1e-9);
        }
    }
}

/// Expected totals of §3.2.1 with honest confidence, maximised over c on a grid.
fn expected_best(p: &V1Params, q: f64, label: Label) -> f64 {
    let cs = (0..=1000).map(|i| i as f64 / 1000.0);
    cs.map(|c| {
        q * score_v1(p, &valid(label, c, true), Gold::Malicious).total
            + (1.0 - q) * score_v1(p, &valid(label, c, true), Gold::Benign).total
    })
    .fold(f64::NEG_INFINITY, f64::max)
}

/// Property 3: abstention is optimal exactly inside (q_lo, q_hi).
#[test]
fn abstain_band_matches_closed_form() {
    let p = V1Params::default();
    let q_lo = (5.0 - 21.6f64.sqrt()) / 2.0;
    let q_hi = 0.15f64.sqrt();
    assert!((q_lo - 0.17621).abs() < 1e-5 && (q_hi - 0.38730).abs() < 1e-5);
    for i in 1..100 {
        let q = i as f64 / 100.0;
        let abstain = expected_best(&p, q, Label::Abstain);
        let m = expected_best(&p, q, Label::Malicious);
        let b = expected_best(&p, q, Label::Benign);
        if q > q_lo + 0.005 && q < q_hi - 0.005 {
            assert!(abstain > m && abstain > b, "q {q}: abstain should win");
        } else if q < q_lo - 0.005 || q > q_hi + 0.005 {
            assert!(abstain < m.max(b), "q {q}: a decision should win");
        }
    }
}

/// Closed-form thresholds hold for random configs (roots of the two quadratics).
#[test]
fn thresholds_match_closed_form_for_random_configs() {
    for p in random_configs().into_iter().take(40) {
        let a = p.costs.cost_fp / p.costs.cost_fn;
        let b = p.costs.cost_abstain / p.costs.cost_fn;
        let (w, k) = (p.w_calibration, p.abstain_calibration);
        // E[M] − E[A] and E[B] − E[A] as functions of q.
        let dm = |q: f64| w * q * q + (a - w) * q + (b - a + w * (1.0 - k));
        let db = |q: f64| w * q * q - (1.0 + w) * q + (b + w * (1.0 - k));
        for i in 1..50 {
            let q = i as f64 / 50.0;
            let ea = expected_best(&p, q, Label::Abstain);
            let em = expected_best(&p, q, Label::Malicious);
            let eb = expected_best(&p, q, Label::Benign);
            // Grid maximisation of c is within 1e-6 of the honest optimum.
            assert!(((em - ea) - dm(q)).abs() < 1e-5, "dm at {q}");
            assert!(((eb - ea) - db(q)).abs() < 1e-5, "db at {q}");
        }
    }
}

#[test]
fn config_validation_rejects_each_invalid_setting() {
    let bad = [
        "[v1]\ncost_fn = 0.0\n",
        "[v1]\ncost_fp = 2.0\n",
        "[v1]\ncost_fp = -0.1\n",
        "[v1]\ncost_abstain = 1.5\n",
        "[v1]\ncost_abstain = -0.1\n",
        "[v1]\nw_calibration = -1.0\n",
        "[v1]\nw_format = 0.0\n",
        "[v1]\nabstain_calibration = 1.5\n",
        "[v1]\nabstain_calibration = -0.5\n",
    ];
    for text in bad {
        let err = E1Rewards::load("v1", Some((text, "t.toml"))).unwrap_err();
        assert!(
            matches!(err, RewardConfigError::Invalid { .. }),
            "{text}: {err}"
        );
    }
    assert!(matches!(
        E1Rewards::load("v1", Some(("[v1]\nunknown = 1.0\n", "t"))),
        Err(RewardConfigError::UnknownKey { .. })
    ));
    assert!(matches!(
        E1Rewards::load("upstream", Some(("[upstream]\nweight = 1.0\n", "t"))),
        Err(RewardConfigError::UnknownKey { .. })
    ));
    assert!(E1Rewards::load("v2", None).is_err());
}

#[test]
fn overrides_change_weights_and_hash() {
    let base = E1Rewards::v1_default();
    let custom = E1Rewards::load("v1", Some(("[v1]\nw_calibration = 0.5\n", "t"))).unwrap();
    assert_ne!(base.config_hash(), custom.config_hash());
    assert_eq!(custom.weights()[1], ("calibration", 0.5));
    let up = E1Rewards::load("upstream", None).unwrap();
    let names: Vec<_> = up.weights().into_iter().collect();
    assert_eq!(
        names,
        vec![
            ("reward_accuracy", 1.0),
            ("format_reward", 0.1),
            ("reward_calibration", 0.2),
            ("reward_asymmetric_cost", 0.5)
        ]
    );
}
