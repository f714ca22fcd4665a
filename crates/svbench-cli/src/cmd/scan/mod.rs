//! `svbench scan PATH...`: the in-process config analyzers from the command
//! line (harness §1.2, spec E2 §1.1–1.2).
//!
//! Exit codes follow kube-linter rather than the other commands: 0 no
//! findings, 1 findings, 2 usage error, 3 some file could not be scanned;
//! the highest applicable code wins.

mod inputs;
mod sarif;
mod text;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use svbench_scan::scan::{AnalyzerInfo, FileReport, FileType, ScanOptions, Scanner, ToolSelection};

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
    /// File type: auto (per file: `.tf` → tf, YAML with `apiVersion:` → k8s), k8s or tf.
    #[arg(long = "type", value_name = "TYPE", default_value = "auto",
          value_parser = ["auto", "k8s", "tf", "py", "email"])]
    pub file_type: String,
    /// Read one file from standard input (needs --type k8s|tf).
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
    /// Apply a unified diff or JSON Patch before scanning (E2 §4).
    #[arg(long, value_name = "FILE")]
    pub patch: Option<PathBuf>,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = ["text", "json", "sarif"])]
    pub format: String,
    /// Print every check (namespace, id, severity, default on/off) and exit.
    #[arg(long)]
    pub list_checks: bool,
}

/// The JSON output of a scan (harness §1.2).
#[derive(Debug, Serialize)]
struct ScanOutput<'a> {
    files: Vec<FileOutput<'a>>,
    skipped: Vec<Skipped>,
    analyzers: BTreeMap<&'static str, AnalyzerInfo>,
}

#[derive(Debug, Serialize)]
struct FileOutput<'a> {
    #[serde(flatten)]
    report: &'a FileReport,
    post_patch: Option<()>,
}

/// Runs the command; returns the exit code.
pub fn run(args: ScanArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    if args.patch.is_some() {
        return Err(exit::usage(
            "--patch is not implemented yet: patch application arrives with the E2 environment",
        ));
    }
    if args.backend != "native" {
        return Err(exit::usage(format!(
            "--backend {} is not wired into `svbench scan` yet; only the native analyzers run",
            args.backend
        )));
    }
    let forced = match args.file_type.as_str() {
        "auto" => None,
        "k8s" => Some(FileType::K8s),
        "tf" => Some(FileType::Tf),
        other => {
            return Err(exit::usage(format!(
                "--type {other}: the {other} analyzers are not implemented yet (only k8s and tf)"
            )))
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
        ..ScanOptions::default()
    };
    let mut scanner = Scanner::new(&options).map_err(|e| exit::usage(e.to_string()))?;
    if args.list_checks {
        print!("{}", text::render_checks(&scanner));
        return Ok(exit::OK);
    }

    let (inputs, skipped) = if args.stdin {
        let Some(file_type) = forced else {
            return Err(exit::usage("--stdin needs --type k8s or --type tf"));
        };
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(read_cap())
            .read_to_end(&mut bytes)?;
        (
            vec![Input::Bytes {
                name: "<stdin>".to_owned(),
                bytes,
                file_type,
            }],
            Vec::new(),
        )
    } else {
        collect_inputs(&args.paths, forced)?
    };

    let reports: Vec<FileReport> = inputs
        .into_iter()
        .map(|input| scan_input(&mut scanner, input))
        .collect();
    let analyzers = scanner.analyzers();
    let code = exit_code(&reports);

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format.as_str() {
        "json" => {
            let output = ScanOutput {
                files: reports
                    .iter()
                    .map(|report| FileOutput {
                        report,
                        post_patch: None,
                    })
                    .collect(),
                skipped,
                analyzers,
            };
            serde_json::to_writer_pretty(&mut out, &output)?;
            writeln!(out)?;
        }
        "sarif" => {
            serde_json::to_writer_pretty(&mut out, &sarif::render(&reports, &analyzers))?;
            writeln!(out)?;
        }
        _ => out.write_all(text::render(&reports, &skipped).as_bytes())?,
    }
    Ok(code)
}

/// Reads (bounded) and scans one input.
fn scan_input(scanner: &mut Scanner, input: Input) -> FileReport {
    match input {
        Input::Bytes {
            name,
            bytes,
            file_type,
        } => scanner.scan(&name, &bytes, file_type),
        Input::File { path, file_type } => {
            let name = path.display().to_string();
            match read_capped(&path, read_cap()) {
                Ok(bytes) => scanner.scan(&name, &bytes, file_type),
                Err(e) => FileReport::unreadable(&name, file_type, e.to_string()),
            }
        }
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
