//! `svbench scan` on e-mail (`.eml`, `.mbox`, or `--type email`): the E4
//! indicator extractor (spec E4 §3.2) on each message's rendering.
//!
//! An mbox gives one entry per message, named `PATH#N` (N from 1), read
//! from the file one message at a time; after `max_mbox_messages` messages
//! or `max_mbox_findings` findings the rest is an error, not scanned. The
//! file's `--time-budget` covers all its messages (checked inside parsing,
//! rendering and extraction); past it the file is one error, no findings.
//! Findings have the spec's shape `{category, polarity, start, end, text,
//! detail}`, offsets in code points into the rendering. Benign findings are
//! reported but do not make the exit code 1: only phish findings are
//! something to act on.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use svbench_mail::{
    extract_within, is_mbox_separator, parse_message, render_within, EmailLimits, Finding,
    IndicatorSet, MboxItem, MboxReader, Polarity, RENDER_VERSION,
};
use svbench_mail::{Deadline, TimeBudgetExceeded};
use svbench_scan::scan::AnalyzerInfo;

/// Findings kept per mailbox; past it the rest is not scanned.
pub const MAX_MBOX_FINDINGS: usize = 100_000;

/// The analyzer's name in `analyzers` and SARIF.
pub const ANALYZER: &str = "email-indicators";

/// What one message produced.
#[derive(Debug, Serialize)]
pub struct EmailReport {
    pub path: String,
    #[serde(rename = "type")]
    pub file_type: &'static str,
    pub findings: Vec<Finding>,
    pub errors: Vec<EmailScanError>,
}

/// Why a message or file could not be scanned.
#[derive(Debug, Serialize)]
pub struct EmailScanError {
    pub message: String,
}

impl EmailReport {
    fn new(path: String) -> Self {
        Self {
            path,
            file_type: "email",
            findings: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// A file that could not be read at all.
    pub fn unreadable(path: String, message: String) -> Self {
        let mut r = Self::new(path);
        r.errors.push(EmailScanError { message });
        r
    }

    fn phish(&self) -> bool {
        self.findings.iter().any(|f| f.polarity == Polarity::Phish)
    }
}

/// Bytes read from one e-mail input: one past the message limit, so an
/// oversized file is reported as such.
pub fn read_cap() -> u64 {
    u64::try_from(EmailLimits::default().max_message_bytes).unwrap_or(u64::MAX) + 1
}

/// Whether a path names an e-mail file (`.eml`, `.mbox`).
pub fn is_email_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("eml") || e.eq_ignore_ascii_case("mbox"))
}

/// Whether `name` or the first bytes say mbox (`.mbox`, or a `From `
/// separator line first: `From `, a sender and a date, not a header
/// written `From  :`).
fn is_mbox(name: &str, head: &[u8]) -> bool {
    name.to_ascii_lowercase().ends_with(".mbox") || is_mbox_separator(head)
}

/// Scans one e-mail file within `time_budget`: an mbox message by message
/// (streamed from the file), anything else as one message.
pub fn scan_path(path: &Path, time_budget: Option<Duration>) -> Vec<EmailReport> {
    let name = path.display().to_string();
    let deadline = Deadline::after_opt(time_budget);
    let mut reader = match std::fs::File::open(path) {
        Ok(file) => BufReader::with_capacity(64 << 10, file),
        Err(e) => return vec![EmailReport::unreadable(name, e.to_string())],
    };
    let head = match reader.fill_buf() {
        Ok(head) => head,
        Err(e) => return vec![EmailReport::unreadable(name, e.to_string())],
    };
    if is_mbox(&name, head) {
        return scan_mbox(&name, reader, &deadline);
    }
    let mut bytes = Vec::new();
    if let Err(e) = reader.take(read_cap()).read_to_end(&mut bytes) {
        return vec![EmailReport::unreadable(name, e.to_string())];
    }
    vec![scan_message(name, &bytes, &deadline)]
}

/// Scans e-mail bytes already read (standard input) as [`scan_path`] does.
pub fn scan(name: &str, bytes: &[u8], time_budget: Option<Duration>) -> Vec<EmailReport> {
    let deadline = Deadline::after_opt(time_budget);
    if is_mbox(name, bytes) {
        return scan_mbox(name, bytes, &deadline);
    }
    vec![scan_message(name.to_string(), bytes, &deadline)]
}

/// One message's report; a passed deadline is the message's error.
fn scan_message(path: String, raw: &[u8], deadline: &Deadline) -> EmailReport {
    let mut report = EmailReport::new(path);
    if raw.iter().all(u8::is_ascii_whitespace) {
        let what = if report.path.contains('#') {
            "empty message"
        } else {
            "empty file"
        };
        report.errors.push(EmailScanError {
            message: what.to_string(),
        });
        return report;
    }
    match findings(raw, deadline) {
        Ok(Ok(findings)) => report.findings = findings,
        Ok(Err(e)) => report.errors.push(EmailScanError {
            message: e.to_string(),
        }),
        Err(exceeded) => report.errors.push(EmailScanError {
            message: exceeded.to_string(),
        }),
    }
    report
}

/// The findings of one raw message, or why it could not be read.
fn findings(
    raw: &[u8],
    deadline: &Deadline,
) -> Result<Result<Vec<Finding>, svbench_mail::EmailError>, TimeBudgetExceeded> {
    let limits = EmailLimits::default();
    deadline.check()?;
    let email = match parse_message(raw, &limits) {
        Ok(email) => email,
        Err(e) => return Ok(Err(e)),
    };
    let rendered = render_within(&email, &limits, deadline)?;
    Ok(Ok(extract_within(
        &email,
        &rendered,
        IndicatorSet::builtin(),
        deadline,
    )?))
}

