//! Assembles the HTML document: summary, plots, embedded sample data, and
//! the inline stylesheet and script.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::Write;

use serde_json::Value;
use svbench_core::summary::Summary;

use super::samples::{read_back, row_of, transcript_of, Entry, Outcome, SampleIndex};
use crate::markdown::NA;
use crate::markup::Markup;
use crate::plots::Plot;
use crate::plugin::ReportPlugin;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// Rows read back from the file per batch.
const ROW_BATCH: usize = 4096;

/// What the page is built from.
pub(super) struct Inputs<'a> {
    pub environment: &'a str,
    pub plugin: &'a dyn ReportPlugin,
    pub summary: Option<&'a Summary>,
    pub report_md: &'a str,
    pub plots: &'a [Plot],
    pub samples: &'a SampleIndex,
    pub limits: super::Limits,
}

/// Which samples are listed and which carry their transcript.
struct Selection {
    /// Positions in the index of the listed samples, in run order.
    listed: Vec<usize>,
    /// Per listed sample: its transcript is embedded.
    with_detail: Vec<bool>,
    /// Samples whose transcript was left out for the per-sample or total budget.
    over_budget: usize,
    /// Texts cut at the per-text cap in the embedded transcripts.
    cut_texts: u64,
}

/// Writes the document to `out`, reading rows and transcripts back from
/// `results` (the file indexed in `inp.samples`).
pub(super) fn render(
    inp: &Inputs,
    results: Option<&mut std::fs::File>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let sel = select(inp);
    let mut results = results;
    // Transcripts: read in file order (prompt messages are numbered in the
    // order first seen), kept until written (bounded by the page budget).
    let mut messages: Vec<String> = Vec::new();
    let mut transcripts: HashMap<usize, (Vec<u32>, String)> = HashMap::new();
    if let Some(file) = results.as_deref_mut() {
        let mut wanted: Vec<usize> = sel
            .listed
            .iter()
            .zip(&sel.with_detail)
            .filter(|(_, d)| **d)
            .map(|(i, _)| *i)
            .collect();
        wanted.sort_by_key(|&i| inp.samples.entries[i].offset_key());
        let entries: Vec<&Entry> = wanted.iter().map(|&i| &inp.samples.entries[i]).collect();
        let read = read_back(file, &entries, |l| transcript_of(l, inp.plugin))?;
        let mut ids: HashMap<String, u32> = HashMap::new();
        for (i, t) in wanted.into_iter().zip(read) {
            let t = t.map_err(changed)?;
            let prompt = t
                .prompt
                .into_iter()
                .map(|m| match ids.get(&m) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(messages.len()).unwrap_or(u32::MAX);
                        messages.push(m.clone());
                        ids.insert(m, id);
                        id
                    }
                })
                .collect();
            transcripts.insert(i, (prompt, t.detail));
        }
    }

    let mut head = String::with_capacity(64 * 1024 + inp.report_md.len());
    let run_id = inp.summary.map(|s| s.run_id.as_str()).unwrap_or("");
    head.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    head.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        head,
        "<title>svbench report · {} · {}</title>",
        Markup::Html.escape(inp.environment),
        Markup::Html.escape(run_id)
    );
    head.push_str("<style>\n");
    head.push_str(CSS);
    head.push_str("</style>\n</head>\n<body>\n");
    summary_section(&mut head, inp, &sel);
    out.write_all(head.as_bytes())?;
    drop(head);
    let mut s = String::new();
    plots_section(&mut s, inp.plots);
    samples_section(&mut s, inp, &sel);
    out.write_all(s.as_bytes())?;
    drop(s);
    data_scripts(out, inp, &sel, results, &messages, &transcripts)?;
    out.write_all(b"<script>\n")?;
    out.write_all(JS.as_bytes())?;
    out.write_all(b"</script>\n</body>\n</html>\n")?;
    Ok(())
}

fn changed(e: serde_json::Error) -> std::io::Error {
    std::io::Error::other(format!(
        "results.jsonl changed while report.html was written: {e}"
    ))
}

