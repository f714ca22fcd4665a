//! `svbench scan PATH...`: the in-process config analyzers from the command
//! line (harness §1.2, spec E2 §1.1–1.2), and the e-mail indicator
//! extractor for `.eml`/`.mbox` files and messages saved without an
//! extension (spec E4 §3.2, module `email`).
//!
//! Exit codes follow kube-linter rather than the other commands: 0 no
//! findings, 1 findings, 2 usage error, 3 some file could not be scanned;
//! the highest applicable code wins.

mod email;
mod external;
mod inputs;
mod sarif;
mod text;

use crate::out::out;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde::Serialize;
use svbench_scan::dedupe::IssueRow;
use svbench_scan::external::{crosscheck, CrossCheck};
use svbench_scan::patch::{apply_patch, PatchOutcome, PatchStatus};
use svbench_scan::scan::{
    AnalyzerInfo, FileReport, FileType, ScanOptions, Scanner, ToolSelection, DEFAULT_TIME_BUDGET,
};
use svbench_scan::Tool;

use super::GlobalArgs;
use crate::exit;
use inputs::{collect_inputs, read_capped, Input, Skipped};

/// Exit code: findings were reported.
const FINDINGS: u8 = 1;
/// Exit code: some file could not be scanned.
const UNSCANNABLE: u8 = 3;

/// Arguments of `svbench scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Files or directories (walked recursively in byte order of paths).
    #[arg(value_name = "PATH", required_unless_present_any = ["stdin", "list_checks"])]
    pub paths: Vec<PathBuf>,
    /// File type: auto (per file: `.tf` → tf, YAML with `apiVersion:` → k8s,
    /// `.eml`/`.mbox` or a message header block → email), k8s, tf or email
    /// (phishing indicators, one entry per message; an mbox's messages are
    /// `PATH#N`).
    #[arg(long = "type", value_name = "TYPE", default_value = "auto", value_parser = file_types())]
    pub file_type: String,
    /// Read one file from standard input (needs --type k8s|tf|email).
    #[arg(long, conflicts_with = "paths")]
    pub stdin: bool,
    /// Namespaces to run: comma list of kube-linter, semgrep, opa, or `primary`
    /// (kube-linter for k8s, semgrep for tf) [default: all three].
    #[arg(long, value_name = "LIST")]
    pub tools: Option<String>,
    /// Turn on a check that is off by default (name, rule id or namespace/rule; repeatable, comma lists allowed).
    #[arg(long, value_name = "CHECK")]
    pub include: Vec<String>,
    /// Turn off a check (wins over --include; repeatable, comma lists allowed).
    #[arg(long, value_name = "CHECK")]
    pub exclude: Vec<String>,
    /// Directory of user Rego policies (`*.rego`, recursive; repeatable).
    #[arg(long, value_name = "DIR")]
    pub policy_dir: Vec<PathBuf>,
    /// native (in-process, default), external (real binaries) or crosscheck (both, with differences).
    #[arg(long, default_value = "native", value_parser = ["native", "external", "crosscheck"])]
    pub backend: String,
    /// Local semgrep rule file for --backend external|crosscheck (registry rule sets need the network).
    #[arg(long, value_name = "FILE")]
    pub semgrep_config: Option<PathBuf>,
    /// Apply a unified diff or JSON Patch to the one file scanned, in
    /// memory, and report the findings after it (`post_patch`); the exit code
    /// then follows the patched file (3 if the patch did not apply).
    #[arg(long, value_name = "FILE")]
    pub patch: Option<PathBuf>,
    /// Total time budget of each file's scan, in seconds (0: none); a file
    /// that runs past it is an error with no findings (exit code 3).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIME_BUDGET.as_secs_f64())]
    pub time_budget: f64,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = ["text", "json", "sarif"])]
    pub format: String,
    /// One row per issue of an object or container, listing the namespaces
    /// that report it (text and json; sarif stays per namespace).
    #[arg(long)]
    pub dedupe: bool,
    /// Print every check (namespace, id, severity, default on/off) and exit.
    #[arg(long)]
    pub list_checks: bool,
}

/// `--type` values: the analyzed types, plus the planned one (`py`) hidden
/// from `--help` so that naming it gets a clear "not in this build" instead
/// of clap's "invalid value".
fn file_types() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("auto"),
        PossibleValue::new("k8s"),
        PossibleValue::new("tf"),
        PossibleValue::new("py").hide(true),
        PossibleValue::new("email"),
    ])
}

