//! The human-readable output of `svbench scan`.

use std::fmt::Write;

use svbench_scan::dedupe::dedupe;
use svbench_scan::scan::{FileReport, Scanner};
use svbench_scan::{kube_linter, semgrep, Tool};

use super::inputs::Skipped;

/// One line per finding and per error, then a summary line.
pub fn render(reports: &[FileReport], skipped: &[Skipped]) -> String {
    let mut out = String::new();
    let (mut findings, mut errors) = (0, 0);
    for report in reports {
        for f in &report.findings {
            findings += 1;
            let _ = write!(
                out,
                "{}: {} [{}] {}",
                f.location(),
                f.full_id(),
                f.severity,
                f.message
            );
            write_object(&mut out, f.object.as_ref());
            out.push('\n');
        }
        errors += write_errors(&mut out, report);
    }
    write_summary(
        &mut out,
        reports.len(),
        skipped,
        &format!("{findings} finding{}", plural(findings)),
        errors,
    );
    out
}

/// `--dedupe`: one line per issue row, naming the namespaces that agree and
/// the findings they stand for, then errors and a summary.
pub fn render_deduped(reports: &[FileReport], skipped: &[Skipped]) -> String {
    let mut out = String::new();
    let (mut rows, mut findings, mut errors) = (0, 0, 0);
    for report in reports {
        for row in dedupe(&report.findings) {
            rows += 1;
            findings += row.findings.len();
            let _ = write!(
                out,
                "{}: {} [{}] {}",
                row.location(),
                row.issue,
                row.severity,
                row.message
            );
            write_object(&mut out, row.object.as_ref());
            let tools: Vec<&str> = row.tools.iter().map(|t| t.as_str()).collect();
            let _ = writeln!(out, " [{}]", tools.join(", "));
        }
        errors += write_errors(&mut out, report);
    }
    let counts = format!(
        "{rows} issue{} ({findings} finding{})",
        plural(rows),
        plural(findings)
    );
    write_summary(&mut out, reports.len(), skipped, &counts, errors);
    out
}

/// ` (Kind name)` for a Kubernetes object.
fn write_object(out: &mut String, object: Option<&svbench_scan::ObjectRef>) {
    if let Some(svbench_scan::ObjectRef::K8s { kind, name, .. }) = object {
        let _ = write!(out, " ({kind} {})", name.as_deref().unwrap_or("<unnamed>"));
    }
}

/// One line per error of the file; returns how many.
fn write_errors(out: &mut String, report: &FileReport) -> usize {
    for e in &report.errors {
        let tool = e.tool.map_or("scan", Tool::as_str);
        let doc = e
            .doc_index
            .map(|d| format!(" (document {d})"))
            .unwrap_or_default();
        let _ = writeln!(out, "{}{doc}: error [{tool}] {}", e.file, e.message);
    }
    report.errors.len()
}

/// One `path: skipped: why` line per file a directory walk skipped.
pub fn write_skipped(out: &mut String, skipped: &[Skipped]) {
    for s in skipped {
        let _ = writeln!(out, "{}: skipped: {}", s.path, s.reason);
    }
}

/// `, N skipped` for a summary line, or nothing.
pub fn skipped_count(skipped: &[Skipped]) -> String {
    if skipped.is_empty() {
        String::new()
    } else {
        format!(", {} skipped", skipped.len())
    }
}

/// The skipped inputs and the summary line.
fn write_summary(out: &mut String, files: usize, skipped: &[Skipped], counts: &str, errors: usize) {
    write_skipped(out, skipped);
    let _ = writeln!(
        out,
        "{files} file{} scanned: {counts}, {errors} error{}{}",
        plural(files),
        plural(errors),
        skipped_count(skipped)
    );
}

/// What a patch did and what remains.
pub fn render_post_patch(post: &super::PostPatch) -> String {
    let value = serde_json::to_value(post).unwrap_or_default();
    let status = value["status"].as_str().unwrap_or("?");
    let mut out = format!("patch: {status}");
    if let Some(reason) = value["reason"].as_str() {
        let _ = write!(out, " ({reason})");
    }
    out.push('\n');
    if value["patch_applied"] == true {
        let findings = value["findings"].as_array().map_or(0, Vec::len);
        let _ = writeln!(
            out,
            "after the patch: {findings} finding{}",
            plural(findings)
        );
        for f in value["findings"].as_array().into_iter().flatten() {
            let _ = writeln!(
                out,
                "  {}: {} [{}] {}",
                f["location"].as_str().unwrap_or(""),
                f["id"].as_str().unwrap_or(""),
                f["severity"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            );
        }
    }
    out
}

/// The differences of one file between native and external findings.
pub fn render_crosscheck(check: &svbench_scan::external::CrossCheck) -> String {
    let mut out = format!(
        "crosscheck {}: {} agreed, {} only native, {} only external\n",
        check.file,
        check.agreed,
        check.only_native.len(),
        check.only_external.len()
    );
    for (side, findings) in [
        ("native", &check.only_native),
        ("external", &check.only_external),
    ] {
        for f in findings {
            let _ = writeln!(
                out,
                "  only {side}: {} {}{}",
                f.location(),
                f.full_id(),
                f.container
                    .as_deref()
                    .map(|c| format!(" (container {c})"))
                    .unwrap_or_default()
            );
        }
    }
    out
}

/// The check catalogue: namespace, id, severity, on/off by default.
pub fn render_checks(scanner: &Scanner) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12} {:<4} {:<7} CHECK",
        "NAMESPACE", "SEV", "DEFAULT"
    );
    for cat in [kube_linter::catalogue(), semgrep::catalogue()] {
        for r in cat {
            let on = if r.tier.enabled_by_default() {
                "on"
            } else {
                "off"
            };
            let _ = writeln!(out, "{:<12} {:<4} {:<7} {}", r.tool, r.severity, on, r.id);
        }
    }
    for r in scanner.opa_rules() {
        let _ = writeln!(
            out,
            "{:<12} {:<4} {:<7} {} — {}",
            "opa", r.severity, "on", r.id, r.title
        );
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
