//! `report.md` (harness §4.4): run information, the environment's metric
//! tables, validity, reward components, usage and latency. Floats are printed
//! with a fixed number of decimals so identical inputs give identical bytes.

use std::fmt::Write;

use svbench_core::summary::Summary;

use crate::build::BuildNotes;
use crate::markup::table_cell;
use crate::plots::Plot;
use crate::plugin::ReportPlugin;
use crate::read::{LeanRun, RunInfo};

/// A number with four decimals.
pub fn f(v: f64) -> String {
    format!("{v:.4}")
}

/// What an undefined metric (a zero denominator) prints as.
pub const NA: &str = "n/a";

/// [`f`], or `n/a` when undefined.
pub fn fo(v: Option<f64>) -> String {
    v.map(f).unwrap_or_else(|| NA.to_string())
}

/// A percentage with two decimals, or `n/a` when undefined.
pub fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.2} %", 100.0 * x))
        .unwrap_or_else(|| NA.to_string())
}

/// `v`, or `n/a` when `name` is listed as undefined.
pub fn fu(v: f64, name: &str, undefined: &[String]) -> String {
    if undefined.iter().any(|u| u == name) {
        NA.to_string()
    } else {
        f(v)
    }
}

pub(crate) fn text(v: Option<&str>) -> String {
    match v {
        Some(s) if !s.is_empty() => format!("`{}`", s.replace('`', "'")),
        _ => "—".to_string(),
    }
}

fn title(info: &RunInfo) -> String {
    let model = if info.model.is_empty() {
        "?"
    } else {
        &info.model
    };
    format!(
        "# svbench report: {} · {}\n\n",
        info.environment,
        table_cell(model)
    )
}

/// The report of a run without any record: says so plainly.
pub fn render_empty(run: &LeanRun) -> String {
    let info = &run.info;
    let mut s = title(info);
    let _ = writeln!(s, "- run id: {}", text(Some(&info.run_id)));
    let _ = writeln!(s, "- dataset: {}", text(info.dataset.as_deref()));
    let _ = writeln!(s, "- status: {}", text(info.status.map(status).as_deref()));
    s.push('\n');
    s.push_str("**No records.** `results.jsonl` holds no result record, so there is nothing to summarise and no `summary.json` was written.\n");
    for w in &run.records.warnings {
        let _ = writeln!(s, "\n- ⚠ {}", table_cell(w));
    }
    s
}

fn status(s: svbench_core::record::RunStatus) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The report of a run with a summary, ending with links to `plots` (no
/// plot section when there are none).
pub fn render(
    summary: &Summary,
    info: &RunInfo,
    notes: &BuildNotes,
    plots: &[Plot],
    plugin: &dyn ReportPlugin,
) -> String {
    let mut s = title(info);
    run_section(&mut s, summary, info, notes);
    warnings_section(&mut s, summary);
    if summary.counts.scored == 0 {
        s.push_str("> **No sample was scored** (every record errored): the metrics below take their edge-case values.\n\n");
    }
    headline_section(&mut s, summary, plugin);
    validity_section(&mut s, summary, plugin);
    plugin.markdown(&mut s, summary);
    reward_section(&mut s, summary);
    usage_section(&mut s, summary);
    plots_section(&mut s, plots);
    s
}

/// Image links to `plots/<name>.svg`, one paragraph each.
fn plots_section(s: &mut String, plots: &[Plot]) {
    if plots.is_empty() {
        return;
    }
    s.push_str("\n## Plots\n\n");
    for (i, p) in plots.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let alt = p.title.replace(['[', ']'], "");
        let _ = writeln!(s, "![{alt}]({}/{}.svg)", crate::PLOTS_DIR, p.name);
    }
}