/// The JSON output of a scan.
#[derive(Debug, Serialize)]
struct ScanOutput<'a> {
    files: Vec<FileEntry<'a>>,
    skipped: Vec<Skipped>,
    analyzers: BTreeMap<&'static str, AnalyzerInfo>,
    /// With `--backend crosscheck`: the external binaries compared against.
    #[serde(skip_serializing_if = "Option::is_none")]
    external_analyzers: Option<BTreeMap<&'static str, AnalyzerInfo>>,
}

/// A config file's entry or an e-mail message's (configs first).
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum FileEntry<'a> {
    Config(FileOutput<'a>),
    Email(&'a email::EmailReport),
}

#[derive(Debug, Serialize)]
struct FileOutput<'a> {
    #[serde(flatten)]
    report: FileFindings<'a>,
    post_patch: Option<&'a PostPatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    crosscheck: Option<&'a CrossCheck>,
}

/// A file's findings as they are printed: one per finding, or with
/// `--dedupe` one row per issue (`issues` in place of `findings`).
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum FileFindings<'a> {
    All(&'a FileReport),
    Deduped {
        path: &'a str,
        #[serde(rename = "type")]
        file_type: FileType,
        issues: Vec<IssueRow>,
        errors: &'a [svbench_scan::ScanError],
    },
}

impl<'a> FileFindings<'a> {
    fn of(report: &'a FileReport, dedupe: bool) -> Self {
        if dedupe {
            FileFindings::Deduped {
                path: &report.path,
                file_type: report.file_type,
                issues: svbench_scan::dedupe::dedupe(&report.findings),
                errors: &report.errors,
            }
        } else {
            FileFindings::All(report)
        }
    }
}

