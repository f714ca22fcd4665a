//! `svbench data`: dataset generation and import (harness §1.2).
//!
//! Data goes to stdout or files; progress and summaries go to stderr.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::Value;
use svbench_core::canonical::sha256_hex;
use svbench_envs::e1::generate::{question_hash, Template};
use svbench_envs::e1::zeek::{
    import, parse_device_map, parse_label_file, ImportInput, ImportOptions, SplitAssignment,
    ZeekError,
};
use svbench_envs::kit::generate::{to_jsonl, GenFailure, GeneratedCorpus, GeneratorEntry};
use svbench_envs::registry;

use super::GlobalArgs;
use crate::exit;

/// Arguments of `svbench data`.
#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Generate rows with an environment's seeded generator.
    Gen(GenArgs),
    /// Import local files (CSV, JSONL, mail) as an environment's rows, with explicit mappings.
    Import(super::data_import::ImportArgs),
    /// Summarise a CSV or JSONL file and suggest `data import` flags (never applied).
    Inspect(super::data_import::InspectArgs),
    /// Import Zeek conn.log / conn.log.labeled files as E1 rows.
    ImportZeek(ImportZeekArgs),
}

/// `svbench data gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// Environment (e1, network-logs or sv-env-network-logs).
    pub env: String,
    /// Generator name (default: the environment's only generator).
    #[arg(long)]
    pub generator: Option<String>,
    /// Seed [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Rows of the split (only with --split; default: its configured size).
    #[arg(short = 'n', long = "num-examples")]
    pub n: Option<usize>,
    /// Generate one split (the environment's: `svbench envs` lists them) as JSONL to --out FILE or stdout.
    #[arg(long)]
    pub split: Option<String>,
    /// Output: a directory for the whole corpus [default: datasets/<short id>, e.g. datasets/e1], a file with --split.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Regenerate exactly what this manifest records (into --out, default its directory).
    #[arg(long)]
    pub manifest: Option<PathBuf>,
}

