//! E2 sections of `report.md` (harness §4.4; spec E2 §6): finding quality,
//! patch, tool economy, episode, severity breakdown, and the svbench
//! extensions.

use std::fmt::Write;

use svbench_core::summary::{E2Metrics, E2Summary, Summary};

use super::{f, fo, pct};
use crate::markup::table_cell;

/// At most this many rules are listed in the per-rule table.
const MAX_RULES: usize = 60;

/// Writes every E2 section.
pub fn sections(s: &mut String, sm: &Summary, m: &E2Metrics, e2: &E2Summary) {
    if let Some(label) = &e2.policy_label {
        let _ = writeln!(
            s,
            "> **{label}**: this run answers with the oracle itself. It bounds what a perfect answer scores; it is not a baseline.\n"
        );
    }
    let q = &m.finding_quality;
    s.push_str("## Finding quality\n\nUpstream definitions (`bench/report.py`): per-record precision, recall and F1 on distinct ids, averaged over records; weights low 0.3 / med 0.6 / high 1.0, false positives weighted by their stated severity.\n\n");
    s.push_str("| metric | weighted | unweighted |\n|---|---:|---:|\n");
    for (k, a, b) in [
        ("precision", q.precision_weighted, q.precision_unweighted),
        ("recall", q.recall_weighted, q.recall_unweighted),
        ("f1", q.f1_weighted, q.f1_unweighted),
        (
            "f1, records with findings only",
            q.f1_weighted_positive_only,
            q.f1_unweighted_positive_only,
        ),
    ] {
        let _ = writeln!(s, "| {k} | {} | {} |", f(a), f(b));
    }
    if let Some(ci) = &e2.ci95 {
        let _ = writeln!(
            s,
            "\n95 % bootstrap interval of f1_weighted: [{}, {}].",
            f(ci.f1_weighted[0]),
            f(ci.f1_weighted[1])
        );
    }
    s.push_str("\n> Quirk kept from upstream: a clean record answered with `[]` has precision = recall = F1 = 0, so the averaged F1 fields penalise correct answers on clean items. `f1, records with findings only`, the clean pass rate and the pooled (micro) scores below are the fair reading.\n\n");

    let mi = &e2.micro;
    s.push_str("## Pooled scores (micro, v1 sets)\n\nΣ TP, Σ FP, Σ FN over records on the v1 sets (normalised ids of the labelled namespaces, catalogue severities).\n\n");
    s.push_str(
        "| | TP | FP | FN | precision | recall | F1 |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (k, p) in [("weighted", &mi.weighted), ("unweighted", &mi.unweighted)] {
        let _ = writeln!(
            s,
            "| {k} | {} | {} | {} | {} | {} | {} |",
            f(p.tp),
            f(p.fp),
            f(p.fn_),
            f(p.precision),
            f(p.recall),
            f(p.f1)
        );
    }

    let p = &m.patch;
    s.push_str("\n## Patch\n\n| metric | value |\n|---|---:|\n");
    for (k, v) in [
        ("patch_provided_rate", p.patch_provided_rate),
        ("patch_success_rate", p.patch_success_rate),
        ("patch_fix_rate", p.patch_fix_rate),
        ("mean_violations_fixed", p.mean_violations_fixed),
        ("new_violations_introduced", p.new_violations_introduced),
    ] {
        let _ = writeln!(s, "| {k} | {} |", f(v));
    }
    let v1 = &e2.v1;
    if !v1.patch_status.is_empty() {
        s.push_str("\nv1 patch outcomes (strict apply, re-scan, preservation):\n\n| status | records |\n|---|---:|\n");
        for (k, n) in &v1.patch_status {
            let _ = writeln!(s, "| {} | {n} |", table_cell(k));
        }
    }

    let t = &m.tool_economy;
    s.push_str("\n## Tool economy\n\n| metric | value |\n|---|---:|\n");
    let _ = writeln!(s, "| mean_tool_calls | {} |", f(t.mean_tool_calls));
    let _ = writeln!(s, "| mean_tool_time_ms | {} |", f(t.mean_tool_time_ms));
    let _ = writeln!(s, "| calls_per_finding | {} |", f(t.calls_per_finding));
    s.push_str("\n| tool | calls | time (ms) |\n|---|---:|---:|\n");
    for (k, u) in &t.tool_distribution {
        let _ = writeln!(s, "| {} | {} | {} |", table_cell(k), u.calls, f(u.time_ms));
    }

    let e = &m.episode;
    s.push_str("\n## Episode\n\n| metric | value |\n|---|---:|\n");
    for (k, v) in [
        ("format_valid_rate", e.format_valid_rate),
        ("mean_turns", e.mean_turns),
        ("clean_pass_rate", e.clean_pass_rate),
        (
            "false_positive_rate_on_clean",
            e.false_positive_rate_on_clean,
        ),
    ] {
        let _ = writeln!(s, "| {k} | {} |", f(v));
    }

    if let Some(b) = &sm.severity_breakdown {
        s.push_str("\n## Severity breakdown\n\n| severity | oracle findings | found | fixed |\n|---|---:|---:|---:|\n");
        for sev in crate::e2::upstream::SEVERITIES {
            if let Some(c) = b.get(sev) {
                let _ = writeln!(s, "| {sev} | {} | {} | {} |", c.total, c.found, c.fixed);
            }
        }
    }

    s.push_str("\n## Rewards by profile\n\n| | value |\n|---|---:|\n");
    let rows = [
        ("v1 mean reward", fo(v1.mean_reward)),
        ("v1 mean detection", fo(v1.mean_detection)),
        ("v1 mean patch", fo(v1.mean_patch)),
        ("v1 strict format rate", pct(v1.strict_format_rate)),
        ("v1 clean pass rate", pct(v1.clean_pass_rate)),
        ("v1 patch provided rate", pct(v1.patch_provided_rate)),
        (
            "v1 patch applied rate (of given)",
            pct(v1.patch_applied_rate),
        ),
        (
            "v1 preservation failure rate (of given)",
            pct(v1.preservation_failure_rate),
        ),
        ("v1 parse failure rate", pct(v1.parse_failure_rate)),
        ("no-answer rate", pct(v1.no_answer_rate)),
        ("budget exhausted rate", pct(v1.budget_exhausted_rate)),
        ("upstream mean reward", fo(e2.upstream.mean_reward)),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    for (k, v) in &e2.upstream.components {
        let _ = writeln!(s, "| upstream {} | {} |", table_cell(k), fo(*v));
    }

    if e2.by_lang.len() > 1 {
        s.push_str("\n## By fixture type\n\n| type | records | f1_weighted | f1 positive only | clean pass | micro F1 (weighted) |\n|---|---:|---:|---:|---:|---:|\n");
        for (lang, g) in &e2.by_lang {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                table_cell(lang),
                g.n,
                f(g.metrics.finding_quality.f1_weighted),
                f(g.metrics.finding_quality.f1_weighted_positive_only),
                f(g.metrics.episode.clean_pass_rate),
                f(g.micro.weighted.f1)
            );
        }
    }

    if !e2.per_rule.is_empty() {
        let mut rules: Vec<_> = e2.per_rule.iter().collect();
        // Most-supported first, then most predicted, then by id.
        rules.sort_by(|a, b| {
            (b.1.support, b.1.tp + b.1.fp)
                .cmp(&(a.1.support, a.1.tp + a.1.fp))
                .then_with(|| a.0.cmp(b.0))
        });
        let _ = writeln!(
            s,
            "\n## Per rule\n\nRecord-level presence on the v1 sets{}.\n",
            if rules.len() > MAX_RULES {
                format!(
                    "; the {MAX_RULES} rules with most support of {} (all in `summary.json`)",
                    rules.len()
                )
            } else {
                String::new()
            }
        );
        s.push_str("| rule | support | TP | FP | FN | precision | recall |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (id, r) in rules.into_iter().take(MAX_RULES) {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} | {} | {} | {} |",
                table_cell(id).replace('`', "'"),
                r.support,
                r.tp,
                r.fp,
                r.fn_,
                fo(r.precision),
                fo(r.recall)
            );
        }
    }
    s.push('\n');
}