/// Runs the command; returns the exit code.
pub fn run(args: ScanArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    let patch_text = match &args.patch {
        Some(path) => {
            let meta = std::fs::metadata(path)
                .map_err(|e| exit::usage(format!("--patch {}: {e}", path.display())))?;
            inputs::refuse_non_regular(path, &meta, "--patch ")?;
            Some(
                std::fs::read_to_string(path)
                    .map_err(|e| exit::usage(format!("--patch {}: {e}", path.display())))?,
            )
        }
        None => None,
    };
    if patch_text.is_some() && args.backend != "native" {
        return Err(exit::usage("--patch works with the native backend only"));
    }
    let email_forced = args.file_type == "email";
    let forced = match args.file_type.as_str() {
        "auto" | "email" => None,
        "k8s" => Some(FileType::K8s),
        "tf" => Some(FileType::Tf),
        other => {
            return Err(exit::with_hint(
                exit::USAGE,
                format!("--type {other}: Python code analyzers are planned but not in this build"),
                "this build scans Kubernetes manifests (--type k8s), Terraform (--type tf) \
                 and e-mail (--type email)",
            ));
        }
    };
    let options = ScanOptions {
        tools: match &args.tools {
            Some(list) => ToolSelection::parse(list).map_err(|e| exit::usage(e.to_string()))?,
            None => ToolSelection::default(),
        },
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        policy_dirs: args.policy_dir.clone(),
        time_budget: match Duration::try_from_secs_f64(args.time_budget) {
            Ok(budget) if budget.is_zero() => None,
            Ok(budget) => Some(budget),
            Err(_) => {
                return Err(exit::usage(format!(
                    "--time-budget {}: expected a number of seconds ≥ 0",
                    args.time_budget
                )))
            }
        },
        ..ScanOptions::default()
    };
    let mut scanner = Scanner::new(&options).map_err(|e| exit::usage(e.to_string()))?;
    if args.list_checks {
        out!("{}", text::render_checks(&scanner))?;
        return Ok(exit::OK);
    }

    let (inputs, skipped) = if args.stdin {
        let cap = if email_forced {
            email::read_cap()
        } else {
            read_cap()
        };
        let mut bytes = Vec::new();
        let stdin_type = forced;
        if stdin_type.is_none() && !email_forced {
            return Err(exit::usage(
                "--stdin needs --type k8s, --type tf or --type email",
            ));
        }
        std::io::stdin().lock().take(cap).read_to_end(&mut bytes)?;
        let name = "<stdin>".to_owned();
        let input = match stdin_type {
            Some(file_type) => Input::Bytes {
                name,
                bytes,
                file_type,
            },
            None => Input::EmailBytes { name, bytes },
        };
        (vec![input], Vec::new())
    } else {
        collect_inputs(&args.paths, forced, email_forced)?
    };
    // E-mail inputs take their own path; the config code below never sees them.
    let (email_inputs, inputs): (Vec<Input>, Vec<Input>) = inputs
        .into_iter()
        .partition(|i| matches!(i, Input::Email { .. } | Input::EmailBytes { .. }));
    if patch_text.is_some() && !email_inputs.is_empty() {
        return Err(exit::usage(
            "--patch applies to Kubernetes and Terraform files, not e-mail",
        ));
    }
    let emails: Vec<email::EmailReport> = email_inputs
        .into_iter()
        .flat_map(|input| match input {
            Input::Email { path } => email::scan_path(&path, options.time_budget),
            Input::EmailBytes { name, bytes } => email::scan(&name, &bytes, options.time_budget),
            _ => Vec::new(),
        })
        .collect();

    if patch_text.is_some() && inputs.len() != 1 {
        return Err(exit::usage(format!(
            "--patch applies to one file; {} files were given",
            inputs.len()
        )));
    }
    let backend = Backend::parse(&args.backend);
    let mut post_patches: Vec<Option<PostPatch>> = Vec::new();
    let external = match backend {
        Backend::Native => None,
        Backend::External | Backend::Crosscheck => Some(external::probe(
            &scanner.selected_tools(),
            args.semgrep_config.as_deref(),
            scanner.opa(),
        )?),
    };
    let mut reports = Vec::with_capacity(inputs.len());
    let mut crosschecks = Vec::new();
    for input in inputs {
        let (name, bytes, file_type) = match read_input(input) {
            Ok(read) => read,
            Err(unreadable) => {
                reports.push(unreadable);
                continue;
            }
        };
        let tools = scanner.tools_for(file_type);
        match (&external, backend) {
            (Some(ext), Backend::External) => {
                let analysis = ext.scan(&name, &bytes, file_type, &tools);
                reports.push(FileReport {
                    path: name,
                    file_type,
                    findings: analysis.findings,
                    errors: analysis.errors,
                });
            }
            (Some(ext), Backend::Crosscheck) => {
                let native = scanner.scan(&name, &bytes, file_type);
                let theirs = ext.scan(&name, &bytes, file_type, &tools);
                // Only namespaces whose binary ran cleanly are compared: a
                // failed run would show every native finding as a difference.
                let compared: Vec<Tool> = tools
                    .iter()
                    .copied()
                    .filter(|t| !theirs.errors.iter().any(|e| e.tool == Some(*t)))
                    .collect();
                crosschecks.push(Some(crosscheck(
                    &name,
                    &compared,
                    &native.findings,
                    &theirs.findings,
                )));
                let mut report = native;
                report.errors.extend(theirs.errors);
                reports.push(report);
            }
            _ => {
                if let Some(patch) = &patch_text {
                    post_patches.push(Some(post_patch(
                        &mut scanner,
                        &name,
                        &bytes,
                        file_type,
                        patch,
                    )));
                }
                reports.push(scanner.scan(&name, &bytes, file_type));
            }
        }
        post_patches.resize(reports.len(), None);
        crosschecks.resize(reports.len(), None);
    }
    let (analyzers, external_analyzers) = match (&external, backend) {
        (Some(ext), Backend::External) => (ext.analyzers(), None),
        (Some(ext), _) => (scanner.analyzers(), Some(ext.analyzers())),
        (None, _) => (scanner.analyzers(), None),
    };
    let code = match post_patches.iter().flatten().next() {
        Some(post) => post.exit_code(),
        None => exit_code(&reports),
    }
    .max(email::exit_code(&emails));
    let mut analyzers = analyzers;
    if !emails.is_empty() {
        analyzers.insert(email::ANALYZER, email::analyzer_info());
        // Only the namespaces that ran on some file are listed for e-mail-only scans.
        if reports.is_empty() {
            analyzers.retain(|name, _| *name == email::ANALYZER);
        }
    }

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format.as_str() {
        "json" => {
            let output = ScanOutput {
                files: reports
                    .iter()
                    .zip(&crosschecks)
                    .zip(&post_patches)
                    .map(|((report, crosscheck), post)| {
                        FileEntry::Config(FileOutput {
                            report: FileFindings::of(report, args.dedupe),
                            post_patch: post.as_ref(),
                            crosscheck: crosscheck.as_ref(),
                        })
                    })
                    .chain(emails.iter().map(FileEntry::Email))
                    .collect(),
                skipped,
                analyzers,
                external_analyzers,
            };
            serde_json::to_writer_pretty(&mut out, &output)?;
            writeln!(out)?;
        }
        "sarif" => {
            let extra: Vec<serde_json::Value> = if emails.is_empty() {
                Vec::new()
            } else {
                vec![email::sarif_run(&emails)]
            };
            sarif::write(&mut out, &reports, &analyzers, &extra)?;
            writeln!(out)?;
        }
        _ => {
            if !reports.is_empty() || emails.is_empty() {
                let rendered = if args.dedupe {
                    text::render_deduped(&reports, &skipped)
                } else {
                    text::render(&reports, &skipped)
                };
                out.write_all(rendered.as_bytes())?;
            }
            if !emails.is_empty() {
                // The config output above lists the skipped files, if it ran.
                let skipped_here = if reports.is_empty() {
                    &skipped[..]
                } else {
                    &[]
                };
                out.write_all(email::render_text(&emails, skipped_here).as_bytes())?;
            }
            for post in post_patches.iter().flatten() {
                out.write_all(text::render_post_patch(post).as_bytes())?;
            }
            for check in crosschecks.iter().flatten() {
                out.write_all(text::render_crosscheck(check).as_bytes())?;
            }
        }
    }
    Ok(code)
}

