//! E2 tools (spec E2 §2.2): `run_kubelinter`, `run_semgrep`, `run_opa` over a
//! per-episode virtual workspace holding one file.
//!
//! Path resolution is purely lexical: the accepted forms are compared as
//! strings and nothing ever reaches the host file system, so no path a model
//! writes (`/etc/passwd`, `../x`, a URL, a glob) can read anything. Scans
//! run in-process through one shared [`Analyzers`] whose results are cached
//! per (file type, content) — or, with `backend=external` (spec E2 §1.8),
//! through the real binaries, whose successful runs are cached per (tool,
//! file type, content); the tool budget is enforced by the runner
//! (`svbench-runner` `rollout.rs`), which answers calls beyond it with
//! `{"error":{"code":"budget_exhausted","budget":N}}` without calling the
//! episode.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use svbench_scan::external::{crosscheck, ExternalBackends, ExternalError};
use svbench_scan::scan::{FileReport, FileType, Scanner};
use svbench_scan::{
    Analysis, Deadline, Finding, Limits, NodeBudget, ScanError, TimeBudgetExceeded,
};

use super::{Lang, Tool};
use crate::environment::{Episode, ToolResult};

/// The tool function names offered to models, with their namespaces.
pub const TOOL_FUNCTIONS: [(&str, Tool); 3] = [
    ("run_kubelinter", Tool::KubeLinter),
    ("run_semgrep", Tool::Semgrep),
    ("run_opa", Tool::Opa),
];

/// Cached scan reports kept before the cache is emptied (bounds memory on
/// very large runs; a miss only costs a re-scan).
const CACHE_CAPACITY: usize = 4096;

/// The tool function name of a namespace.
#[must_use]
pub fn function_name(tool: Tool) -> &'static str {
    match tool {
        Tool::KubeLinter => "run_kubelinter",
        Tool::Semgrep => "run_semgrep",
        Tool::Opa => "run_opa",
    }
}

/// The namespace of a tool function name.
#[must_use]
pub fn tool_of_function(name: &str) -> Option<Tool> {
    TOOL_FUNCTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}

/// OpenAI `tools` entries (JSON Schema parameters) of the three tools.
#[must_use]
pub fn tool_specs() -> Vec<Value> {
    TOOL_FUNCTIONS
        .iter()
        .map(|(name, tool)| {
            json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": format!(
                        "Run the {} analyzer on files of the workspace and return its findings \
                         as JSON. Only the workspace file named in the task can be analysed.",
                        tool.as_str()
                    ),
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "paths": {
                                "type": "array",
                                "items": {"type": "string"},
                                "description": "Workspace paths: the file name, ./<name>, \
                                                /workspace/<name>; `.`, `/workspace` or [] for all files."
                            }
                        },
                        "required": ["paths"],
                        "additionalProperties": false
                    }
                }
            })
        })
        .collect()
}

/// A path of a tool call that names no file of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}")]
pub struct PathOutsideWorkspace {
    /// The offending path, verbatim.
    pub path: String,
}

/// Resolves the `paths` of a call against the workspace (one file named
/// `workspace`), purely lexically. Accepted: `workspace`, `./workspace`,
/// `/workspace/workspace`; `.`, `/workspace` and an empty list mean all
/// files. Returns the first path that is not in the workspace.
///
/// # Errors
/// The offending path.
pub fn resolve_paths(workspace: &str, paths: &[String]) -> Result<(), PathOutsideWorkspace> {
    for path in paths {
        let p = path.as_str();
        let ok = p == "."
            || p == "/workspace"
            || p == workspace
            || p.strip_prefix("./") == Some(workspace)
            || p.strip_prefix("/workspace/") == Some(workspace);
        if !ok {
            return Err(PathOutsideWorkspace { path: path.clone() });
        }
    }
    Ok(())
}

/// Why a tool call's arguments do not match the schema
/// `{"paths": [string]}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentsError {
    /// Not JSON (the parser's message).
    #[error("arguments are not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("arguments must be a JSON object {{\"paths\": [string]}}")]
    NotAnObject,
    /// A key other than `paths`.
    #[error("unknown argument `{0}` (only `paths` is accepted)")]
    Unknown(String),
    /// No `paths`.
    #[error("missing required argument `paths`")]
    MissingPaths,
    /// `paths` is not an array of strings.
    #[error("`paths` must be an array of strings")]
    PathsNotStrings,
}

