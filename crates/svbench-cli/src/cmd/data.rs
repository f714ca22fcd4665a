//! `svbench data`: dataset generation and import (harness §1.2).
//!
//! Data goes to stdout or files; progress and summaries go to stderr.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use svbench_core::canonical::sha256_hex;
use svbench_envs::kit::generate::{to_jsonl, GenFailure, GeneratedCorpus, GeneratorEntry};
use svbench_envs::kit::import::FlagValue;
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
    /// Alias of `svbench data import e1 --format zeek` (Zeek conn.log files to E1 rows).
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

/// `svbench data import-zeek`: kept as an alias of `svbench data import e1
/// --format zeek`, with the same flags; clap refuses the conflicting pairs
/// as it always did.
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

/// The command `data import-zeek` is an alias of.
const IMPORT_ZEEK_TARGET: &str = "svbench data import e1 --format zeek";

fn import_zeek(a: ImportZeekArgs) -> anyhow::Result<u8> {
    eprintln!("note: `svbench data import-zeek` is an alias of `{IMPORT_ZEEK_TARGET}`");
    let entry = registry::find("e1").map_err(|e| exit::usage(e.to_string()))?;
    let text = |v: Option<String>| v.map(FlagValue::Text);
    let path = |v: Option<PathBuf>| v.map(FlagValue::Path);
    let given = [
        ("label", text(a.label)),
        ("labels", path(a.labels)),
        ("source", text(Some(a.source))),
        ("device", text(a.device)),
        ("device-map", path(a.device_map)),
        ("scenario", text(a.scenario)),
        ("split", text(a.split)),
        ("split-ratios", text(a.split_ratios)),
        ("seed", Some(FlagValue::Count(a.seed))),
        (
            "max-per-label",
            a.max_per_label.map(|n| FlagValue::Count(n as u64)),
        ),
        ("dedup-against", path(a.dedup_against)),
        ("template", text(Some(a.template))),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some((name.to_string(), value?)))
    .collect();
    super::data_import::run_import(entry, "zeek", &a.files, given, a.out.as_deref())
}
