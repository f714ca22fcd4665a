//! The v1 Bayes-optimal decision (E1 §3.2.1) with the default reward
//! constants, used to write `meta.optimal_action` and by the data checks.
//!
//! Built on the reward module's own `v1` scoring with the built-in constants.

use svbench_core::ParseOutcome;

use crate::e1::reward::{score_v1, V1Params};
use crate::e1::{Gold, Label};

/// Expected v1 total of answering `label` honestly (confidence q for
/// Malicious, 1 − q for Benign) when P(Malicious) = q.
pub fn expected_total(label: Label, q: f64) -> f64 {
    let c = match label {
        Label::Malicious => q,
        Label::Benign => 1.0 - q,
        Label::Abstain => 0.5,
    };
    q * v1_total(label, c, Gold::Malicious) + (1.0 - q) * v1_total(label, c, Gold::Benign)
}

/// The Bayes-optimal action for P(Malicious) = q: Benign below ≈ 0.17621,
/// Abstain up to ≈ 0.38730, Malicious above.
pub fn optimal_action(q: f64) -> Label {
    best_of(q, &[Label::Benign, Label::Abstain, Label::Malicious])
}

/// The best decision when abstaining is not allowed; at the tie (q = 0.2
/// with the defaults) it raises the alarm.
pub fn optimal_decision(q: f64) -> Label {
    if expected_total(Label::Malicious, q) >= expected_total(Label::Benign, q) - 1e-12 {
        Label::Malicious
    } else {
        Label::Benign
    }
}

fn best_of(q: f64, options: &[Label]) -> Label {
    let mut best = options[0];
    for &l in &options[1..] {
        if expected_total(l, q) > expected_total(best, q) {
            best = l;
        }
    }
    best
}

/// Realised v1 total of a valid, well-formatted answer (E1 §3.2) under the
/// default constants, which the generator fixes on purpose: the dataset must
/// not change when someone passes another reward config to `eval`.
pub fn v1_total(label: Label, confidence: f64, gold: Gold) -> f64 {
    let answer = ParseOutcome::Valid {
        label,
        confidence,
        format_ok: true,
        format_reason: None,
        rationale: None,
    };
    score_v1(default_params(), &answer, gold).total
}

/// The built-in constants, parsed once.
fn default_params() -> &'static V1Params {
    static PARAMS: std::sync::OnceLock<V1Params> = std::sync::OnceLock::new();
    PARAMS.get_or_init(V1Params::default)
}

/// The oracle's answer for P(Malicious) = q: the (optionally abstain-free)
/// Bayes decision with its honest confidence.
pub fn oracle_answer(q: f64, allow_abstain: bool) -> (Label, f64) {
    let label = if allow_abstain {
        optimal_action(q)
    } else {
        optimal_decision(q)
    };
    let c = match label {
        Label::Malicious => q,
        Label::Benign => 1.0 - q,
        Label::Abstain => 1.0 - q.max(1.0 - q),
    };
    (label, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_match_closed_forms() {
        let q_lo = (5.0 - 21.6f64.sqrt()) / 2.0;
        let q_hi = 0.15f64.sqrt();
        assert_eq!(optimal_action(q_lo - 1e-9), Label::Benign);
        assert_eq!(optimal_action(q_lo + 1e-9), Label::Abstain);
        assert_eq!(optimal_action(q_hi - 1e-9), Label::Abstain);
        assert_eq!(optimal_action(q_hi + 1e-9), Label::Malicious);
        assert_eq!(optimal_decision(0.19), Label::Benign);
        assert_eq!(optimal_decision(0.2), Label::Malicious);
        assert_eq!(optimal_decision(0.21), Label::Malicious);
    }

    #[test]
    fn worked_table_values() {
        assert!((v1_total(Label::Malicious, 0.9, Gold::Malicious) - 1.2975).abs() < 1e-12);
        assert!((v1_total(Label::Malicious, 0.9, Gold::Benign) - 0.8475).abs() < 1e-12);
        assert!((v1_total(Label::Benign, 0.7, Gold::Malicious) - 0.1775).abs() < 1e-12);
        assert!((v1_total(Label::Abstain, 0.3, Gold::Benign) - 1.0875).abs() < 1e-12);
    }
}
