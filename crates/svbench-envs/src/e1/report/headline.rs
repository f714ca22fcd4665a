//! E1's `headline`: the metrics its report, scoreboard and `compare` lead
//! with, in svbench's definitions.

use svbench_core::summary::HeadlineMetric;
use svbench_report::headline::metric;

use super::summary::{E1Metrics, E1Summary};

/// E1's `accuracy`: the definition every output shares.
pub const E1_ACCURACY: &str =
    "Correct Malicious/Benign calls / scored samples; abstentions and invalid answers count as not correct.";
/// E1's `accuracy_non_abstained`.
pub const E1_ACCURACY_NON_ABSTAINED: &str =
    "Correct calls / samples not abstained on (selective accuracy; invalid answers count as not correct).";
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
