//! Non-finite E1 metrics become 0.0 with a warning (upstream-named numbers must be numbers).

use crate::e1::report::summary::E1Metrics;

use svbench_report::build::guard;

pub(crate) fn guard_blocks(
    prefix: &str,
    d: &mut crate::e1::report::summary::E1Detection,
    c: &mut crate::e1::report::summary::E1Calibration,
    k: &mut crate::e1::report::summary::E1Cost,
    a: &mut crate::e1::report::summary::E1Abstention,
    w: &mut Vec<String>,
) {
    let fields: [(&str, &mut f64); 15] = [
        ("detection.tpr", &mut d.tpr),
        ("detection.fpr", &mut d.fpr),
        ("detection.fnr", &mut d.fnr),
        ("detection.precision", &mut d.precision),
        ("detection.f1", &mut d.f1),
        ("detection.accuracy", &mut d.accuracy),
        ("calibration.ece", &mut c.ece),
        ("calibration.brier", &mut c.brier),
        ("cost.fn_cost_weight", &mut k.fn_cost_weight),
        ("cost.fp_cost_weight", &mut k.fp_cost_weight),
        ("cost.total_cost", &mut k.total_cost),
        ("cost.cost_weighted_accuracy", &mut k.cost_weighted_accuracy),
        ("abstention.abstain_rate", &mut a.abstain_rate),
        (
            "abstention.accuracy_non_abstained",
            &mut a.accuracy_non_abstained,
        ),
        ("abstention.aurc", &mut a.aurc),
    ];
    for (name, v) in fields {
        guard(&format!("{prefix}.{name}"), v, w);
    }
}

pub(crate) fn guard_e1(m: &mut E1Metrics, prefix: &str, w: &mut Vec<String>) {
    guard_blocks(
        prefix,
        &mut m.detection,
        &mut m.calibration,
        &mut m.cost,
        &mut m.abstention,
        w,
    );
}

pub(crate) fn guard_e1_upstream(
    m: &mut crate::e1::report::summary::E1UpstreamMetrics,
    w: &mut Vec<String>,
) {
    guard_blocks(
        "upstream_compat",
        &mut m.detection,
        &mut m.calibration,
        &mut m.cost,
        &mut m.abstention,
        w,
    );
}

pub(crate) fn guard_extras(
    prefix: &str,
    x: &mut crate::e1::report::summary::E1Extras,
    w: &mut Vec<String>,
) {
    guard(&format!("{prefix}.aurc_standard"), &mut x.aurc_standard, w);
    guard(
        &format!("{prefix}.expected_cost_v1"),
        &mut x.expected_cost_v1,
        w,
    );
    guard(
        &format!("{prefix}.expected_utility_v1"),
        &mut x.expected_utility_v1,
        w,
    );
    guard(&format!("{prefix}.invalid_rate"), &mut x.invalid_rate, w);
}

pub(crate) fn guard_e1_summary(e: &mut crate::e1::report::summary::E1Summary, w: &mut Vec<String>) {
    guard_extras("e1.extras", &mut e.extras, w);
    for (kind, map) in [
        ("source", &mut e.groups.source),
        ("scenario", &mut e.groups.scenario),
    ] {
        for (k, g) in map.iter_mut() {
            let prefix = format!("e1.groups.{kind}.{k}");
            guard_e1(&mut g.metrics, &format!("{prefix}.metrics"), w);
            guard_extras(&format!("{prefix}.extras"), &mut g.extras, w);
        }
    }
    if let Some(ci) = &mut e.ci95 {
        for (name, pair) in [
            ("accuracy", &mut ci.accuracy),
            ("f1", &mut ci.f1),
            ("ece", &mut ci.ece),
            ("brier", &mut ci.brier),
        ] {
            for v in pair.iter_mut() {
                guard(&format!("e1.ci95.{name}"), v, w);
            }
        }
    }
}