/// The listed samples (all up to [`super::Limits::max_rows`], else that many
/// by outcome priority: errors first, correct last, run order within an
/// outcome) and, among them, those carrying a transcript: by the same
/// priority, at most [`super::Limits::max_transcripts`], each within the
/// per-sample budget and all within the total budget.
fn select(inp: &Inputs) -> Selection {
    let entries = &inp.samples.entries;
    let lim = inp.limits;
    let by_priority = |idx: &mut Vec<usize>| idx.sort_by_key(|&i| (entries[i].outcome, i));
    let listed: Vec<usize> = if entries.len() <= lim.max_rows {
        (0..entries.len()).collect()
    } else {
        let mut order: Vec<usize> = (0..entries.len()).collect();
        by_priority(&mut order);
        order.truncate(lim.max_rows);
        order.sort_unstable();
        order
    };
    let mut order: Vec<usize> = (0..listed.len()).collect();
    order.sort_by_key(|&k| (entries[listed[k]].outcome, listed[k]));
    let mut with_detail = vec![false; listed.len()];
    let (mut taken, mut bytes, mut over_budget, mut cut_texts) = (0usize, 0u64, 0usize, 0u64);
    for k in order {
        if taken >= lim.max_transcripts {
            break;
        }
        let e = &entries[listed[k]];
        if e.detail_bytes() > lim.sample_budget || bytes + e.detail_bytes() > lim.total_budget {
            over_budget += 1;
            continue;
        }
        bytes += e.detail_bytes();
        cut_texts += u64::from(e.cut_texts());
        with_detail[k] = true;
        taken += 1;
    }
    Selection {
        listed,
        with_detail,
        over_budget,
        cut_texts,
    }
}

fn summary_section(out: &mut String, inp: &Inputs, sel: &Selection) {
    out.push_str("<header>\n<h1>svbench report</h1>\n");
    let s = inp.summary;
    let _ = writeln!(
        out,
        "<p class=\"sub\">{} · {} · run <code>{}</code></p>\n</header>",
        Markup::Html.escape(inp.environment),
        Markup::Html.escape(s.map(|s| s.model.as_str()).unwrap_or("")),
        Markup::Html.escape(s.map(|s| s.run_id.as_str()).unwrap_or(""))
    );
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n");
    let warnings = warnings(inp, sel);
    if !warnings.is_empty() {
        out.push_str("<ul class=\"warnings\" id=\"svb-warnings\">\n");
        for w in &warnings {
            let _ = writeln!(out, "<li>{}</li>", Markup::Html.escape(w));
        }
        out.push_str("</ul>\n");
    }
    match s {
        None => {
            out.push_str(
                "<p class=\"empty\">This run has no record: no <code>summary.json</code> was \
                 written and there is nothing to browse.</p>\n",
            );
        }
        Some(s) => summary_tables(out, s, inp.plugin),
    }
    if !inp.report_md.is_empty() {
        out.push_str("<details><summary>report.md</summary>\n<pre class=\"md\">");
        out.push_str(&Markup::Html.escape(inp.report_md));
        out.push_str("</pre>\n</details>\n");
    }
    out.push_str("</section>\n");
}

