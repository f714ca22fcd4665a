//! E4 sections of `report.md` (phishing triage): detection beside its
//! upstream-compatible values, the confusion matrix, calibration and
//! selective risk, abstention, costs, evidence precision against recall,
//! and per-group tables.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::e4::report::summary::{
    E4ConfusionRow, E4EvidenceStats, E4Group, E4Metrics, E4UpstreamMetrics,
};

use svbench_report::markdown::{f, fo};
use svbench_report::markup::table_cell;

/// Writes every E4 section.
pub fn sections(s: &mut String, m: &E4Metrics, u: Option<&E4UpstreamMetrics>) {
    let a = &m.all;
    s.push_str("## Detection\n\nPositive class Phishing, over clear-cut emails (gold Phishing or Legitimate). svbench counts an invalid answer on a phishing email as a miss and keeps every row in `accuracy` (three labels, Abstain being right on ambiguous emails); `recall` sets abstentions aside, `recall_strict` counts them as misses. The upstream-compatible column drops invalid answers.\n\n");
    s.push_str("| metric | svbench | upstream-compatible |\n|---|---:|---:|\n");
    let up = |v: fn(&E4UpstreamMetrics) -> f64| u.map_or_else(|| "n/a".to_string(), |u| f(v(u)));
    for (k, ours, theirs) in [
        ("accuracy", a.accuracy, up(|u| u.accuracy)),
        ("precision", a.precision, up(|u| u.precision)),
        ("recall", a.recall, up(|u| u.recall)),
        ("recall_strict", a.recall_strict, "—".to_string()),
        ("f1", a.f1, up(|u| u.f1)),
        ("fnr", a.fnr, up(|u| u.fnr)),
        ("fpr", a.fpr, up(|u| u.fpr)),
        ("brier", a.brier, up(|u| u.brier)),
        (
            "abstain_rate",
            a.abstention.abstain_rate,
            up(|u| u.abstain_rate),
        ),
    ] {
        let _ = writeln!(s, "| {k} | {} | {theirs} |", fo(ours));
    }

    s.push_str("\n## Confusion matrix\n\nRows gold, columns predicted.\n\n| gold \\ predicted | Phishing | Legitimate | Abstain | invalid |\n|---|---:|---:|---:|---:|\n");
    let c = &a.confusion;
    for (k, r) in [
        ("Phishing", &c.phishing),
        ("Legitimate", &c.legitimate),
        ("Abstain", &c.abstain),
    ] {
        confusion_row(s, k, r);
    }
    let _ = writeln!(
        s,
        "\nLabel-only answers (a label without a usable confidence, counted at confidence 0.0): {}.",
        c.label_only
    );

    s.push_str("\n## Calibration and selective risk\n\nOver decided answers (Phishing or Legitimate; a decided answer on an ambiguous email is wrong); invalid answers enter at confidence 1.0, wrong.\n\n| metric | value |\n|---|---:|\n");
    for (k, v) in [
        ("ece", a.ece),
        ("brier", a.brier),
        ("aurc_standard", a.aurc_standard),
        ("risk_at_coverage_0.8", a.risk_at_coverage_0_8),
        ("risk_at_coverage_0.9", a.risk_at_coverage_0_9),
    ] {
        let _ = writeln!(s, "| {k} | {} |", fo(v));
    }

    s.push_str("\n## Abstention\n\n| metric | value |\n|---|---:|\n");
    let ab = &a.abstention;
    for (k, v) in [
        ("abstain_rate (all emails)", ab.abstain_rate),
        (
            "abstain_on_ambiguous (gold Abstain)",
            ab.abstain_on_ambiguous,
        ),
        ("over_abstention (clear-cut emails)", ab.over_abstention),
    ] {
        let _ = writeln!(s, "| {k} | {} |", fo(v));
    }

    let k = &m.cost_matrix_v1;
    let _ = write!(
        s,
        "\n## Cost\n\nv1 triage costs ({}): missed phishing {}, false alarm {}, abstain {}, Phishing on ambiguous {}, Legitimate on ambiguous {}; an invalid answer costs as a missed phishing email.\n\n| metric | value |\n|---|---:|\n",
        k.source,
        f(k.cost_fn),
        f(k.cost_fp),
        f(k.cost_abstain),
        f(k.cost_amb_phishing),
        f(k.cost_amb_legitimate)
    );
    let co = &a.cost;
    let _ = writeln!(s, "| expected_cost_v1 | {} |", fo(co.expected_cost_v1));
    let _ = writeln!(
        s,
        "| expected_utility_v1 | {} |",
        fo(co.expected_utility_v1)
    );
    let _ = writeln!(s, "| total_cost (10·FN + 1·FP) | {} |", f(co.total_cost));
    let _ = writeln!(
        s,
        "| cost_weighted_accuracy | {} |",
        fo(co.cost_weighted_accuracy)
    );

    evidence_section(s, m);
    group_table(s, "family", &m.groups.family);
    group_table(s, "phishing_type", &m.groups.phishing_type);
    group_table(s, "difficulty", &m.groups.difficulty);
    group_table(s, "gold label", &m.groups.gold);
}

