//! svbench reports: `summary.json` and `report.md` recomputed from a run's
//! `metadata.json` and `results.jsonl` alone (harness §4). The report never
//! uses the network, never spawns processes and never re-parses answers: it
//! reads the parse outcomes and reward components the run recorded.
//!
//! Entry points: [`report_run`] (write both files, the SVG plots under
//! `plots/`, `report.html` and `run_manifest.json`, harness §4.4, §5.4),
//! [`check_run`]
//! (`report --check`: recompute and compare, write nothing) and
//! [`build_report`] (compute without writing, e.g. for benchmarks).

pub mod build;
pub mod compare;
pub mod error;
pub mod headline;
pub mod html;
pub mod manifest;
pub mod markdown;
pub mod markup;
pub mod plots;
pub mod plugin;
pub mod read;
pub mod schema;
pub mod scoreboard;
pub mod write;

use std::path::{Path, PathBuf};

use serde_json::Value;
use svbench_core::canonical::sha256_hex;
use svbench_core::identity::EnvIdentity;
use svbench_core::metrics::BootstrapConfig;
use svbench_core::summary::Summary;

pub use build::BuildNotes;
pub use error::ReportError;
pub use manifest::MANIFEST_FILE;
pub use plots::Plot;

/// File name of the summary.
pub const SUMMARY_FILE: &str = "summary.json";
/// File name of the Markdown report.
pub const REPORT_FILE: &str = "report.md";
/// Directory of the plots, relative to the report.
pub const PLOTS_DIR: &str = "plots";

/// How to build a report.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Finds the report plugin of the run's environment (the registry's,
    /// `svbench_envs::registry::report_plugin`); for an environment it does
    /// not know, the summary holds the generic metrics and says so.
    pub plugins: plugin::PluginLookup,
    /// Directory for the outputs (default: the run directory).
    pub out_dir: Option<PathBuf>,
    /// Require complete svbench artifacts (full metadata, identity fields on
    /// every record, a known environment).
    pub strict: bool,
    /// Bootstrap settings (default 1,000 resamples, seed 1234; `check_run`
    /// defaults to the settings recorded in the existing summary).
    pub bootstrap: Option<BootstrapConfig>,
    /// Generation time written as `timestamp` (default: now, UTC). Fixing it
    /// makes the output bytes fully reproducible.
    pub timestamp: Option<String>,
    /// Skip the plots (`report --no-plots`): none is computed, written or
    /// linked from `report.md`.
    pub no_plots: bool,
}

impl ReportOptions {
    /// Defaults (1,000 resamples, seed 1234, plots, the time now), with the
    /// environments' plugins found by `plugins`.
    #[must_use]
    pub fn new(plugins: plugin::PluginLookup) -> Self {
        ReportOptions {
            plugins,
            out_dir: None,
            strict: false,
            bootstrap: None,
            timestamp: None,
            no_plots: false,
        }
    }
}

/// A computed report, not yet written.
#[derive(Debug, Clone)]
pub struct BuiltReport {
    /// The summary; `None` when the run has no record at all.
    pub summary: Option<Summary>,
    /// `summary.json` bytes (pretty JSON, trailing newline).
    pub summary_json: Option<String>,
    /// `report.md` text.
    pub report_md: String,
    /// The plots (empty with `no_plots` or without a summary), in the order
    /// `report.md` lists them.
    pub plots: Vec<Plot>,
    /// How the numbers came about (profiles used, records left out).
    pub notes: BuildNotes,
}

/// What [`report_run`] wrote.
#[derive(Debug, Clone)]
pub struct ReportOutcome {
    /// Path of `summary.json`; `None` when the run has no record.
    pub summary_path: Option<PathBuf>,
    /// Path of `report.md`.
    pub report_path: PathBuf,
    /// Paths of the plots written (`plots/<name>.svg`).
    pub plot_paths: Vec<PathBuf>,
    /// Path of `report.html`.
    pub html_path: PathBuf,
    /// The summary written.
    pub summary: Option<Summary>,
    /// Path of `run_manifest.json`; `None` when the artifacts lack what a
    /// manifest needs (see `manifest_gaps`).
    pub manifest_path: Option<PathBuf>,
    /// Why no manifest was written.
    pub manifest_gaps: Option<manifest::ManifestGaps>,
}

/// The result of [`check_run`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckOutcome {
    /// Human-readable differences (JSON paths with both values); empty when
    /// the existing summary matches the recomputation.
    pub differences: Vec<String>,
}

impl CheckOutcome {
    /// Whether the existing summary matches.
    pub fn passed(&self) -> bool {
        self.differences.is_empty()
    }
}

/// Computes the summary and Markdown report of the run in `run_dir`.
pub fn build_report(run_dir: &Path, opts: &ReportOptions) -> Result<BuiltReport, ReportError> {
    build_loaded(run_dir, opts).map(|(_, built)| built)
}