/// Plain-language warnings: the summary's, the reader's, and what the
/// samples themselves show (zero samples, errors, mixed profiles, what the
/// page left out or cut).
fn warnings(inp: &Inputs, sel: &Selection) -> Vec<String> {
    let samples = &inp.samples.entries;
    let mut list: Vec<String> = Vec::new();
    if samples.is_empty() {
        list.push("Zero samples: results.jsonl holds no record.".to_string());
    }
    if let Some(s) = inp.summary {
        list.extend(s.warnings.iter().cloned());
    }
    list.extend(inp.samples.warnings.iter().cloned());
    let errored = samples
        .iter()
        .filter(|s| s.outcome == Outcome::Error)
        .count();
    if errored > 0 {
        list.push(format!(
            "{errored} of {} samples errored; they have no reward and are excluded from the metrics.",
            samples.len()
        ));
    }
    let profiles: BTreeSet<&str> = samples
        .iter()
        .map(|s| inp.samples.profile(s))
        .filter(|p| !p.is_empty())
        .collect();
    if profiles.len() > 1 {
        list.push(format!(
            "Mixed reward profiles in one run ({}): rewards are not comparable across them.",
            profiles.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if sel.listed.len() < samples.len() {
        list.push(format!(
            "{} samples: the list holds {} of them (errors, invalid, wrong, abstain, then \
             correct, in run order); every sample is in results.jsonl.",
            samples.len(),
            sel.listed.len()
        ));
    }
    let transcripts = sel.with_detail.iter().filter(|d| **d).count();
    if transcripts < samples.len() {
        list.push(format!(
            "{} samples: full transcripts are embedded for {} of them (errors, invalid, wrong, \
             abstain, then correct, in run order); the others are listed without transcript.",
            samples.len(),
            transcripts
        ));
    }
    if sel.over_budget > 0 {
        let lim = inp.limits;
        list.push(format!(
            "{} transcript(s) were left out to keep the page small (at most {} per sample and \
             {} in all).",
            sel.over_budget,
            bytes(lim.sample_budget),
            bytes(lim.total_budget)
        ));
    }
    if sel.cut_texts > 0 {
        list.push(format!(
            "{} text(s) in the embedded transcripts are longer than {} and are cut there, \
             marked “[svbench: cut …]”; the full texts are in results.jsonl.",
            sel.cut_texts,
            bytes(super::TEXT_CAP as u64)
        ));
    }
    let mut seen = BTreeSet::new();
    list.retain(|w| seen.insert(w.clone()));
    list
}

/// A byte size in KiB or MiB.
fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

fn summary_tables(out: &mut String, s: &Summary, plugin: &dyn ReportPlugin) {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let status = s
        .run_status
        .as_ref()
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let run: Vec<(&str, String)> = vec![
        ("environment", s.environment.clone()),
        ("model", s.model.clone()),
        ("dataset", opt(&s.dataset)),
        ("split", opt(&s.split)),
        ("reward profile", opt(&s.reward_profile)),
        ("run status", status),
        ("started", opt(&s.run_started_at)),
        ("finished", opt(&s.run_finished_at)),
        ("report generated", s.timestamp.clone()),
        ("svbench", s.svbench_version.clone()),
        ("records (n_examples)", s.n_examples.to_string()),
    ];
    out.push_str("<div class=\"tables\">\n");
    if !s.headline.is_empty() {
        let headline: Vec<(&str, String)> = s
            .headline
            .iter()
            .map(|m| {
                let ci = m
                    .ci95
                    .map(|[l, h]| format!(" (95% CI {} – {})", num(l), num(h)))
                    .unwrap_or_default();
                (m.name.as_str(), format!("{}{ci}", num_opt(m.value)))
            })
            .collect();
        kv_table(out, "Headline", &headline);
    }
    kv_table(out, "Run", &run);
    let counts = flatten(&serde_json::to_value(&s.counts).unwrap_or(Value::Null));
    kv_table(out, "Counts", &counts);
    let r = &s.reward;
    let reward: Vec<(&str, String)> = vec![
        ("scored (n)", r.n.to_string()),
        ("mean", num_opt(r.mean)),
        (
            "possible range",
            r.range
                .map(|[lo, hi]| format!("{} to {}", num(lo), num(hi)))
                .unwrap_or_else(|| NA.to_string()),
        ),
        ("std", num_opt(r.std)),
        (
            "95% CI",
            format!("{} – {}", num_opt(r.ci95_low), num_opt(r.ci95_high)),
        ),
        ("min", num_opt(r.min)),
        ("max", num_opt(r.max)),
    ];
    kv_table(out, "Reward", &reward);
    let validity = flatten(&serde_json::to_value(&s.validity).unwrap_or(Value::Null));
    kv_table(out, "Validity", &validity);
    let mut metrics = flatten(&serde_json::to_value(&s.metrics).unwrap_or(Value::Null));
    let caption = plugin.metrics_caption(s, &mut metrics);
    kv_table(out, caption, &metrics);
    if !s.errors_by_kind.is_empty() {
        let errors: Vec<(String, String)> = s
            .errors_by_kind
            .iter()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect();
        kv_table(out, "Errors by kind", &errors);
    }
    out.push_str("</div>\n");
}

fn kv_table<K: AsRef<str>>(out: &mut String, title: &str, rows: &[(K, String)]) {
    let _ = writeln!(
        out,
        "<table class=\"kv\"><caption>{}</caption><tbody>",
        Markup::Html.escape(title)
    );
    for (k, v) in rows {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            Markup::Html.escape(k.as_ref()),
            Markup::Html.escape(v)
        );
    }
    out.push_str("</tbody></table>\n");
}

/// Scalars of a JSON value as `a.b.c → text` rows, in key order.
fn flatten(v: &Value) -> Vec<(String, String)> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, x, out);
                }
            }
            Value::Array(a) => out.push((prefix.to_string(), format!("[{} items]", a.len()))),
            Value::Number(n) => out.push((prefix.to_string(), num(n.as_f64().unwrap_or(0.0)))),
            Value::Null => out.push((prefix.to_string(), NA.to_string())),
            Value::Bool(b) => out.push((prefix.to_string(), b.to_string())),
            Value::String(s) => out.push((prefix.to_string(), s.clone())),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