/// What a `--patch` did to the file, and what the analyzers find after it.
#[derive(Debug, Clone, Serialize)]
pub struct PostPatch {
    /// Whether the patch applied and passed the preservation checks.
    patch_applied: bool,
    /// Status, kind and reason of the patch outcome.
    #[serde(flatten)]
    outcome: PatchOutcome,
    /// Findings on the patched text (empty unless applied).
    findings: Vec<svbench_scan::Finding>,
    /// Errors on the patched text.
    errors: Vec<svbench_scan::ScanError>,
}

impl PostPatch {
    /// 3 when the patch did not apply, else as a scan of the patched file.
    fn exit_code(&self) -> u8 {
        if !self.patch_applied || !self.errors.is_empty() {
            UNSCANNABLE
        } else if !self.findings.is_empty() {
            FINDINGS
        } else {
            exit::OK
        }
    }
}

/// Applies `patch` to one file in memory (strict unified diff or JSON Patch,
/// preservation-checked; the file's own name is the workspace name) and
/// scans the result.
fn post_patch(
    scanner: &mut Scanner,
    name: &str,
    bytes: &[u8],
    file_type: FileType,
    patch: &str,
) -> PostPatch {
    let workspace_name = std::path::Path::new(name)
        .file_name()
        .map_or_else(|| name.to_owned(), |n| n.to_string_lossy().into_owned());
    let mut outcome = match std::str::from_utf8(bytes) {
        Ok(original) => apply_patch(&workspace_name, original, patch, file_type),
        Err(e) => PatchOutcome {
            status: PatchStatus::ReparseFailed,
            kind: None,
            reason: Some(format!("the file is not UTF-8 text: {e}")),
            patched: None,
        },
    };
    let patched = outcome.patched.take();
    let applied = outcome.status == PatchStatus::Applied;
    let (findings, errors) = match (&patched, applied) {
        (Some(text), true) => {
            let report = scanner.scan(name, text.as_bytes(), file_type);
            (report.findings, report.errors)
        }
        _ => (Vec::new(), Vec::new()),
    };
    PostPatch {
        patch_applied: applied,
        outcome,
        findings,
        errors,
    }
}

/// Which analyzers produce the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    Native,
    External,
    Crosscheck,
}

impl Backend {
    /// Parses a value clap has already checked.
    fn parse(text: &str) -> Backend {
        match text {
            "external" => Backend::External,
            "crosscheck" => Backend::Crosscheck,
            _ => Backend::Native,
        }
    }
}

/// The name, bytes (bounded) and type of one input, or the report of a
/// file that could not be read.
fn read_input(input: Input) -> Result<(String, Vec<u8>, FileType), FileReport> {
    match input {
        Input::Bytes {
            name,
            bytes,
            file_type,
        } => Ok((name, bytes, file_type)),
        Input::File { path, file_type } => {
            let name = path.display().to_string();
            match read_capped(&path, read_cap()) {
                Ok(bytes) => Ok((name, bytes, file_type)),
                Err(e) => Err(FileReport::unreadable(&name, file_type, e.to_string())),
            }
        }
        // Split off before the config path runs; never reached.
        Input::Email { path } => Err(FileReport::unreadable(
            &path.display().to_string(),
            FileType::K8s,
            "an e-mail file in the config scan".to_string(),
        )),
        Input::EmailBytes { name, .. } => Err(FileReport::unreadable(
            &name,
            FileType::K8s,
            "an e-mail in the config scan".to_string(),
        )),
    }
}

/// Bytes read from one input: one more than the YAML limit, so an oversized
/// file is reported as such without reading all of it.
fn read_cap() -> u64 {
    u64::try_from(svbench_scan::Limits::default().max_input_bytes).unwrap_or(u64::MAX) + 1
}

/// 3 if any file could not be (fully) scanned, else 1 if anything was found, else 0.
fn exit_code(reports: &[FileReport]) -> u8 {
    if reports.iter().any(|r| !r.errors.is_empty()) {
        UNSCANNABLE
    } else if reports.iter().any(|r| !r.findings.is_empty()) {
        FINDINGS
    } else {
        exit::OK
    }
}
