//! `svbench scan` on e-mail (`.eml`, `.mbox`, or `--type email`): the E4
//! indicator extractor (spec E4 §3.2) on each message's rendering.
//!
//! An mbox gives one entry per message, named `PATH#N` (N from 1). Findings
//! have the spec's shape `{category, polarity, start, end, text, detail}`,
//! offsets in code points into the rendering. Benign findings are reported
//! but do not make the exit code 1: only phish findings are something to act on.

use std::path::Path;

use serde::Serialize;
use svbench_scan::email::{
    extract, parse_mbox, parse_message, render, EmailLimits, Finding, IndicatorSet, Polarity,
    RENDER_VERSION,
};
use svbench_scan::scan::AnalyzerInfo;

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

/// Scans one input: an mbox (`.mbox`, or text starting with a `From `
/// separator line) message by message, anything else as one message.
pub fn scan(name: &str, bytes: &[u8]) -> Vec<EmailReport> {
    let limits = EmailLimits::default();
    let set = IndicatorSet::builtin();
    let mbox = name.to_ascii_lowercase().ends_with(".mbox") || bytes.starts_with(b"From ");
    let one = |path: String, parsed: Result<_, svbench_scan::email::EmailError>| {
        let mut report = EmailReport::new(path);
        match parsed {
            Ok(email) => {
                let rendered = render(&email, &limits);
                report.findings = extract(&email, &rendered, set);
            }
            Err(e) => report.errors.push(EmailScanError {
                message: e.to_string(),
            }),
        }
        report
    };
    if !mbox {
        return vec![one(name.to_string(), parse_message(bytes, &limits))];
    }
    let reports: Vec<EmailReport> = parse_mbox(bytes, &limits)
        .enumerate()
        .map(|(i, parsed)| one(format!("{name}#{}", i + 1), parsed))
        .collect();
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

/// One line per finding and error, then a summary.
pub fn render_text(reports: &[EmailReport]) -> String {
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
    let _ = writeln!(
        out,
        "{} message{}: {phish} phish finding{}, {benign} benign, {errors} error{}",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        if phish == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
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
