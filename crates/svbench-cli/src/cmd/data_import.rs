//! `svbench data import ENV --format FMT …` and `svbench data inspect FILE`:
//! local files to an environment's rows through the importers its registry
//! entry declares, and a look at a table before choosing the flags.

use std::path::PathBuf;

use clap::Args;
use svbench_envs::kit::generate::to_jsonl;
use svbench_envs::kit::import::{ImportFailure, ImportFlags};
use svbench_envs::registry::{self, REGISTRY};

use super::data::{emit, parse_ratios};
use crate::exit;

/// `svbench data import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Environment (`svbench envs` lists which import and the formats).
    pub env: String,
    /// Input files (or, for eml, directories).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Input format (E4: csv, jsonl, upstream-e4, eml, mbox).
    #[arg(long)]
    pub format: String,
    /// csv/jsonl: the column with the email text.
    #[arg(long)]
    pub text_col: Option<String>,
    /// csv/jsonl: the column with the label.
    #[arg(long)]
    pub label_col: Option<String>,
    /// csv/jsonl: every label value mapped, e.g. "Phishing Email=Phishing,Safe Email=Legitimate".
    #[arg(long)]
    pub label_map: Option<String>,
    /// csv/jsonl: raw (whole RFC 5322 messages) or body (body text only).
    #[arg(long)]
    pub text_kind: Option<String>,
    /// csv/jsonl: column with the subject (body texts).
    #[arg(long)]
    pub subject_col: Option<String>,
    /// csv/jsonl: column with the sender (body texts).
    #[arg(long)]
    pub from_col: Option<String>,
    /// csv/jsonl: column with a row id.
    #[arg(long)]
    pub id_col: Option<String>,
    /// csv/jsonl: drop rows whose label value is not mapped (counted) instead of failing.
    #[arg(long)]
    pub drop_unmapped: bool,
    /// csv/jsonl: drop rows with an empty text cell (counted) instead of failing.
    #[arg(long)]
    pub drop_empty: bool,
    /// eml/mbox: the label of every message.
    #[arg(long)]
    pub label: Option<String>,
    /// eml/mbox: a CSV of `file_or_message_id,label` lines.
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// Gold evidence of the rows: extractor (the indicator extractor's spans) or none.
    #[arg(long)]
    pub evidence_gold: Option<String>,
    /// Put every row in this split.
    #[arg(long)]
    pub split: Option<String>,
    /// Seeded shares of train,dev,test, e.g. 0.7,0.15,0.15.
    #[arg(long)]
    pub split_ratios: Option<String>,
    /// Seed of the split assignment.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output JSONL file [default: stdout].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `svbench data inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A CSV (by extension) or JSONL file.
    pub file: PathBuf,
}

/// Runs `data import`.
pub fn import(a: ImportArgs) -> anyhow::Result<u8> {
    let entry = registry::find(&a.env).map_err(|e| exit::usage(e.to_string()))?;
    let importer = entry.importer.ok_or_else(|| {
        exit::usage(format!(
            "{} has no `data import` formats in this build",
            entry.name()
        ))
    })?;
    if !importer.formats.iter().any(|(f, _)| *f == a.format) {
        return Err(exit::usage(format!(
            "--format `{}` is not one {} imports (formats: {})",
            a.format,
            entry.identity.short,
            importer
                .formats
                .iter()
                .map(|(f, _)| *f)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let flags = ImportFlags {
        format: a.format,
        text_col: a.text_col,
        label_col: a.label_col,
        label_map: a.label_map,
        text_kind: a.text_kind,
        subject_col: a.subject_col,
        from_col: a.from_col,
        id_col: a.id_col,
        drop_unmapped: a.drop_unmapped,
        drop_empty: a.drop_empty,
        label: a.label,
        labels: a.labels,
        evidence_gold: a.evidence_gold,
        split: a.split,
        split_ratios: a.split_ratios.as_deref().map(parse_ratios).transpose()?,
        seed: a.seed,
    };
    let report = (importer.run)(&a.inputs, &flags).map_err(|e| match e {
        ImportFailure::Usage(m) => exit::usage(m),
        ImportFailure::Data(m) => exit::data(m),
    })?;
    for note in &report.notes {
        eprintln!("{note}");
    }
    emit(&to_jsonl(&report.rows), a.out.as_deref())
}

/// Runs `data inspect`: every environment that imports tables summarises
/// the file and suggests flags; nothing is applied.
pub fn inspect(a: InspectArgs) -> anyhow::Result<u8> {
    let mut printed = false;
    for entry in REGISTRY.iter() {
        let Some(inspect) = entry.importer.and_then(|i| i.inspect) else {
            continue;
        };
        let text = inspect(&a.file).map_err(|e| exit::data(e.to_string()))?;
        println!(
            "# svbench data import {} --format csv|jsonl …",
            entry.identity.short
        );
        print!("{text}");
        printed = true;
    }
    if !printed {
        return Err(exit::usage("no environment in this build imports tables"));
    }
    Ok(exit::OK)
}