fn confusion_row(s: &mut String, gold: &str, r: &E4ConfusionRow) {
    let _ = writeln!(
        s,
        "| {gold} | {} | {} | {} | {} |",
        r.phishing, r.legitimate, r.abstain, r.invalid
    );
}

fn evidence_section(s: &mut String, m: &E4Metrics) {
    let a = &m.all;
    let _ = write!(
        s,
        "\n## Evidence\n\nQuoted evidence against the indicator spans that support the gold label, over emails where evidence is scored ({} email(s) without usable indicator annotations are left out). Precision is matched items over items (micro) or the mean per answer citing something (macro); F1 is the mean evidence score, 0 for invalid answers.\n\n",
        a.evidence_na_rows
    );
    s.push_str("| gold source | rows | items | precision (micro) | precision (macro) | recall (micro) | recall (macro) | F1 | grounded | items / row |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    evidence_row(s, "all", &a.evidence.all);
    for (k, e) in &a.evidence.by_gold_source {
        evidence_row(s, &table_cell(k), e);
    }
    let e = &a.evidence.all;
    if !e.recall_by_category.is_empty() {
        s.push_str(
            "\n| indicator category | gold spans | recalled | recall |\n|---|---:|---:|---:|\n",
        );
        for (k, c) in &e.recall_by_category {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                table_cell(k),
                c.gold,
                c.recalled,
                fo(c.recall)
            );
        }
    }
    if !e.invalid_item_reasons.is_empty() {
        let reasons: Vec<String> = e
            .invalid_item_reasons
            .iter()
            .map(|(k, n)| format!("{} {n}", table_cell(k)))
            .collect();
        let _ = writeln!(s, "\nInvalid items by reason: {}.", reasons.join(", "));
    }
}

fn evidence_row(s: &mut String, name: &str, e: &E4EvidenceStats) {
    let _ = writeln!(
        s,
        "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        e.rows,
        e.items,
        fo(e.precision_micro),
        fo(e.precision_macro),
        fo(e.recall_micro),
        fo(e.recall_macro),
        fo(e.f1),
        fo(e.grounding_rate),
        fo(e.mean_items)
    );
}

fn group_table(s: &mut String, name: &str, groups: &BTreeMap<String, E4Group>) {
    if groups.is_empty() {
        return;
    }
    let _ = write!(
        s,
        "\n## By {name}\n\n| {name} | n | accuracy | f1 | recall_strict | fpr | abstain_rate | ece | evidence F1 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (k, g) in groups {
        let m = &g.metrics;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            table_cell(k),
            g.n,
            fo(m.accuracy),
            fo(m.f1),
            fo(m.recall_strict),
            fo(m.fpr),
            fo(m.abstention.abstain_rate),
            fo(m.ece),
            fo(m.evidence.all.f1)
        );
    }
}
