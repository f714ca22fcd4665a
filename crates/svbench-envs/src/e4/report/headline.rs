//! E4's `headline`: the metrics its report, scoreboard and `compare` lead
//! with, in svbench's definitions.

use svbench_core::summary::HeadlineMetric;
use svbench_report::headline::metric;

use super::summary::E4Metrics;

/// E4's `f1`.
pub const E4_F1: &str =
    "F1 of Phishing calls on clear-cut emails: precision over Phishing calls, recall over phishing emails not abstained on (invalid answers count as misses).";
/// E4's `recall_strict`.
pub const E4_RECALL_STRICT: &str =
    "Phishing emails called Phishing / all phishing emails (abstentions and invalid answers count as misses).";
/// E4's `evidence_f1`.
pub const E4_EVIDENCE_F1: &str =
    "Mean evidence score (F1 of quoted evidence against the relevant indicator spans) over emails where evidence is scored.";

/// E4's headline: mean reward, detection quality, strict recall and
/// evidence F1, in E4's definitions.
pub fn e4(m: &E4Metrics) -> Vec<HeadlineMetric> {
    let ci = m.ci95.as_ref();
    let a = &m.all;
    vec![
        metric(
            "reward_mean",
            m.reward,
            ci.and_then(|c| c.reward_mean),
            "Mean total reward over scored records.",
        ),
        metric(
            "f1",
            a.f1,
            ci.and_then(|c| c.f1),
            E4_F1,
        ),
        metric(
            "recall_strict",
            a.recall_strict,
            None,
            E4_RECALL_STRICT,
        ),
        metric(
            "accuracy",
            a.accuracy,
            ci.and_then(|c| c.accuracy),
            "Label equals gold over every scored email, Abstain being right on ambiguous ones; invalid answers count as wrong.",
        ),
        metric(
            "evidence_f1",
            a.evidence.all.f1,
            ci.and_then(|c| c.evidence_f1),
            E4_EVIDENCE_F1,
        ),
        metric(
            "ece",
            a.ece,
            ci.and_then(|c| c.ece),
            "Expected calibration error, 10 bins, over decided answers (invalid answers at confidence 1.0, wrong).",
        ),
    ]
}