/// Reads the run in `run_dir` and builds its report with its environment's
/// plugin; the run is returned with its per-record columns consumed (see
/// [`build::build_summary`]).
fn build_loaded(
    run_dir: &Path,
    opts: &ReportOptions,
) -> Result<(read::LeanRun, BuiltReport), ReportError> {
    let info = read::read_info(run_dir, opts.strict)?;
    // `--strict` refuses a run of an environment this build does not know:
    // neither registered (a plugin) nor in the identity table.
    let registered = (opts.plugins)(&info.environment).is_some();
    if opts.strict && !registered && !read::canonical_environment(&info.environment).1 {
        return Err(ReportError::Strict {
            message: format!(
                "unknown environment `{}` in {}",
                info.environment,
                run_dir.join("metadata.json").display()
            ),
        });
    }
    let plugin = plugin::plugin_for(opts.plugins, &info.environment);
    let summary_opts = plugin::SummaryOptions {
        strict: opts.strict,
        bootstrap: opts.bootstrap.unwrap_or_default(),
        timestamp: opts.timestamp.clone().unwrap_or_else(now),
        no_plots: opts.no_plots,
    };
    let (run, summarized) = plugin.summarize(run_dir, info, &summary_opts)?;
    let built = built_report(&run, summarized, plugin)?;
    Ok((run, built))
}

fn built_report(
    run: &read::LeanRun,
    summarized: Option<plugin::Summarized>,
    plugin: &dyn plugin::ReportPlugin,
) -> Result<BuiltReport, ReportError> {
    let run_dir = &run.dir;
    match summarized {
        Some((summary, notes, plots)) => {
            let report_md = markdown::render(&summary, &run.info, &notes, &plots, plugin);
            let mut json =
                serde_json::to_string_pretty(&summary).map_err(|e| ReportError::Metadata {
                    path: run_dir.join(SUMMARY_FILE),
                    message: format!("cannot serialise the summary: {e}"),
                })?;
            json.push('\n');
            Ok(BuiltReport {
                summary: Some(summary),
                summary_json: Some(json),
                report_md,
                plots,
                notes,
            })
        }
        None => Ok(BuiltReport {
            summary: None,
            summary_json: None,
            report_md: markdown::render_empty(run),
            plots: Vec::new(),
            notes: BuildNotes::default(),
        }),
    }
}

/// Recomputes `summary.json`, `report.md` and (unless `opts.no_plots`) the
/// plots for the run in `run_dir` and writes them atomically into
/// `opts.out_dir` (default: the run directory; plots as
/// `plots/<name>.svg`), followed by `run_manifest.json` listing them. A run
/// without any record gets a `report.md` saying so and neither summary,
/// plots nor manifest. Plot files this report does not produce are left as
/// they are.
pub fn report_run(run_dir: &Path, opts: &ReportOptions) -> Result<ReportOutcome, ReportError> {
    let (mut run, built) = build_loaded(run_dir, opts)?;
    let out = opts
        .out_dir
        .clone()
        .unwrap_or_else(|| run_dir.to_path_buf());
    std::fs::create_dir_all(&out).map_err(|source| ReportError::Write {
        path: out.clone(),
        source,
    })?;
    let summary_path = match &built.summary_json {
        Some(json) => {
            let p = out.join(SUMMARY_FILE);
            write::write_atomic(&p, json.as_bytes())?;
            Some(p)
        }
        None => None,
    };
    let report_path = out.join(REPORT_FILE);
    write::write_atomic(&report_path, built.report_md.as_bytes())?;
    let mut plot_paths = Vec::with_capacity(built.plots.len());
    if !built.plots.is_empty() {
        let dir = out.join(PLOTS_DIR);
        std::fs::create_dir_all(&dir).map_err(|source| ReportError::Write {
            path: dir.clone(),
            source,
        })?;
        for p in &built.plots {
            let path = dir.join(format!("{}.svg", p.name));
            write::write_atomic(&path, p.svg.as_bytes())?;
            plot_paths.push(path);
        }
    }

    // The summary consumed the per-record numbers (freed before
    // report.html reads the transcripts and inlines the summary, report.md
    // and the plots).
    run.records.release_records();
    let html_path = out.join(html::HTML_FILE);
    let html_sha256 = html::write_html(
        run_dir,
        built.summary.as_ref(),
        &built.report_md,
        &built.plots,
        opts.plugins,
        &html_path,
    )?;

    let mut written = Vec::new();
    if let (Some(p), Some(json)) = (&summary_path, &built.summary_json) {
        written.push(manifest::WrittenFile {
            role: "summary",
            path: p.clone(),
            sha256: sha256_hex(json.as_bytes()),
        });
    }
    written.push(manifest::WrittenFile {
        role: "report",
        path: report_path.clone(),
        sha256: sha256_hex(built.report_md.as_bytes()),
    });
    written.push(manifest::WrittenFile {
        role: "report_html",
        path: html_path.clone(),
        sha256: html_sha256,
    });
    for (p, path) in built.plots.iter().zip(&plot_paths) {
        written.push(manifest::WrittenFile {
            role: "plot",
            path: path.clone(),
            sha256: sha256_hex(p.svg.as_bytes()),
        });
    }
    // A registered environment names itself; one this build does not run
    // (an imported E3 run) is still known to the benchmark's identity table.
    let identity = (opts.plugins)(&run.info.environment)
        .map(|(id, _)| id)
        .or_else(|| svbench_core::identity::lookup(&run.info.environment));
    let (manifest_path, manifest_gaps) = write_manifest(&run, identity, &out, &written)?;
    Ok(ReportOutcome {
        summary_path,
        report_path,
        plot_paths,
        html_path,
        summary: built.summary,
        manifest_path,
        manifest_gaps,
    })
}