/// `svbench data import-zeek`.
#[derive(Debug, Args)]
pub struct ImportZeekArgs {
    /// Zeek conn.log or conn.log.labeled files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Label every row of unlabelled logs: benign or malicious.
    #[arg(long, conflicts_with = "labels")]
    pub label: Option<String>,
    /// uid→label file for unlabelled logs (one `uid label` per line).
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// meta.source of the rows.
    #[arg(long, default_value = "zeek")]
    pub source: String,
    /// Device type of every row.
    #[arg(long, conflicts_with = "device_map")]
    pub device: Option<String>,
    /// IP→device file (one `ip device` per line; originator, then responder).
    #[arg(long)]
    pub device_map: Option<PathBuf>,
    /// Capture name for all files [default: each file's folder].
    #[arg(long)]
    pub scenario: Option<String>,
    /// Put every capture in this split (train, dev, test, ood).
    #[arg(long, conflicts_with = "split_ratios")]
    pub split: Option<String>,
    /// Shares of train,dev,test for per-capture assignment [default: 0.7,0.15,0.15].
    #[arg(long)]
    pub split_ratios: Option<String>,
    /// Seed for split assignment and sampling.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Keep at most N rows per label (seeded sample).
    #[arg(long)]
    pub max_per_label: Option<usize>,
    /// Drop rows whose meta.hash already occurs in this JSONL dataset.
    #[arg(long)]
    pub dedup_against: Option<PathBuf>,
    /// Question template: v1 or upstream.
    #[arg(long, default_value = "v1")]
    pub template: String,
    /// Output JSONL file [default: stdout].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs the command; returns the exit code.
pub fn run(args: DataCommand, _global: &GlobalArgs) -> anyhow::Result<u8> {
    match args {
        DataCommand::Gen(a) => gen(a),
        DataCommand::Import(a) => super::data_import::import(a),
        DataCommand::Inspect(a) => super::data_import::inspect(a),
        DataCommand::ImportZeek(a) => import_zeek(a),
    }
}

fn gen(a: GenArgs) -> anyhow::Result<u8> {
    let entry = registry::find(&a.env).map_err(|e| exit::usage(e.to_string()))?;
    let Some(default) = entry.generators.first() else {
        return Err(exit::usage(format!(
            "`data gen` for {} is not implemented yet",
            entry.name()
        )));
    };
    let generator = match &a.generator {
        None => *default,
        Some(g) => entry
            .generators
            .iter()
            .find(|x| x.name == g)
            .ok_or_else(|| {
                exit::usage(format!(
                    "unknown generator `{g}` for {} (available: {})",
                    entry.identity.short,
                    entry.generator_names().join(", ")
                ))
            })?,
    };
    if let Some(path) = &a.manifest {
        if a.seed.is_some() || a.n.is_some() || a.split.is_some() {
            return Err(exit::usage(
                "--manifest regenerates exactly what the manifest records; do not combine it with --seed, -n or --split",
            ));
        }
        return gen_from_manifest(generator, path, a.out.as_deref());
    }
    let seed = a.seed.unwrap_or(generator.default_seed);
    match &a.split {
        None => {
            if a.n.is_some() {
                return Err(exit::with_hint(
                    exit::USAGE,
                    "-n needs --split (the whole corpus uses the configured sizes)",
                    format!("add --split {}, or drop -n", entry.splits.join("|")),
                ));
            }
            let dir = a
                .out
                .unwrap_or_else(|| Path::new("datasets").join(entry.identity.short));
            let corpus = (generator.corpus)(seed).map_err(gen_error)?;
            write_corpus(&dir, &corpus)?;
            Ok(exit::OK)
        }
        Some(split) => {
            let rows = (generator.split_rows)(seed, split, a.n).map_err(gen_error)?;
            eprintln!(
                "generated {} {split} rows ({}, seed {seed})",
                rows.len(),
                generator.name
            );
            emit(&to_jsonl(&rows), a.out.as_deref())
        }
    }
}

/// A generator's failure with its exit code.
fn gen_error(e: GenFailure) -> anyhow::Error {
    match e {
        GenFailure::Usage(m) => exit::usage(m),
        GenFailure::Manifest(m) => exit::data(m),
        GenFailure::Stale { message, hint } => exit::with_hint(exit::CHECK_FAILED, message, hint),
        other => anyhow::anyhow!("{other}"),
    }
}

fn gen_from_manifest(
    generator: &GeneratorEntry,
    path: &Path,
    out: Option<&Path>,
) -> anyhow::Result<u8> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| exit::data(format!("cannot read manifest {}: {e}", path.display())))?;
    let regenerated = (generator.regenerate)(&text).map_err(|e| match e {
        GenFailure::Manifest(m) => exit::data(format!("{}: {m}", path.display())),
        GenFailure::Stale { message, hint } => exit::with_hint(
            exit::CHECK_FAILED,
            format!("{}: {message}", path.display()),
            hint,
        ),
        other => gen_error(other),
    })?;
    if !regenerated.differ.is_empty() {
        return Err(exit::with_hint(
            exit::CHECK_FAILED,
            format!(
                "regenerating {} does not reproduce the recorded SHA-256 of: {}",
                path.display(),
                regenerated.differ.join(", ")
            ),
            "the generator's output changed without a version bump; bump GENERATOR_VERSION and regenerate",
        ));
    }
    let dir = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| path.parent().map(Path::to_path_buf).unwrap_or_default());
    write_corpus(&dir, &regenerated.corpus)?;
    eprintln!("reproduced {} byte for byte", path.display());
    Ok(exit::OK)
}

fn write_corpus(dir: &Path, corpus: &GeneratedCorpus) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    for (name, text) in &corpus.files {
        let path = dir.join(name);
        std::fs::write(&path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        eprintln!(
            "wrote {} (sha256 {})",
            path.display(),
            &sha256_hex(text.as_bytes())[..16]
        );
    }
    for note in &corpus.notes {
        eprintln!("{note}");
    }
    Ok(())
}

