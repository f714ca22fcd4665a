//! `report.html` (harness §4.4): one self-contained page per run — summary,
//! plots and a per-sample transcript browser — with inline CSS and
//! JavaScript only (no network, no external assets).
//!
//! The samples are embedded as JSON in two `<script type="application/json">`
//! elements: the index rows (id, outcome, reward, one-line preview), parsed
//! at load, and the transcripts, parsed on first use (opening a sample or
//! searching). The list renders one page of rows at a time, so a
//! 10,000-sample run stays responsive. Transcripts are embedded for at most
//! [`MAX_TRANSCRIPTS`] samples, chosen by outcome (errors, invalid, wrong,
//! abstain, scored, then correct, each in run order); beyond that only the
//! index row is kept and the page says so. Identical inputs give identical
//! bytes: nothing depends on the clock.
//!
//! The page reads URL fragment parameters on load and on `hashchange`:
//! `#outcome=wrong,invalid&q=text&open=<example_id>&page=N`, and records
//! timings in the DOM for browser tests: `body[data-first-paint-ms]`,
//! `body[data-filter-ms]`, `#svb-list[data-visible-count]`,
//! `#svb-detail[data-open-id]`.

mod page;
pub mod samples;

use std::path::Path;

use svbench_core::summary::Summary;

use crate::error::ReportError;
use crate::plots::Plot;
use crate::read::{canonical_environment, E1_NAME, E2_NAME};

pub use samples::{read_samples, Grading, Outcome, Sample, Samples};

/// File name of the HTML report.
pub const HTML_FILE: &str = "report.html";

/// At most this many samples carry their full transcript in the page.
pub const MAX_TRANSCRIPTS: usize = 20_000;

/// Renders `report.html` for the run in `run_dir`: reads its
/// `results.jsonl` in full and inlines `summary` (headline numbers and
/// warnings), `report_md` (collapsed) and the plots' SVG.
///
/// The environment comes from the summary, else from `metadata.json`; it
/// picks the grading rule ([`Grading`]).
pub fn render_html(
    run_dir: &Path,
    summary: Option<&Summary>,
    report_md: &str,
    plots: &[Plot],
) -> Result<String, ReportError> {
    let environment = match summary {
        Some(s) => s.environment.clone(),
        None => environment_from_metadata(run_dir),
    };
    let grading = grading_for(&environment);
    let samples = read_samples(&run_dir.join("results.jsonl"), grading)?;
    Ok(page::render(&page::Inputs {
        environment: &environment,
        grading,
        summary,
        report_md,
        plots,
        samples: &samples,
        max_transcripts: MAX_TRANSCRIPTS,
    }))
}

/// The grading rule of an environment (name or alias).
pub fn grading_for(environment: &str) -> Grading {
    match canonical_environment(environment).0.as_str() {
        E1_NAME => Grading::E1,
        E2_NAME => Grading::E2,
        _ => Grading::Other,
    }
}

/// `metadata.json`'s environment, or empty when it cannot be read.
fn environment_from_metadata(run_dir: &Path) -> String {
    std::fs::read(run_dir.join("metadata.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("environment")?.as_str().map(str::to_string))
        .map(|e| canonical_environment(&e).0)
        .unwrap_or_default()
}
