//! E2's `headline`: the metrics its report, scoreboard and `compare` lead
//! with, in svbench's definitions.

use svbench_core::summary::HeadlineMetric;
use svbench_report::headline::metric;

use super::summary::E2Summary;

/// E2's `micro_f1`.
pub const E2_MICRO_F1: &str =
    "Pooled F1 over findings, 2·TP / (2·TP + FP + FN), summed over every scored record on the ids the v1 reward compares.";

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
        "Among records whose oracle is empty: share answered validly with no scored finding (an invalid answer is not a pass).",
    ));
    out.push(metric(
        "patch_applied_rate",
        e2.v1.patch_applied_rate,
        None,
        "Among answers with a patch: share that applied, preserved the objects and re-scanned (v1 patch path).",
    ));
    out
}