/// Writes data to a file or stdout; a closed pipe is not an error.
pub(super) fn emit(text: &str, out: Option<&Path>) -> anyhow::Result<u8> {
    match out {
        Some(p) => {
            std::fs::write(p, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            eprintln!("wrote {}", p.display());
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => return Err(anyhow::anyhow!("cannot write to stdout: {e}")),
            }
        }
    }
    Ok(exit::OK)
}

fn read_text(path: &Path, what: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| exit::data(format!("cannot read {what} {}: {e}", path.display())))
}

pub(super) fn parse_ratios(s: &str) -> anyhow::Result<[f64; 3]> {
    let parts: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            exit::usage(format!(
                "--split-ratios `{s}`: expected three numbers like 0.7,0.15,0.15"
            ))
        })?;
    match parts.as_slice() {
        [a, b, c]
            if parts.iter().all(|x| x.is_finite() && *x >= 0.0)
                && ((a + b + c) - 1.0).abs() < 1e-6 =>
        {
            Ok([*a, *b, *c])
        }
        _ => Err(exit::usage(format!(
            "--split-ratios `{s}`: need three non-negative shares of train,dev,test summing to 1"
        ))),
    }
}

fn import_zeek(a: ImportZeekArgs) -> anyhow::Result<u8> {
    let label =
        match a.label.as_deref() {
            None => None,
            Some(l) => Some(svbench_envs::e1::zeek::normalize_label(l).ok_or_else(|| {
                exit::usage(format!("--label `{l}`: expected benign or malicious"))
            })?),
        };
    let labels = match &a.labels {
        None => None,
        Some(p) => Some(
            parse_label_file(&read_text(p, "labels file")?, p)
                .map_err(|e| exit::data(e.to_string()))?,
        ),
    };
    let device_map = match &a.device_map {
        None => None,
        Some(p) => Some(parse_device_map(&read_text(p, "device map")?)),
    };
    let split = match (&a.split, &a.split_ratios) {
        (Some(s), _) => SplitAssignment::Fixed(s.parse().map_err(|e| exit::usage(format!("{e}")))?),
        (None, Some(r)) => SplitAssignment::Ratios(parse_ratios(r)?),
        (None, None) => SplitAssignment::Ratios([0.7, 0.15, 0.15]),
    };
    let template = Template::parse(&a.template).ok_or_else(|| {
        exit::usage(format!(
            "--template `{}`: expected v1 or upstream",
            a.template
        ))
    })?;
    let mut dedup_against = HashSet::new();
    if let Some(p) = &a.dedup_against {
        let rows = svbench_core::example::read_jsonl(p).map_err(|e| exit::data(e.to_string()))?;
        for r in rows {
            let v: &Value = &r.value;
            match (v["meta"]["hash"].as_str(), v["question"].as_str()) {
                (Some(h), _) => dedup_against.insert(h.to_string()),
                (None, Some(q)) => dedup_against.insert(question_hash(q)),
                _ => false,
            };
        }
    }
    let mut inputs = Vec::with_capacity(a.files.len());
    for path in &a.files {
        inputs.push(ImportInput {
            path: path.clone(),
            text: read_text(path, "log")?,
        });
    }
    let opts = ImportOptions {
        label,
        labels,
        source: a.source,
        device: a.device,
        device_map,
        scenario: a.scenario,
        split,
        seed: a.seed,
        max_per_label: a.max_per_label,
        dedup_against,
        template,
    };
    let outcome = import(&inputs, &opts).map_err(|e| match e {
        ZeekError::Usage(m) => exit::usage(m),
        other => exit::data(other.to_string()),
    })?;
    for (capture, (split, rows)) in &outcome.captures {
        eprintln!("capture {capture}: {split}, {rows} rows");
    }
    for (reason, count) in &outcome.skipped {
        eprintln!("skipped {count}: {reason}");
    }
    eprintln!("imported {} rows", outcome.rows.len());
    emit(&to_jsonl(&outcome.rows), a.out.as_deref())
}
