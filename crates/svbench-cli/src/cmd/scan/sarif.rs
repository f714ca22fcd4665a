//! SARIF 2.1.0 output: one run per namespace, rules from the catalogues,
//! per-file errors as tool execution notifications.
//!
//! The log is serialised straight from the reports (borrowing their fields)
//! into a buffered writer, never built as a JSON tree, so its memory does
//! not grow with the number of files or findings beyond the reports
//! themselves.

use std::collections::BTreeMap;
use std::io::Write;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use svbench_scan::scan::{AnalyzerInfo, FileReport};
use svbench_scan::{kube_linter, semgrep, Finding, ScanError, Severity, Tool};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Writes the SARIF log for a scan to `out` (pretty JSON, no trailing newline).
pub fn write(
    out: &mut dyn Write,
    reports: &[FileReport],
    analyzers: &BTreeMap<&'static str, AnalyzerInfo>,
    extra_runs: &[serde_json::Value],
) -> std::io::Result<()> {
    let mut buf = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(
        &mut buf,
        &Log {
            reports,
            analyzers,
            extra_runs,
        },
    )?;
    buf.flush()
}

struct Log<'a> {
    reports: &'a [FileReport],
    analyzers: &'a BTreeMap<&'static str, AnalyzerInfo>,
    /// Runs of analyzers outside the config namespaces (the e-mail one).
    extra_runs: &'a [serde_json::Value],
}

impl Serialize for Log<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("$schema", SCHEMA)?;
        m.serialize_entry("version", "2.1.0")?;
        let runs: Vec<Run> = Tool::ALL
            .into_iter()
            .filter_map(|tool| {
                let info = self.analyzers.get(tool.as_str())?;
                Some(Run {
                    tool,
                    info,
                    reports: self.reports,
                })
            })
            .collect();
        m.serialize_entry("runs", &Runs(&runs, self.extra_runs))?;
        m.end()
    }
}

/// The config runs, then the extra ones, as one array.
struct Runs<'a>(&'a [Run<'a>], &'a [serde_json::Value]);

impl Serialize for Runs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len() + self.1.len()))?;
        for run in self.0 {
            seq.serialize_element(run)?;
        }
        for run in self.1 {
            seq.serialize_element(run)?;
        }
        seq.end()
    }
}

struct Run<'a> {
    tool: Tool,
    info: &'a AnalyzerInfo,
    reports: &'a [FileReport],
}

impl Run<'_> {
    fn findings(&self) -> impl Iterator<Item = &Finding> + '_ {
        self.reports
            .iter()
            .flat_map(|r| &r.findings)
            .filter(move |f| f.tool == self.tool)
    }

    fn notifications(&self) -> impl Iterator<Item = &ScanError> + '_ {
        self.reports
            .iter()
            .flat_map(|r| &r.errors)
            .filter(move |e| e.tool.is_none_or(|t| t == self.tool))
    }
}

/// Serialises the items of an iterator as a JSON array, lazily.
struct Each<F>(F);

impl<I, F> Serialize for Each<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for item in (self.0)() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

impl Serialize for Run<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Rule id → severity of its first finding.
        let mut rules: BTreeMap<&str, Severity> = BTreeMap::new();
        for f in self.findings() {
            rules.entry(f.rule_id.as_str()).or_insert(f.severity);
        }
        let tool = self.tool;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry(
            "tool",
            &Single(
                "driver",
                Driver {
                    name: tool.as_str(),
                    version: &self.info.version,
                    rules: Each(|| {
                        rules.iter().map(|(id, sev)| Rule {
                            tool,
                            id,
                            severity: *sev,
                        })
                    }),
                },
            ),
        )?;
        let ok = self.notifications().next().is_none();
        m.serialize_entry(
            "invocations",
            &[Invocation {
                ok,
                notifications: Each(|| self.notifications().map(Notification)),
            }],
        )?;
        m.serialize_entry("results", &Each(|| self.findings().map(Result_)))?;
        m.end()
    }
}

/// `{key: value}`.
struct Single<'a, T>(&'a str, T);

impl<T: Serialize> Serialize for Single<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.0, &self.1)?;
        m.end()
    }
}