fn run_section(s: &mut String, sm: &Summary, info: &RunInfo, notes: &BuildNotes) {
    s.push_str("## Run\n\n| | |\n|---|---|\n");
    let rows: Vec<(&str, String)> = vec![
        ("environment", text(Some(&sm.environment))),
        ("model", text(Some(&sm.model))),
        ("effective model", text(info.effective_model.as_deref())),
        (
            "baseline",
            text(
                sm.metadata
                    .baseline_name
                    .as_deref()
                    .or(sm.metadata.baseline_type.as_deref()),
            ),
        ),
        ("dataset", text(sm.dataset.as_deref())),
        ("dataset sha256", text(sm.dataset_sha256.as_deref())),
        ("selected sha256", text(sm.selected_sha256.as_deref())),
        ("split", text(sm.split.as_deref())),
        ("run id", text(Some(&sm.run_id))),
        ("status", text(sm.run_status.map(status).as_deref())),
        ("abort reason", text(info.abort_reason.as_deref())),
        ("started", text(sm.run_started_at.as_deref())),
        ("finished", text(sm.run_finished_at.as_deref())),
        ("svbench (run)", text(info.svbench_version.as_deref())),
        ("svbench (report)", text(Some(&sm.svbench_version))),
        ("git commit", text(sm.metadata.git_sha.as_deref())),
        (
            "seed",
            sm.metadata
                .seed
                .map(|x| x.to_string())
                .unwrap_or_else(|| "—".into()),
        ),
        ("reward profile", text(sm.reward_profile.as_deref())),
        ("reward config hash", text(sm.reward_config_hash.as_deref())),
        ("results sha256", text(Some(&sm.results_sha256))),
        (
            "records",
            format!(
                "{} ({} scored, {} errored{})",
                sm.counts.records,
                sm.counts.scored,
                sm.counts.errored,
                if notes.superseded > 0 {
                    format!(
                        "; {} earlier line(s) superseded by retries",
                        notes.superseded
                    )
                } else {
                    String::new()
                }
            ),
        ),
        (
            "bootstrap",
            format!(
                "{} resamples, seed {}",
                sm.bootstrap.resamples, sm.bootstrap.seed
            ),
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "| {k} | {} |", table_cell(&v));
    }
    s.push('\n');
    if notes.profiles.keys().filter(|p| !p.is_empty()).count() > 1
        || notes.excluded_other_profile > 0
    {
        let _ = writeln!(
            s,
            "> **Mixed reward profiles.** Scored records per profile: {}. Metrics and reward statistics use only profile {} ({} record(s) left out); they are never averaged across profiles.\n",
            notes
                .profiles
                .iter()
                .map(|(p, n)| format!("{} {n}", if p.is_empty() { "(unrecorded)" } else { p }))
                .collect::<Vec<_>>()
                .join(", "),
            text(notes.profile_used.as_deref()),
            notes.excluded_other_profile
        );
    }
}

fn warnings_section(s: &mut String, sm: &Summary) {
    if sm.warnings.is_empty() {
        return;
    }
    s.push_str("## Warnings\n\n");
    for w in &sm.warnings {
        let _ = writeln!(s, "- ⚠ {}", table_cell(w));
    }
    s.push('\n');
}