/// Writes `run_manifest.json` into `out` when the artifacts hold every
/// value it needs.
fn write_manifest(
    run: &read::LeanRun,
    identity: Option<&EnvIdentity>,
    out: &Path,
    written: &[manifest::WrittenFile],
) -> Result<(Option<PathBuf>, Option<manifest::ManifestGaps>), ReportError> {
    let meta_path = run.dir.join("metadata.json");
    let bytes = std::fs::read(&meta_path).map_err(|source| ReportError::Read {
        path: meta_path.clone(),
        source,
    })?;
    let meta: serde_json::Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|e| ReportError::Metadata {
            path: meta_path.clone(),
            message: format!("not a JSON object: {e}"),
        })?;
    match manifest::build_manifest(run, identity, &meta, &sha256_hex(&bytes), out, written) {
        Ok(m) => {
            let p = out.join(MANIFEST_FILE);
            write::write_atomic(&p, manifest::manifest_json(&m).as_bytes())?;
            Ok((Some(p), None))
        }
        Err(gaps) => Ok((None, Some(gaps))),
    }
}

/// `report --check`: recomputes the summary and compares it with the
/// existing `summary.json` (in `opts.out_dir`, default the run directory),
/// ignoring `timestamp`. Writes nothing. Without `opts.bootstrap`, the
/// bootstrap settings recorded in the existing summary are used.
pub fn check_run(run_dir: &Path, opts: &ReportOptions) -> Result<CheckOutcome, ReportError> {
    let dir = opts
        .out_dir
        .clone()
        .unwrap_or_else(|| run_dir.to_path_buf());
    let path = dir.join(SUMMARY_FILE);
    let existing: Option<Value> = match std::fs::read(&path) {
        Ok(bytes) => Some(
            serde_json::from_slice(&bytes).map_err(|e| ReportError::Metadata {
                path: path.clone(),
                message: format!("not valid JSON: {e}"),
            })?,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(ReportError::Read { path, source }),
    };
    let mut opts = opts.clone();
    // The check compares the summary only; plots are neither needed nor written.
    opts.no_plots = true;
    if opts.bootstrap.is_none() {
        opts.bootstrap = existing.as_ref().and_then(recorded_bootstrap);
    }
    let built = build_report(run_dir, &opts)?;
    // Compare what would be written, parsed by the same reader as the
    // existing file, so float parsing cannot introduce differences.
    let fresh: Option<Value> = match &built.summary_json {
        Some(text) => Some(
            serde_json::from_str(text).map_err(|e| ReportError::Metadata {
                path: path.clone(),
                message: format!("cannot re-read the recomputed summary: {e}"),
            })?,
        ),
        None => None,
    };
    let mut differences = Vec::new();
    match (existing, fresh) {
        (None, None) => {}
        (Some(_), None) => differences.push(format!(
            "{} exists but the run has no record (no summary is expected)",
            path.display()
        )),
        (None, Some(_)) => differences.push(format!("{} is missing", path.display())),
        (Some(mut a), Some(mut b)) => {
            for v in [&mut a, &mut b] {
                if let Value::Object(m) = v {
                    m.remove("timestamp");
                }
            }
            diff("", &a, &b, &mut differences);
        }
    }
    Ok(CheckOutcome { differences })
}

fn recorded_bootstrap(summary: &Value) -> Option<BootstrapConfig> {
    let b = summary.get("bootstrap")?;
    Some(BootstrapConfig {
        resamples: usize::try_from(b.get("resamples")?.as_u64()?).ok()?,
        seed: b.get("seed")?.as_u64()?,
    })
}

/// At most this many differences are listed.
const MAX_DIFFERENCES: usize = 50;

fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= MAX_DIFFERENCES || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = format!("{path}/{k}");
                match y.get(k) {
                    Some(w) => diff(&p, v, w, out),
                    None => out.push(format!(
                        "{p}: present in summary.json, absent when recomputed"
                    )),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(format!(
                    "{path}/{k}: absent in summary.json, present when recomputed"
                ));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}/{i}"), v, w, out);
            }
        }
        _ => out.push(format!(
            "{}: summary.json has {}, recomputed {}",
            if path.is_empty() { "/" } else { path },
            short(a),
            short(b)
        )),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