struct Driver<'a, R> {
    name: &'a str,
    version: &'a str,
    rules: R,
}

impl<R: Serialize> Serialize for Driver<'_, R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("name", self.name)?;
        m.serialize_entry("version", self.version)?;
        m.serialize_entry("informationUri", "https://example.invalid/svbench")?;
        m.serialize_entry("rules", &self.rules)?;
        m.end()
    }
}

struct Rule<'a> {
    tool: Tool,
    id: &'a str,
    severity: Severity,
}

impl Serialize for Rule<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", self.id)?;
        m.serialize_entry(
            "defaultConfiguration",
            &Single("level", level(self.severity)),
        )?;
        m.serialize_entry("properties", &Single("severity", self.severity.as_str()))?;
        if let Some(help) = remediation(self.tool, self.id) {
            m.serialize_entry("help", &Single("text", help))?;
        }
        m.end()
    }
}

struct Invocation<N> {
    ok: bool,
    notifications: N,
}

impl<N: Serialize> Serialize for Invocation<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("executionSuccessful", &self.ok)?;
        m.serialize_entry("toolExecutionNotifications", &self.notifications)?;
        m.end()
    }
}

struct Notification<'a>(&'a ScanError);

impl Serialize for Notification<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("level", "error")?;
        m.serialize_entry("message", &Single("text", &self.0.message))?;
        m.serialize_entry(
            "locations",
            &[Single(
                "physicalLocation",
                Single("artifactLocation", Single("uri", &self.0.file)),
            )],
        )?;
        m.end()
    }
}

/// One finding as a SARIF result.
struct Result_<'a>(&'a Finding);

struct Region(Option<usize>);

impl Serialize for Region {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(line) = self.0 {
            m.serialize_entry("startLine", &line)?;
        }
        m.end()
    }
}

struct Location<'a>(&'a Finding);

impl Serialize for Location<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("artifactLocation", &Single("uri", &self.0.file))?;
        m.serialize_entry("region", &Region(self.0.line))?;
        m.end()
    }
}

struct Properties<'a>(&'a Finding);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("severity", &f.severity)?;
        m.serialize_entry("object", &f.object)?;
        m.serialize_entry("container", &f.container)?;
        m.serialize_entry("doc_index", &f.doc_index)?;
        m.end()
    }
}

impl Serialize for Result_<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("ruleId", &f.rule_id)?;
        m.serialize_entry("level", level(f.severity))?;
        m.serialize_entry("message", &Single("text", &f.message))?;
        m.serialize_entry("locations", &[Single("physicalLocation", Location(f))])?;
        m.serialize_entry("properties", &Properties(f))?;
        m.end()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::collections::BTreeSet;
    use svbench_scan::scan::FileType;

    // The JSON-tree rendering this module used before it streamed, kept as
    // the reference the streamed bytes must equal.
    /// The SARIF log for a scan.
    pub fn render(
        reports: &[FileReport],
        analyzers: &BTreeMap<&'static str, AnalyzerInfo>,
    ) -> Value {
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

    #[test]
    fn streamed_log_equals_the_json_tree() {
        let mut scanner =
            svbench_scan::scan::Scanner::new(&svbench_scan::scan::ScanOptions::default())
                .expect("scanner");
        let k8s = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:latest\n    securityContext:\n      privileged: true\n";
        let tf =
            b"resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"x\"\n  acl = \"public-read\"\n}\n";
        let mut reports = vec![
            scanner.scan("pod.yaml", k8s, FileType::K8s),
            scanner.scan("main.tf", tf, FileType::Tf),
            FileReport::unreadable("gone.yaml", FileType::K8s, "cannot read".into()),
        ];
        reports.push(scanner.scan("empty.yaml", b"", FileType::K8s));
        assert!(reports.iter().map(|r| r.findings.len()).sum::<usize>() > 2);
        let analyzers = scanner.analyzers();
        let mut streamed = Vec::new();
        write(&mut streamed, &reports, &analyzers, &[]).expect("write");
        let tree = serde_json::to_vec_pretty(&render(&reports, &analyzers)).expect("json");
        assert_eq!(String::from_utf8(streamed), String::from_utf8(tree));
    }
}