/// The messages of a mailbox, read one at a time: what is held is one
/// message and the reports (at most `max_mbox_messages` of them, holding
/// at most [`MAX_MBOX_FINDINGS`] findings).
fn scan_mbox(name: &str, reader: impl BufRead, deadline: &Deadline) -> Vec<EmailReport> {
    let limits = EmailLimits::default();
    let mut reports: Vec<EmailReport> = Vec::new();
    let mut held = 0usize;
    for (i, item) in MboxReader::new(reader, &limits).enumerate() {
        let path = format!("{name}#{}", i + 1);
        let report = match item {
            Ok(MboxItem::Message(raw)) => scan_message(path, &raw, deadline),
            Ok(MboxItem::TooLarge { size, limit }) => EmailReport::unreadable(
                path,
                svbench_mail::EmailError::TooLarge {
                    size: usize::try_from(size).unwrap_or(usize::MAX),
                    limit,
                }
                .to_string(),
            ),
            Err(e) => {
                reports.push(EmailReport::unreadable(name.to_string(), e.to_string()));
                break;
            }
        };
        if let Err(exceeded) = deadline.check() {
            // A partial mailbox is not a result.
            return vec![EmailReport::unreadable(
                name.to_string(),
                exceeded.to_string(),
            )];
        }
        held += report.findings.len();
        reports.push(report);
        if held > MAX_MBOX_FINDINGS {
            reports.push(EmailReport::unreadable(
                name.to_string(),
                format!(
                    "the mailbox has more than {MAX_MBOX_FINDINGS} findings; the rest was not scanned"
                ),
            ));
            break;
        }
    }
    if reports.is_empty() {
        return vec![EmailReport::unreadable(
            name.to_string(),
            "no message found in the mailbox".to_string(),
        )];
    }
    reports
}

/// 3 when something could not be scanned, else 1 for any phish finding, else 0.
pub fn exit_code(reports: &[EmailReport]) -> u8 {
    if reports.iter().any(|r| !r.errors.is_empty()) {
        3
    } else if reports.iter().any(EmailReport::phish) {
        1
    } else {
        0
    }
}

/// The analyzer's identity: the rendering version and the data's hashes.
pub fn analyzer_info() -> AnalyzerInfo {
    let set = IndicatorSet::builtin();
    AnalyzerInfo {
        backend: "native",
        version: format!(
            "render v{RENDER_VERSION}; indicators.toml sha256 {}; brands.toml sha256 {}",
            set.indicators_sha256(),
            set.brands_sha256()
        ),
    }
}

/// One line per finding and error, the files skipped (when no config file
/// was scanned, whose output lists them otherwise), then a summary.
pub fn render_text(reports: &[EmailReport], skipped: &[super::inputs::Skipped]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let (mut phish, mut benign, mut errors) = (0usize, 0usize, 0usize);
    for r in reports {
        for f in &r.findings {
            match f.polarity {
                Polarity::Phish => phish += 1,
                Polarity::Benign => benign += 1,
            }
            let _ = writeln!(
                out,
                "{}:{}-{}: email/{} [{}] {:?}: {}",
                r.path,
                f.start,
                f.end,
                f.category,
                f.polarity.as_str(),
                f.text,
                f.detail
            );
        }
        for e in &r.errors {
            errors += 1;
            let _ = writeln!(out, "{}: error: {}", r.path, e.message);
        }
    }
    super::text::write_skipped(&mut out, skipped);
    let _ = writeln!(
        out,
        "{} message{}: {phish} phish finding{}, {benign} benign, {errors} error{}{}",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        if phish == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        super::text::skipped_count(skipped),
    );
    out
}

/// The SARIF run of the e-mail analyzer: phish findings are warnings,
/// benign ones notes; the span (code points into the rendering, not the
/// file) is in the result's properties.
pub fn sarif_run(reports: &[EmailReport]) -> serde_json::Value {
    let mut categories: Vec<&str> = reports
        .iter()
        .flat_map(|r| r.findings.iter().map(|f| f.category))
        .collect();
    categories.sort_unstable();
    categories.dedup();
    let rules: Vec<serde_json::Value> = categories
        .iter()
        .map(|c| {
            let level = match Polarity::of(c) {
                Some(Polarity::Benign) => "note",
                _ => "warning",
            };
            serde_json::json!({"id": c, "defaultConfiguration": {"level": level}})
        })
        .collect();
    let results: Vec<serde_json::Value> = reports
        .iter()
        .flat_map(|r| {
            r.findings.iter().map(move |f| {
                let level = match f.polarity {
                    Polarity::Phish => "warning",
                    Polarity::Benign => "note",
                };
                let uri = r.path.split_once('#').map_or(r.path.as_str(), |(p, _)| p);
                serde_json::json!({
                    "ruleId": f.category,
                    "level": level,
                    "message": {"text": format!("{}: {}", f.text, f.detail)},
                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}],
                    "properties": {
                        "message": r.path, "polarity": f.polarity.as_str(),
                        "start": f.start, "end": f.end, "text": f.text,
                    },
                })
            })
        })
        .collect();
    let notifications: Vec<serde_json::Value> = reports
        .iter()
        .flat_map(|r| {
            r.errors.iter().map(move |e| {
                serde_json::json!({"level": "error", "message": {"text": format!("{}: {}", r.path, e.message)}})
            })
        })
        .collect();
    serde_json::json!({
        "tool": {"driver": {
            "name": ANALYZER,
            "version": analyzer_info().version,
            "informationUri": "https://example.invalid/svbench",
            "rules": rules,
        }},
        "invocations": [{
            "executionSuccessful": notifications.is_empty(),
            "toolExecutionNotifications": notifications,
        }],
        "results": results,
    })
}