/// The summary's `headline` metrics and the mean reward with the range the
/// profile allows.
fn headline_section(s: &mut String, sm: &Summary, plugin: &dyn ReportPlugin) {
    if sm.headline.is_empty() {
        return;
    }
    s.push_str("## Headline\n\n");
    if let Some(label) = plugin.policy_label(sm) {
        let _ = writeln!(
            s,
            "> **{label}**: this run answers with the oracle itself. It bounds what a perfect answer scores; it is not a baseline.\n"
        );
    }
    s.push_str("| metric | value | 95 % CI | definition |\n|---|---:|---|---|\n");
    for m in &sm.headline {
        let ci = m
            .ci95
            .map(|[l, h]| format!("[{}, {}]", f(l), f(h)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {} | {} | {ci} | {} |",
            table_cell(&m.name),
            fo(m.value),
            table_cell(&m.definition)
        );
    }
    let _ = writeln!(s, "\n{}\n", reward_line(sm));
}

/// `Mean reward (profile v1): 0.8100 (range 0 to 1.3000).`
pub fn reward_line(sm: &Summary) -> String {
    let range = match sm.reward.range {
        Some([lo, hi]) => format!(" (range {} to {})", f(lo), f(hi)),
        None => String::new(),
    };
    format!(
        "Mean reward (profile {}): {}{range}.",
        text(sm.reward_profile.as_deref()),
        fo(sm.reward.mean)
    )
}

fn validity_section(s: &mut String, sm: &Summary, plugin: &dyn ReportPlugin) {
    s.push_str("## Validity\n\n| metric | value |\n|---|---:|\n");
    let strict = sm
        .validity
        .strict
        .iter()
        .filter(|_| plugin.strict_in_validity());
    for (k, v) in strict {
        let _ = writeln!(
            s,
            "| {k} (errored samples counted as failures) | {} |",
            fo(*v)
        );
    }
    let c = &sm.counts;
    let _ = writeln!(
        s,
        "| parse failure rate | {} |",
        pct(sm.validity.parse_failure_rate)
    );
    let _ = writeln!(
        s,
        "| no-answer rate | {} |",
        pct(sm.validity.no_answer_rate)
    );
    let _ = writeln!(s, "| error rate | {} |", pct(sm.validity.error_rate));
    let _ = writeln!(
        s,
        "| parse outcomes | valid {} · label-only {} · invalid {} · no answer {} |",
        c.valid, c.label_only, c.invalid, c.no_answer
    );
    let _ = writeln!(s, "| truncated | {} |", c.truncated);
    s.push('\n');
    if !sm.errors_by_kind.is_empty() {
        s.push_str("| error kind | records |\n|---|---:|\n");
        for (k, n) in &sm.errors_by_kind {
            let _ = writeln!(s, "| {} | {n} |", table_cell(k));
        }
        s.push('\n');
    }
}

fn reward_section(s: &mut String, sm: &Summary) {
    let r = &sm.reward;
    let range = match r.range {
        Some([lo, hi]) => format!(" The profile's totals range from {} to {}.", f(lo), f(hi)),
        None => String::new(),
    };
    let _ = writeln!(
        s,
        "## Reward\n\nProfile {} over {} scored record(s).{range}\n",
        text(sm.reward_profile.as_deref()),
        r.n
    );
    s.push_str("| | mean | std | min | max | 95 % CI of mean |\n|---|---:|---:|---:|---:|---|\n");
    let ci = match (r.ci95_low, r.ci95_high) {
        (Some(a), Some(b)) => format!("[{}, {}]", f(a), f(b)),
        _ => NA.to_string(),
    };
    let _ = writeln!(
        s,
        "| **total** | {} | {} | {} | {} | {ci} |",
        fo(r.mean),
        fo(r.std),
        fo(r.min),
        fo(r.max)
    );
    for (k, c) in &r.components {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | |",
            table_cell(k),
            fo(c.mean),
            fo(c.std),
            fo(c.min),
            fo(c.max)
        );
    }
    s.push('\n');
}

fn usage_section(s: &mut String, sm: &Summary) {
    let u = &sm.usage;
    let l = &sm.latency_ms;
    s.push_str("## Usage and latency\n\n| | |\n|---|---:|\n");
    for (k, v) in [
        ("prompt tokens", u.prompt_tokens),
        ("completion tokens", u.completion_tokens),
        ("reasoning tokens", u.reasoning_tokens),
        ("total tokens", u.total_tokens),
        ("requests", u.requests),
        ("cached requests", sm.counts.cached_requests),
    ] {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    for (k, v) in [
        ("latency mean (ms)", l.mean),
        ("latency p50 (ms)", l.p50),
        ("latency p90 (ms)", l.p90),
        ("latency p99 (ms)", l.p99),
    ] {
        let _ = writeln!(
            s,
            "| {k} | {} |",
            v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "—".into())
        );
    }
}
