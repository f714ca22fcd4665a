//! E2 sections of `report.md` (harness §4.4; spec E2 §6): pooled scores
//! per fixture type and overall, patch, tool economy, rewards, per-rule
//! counts, then the upstream-compatible blocks (finding quality, episode,
//! severity breakdown) labelled as such.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::e2::report::summary::{E2Metrics, E2SeverityCounts, E2Summary};
use svbench_core::summary::Summary;

use svbench_report::markdown::{f, fo, pct};
use svbench_report::markup::table_cell;

/// At most this many rules are listed in the per-rule table.
const MAX_RULES: usize = 60;

/// Writes every E2 section.
pub fn sections(s: &mut String, sm: &Summary, m: &E2Metrics, e2: &E2Summary) {
    by_lang_section(s, e2);
    let mi = &e2.micro;
    s.push_str("## Pooled scores (micro, v1 sets)\n\nΣ TP, Σ FP, Σ FN over every scored record on the sets the v1 reward compares (normalised ids of the labelled namespaces; weighted: catalogue severities low 0.3, med 0.6, high 1.0).\n\n");
    s.push_str(
        "| | TP | FP | FN | precision | recall | F1 |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (k, p, count) in [
        ("unweighted", &mi.unweighted, true),
        ("weighted", &mi.weighted, false),
    ] {
        // Counts print as integers, weights with four decimals.
        let n = |x: f64| if count { format!("{x:.0}") } else { f(x) };
        let _ = writeln!(
            s,
            "| {k} | {} | {} | {} | {} | {} | {} |",
            n(p.tp),
            n(p.fp),
            n(p.fn_),
            fo(p.precision),
            fo(p.recall),
            fo(p.f1)
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
    upstream_section(s, sm, m, e2);
    s.push('\n');
}

/// Pooled scores per fixture type (`k8s`, `tf`): the headline per language.
fn by_lang_section(s: &mut String, e2: &E2Summary) {
    if e2.by_lang.is_empty() {
        return;
    }
    s.push_str("## By fixture type\n\n| type | records | TP | FP | FN | micro precision | micro recall | micro F1 | micro F1 (weighted) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (lang, g) in &e2.by_lang {
        let u = &g.micro.unweighted;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            table_cell(lang_label(lang)),
            g.n,
            u.tp,
            u.fp,
            u.fn_,
            fo(u.precision),
            fo(u.recall),
            fo(u.f1),
            fo(g.micro.weighted.f1)
        );
    }
    s.push('\n');
}

/// `tf` is Terraform; other keys print as they are.
fn lang_label(lang: &str) -> &str {
    match lang {
        "tf" => "tf (Terraform)",
        "k8s" => "k8s (Kubernetes)",
        other => other,
    }
}

/// The upstream-named fields, labelled as such, with the quirk they carry.
fn upstream_section(s: &mut String, sm: &Summary, m: &E2Metrics, e2: &E2Summary) {
    s.push_str("\n## Upstream-compatible fields\n\n> `metrics.finding_quality`, `metrics.episode` and `severity_breakdown` keep upstream's `bench/report.py` definitions so numbers compare with upstream's: per-record scores averaged over records, where a clean record correctly answered `[]` scores F1 0, and ids normalised upstream's way, which drops Terraform's `opa/` labels so Terraform items show no oracle finding here. Read the headline and the pooled scores above for how well the run did.\n\n");
    let q = &m.finding_quality;
    s.push_str("### Finding quality (upstream definitions)\n\nPer-record precision, recall and F1 on distinct ids, averaged over records; weights low 0.3 / med 0.6 / high 1.0, false positives weighted by their stated severity.\n\n");
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
    for (k, v) in &sm.validity.strict {
        let _ = writeln!(
            s,
            "\n`{k}` (f1_weighted with errored samples counted as failures): {}.",
            fo(*v)
        );
    }
    if !e2.by_lang.is_empty() {
        s.push_str("\n| type | records | f1_weighted | f1 positive only | clean pass |\n|---|---:|---:|---:|---:|\n");
        for (lang, g) in &e2.by_lang {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                table_cell(lang_label(lang)),
                g.n,
                f(g.metrics.finding_quality.f1_weighted),
                f(g.metrics.finding_quality.f1_weighted_positive_only),
                f(g.metrics.episode.clean_pass_rate)
            );
        }
    }
    let e = &m.episode;
    s.push_str("\n### Episode (upstream definitions)\n\n| metric | value |\n|---|---:|\n");
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

    if let Some(b) = &sm.extension::<BTreeMap<String, E2SeverityCounts>>("severity_breakdown") {
        s.push_str("\n### Severity breakdown (upstream definitions)\n\n| severity | oracle findings | found | fixed |\n|---|---:|---:|---:|\n");
        for sev in crate::e2::report::upstream::SEVERITIES {
            if let Some(c) = b.get(sev) {
                let _ = writeln!(s, "| {sev} | {} | {} | {} |", c.total, c.found, c.fixed);
            }
        }
    }
}
