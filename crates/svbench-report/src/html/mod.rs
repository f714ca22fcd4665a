//! `report.html` (harness §4.4): one self-contained page per run — summary,
//! plots and a per-sample transcript browser — with inline CSS and
//! JavaScript only (no network, no external assets).
//!
//! The samples are embedded as JSON in two `<script type="application/json">`
//! elements: the index rows (id, outcome, reward, one-line preview), parsed
//! at load, and the transcripts, parsed on first use (opening a sample or
//! searching). The list renders one page of rows at a time, so a
//! 10,000-sample run stays responsive. The page is bounded whatever the run:
//! at most [`MAX_ROWS`] samples are listed and at most [`MAX_TRANSCRIPTS`]
//! carry their transcript, both chosen by outcome (errors, invalid, wrong,
//! abstain, scored, then correct, each in run order); every text of an
//! embedded transcript is cut at [`TEXT_CAP`] (64 KiB) with a visible marker
//! ([`truncation_marker`]), a transcript over [`SAMPLE_BUDGET`] (1 MiB) is
//! not embedded, and the embedded transcripts together stay within
//! [`TOTAL_BUDGET`] (48 MiB). The page says what it left out or cut.
//! Identical inputs give identical bytes: nothing depends on the clock.
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
use crate::plugin::{plugin_for, PluginLookup};
use crate::read::canonical_environment;

pub use samples::{
    cap_texts, present, read_samples, text, typed, Entry, Outcome, SampleIndex, SampleView,
};

/// File name of the HTML report.
pub const HTML_FILE: &str = "report.html";

/// At most this many samples carry their full transcript in the page.
pub const MAX_TRANSCRIPTS: usize = 20_000;

/// At most this many samples are listed (beyond it, by outcome priority).
pub const MAX_ROWS: usize = 100_000;

/// Every text (JSON string) of an embedded transcript is cut at this many
/// bytes and ends with a visible marker ([`truncation_marker`]).
pub const TEXT_CAP: usize = 64 * 1024;

/// A transcript larger than this (after cutting its texts) is not embedded.
pub const SAMPLE_BUDGET: u64 = 1 << 20;

/// The embedded transcripts together stay within this many bytes.
pub const TOTAL_BUDGET: u64 = 48 << 20;

/// The bounds of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Samples listed.
    pub max_rows: usize,
    /// Transcripts embedded.
    pub max_transcripts: usize,
    /// Bytes of one embedded transcript.
    pub sample_budget: u64,
    /// Bytes of all embedded transcripts.
    pub total_budget: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_rows: MAX_ROWS,
            max_transcripts: MAX_TRANSCRIPTS,
            sample_budget: SAMPLE_BUDGET,
            total_budget: TOTAL_BUDGET,
        }
    }
}

/// The marker ending a text cut at `kept` of its `total` bytes.
pub fn truncation_marker(kept: usize, total: usize) -> String {
    format!("\n…[svbench: cut at {kept} of {total} bytes; the full text is in results.jsonl]")
}

/// Renders `report.html` for the run in `run_dir` into a string (see
/// [`write_html`], which streams it to a file instead).
pub fn render_html(
    run_dir: &Path,
    summary: Option<&Summary>,
    report_md: &str,
    plots: &[Plot],
    plugins: PluginLookup,
) -> Result<String, ReportError> {
    let mut out = Vec::new();
    render_into(
        run_dir,
        summary,
        report_md,
        plots,
        plugins,
        Limits::default(),
        &mut out,
    )
    .map_err(|source| ReportError::Write {
        path: run_dir.join(HTML_FILE),
        source,
    })?;
    String::from_utf8(out).map_err(|e| ReportError::Write {
        path: run_dir.join(HTML_FILE),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    })
}

/// Writes `report.html` for the run in `run_dir` to `path` (atomically:
/// a temporary file renamed into place) and returns its SHA-256. It reads
/// `results.jsonl` twice — an index of the samples, then the listed rows
/// and embedded transcripts by offset — and inlines `summary` (headline
/// numbers and warnings), `report_md` (collapsed) and the plots' SVG. The
/// page is streamed: memory holds the index (~80 bytes per sample) and the
/// embedded transcripts (at most [`TOTAL_BUDGET`]), never the page.
///
/// The environment comes from the summary, else from `metadata.json`; its
/// plugin (found by `plugins`) grades the samples.
pub fn write_html(
    run_dir: &Path,
    summary: Option<&Summary>,
    report_md: &str,
    plots: &[Plot],
    plugins: PluginLookup,
    path: &Path,
) -> Result<String, ReportError> {
    let mut hasher = sha2::Sha256::new();
    crate::write::write_atomic_with(path, &mut |w| {
        let mut out = HashingWriter {
            inner: w,
            hasher: sha2::Sha256::new(),
        };
        render_into(
            run_dir,
            summary,
            report_md,
            plots,
            plugins,
            Limits::default(),
            &mut out,
        )?;
        hasher = out.hasher;
        Ok(())
    })?;
    Ok(svbench_core::canonical::hex(&hasher.finalize()))
}

use sha2::Digest;
use std::io::Write;

/// Hashes what it writes.
struct HashingWriter<W: Write> {
    inner: W,
    hasher: sha2::Sha256,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The page of the run in `run_dir` within `limits`, written to `out`.
#[allow(clippy::too_many_arguments)]
pub fn render_into(
    run_dir: &Path,
    summary: Option<&Summary>,
    report_md: &str,
    plots: &[Plot],
    plugins: PluginLookup,
    limits: Limits,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let environment = match summary {
        Some(s) => s.environment.clone(),
        None => environment_from_metadata(run_dir),
    };
    let plugin = plugin_for(plugins, &environment);
    let path = run_dir.join("results.jsonl");
    let samples = read_samples(&path, plugin).map_err(std::io::Error::other)?;
    let mut file = if samples.is_empty() {
        None
    } else {
        Some(std::fs::File::open(&path)?)
    };
    page::render(
        &page::Inputs {
            environment: &environment,
            plugin,
            summary,
            report_md,
            plots,
            samples: &samples,
            limits,
        },
        file.as_mut(),
        out,
    )
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