fn num_opt(x: Option<f64>) -> String {
    x.map(num).unwrap_or_else(|| NA.to_string())
}

fn plots_section(out: &mut String, plots: &[Plot]) {
    if plots.is_empty() {
        return;
    }
    out.push_str("<section id=\"plots\">\n<h2>Plots</h2>\n<div class=\"plots\">\n");
    for p in plots {
        let _ = write!(
            out,
            "<figure id=\"plot-{}\">",
            Markup::Html.escape(&p.name.replace(|c: char| !c.is_ascii_alphanumeric(), "-"))
        );
        // Inline SVG: drop any XML prolog or doctype before the root element.
        let svg = p.svg.find("<svg").map_or(p.svg.as_str(), |i| &p.svg[i..]);
        out.push_str(svg.trim_end());
        let _ = writeln!(
            out,
            "<figcaption>{}</figcaption></figure>",
            Markup::Html.escape(&p.title)
        );
    }
    out.push_str("</div>\n</section>\n");
}

fn samples_section(out: &mut String, inp: &Inputs, sel: &Selection) {
    let samples = &inp.samples.entries;
    let with_detail = &sel.with_detail;
    out.push_str("<section id=\"samples\">\n<h2>Samples</h2>\n");
    out.push_str("<div class=\"controls\" id=\"svb-controls\">\n");
    out.push_str("<div class=\"outcomes\" id=\"svb-outcomes\">");
    let _ = write!(
        out,
        "<button type=\"button\" data-outcome=\"\" class=\"on\">all <span>{}</span></button>",
        samples.len()
    );
    for o in Outcome::ALL {
        let n = samples.iter().filter(|s| s.outcome == o).count();
        if n == 0 && o == Outcome::Scored {
            continue;
        }
        let _ = write!(
            out,
            "<button type=\"button\" data-outcome=\"{0}\" class=\"o-{0}\">{0} <span>{1}</span></button>",
            o.as_str(),
            n
        );
    }
    out.push_str("</div>\n");
    out.push_str(
        "<input type=\"search\" id=\"svb-q\" placeholder=\"search id, question, completion\" \
         aria-label=\"search\">\n</div>\n",
    );
    let transcripts = with_detail.iter().filter(|d| **d).count();
    let listed = sel.listed.len();
    let _ = writeln!(
        out,
        "<p class=\"legend\">{}{}{}</p>",
        inp.plugin.legend(),
        if listed < samples.len() {
            format!(
                " The list holds {listed} of {} samples (errors, invalid, wrong, abstain, then \
                 correct first); the counts above are of all samples.",
                samples.len()
            )
        } else {
            String::new()
        },
        if transcripts < samples.len() {
            format!(
                " Transcripts embedded for {transcripts} of {} samples; search covers id and \
                 preview for the others.",
                samples.len()
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        out,
        "<p class=\"status\" id=\"svb-status\">{listed} samples</p>"
    );
    let _ = writeln!(
        out,
        "<table class=\"list\" id=\"svb-list\" data-visible-count=\"{}\">\n<thead><tr><th>#</th>\
         <th>example id</th><th>outcome</th><th>reward</th><th>preview</th></tr></thead>\n\
         <tbody id=\"svb-rows\"></tbody>\n</table>",
        listed
    );
    out.push_str(
        "<div class=\"pager\" id=\"svb-pager\"><button type=\"button\" id=\"svb-prev\">← prev</button> \
         <span id=\"svb-page\"></span> <button type=\"button\" id=\"svb-next\">next →</button></div>\n",
    );
    out.push_str("<div class=\"detail\" id=\"svb-detail\" hidden></div>\n");
    out.push_str(
        "<noscript><p>The sample browser needs JavaScript; the data is embedded in this file.</p></noscript>\n",
    );
    out.push_str("</section>\n");
}

fn data_scripts(
    out: &mut dyn Write,
    inp: &Inputs,
    sel: &Selection,
    mut results: Option<&mut std::fs::File>,
    messages: &[String],
    transcripts: &HashMap<usize, (Vec<u32>, String)>,
) -> std::io::Result<()> {
    let entries = &inp.samples.entries;
    let grading = inp.plugin.grading_name();
    let mut buf = String::new();
    buf.push_str("<script type=\"application/json\" id=\"svb-data\">{\"grading\":");
    push_json_str(&mut buf, grading);
    buf.push_str(",\"outcomes\":[");
    for (i, o) in Outcome::ALL.iter().enumerate() {
        if i > 0 {
            buf.push(',');
        }
        push_json_str(&mut buf, o.as_str());
    }
    // rows: [example_id, index, rollout_index, split, outcome, reward,
    //        reward_profile, preview, has_transcript]
    buf.push_str("],\"rows\":[");
    for (b, batch) in sel.listed.chunks(ROW_BATCH).enumerate() {
        let rows = match results.as_deref_mut() {
            Some(file) => {
                let list: Vec<&Entry> = batch.iter().map(|&i| &entries[i]).collect();
                read_back(file, &list, |l| row_of(l, inp.plugin))?
            }
            None => Vec::new(),
        };
        for (k, (&i, row)) in batch.iter().zip(rows).enumerate() {
            let s = row.map_err(changed)?;
            let pos = b * ROW_BATCH + k;
            if pos > 0 {
                buf.push_str(",\n");
            }
            buf.push('[');
            push_json_str(&mut buf, &s.example_id);
            buf.push(',');
            match s.index {
                Some(n) => {
                    let _ = write!(buf, "{n}");
                }
                None => buf.push_str("null"),
            }
            let _ = write!(buf, ",{},", s.rollout_index);
            push_json_str(&mut buf, &s.split);
            let o = Outcome::ALL
                .iter()
                .position(|x| *x == entries[i].outcome)
                .unwrap_or(0);
            let _ = write!(buf, ",{o},");
            match s.reward.filter(|r| r.is_finite()) {
                Some(r) => {
                    buf.push_str(&serde_json::to_string(&r).unwrap_or_else(|_| "null".into()))
                }
                None => buf.push_str("null"),
            }
            buf.push(',');
            push_json_str(&mut buf, &s.reward_profile);
            buf.push(',');
            push_json_str(&mut buf, &s.preview);
            buf.push_str(if sel.with_detail[pos] { ",1]" } else { ",0]" });
        }
        out.write_all(buf.as_bytes())?;
        buf.clear();
    }
    buf.push_str("]}</script>\n");
    buf.push_str("<script type=\"application/json\" id=\"svb-details\">{\"messages\":[");
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            buf.push_str(",\n");
        }
        push_raw(&mut buf, m);
        if buf.len() > 1 << 20 {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    buf.push_str("],\n\"details\":[");
    for (pos, &i) in sel.listed.iter().enumerate() {
        if pos > 0 {
            buf.push_str(",\n");
        }
        let Some((prompt, detail)) = transcripts.get(&i).filter(|_| sel.with_detail[pos]) else {
            buf.push('0');
            continue;
        };
        buf.push_str("{\"prompt\":[");
        for (k, id) in prompt.iter().enumerate() {
            if k > 0 {
                buf.push(',');
            }
            let _ = write!(buf, "{id}");
        }
        buf.push(']');
        let rest = &detail[1..];
        if rest != "}" {
            buf.push(',');
        }
        push_raw(&mut buf, rest);
        if buf.len() > 1 << 20 {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    buf.push_str("]}</script>\n");
    out.write_all(buf.as_bytes())
}

/// A JSON string literal, safe inside a `<script>` element.
fn push_json_str(out: &mut String, s: &str) {
    let lit = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
    push_raw(out, &lit);
}

/// Raw JSON text with every `<` written as `\u003c`: in valid JSON `<` only
/// occurs inside strings, where the escape means the same, and the script
/// element can then never be closed (`</script>`) or commented (`<!--`) by
/// the data.
fn push_raw(out: &mut String, raw: &str) {
    let mut last = 0;
    for i in memchr::memchr_iter(b'<', raw.as_bytes()) {
        out.push_str(&raw[last..i]);
        out.push_str("\\u003c");
        last = i + 1;
    }
    out.push_str(&raw[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_json_cannot_close_the_script() {
        let mut out = String::new();
        push_raw(&mut out, r#"{"c":"</script><!--x"}"#);
        assert_eq!(out, r#"{"c":"\u003c/script>\u003c!--x"}"#);
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["c"], "</script><!--x");
    }

    #[test]
    fn numbers_and_flattening() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(0.123456), "0.1235");
        let rows = flatten(&serde_json::json!({"a": {"b": 1, "c": null}, "d": [1, 2]}));
        assert_eq!(
            rows,
            vec![
                ("a.b".to_string(), "1".to_string()),
                ("a.c".to_string(), "n/a".to_string()),
                ("d".to_string(), "[2 items]".to_string())
            ]
        );
    }
}
