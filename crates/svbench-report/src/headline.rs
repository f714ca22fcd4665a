//! `headline`: the metrics a report, a scoreboard and `compare` lead with,
//! in svbench's definitions. One name means one quantity everywhere; a
//! value is `None` (null, `n/a`) where its denominator is zero.

use crate::e1::summary::{E1Metrics, E1Summary};
use crate::e2::summary::E2Summary;
use crate::e4::summary::E4Metrics;
use svbench_core::summary::HeadlineMetric;

/// E1's `accuracy`: the definition every output shares.
pub const E1_ACCURACY: &str =
    "Correct Malicious/Benign calls / scored samples; abstentions and invalid answers count as not correct.";
/// E1's `accuracy_non_abstained`.
pub const E1_ACCURACY_NON_ABSTAINED: &str =
    "Correct calls / samples not abstained on (selective accuracy; invalid answers count as not correct).";
/// E2's `micro_f1`.
pub const E2_MICRO_F1: &str =
    "Pooled F1 over findings, 2·TP / (2·TP + FP + FN), summed over every scored record on the ids the v1 reward compares.";

/// E4's `f1`.
pub const E4_F1: &str =
    "F1 of Phishing calls on clear-cut emails: precision over Phishing calls, recall over phishing emails not abstained on (invalid answers count as misses).";
/// E4's `recall_strict`.
pub const E4_RECALL_STRICT: &str =
    "Phishing emails called Phishing / all phishing emails (abstentions and invalid answers count as misses).";
/// E4's `evidence_f1`.
pub const E4_EVIDENCE_F1: &str =
    "Mean evidence score (F1 of quoted evidence against the relevant indicator spans) over emails where evidence is scored.";

/// How reports name a run's policy when it is not a baseline: the oracle
/// builtins (`baseline_type` `oracle`) are upper bounds.
pub fn policy_label(baseline_type: Option<&str>) -> Option<String> {
    (baseline_type == Some("oracle")).then(|| svbench_core::ORACLE_LABEL.to_string())
}

fn metric(
    name: &str,
    value: Option<f64>,
    ci95: Option<[f64; 2]>,
    definition: &str,
) -> HeadlineMetric {
    HeadlineMetric {
        name: name.to_string(),
        value: value.filter(|v| v.is_finite()),
        ci95: ci95.filter(|r| r.iter().all(|x| x.is_finite())),
        definition: definition.to_string(),
    }
}

/// E1's headline from the invalid-aware blocks; a metric listed in
/// `e1.undefined` is `None`.
pub fn e1(m: &E1Metrics, e1: &E1Summary) -> Vec<HeadlineMetric> {
    let defined = |name: &str, v: f64| (!e1.undefined.iter().any(|u| u == name)).then_some(v);
    let ci = e1.ci95.as_ref();
    vec![
        metric(
            "accuracy",
            defined("accuracy", m.detection.accuracy),
            ci.map(|c| c.accuracy),
            E1_ACCURACY,
        ),
        metric(
            "accuracy_non_abstained",
            defined("accuracy_non_abstained", m.abstention.accuracy_non_abstained),
            None,
            E1_ACCURACY_NON_ABSTAINED,
        ),
        metric(
            "abstain_rate",
            defined("abstain_rate", m.abstention.abstain_rate),
            None,
            "Abstentions / scored samples.",
        ),
        metric(
            "f1",
            defined("f1", m.detection.f1),
            ci.map(|c| c.f1),
            "F1 of Malicious calls: precision over Malicious calls, recall over malicious samples not abstained on (invalid answers count as misses).",
        ),
        metric(
            "ece",
            defined("ece", m.calibration.ece),
            ci.map(|c| c.ece),
            "Expected calibration error, 10 bins, over non-abstained answers (invalid answers at confidence 1.0, wrong).",
        ),
    ]
}

/// E2's headline from the pooled scores and the v1 view.
pub fn e2(e2: &E2Summary) -> Vec<HeadlineMetric> {
    let u = &e2.micro.unweighted;
    let w = &e2.micro.weighted;
    let mut out = vec![
        metric(
            "micro_f1",
            u.f1,
            e2.ci95.as_ref().and_then(|c| c.micro_f1),
            E2_MICRO_F1,
        ),
        metric(
            "micro_precision",
            u.precision,
            None,
            "Pooled TP / (TP + FP) over findings; undefined when nothing was predicted.",
        ),
        metric(
            "micro_recall",
            u.recall,
            None,
            "Pooled TP / (TP + FN) over findings; undefined when the oracle holds no finding.",
        ),
        metric(
            "micro_f1_weighted",
            w.f1,
            None,
            "micro_f1 with each finding weighted by its catalogue severity (low 0.3, med 0.6, high 1.0).",
        ),
    ];
    for (lang, g) in &e2.by_lang {
        out.push(metric(
            &format!("micro_f1_{lang}"),
            g.micro.unweighted.f1,
            None,
            &format!("micro_f1 over the `{lang}` records only."),
        ));
    }
    out.push(metric(
        "clean_pass_rate",
        e2.v1.clean_pass_rate,
        None,
        "Among records whose oracle is empty: share answered with no scored finding.",
    ));
    out.push(metric(
        "patch_applied_rate",
        e2.v1.patch_applied_rate,
        None,
        "Among answers with a patch: share that applied, preserved the objects and re-scanned (v1 patch path).",
    ));
    out
}

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