/// Reads a call's arguments: a JSON object with exactly the key `paths`, an
/// array of strings.
///
/// # Errors
/// What does not match the schema.
pub fn parse_arguments(arguments: &str) -> Result<Vec<String>, ArgumentsError> {
    let value: Value =
        serde_json::from_str(arguments).map_err(|e| ArgumentsError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(ArgumentsError::NotAnObject);
    };
    if let Some(extra) = map.keys().find(|k| k.as_str() != "paths") {
        return Err(ArgumentsError::Unknown(extra.clone()));
    }
    let Some(paths) = map.get("paths") else {
        return Err(ArgumentsError::MissingPaths);
    };
    let Value::Array(items) = paths else {
        return Err(ArgumentsError::PathsNotStrings);
    };
    items
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or(ArgumentsError::PathsNotStrings)
        })
        .collect()
}

/// Scan reports by (file type, SHA-256 of the content).
type ReportCache = HashMap<(FileType, [u8; 32]), Arc<FileReport>>;

/// Successful external runs by (namespace, file type, SHA-256 of the content).
type ExternalCache = HashMap<(Tool, FileType, [u8; 32]), Arc<Analysis>>;

/// Which analyzers the tools and the live oracle use (`backend` argument,
/// spec E2 §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The in-process analyzers only.
    #[default]
    Native,
    /// The real binaries (§1.8) for the tools and the live oracle.
    External,
    /// Native tools and live oracle; each tool result also carries the
    /// differences from the real binary (`crosscheck`).
    Crosscheck,
}

impl Backend {
    /// `native`, `external` or `crosscheck`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Native => "native",
            Backend::External => "external",
            Backend::Crosscheck => "crosscheck",
        }
    }
}

