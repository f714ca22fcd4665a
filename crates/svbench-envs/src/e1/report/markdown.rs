//! E1 sections of `report.md` (network-log triage): detection beside its
//! upstream-compatible values, calibration, costs, abstention, intervals,
//! undefined values and per-group tables.

use std::fmt::Write;

use crate::e1::report::summary::{E1Group, E1Metrics, E1Summary, E1UpstreamMetrics};

use svbench_report::markdown::{f, fu, NA};
use svbench_report::markup::table_cell;

/// Writes every E1 section.
pub fn sections(s: &mut String, m: &E1Metrics, u: &E1UpstreamMetrics, e1: &E1Summary) {
    let und = &e1.undefined;
    s.push_str("## Detection\n\nsvbench counts invalid outputs (a miss on malicious, an error in accuracy) and abstentions (not correct) in `accuracy`. The upstream-compatible column (`upstream_compat`) keeps upstream's definitions: invalid outputs dropped, and its `accuracy` is over non-abstained answers (svbench's `accuracy_non_abstained`).\n\n");
    s.push_str("| metric | svbench | upstream-compatible |\n|---|---:|---:|\n");
    let d = (&m.detection, &u.detection);
    for (k, a, b) in [
        ("accuracy", d.0.accuracy, d.1.accuracy),
        ("tpr", d.0.tpr, d.1.tpr),
        ("fpr", d.0.fpr, d.1.fpr),
        ("fnr", d.0.fnr, d.1.fnr),
        ("precision", d.0.precision, d.1.precision),
        ("f1", d.0.f1, d.1.f1),
    ] {
        let _ = writeln!(s, "| {k} | {} | {} |", fu(a, k, und), f(b));
    }
    s.push_str("\n## Calibration\n\n| metric | svbench | upstream-compatible |\n|---|---:|---:|\n");
    let _ = writeln!(
        s,
        "| ece | {} | {} |",
        fu(m.calibration.ece, "ece", und),
        f(u.calibration.ece)
    );
    let _ = writeln!(
        s,
        "| brier | {} | {} |",
        fu(m.calibration.brier, "brier", und),
        f(u.calibration.brier)
    );
    s.push_str("\n## Cost\n\nUpstream's weights: a miss costs 10, a false alarm 1.\n\n| metric | svbench | upstream-compatible |\n|---|---:|---:|\n");
    let _ = writeln!(
        s,
        "| total_cost | {} | {} |",
        f(m.cost.total_cost),
        f(u.cost.total_cost)
    );
    let _ = writeln!(
        s,
        "| cost_weighted_accuracy | {} | {} |",
        fu(m.cost.cost_weighted_accuracy, "cost_weighted_accuracy", und),
        f(u.cost.cost_weighted_accuracy)
    );
    let cm = &e1.cost_matrix_v1;
    let _ = writeln!(
        s,
        "| expected_cost_v1 (fp {}, fn {}, abstain {}; {}) | {} | — |",
        f(cm.cost_fp),
        f(cm.cost_fn),
        f(cm.cost_abstain),
        cm.source,
        fu(e1.extras.expected_cost_v1, "expected_cost_v1", und)
    );
    let _ = writeln!(
        s,
        "| expected_utility_v1 | {} | — |",
        fu(e1.extras.expected_utility_v1, "expected_utility_v1", und)
    );
    s.push_str("\n## Abstention\n\n| metric | svbench | upstream-compatible |\n|---|---:|---:|\n");
    let _ = writeln!(
        s,
        "| abstain_rate | {} | {} |",
        fu(m.abstention.abstain_rate, "abstain_rate", und),
        f(u.abstention.abstain_rate)
    );
    let _ = writeln!(
        s,
        "| accuracy_non_abstained | {} | {} |",
        fu(
            m.abstention.accuracy_non_abstained,
            "accuracy_non_abstained",
            und
        ),
        f(u.abstention.accuracy_non_abstained)
    );
    let _ = writeln!(
        s,
        "| aurc (upstream definition) | {} | {} |",
        fu(m.abstention.aurc, "aurc", und),
        f(u.abstention.aurc)
    );
    let _ = writeln!(
        s,
        "| aurc_standard | {} | — |",
        fu(e1.extras.aurc_standard, "aurc_standard", und)
    );
    let _ = writeln!(
        s,
        "| invalid_rate | {} | — |",
        fu(e1.extras.invalid_rate, "invalid_rate", und)
    );
    let c = &m.confusion_matrix;
    s.push_str("\n## Confusion matrix\n\n| gold \\ predicted | Malicious | Benign | Invalid |\n|---|---:|---:|---:|\n");
    let _ = writeln!(
        s,
        "| Malicious | {} | {} | {} |",
        c.tp, c.fn_, c.invalid_malicious
    );
    let _ = writeln!(s, "| Benign | {} | {} | {} |", c.fp, c.tn, c.invalid_benign);
    let _ = writeln!(
        s,
        "\nAbstentions: {}. Label-only answers (counted as their label with confidence 0.0): {}.\n",
        c.abstain, c.label_only
    );
    match &e1.ci95 {
        Some(ci) => {
            s.push_str("## 95 % bootstrap intervals\n\n| metric | low | high |\n|---|---:|---:|\n");
            for (k, v) in [
                ("accuracy", ci.accuracy),
                ("f1", ci.f1),
                ("ece", ci.ece),
                ("brier", ci.brier),
            ] {
                let _ = writeln!(s, "| {k} | {} | {} |", f(v[0]), f(v[1]));
            }
            s.push('\n');
        }
        None => s.push_str("## 95 % bootstrap intervals\n\nNone: no sample was scored.\n\n"),
    }
    if !e1.undefined.is_empty() {
        let _ = writeln!(
            s,
            "{NA}: undefined (zero denominator): {}. `summary.json` holds null for them in `headline` and upstream's edge-case value in the upstream-named `metrics`.\n",
            e1.undefined
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for (name, groups) in [
        ("source", &e1.groups.source),
        ("scenario", &e1.groups.scenario),
    ] {
        group_table(s, name, groups);
    }
}

fn group_table(s: &mut String, name: &str, groups: &std::collections::BTreeMap<String, E1Group>) {
    let _ = writeln!(s, "## Groups by {name}\n");
    s.push_str("| group | n | accuracy | tpr | fpr | f1 | ece | brier | abstain_rate | invalid_rate |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (k, g) in groups {
        let m = &g.metrics;
        let u = &g.undefined;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            table_cell(k),
            g.n,
            fu(m.detection.accuracy, "accuracy", u),
            fu(m.detection.tpr, "tpr", u),
            fu(m.detection.fpr, "fpr", u),
            fu(m.detection.f1, "f1", u),
            fu(m.calibration.ece, "ece", u),
            fu(m.calibration.brier, "brier", u),
            fu(m.abstention.abstain_rate, "abstain_rate", u),
            fu(g.extras.invalid_rate, "invalid_rate", u)
        );
    }
    s.push('\n');
}
