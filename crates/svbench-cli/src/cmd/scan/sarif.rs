//! SARIF 2.1.0 output: one run per namespace, rules from the catalogues,
//! per-file errors as tool execution notifications.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use svbench_scan::scan::{AnalyzerInfo, FileReport};
use svbench_scan::{kube_linter, semgrep, Severity, Tool};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log for a scan.
pub fn render(reports: &[FileReport], analyzers: &BTreeMap<&'static str, AnalyzerInfo>) -> Value {
    let runs: Vec<Value> = Tool::ALL
        .into_iter()
        .filter_map(|tool| {
            let info = analyzers.get(tool.as_str())?;
            Some(run(tool, info, reports))
        })
        .collect();
    json!({"$schema": SCHEMA, "version": "2.1.0", "runs": runs})
}

fn run(tool: Tool, info: &AnalyzerInfo, reports: &[FileReport]) -> Value {
    let findings: Vec<_> = reports
        .iter()
        .flat_map(|r| &r.findings)
        .filter(|f| f.tool == tool)
        .collect();
    let used: BTreeSet<&str> = findings.iter().map(|f| f.rule_id.as_str()).collect();
    let rules: Vec<Value> = used
        .iter()
        .map(|id| {
            let severity = findings
                .iter()
                .find(|f| f.rule_id == *id)
                .map(|f| f.severity);
            let mut rule = json!({
                "id": id,
                "defaultConfiguration": {"level": severity.map_or("warning", level)},
                "properties": {"severity": severity.map(Severity::as_str)},
            });
            if let Some(help) = remediation(tool, id) {
                rule["help"] = json!({"text": help});
            }
            rule
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut region = json!({});
            if let Some(line) = f.line {
                region = json!({"startLine": line});
            }
            json!({
                "ruleId": f.rule_id,
                "level": level(f.severity),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": f.file},
                    "region": region,
                }}],
                "properties": {
                    "severity": f.severity,
                    "object": f.object,
                    "container": f.container,
                    "doc_index": f.doc_index,
                },
            })
        })
        .collect();
    let notifications: Vec<Value> = reports
        .iter()
        .flat_map(|r| &r.errors)
        .filter(|e| e.tool.is_none_or(|t| t == tool))
        .map(|e| {
            json!({
                "level": "error",
                "message": {"text": e.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": e.file}}}],
            })
        })
        .collect();
    json!({
        "tool": {"driver": {
            "name": tool.as_str(),
            "version": info.version,
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

/// high → error, med → warning, low → note.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "error",
        Severity::Med => "warning",
        Severity::Low => "note",
    }
}

fn remediation(tool: Tool, id: &str) -> Option<&'static str> {
    let cat = match tool {
        Tool::KubeLinter => kube_linter::catalogue(),
        Tool::Semgrep => semgrep::catalogue(),
        Tool::Opa => return None,
    };
    cat.iter().find(|r| r.id == id).map(|r| r.remediation)
}