/// Why the live oracle could not label a config. Such an item is a recorded
/// per-sample error, never "clean": an empty finding list from a scan that
/// did not run is not evidence of anything.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OracleError {
    /// An external run failed as a whole.
    #[error(transparent)]
    External(#[from] ExternalError),
    /// Part of the config could not be analysed by a labelled namespace (a
    /// document that does not parse or exceeds the YAML limits, an HCL
    /// syntax error, a policy evaluation that failed or timed out).
    #[error("the config could not be fully scanned: {}", describe(.errors))]
    Unscannable {
        /// The scan's errors for the labelled namespaces.
        errors: Vec<ScanError>,
    },
    /// The scan ran past the time budget.
    #[error("scanning the config: {0}")]
    TimeBudget(#[from] TimeBudgetExceeded),
}

/// `doc N: tool: message; …` (the first few errors).
fn describe(errors: &[ScanError]) -> String {
    const SHOWN: usize = 3;
    let mut parts: Vec<String> = errors
        .iter()
        .take(SHOWN)
        .map(|e| {
            let doc = e
                .doc_index
                .map(|i| format!("doc {i}: "))
                .unwrap_or_default();
            let tool = e
                .tool
                .map(|t| format!("{}: ", t.as_str()))
                .unwrap_or_default();
            format!("{doc}{tool}{}", e.message)
        })
        .collect();
    if errors.len() > SHOWN {
        parts.push(format!("and {} more", errors.len() - SHOWN));
    }
    parts.join("; ")
}

/// Native scanners ready for use. Scans of one environment run in parallel
/// (serve scores on several threads): each takes an idle scanner, or a clone
/// of the configured one (a clone shares the compiled policies), and puts
/// it back after.
#[derive(Debug)]
struct ScannerPool {
    template: Scanner,
    idle: Mutex<Vec<Scanner>>,
}

impl ScannerPool {
    fn with<T>(&self, f: impl FnOnce(&mut Scanner) -> T) -> T {
        let taken = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut scanner = taken.unwrap_or_else(|| self.template.clone());
        let out = f(&mut scanner);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(scanner);
        out
    }
}

/// The analyzers of an environment, shared by its episodes and its scoring,
/// with a result cache per (file type, content): the native scanner always
/// (scoring re-scans are native, spec E2 §5.2), and the probed external
/// binaries when `backend` is `external` or `crosscheck`.
#[derive(Debug)]
pub struct Analyzers {
    scanners: ScannerPool,
    versions: HashMap<Tool, String>,
    cache: Mutex<ReportCache>,
    backend: Backend,
    external: Option<ExternalBackends>,
    external_cache: Mutex<ExternalCache>,
}

impl Analyzers {
    /// Wraps a configured scanner (all namespaces selected); native backend.
    #[must_use]
    pub fn new(scanner: Scanner) -> Self {
        let versions = scanner
            .analyzers()
            .into_iter()
            .filter_map(|(name, info)| Some((Tool::parse(name)?, info.version)))
            .collect();
        Self {
            scanners: ScannerPool {
                template: scanner,
                idle: Mutex::new(Vec::new()),
            },
            versions,
            cache: Mutex::new(HashMap::new()),
            backend: Backend::Native,
            external: None,
            external_cache: Mutex::new(HashMap::new()),
        }
    }

    /// The native scanner plus probed external binaries, used as `backend`
    /// says (`external` or `crosscheck`; [`Backend::Native`] ignores them).
    #[must_use]
    pub fn with_external(scanner: Scanner, backend: Backend, external: ExternalBackends) -> Self {
        let mut analyzers = Self::new(scanner);
        if backend != Backend::Native {
            analyzers.backend = backend;
            analyzers.external = Some(external);
        }
        analyzers
    }

    /// The backend in force.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether the tools and the live oracle run `tool` through its binary.
    fn runs_external(&self, tool: Tool) -> bool {
        self.backend == Backend::External && self.external_version(tool).is_some()
    }

    /// The probed version of `tool`'s binary (`external`/`crosscheck`).
    #[must_use]
    pub fn external_version(&self, tool: Tool) -> Option<&str> {
        self.external.as_ref()?.version(tool)
    }

    /// `{backend, version}` of each namespace as the tools run it, recorded
    /// as `env_provenance.analyzer_versions` and `tool_versions`; with
    /// `crosscheck`, the binary compared against is under `crosscheck`.
    #[must_use]
    pub fn versions_record(&self) -> BTreeMap<String, Value> {
        Tool::ALL
            .into_iter()
            .map(|tool| {
                let mut entry = match self.external_version(tool) {
                    Some(v) if self.runs_external(tool) => {
                        json!({"backend": "external", "version": v})
                    }
                    _ => json!({"backend": "native", "version": self.version(tool)}),
                };
                if let (Backend::Crosscheck, Some(v), Value::Object(m)) =
                    (self.backend, self.external_version(tool), &mut entry)
                {
                    m.insert(
                        "crosscheck".into(),
                        json!({"backend": "external", "version": v}),
                    );
                }
                (tool.as_str().to_string(), entry)
            })
            .collect()
    }

    /// The native analyzer version of a namespace (as scan output records it).
    #[must_use]
    pub fn version(&self, tool: Tool) -> &str {
        self.versions.get(&tool).map_or("", String::as_str)
    }

    /// The full scan of `text` as workspace file `lang.workspace_name()`
    /// (every namespace that applies), cached. A scan that ran past the
    /// scanner's time budget is a report with that error and no findings.
    pub fn report(&self, lang: Lang, text: &str) -> Arc<FileReport> {
        match self.report_within(lang, text, &Deadline::NONE) {
            Ok(report) => report,
            Err(e) => Arc::new(FileReport::unreadable(
                lang.workspace_name(),
                file_type(lang),
                format!("scan stopped, no findings reported: {e}"),
            )),
        }
    }

    /// [`Analyzers::report`] that stops by `deadline` (or the scanner's own
    /// per-file budget, whichever comes first). Only finished scans are
    /// cached.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when the budget ran out first.
    pub fn report_within(
        &self,
        lang: Lang,
        text: &str,
        deadline: &Deadline,
    ) -> Result<Arc<FileReport>, TimeBudgetExceeded> {
        let nodes = NodeBudget::for_input(&Limits::default(), text.len());
        self.report_budgeted(lang, text, deadline, &nodes)
    }

    /// [`Analyzers::report_within`] whose YAML parse draws from `nodes`, the
    /// node budget of a whole request (a cached report costs none). A scan
    /// stopped by a budget that ran out is not cached: with a fresh budget
    /// the same text may fit.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when the budget ran out first.
    pub fn report_budgeted(
        &self,
        lang: Lang,
        text: &str,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<Arc<FileReport>, TimeBudgetExceeded> {
        let file_type = file_type(lang);
        let key = (file_type, Sha256::digest(text.as_bytes()).into());
        if let Some(hit) = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(Arc::clone(hit));
        }
        let report = Arc::new(self.scanners.with(|scanner| {
            scanner.scan_within_budget(
                lang.workspace_name(),
                text.as_bytes(),
                file_type,
                deadline,
                nodes,
            )
        })?);
        if nodes.exceeded() {
            return Ok(report);
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&report));
        Ok(report)
    }

    /// One external run of `tool` on `text` as workspace file
    /// `lang.workspace_name()`; successful runs are cached, failures are
    /// not (a timeout may not recur). `None` when `tool`'s binary was not
    /// probed.
    fn external_run(
        &self,
        tool: Tool,
        lang: Lang,
        text: &str,
    ) -> Option<Result<Arc<Analysis>, ExternalError>> {
        let external = self.external.as_ref()?;
        let file_type = file_type(lang);
        let key = (tool, file_type, Sha256::digest(text.as_bytes()).into());
        if let Some(hit) = self
            .external_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Some(Ok(Arc::clone(hit)));
        }
        let run = external.run(tool, lang.workspace_name(), text.as_bytes(), file_type)?;
        if let Some(failure) = run.failure {
            return Some(Err(failure));
        }
        let analysis = Arc::new(run.analysis);
        let mut cache = self
            .external_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&analysis));
        Some(Ok(analysis))
    }

    /// The findings of `namespaces` in `text` that the live oracle labels
    /// with (spec E2 §2.4): the binaries' with `backend=external`, else the
    /// native scanner's. kube-linter does not run on Terraform.
    ///
    /// # Errors
    /// The config cannot be labelled (never "clean", [`OracleError`]): an
    /// external run that failed, a scan error of a labelled namespace (or of
    /// the whole file), or the scanner's time budget ran out.
    pub fn oracle_findings(
        &self,
        lang: Lang,
        text: &str,
        namespaces: &BTreeSet<Tool>,
    ) -> Result<Vec<Finding>, OracleError> {
        let nodes = NodeBudget::for_input(&Limits::default(), text.len());
        self.oracle_findings_within(lang, text, namespaces, &Deadline::NONE, &nodes)
    }

    /// [`Analyzers::oracle_findings`] that stops by `deadline` and whose
    /// native scan draws from `nodes` ([`Analyzers::report_budgeted`]).
    ///
    /// # Errors
    /// As [`Analyzers::oracle_findings`]; [`OracleError::TimeBudget`] when
    /// `deadline` passes first.
    pub fn oracle_findings_within(
        &self,
        lang: Lang,
        text: &str,
        namespaces: &BTreeSet<Tool>,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<Vec<Finding>, OracleError> {
        let mut findings = Vec::new();
        let mut errors = Vec::new();
        let mut native: Option<Arc<FileReport>> = None;
        let mut native_tools = BTreeSet::new();
        for &tool in namespaces {
            if tool == Tool::KubeLinter && lang == Lang::Tf {
                continue;
            }
            if self.runs_external(tool) {
                deadline.check()?;
                if let Some(run) = self.external_run(tool, lang, text) {
                    let run = run?;
                    findings.extend(run.findings.iter().filter(|f| f.tool == tool).cloned());
                    errors.extend(
                        run.errors
                            .iter()
                            .filter(|e| e.tool.is_none_or(|t| t == tool))
                            .cloned(),
                    );
                }
            } else {
                let report = match &native {
                    Some(report) => Arc::clone(report),
                    None => Arc::clone(
                        native.insert(self.report_budgeted(lang, text, deadline, nodes)?),
                    ),
                };
                findings.extend(report.findings.iter().filter(|f| f.tool == tool).cloned());
                native_tools.insert(tool);
            }
        }
        if let Some(report) = &native {
            // File-level errors (no tool) once, and those of the namespaces
            // labelled natively.
            errors.extend(
                report
                    .errors
                    .iter()
                    .filter(|e| e.tool.is_none_or(|t| native_tools.contains(&t)))
                    .cloned(),
            );
        }
        if !errors.is_empty() {
            return Err(OracleError::Unscannable { errors });
        }
        findings.sort_by(Finding::output_order);
        Ok(findings)
    }

    /// Distinct full ids `tool/rule` of the native findings of `namespaces`
    /// in `text`. Always native, whatever the backend: the v1 patch re-scans
    /// are "B = native scan of the original, Q = native scan of the patched
    /// text" (spec E2 §5.2).
    pub fn ids(&self, lang: Lang, text: &str, namespaces: &BTreeSet<Tool>) -> BTreeSet<String> {
        full_ids(&self.report(lang, text), namespaces)
    }

    /// [`Analyzers::ids`] that stops by `deadline` and whose scan draws from
    /// `nodes` ([`Analyzers::report_budgeted`]).
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when `deadline` (or the scanner's own budget)
    /// passes first.
    pub fn ids_within(
        &self,
        lang: Lang,
        text: &str,
        namespaces: &BTreeSet<Tool>,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<BTreeSet<String>, TimeBudgetExceeded> {
        let report = self.report_budgeted(lang, text, deadline, nodes)?;
        Ok(full_ids(&report, namespaces))
    }

    /// How many Kubernetes objects kube-linter loads from `text`; 0 is its
    /// "no valid objects" case (not cached: decoding is cheap next to a scan).
    pub fn k8s_objects(&self, text: &str) -> usize {
        self.scanners
            .with(|scanner| scanner.k8s_objects(text.as_bytes()))
    }

    /// [`Analyzers::k8s_objects`] whose parse draws from `nodes` (0 when it
    /// runs out).
    pub fn k8s_objects_within(&self, text: &str, nodes: &NodeBudget) -> usize {
        self.scanners
            .with(|scanner| scanner.k8s_objects_within(text.as_bytes(), nodes))
    }

    /// The §2.2 result of one tool call on `text`: findings and errors of
    /// that namespace, at most `max_findings` findings (`truncated` beyond),
    /// from the backend in force. An external run that failed as a whole is
    /// a result with the failure in `errors` and `ok: false`, never clean.
    /// With `crosscheck`, the native result carries a `crosscheck` object.
    pub fn tool_call(&self, tool: Tool, lang: Lang, text: &str, max_findings: usize) -> ToolResult {
        let external = self.runs_external(tool);
        let version = match self.external_version(tool) {
            Some(v) if external => v,
            _ => self.version(tool),
        };
        let mut result = Map::new();
        result.insert("tool".into(), json!(tool.as_str()));
        result.insert(
            "backend".into(),
            json!(if external { "external" } else { "native" }),
        );
        result.insert("version".into(), json!(version));
        if tool == Tool::KubeLinter && lang == Lang::Tf {
            result.insert("findings".into(), json!([]));
            result.insert(
                "errors".into(),
                json!([{"file": lang.workspace_name(), "doc_index": null, "tool": tool.as_str(),
                        "message": "not a Kubernetes manifest"}]),
            );
            result.insert("truncated".into(), json!(false));
            return ok_result(result);
        }
        let (findings, errors, failure): (Vec<Finding>, Vec<_>, Option<String>) = if external {
            match self.external_run(tool, lang, text) {
                Some(Ok(run)) => (
                    run.findings
                        .iter()
                        .filter(|f| f.tool == tool)
                        .cloned()
                        .collect(),
                    run.errors.clone(),
                    None,
                ),
                Some(Err(e)) => (
                    Vec::new(),
                    vec![e.to_scan_error(lang.workspace_name(), tool)],
                    Some(e.to_string()),
                ),
                None => (Vec::new(), Vec::new(), None),
            }
        } else {
            match self.report_within(lang, text, &Deadline::NONE) {
                Ok(report) => (
                    report
                        .findings
                        .iter()
                        .filter(|f| f.tool == tool)
                        .cloned()
                        .collect(),
                    report
                        .errors
                        .iter()
                        .filter(|e| e.tool.is_none_or(|t| t == tool))
                        .cloned()
                        .collect(),
                    None,
                ),
                // Like a failed external run: an error result, never clean.
                Err(e) => (
                    Vec::new(),
                    vec![ScanError {
                        file: lang.workspace_name().to_owned(),
                        doc_index: None,
                        tool: Some(tool),
                        message: format!("scan stopped, no findings reported: {e}"),
                    }],
                    Some(format!("time_budget_exceeded: {e}")),
                ),
            }
        };
        let truncated = findings.len() > max_findings;
        result.insert(
            "findings".into(),
            serde_json::to_value(&findings[..findings.len().min(max_findings)])
                .unwrap_or(Value::Null),
        );
        result.insert(
            "errors".into(),
            serde_json::to_value(&errors).unwrap_or(Value::Null),
        );
        result.insert("truncated".into(), json!(truncated));
        if self.backend == Backend::Crosscheck {
            if let Some(check) = self.crosscheck(tool, lang, text, &findings, max_findings) {
                result.insert("crosscheck".into(), check);
            }
        }
        match failure {
            None => ok_result(result),
            Some(message) => ToolResult {
                content: Value::Object(result).to_string(),
                ok: false,
                error: Some(if external {
                    format!("external_failed: {message}")
                } else {
                    message
                }),
            },
        }
    }

    /// The `crosscheck` object of a native result: the binary's version and
    /// the full ids of the findings only one side has (one entry per
    /// unmatched finding, matched as `svbench scan --backend crosscheck`
    /// does), or the binary's failure.
    fn crosscheck(
        &self,
        tool: Tool,
        lang: Lang,
        text: &str,
        native: &[Finding],
        max_findings: usize,
    ) -> Option<Value> {
        let version = self.external_version(tool)?;
        let run = self.external_run(tool, lang, text)?;
        Some(match run {
            Ok(run) => {
                let check = crosscheck(lang.workspace_name(), &[tool], native, &run.findings);
                let ids = |fs: &[Finding]| {
                    fs.iter()
                        .take(max_findings)
                        .map(Finding::full_id)
                        .collect::<Vec<_>>()
                };
                json!({
                    "backend": "external",
                    "version": version,
                    "agrees": check.agrees(),
                    "only_native": ids(&check.only_native),
                    "only_external": ids(&check.only_external),
                    "errors": run.errors,
                })
            }
            Err(e) => json!({"backend": "external", "version": version, "error": e.to_string()}),
        })
    }
}

/// Distinct full ids `tool/rule` of a report's findings of `namespaces`.
fn full_ids(report: &FileReport, namespaces: &BTreeSet<Tool>) -> BTreeSet<String> {
    report
        .findings
        .iter()
        .filter(|f| namespaces.contains(&f.tool))
        .map(Finding::full_id)
        .collect()
}

/// A successful call's result.
fn ok_result(result: Map<String, Value>) -> ToolResult {
    ToolResult {
        content: Value::Object(result).to_string(),
        ok: true,
        error: None,
    }
}

/// The scan library's file type of a language.
#[must_use]
pub fn file_type(lang: Lang) -> FileType {
    match lang {
        Lang::K8s => FileType::K8s,
        Lang::Tf => FileType::Tf,
    }
}

/// One episode: the item's workspace (one read-only file) and the tools.
#[derive(Debug)]
pub struct E2Episode {
    analyzers: Arc<Analyzers>,
    lang: Lang,
    content: Arc<str>,
    include_tools: bool,
    max_findings: usize,
}

impl E2Episode {
    /// An episode over `content` as the workspace file of `lang`.
    #[must_use]
    pub fn new(
        analyzers: Arc<Analyzers>,
        lang: Lang,
        content: Arc<str>,
        include_tools: bool,
        max_findings: usize,
    ) -> Self {
        Self {
            analyzers,
            lang,
            content,
            include_tools,
            max_findings,
        }
    }
}

/// An error result with extra fields beside `code` and `message`.
fn error_with(code: &str, message: String, extra: &[(&str, Value)]) -> ToolResult {
    let mut error = Map::new();
    error.insert("code".into(), json!(code));
    for (k, v) in extra {
        error.insert((*k).into(), v.clone());
    }
    error.insert("message".into(), json!(message));
    ToolResult {
        content: json!({ "error": error }).to_string(),
        ok: false,
        error: Some(format!("{code}: {message}")),
    }
}

impl Episode for E2Episode {
    fn call_tool(&mut self, name: &str, arguments: &str) -> ToolResult {
        let tool = match tool_of_function(name).filter(|_| self.include_tools) {
            Some(tool) => tool,
            None => {
                let offered = if self.include_tools {
                    "run_kubelinter, run_semgrep, run_opa"
                } else {
                    "none (include_tools=false)"
                };
                return error_with(
                    "unknown_tool",
                    format!("no tool `{name}` (tools offered: {offered})"),
                    &[],
                );
            }
        };
        let paths = match parse_arguments(arguments) {
            Ok(paths) => paths,
            Err(e) => return error_with("invalid_arguments", e.to_string(), &[]),
        };
        let workspace = self.lang.workspace_name();
        if let Err(PathOutsideWorkspace { path }) = resolve_paths(workspace, &paths) {
            return error_with(
                "path_not_in_workspace",
                format!("only the workspace file `{workspace}` can be analysed"),
                &[("path", json!(path))],
            );
        }
        self.analyzers
            .tool_call(tool, self.lang, &self.content, self.max_findings)
    }
}
