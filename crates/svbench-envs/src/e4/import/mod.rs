//! Importers for public email formats (spec §3.3): column-mapped CSV and
//! JSONL, `.eml` directories, mailboxes and upstream E4 rows, to E4 rows.
//!
//! Nothing is guessed: the text column, the label column, every label value's
//! mapping, the text kind and the gold-evidence source are explicit, and a
//! missing or unmapped piece is an error that says what the file holds.

mod files;
mod messages;
mod table;

pub mod inspect;

pub(crate) use files::{has_extension, read_message_file, strip_separator, walk};
pub use files::{sniff, SkipReason, Skipped};

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde_json::{json, Map, Value};
use svbench_core::canonical::sha256_hex;
use svbench_mail::{render, Email, EmailLimits, RENDER_VERSION};

use super::{GoldSource, GoldSpan, Label};
use crate::kit::import::{
    parse_ratios, Accepts, FlagKind, ImportFailure, ImportFlag, ImportFlags, ImportReport,
    ImporterEntry,
};

/// Input formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// A CSV file with mapped columns.
    Csv,
    /// A JSONL file of objects with mapped keys.
    Jsonl,
    /// Upstream E4 rows (`question`/`answer`/`metadata`).
    UpstreamE4,
    /// A directory of `.eml` files (or `.eml` files).
    Eml,
    /// Mailboxes.
    Mbox,
}

impl ImportFormat {
    /// Every format with its name, as `--format` takes it.
    pub const ALL: [(&'static str, ImportFormat); 5] = [
        ("csv", ImportFormat::Csv),
        ("jsonl", ImportFormat::Jsonl),
        ("upstream-e4", ImportFormat::UpstreamE4),
        ("eml", ImportFormat::Eml),
        ("mbox", ImportFormat::Mbox),
    ];

    /// Parses a `--format` value.
    pub fn parse(name: &str) -> Result<Self, ImportError> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                ImportError::Usage(format!(
                    "unknown E4 import format `{name}` (expected {})",
                    Self::ALL.map(|(n, _)| n).join(", ")
                ))
            })
    }
}

/// Whether a text cell holds a whole message or only its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A whole RFC 5322 message.
    Raw,
    /// The body text only.
    Body,
}

/// Where imported rows' gold evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceGold {
    /// The indicator extractor's findings.
    Extractor,
    /// No gold spans: evidence is not scored on these rows.
    None,
}

/// How rows are assigned to splits.
#[derive(Debug, Clone, PartialEq)]
pub enum SplitChoice {
    /// Every row in one split.
    Fixed(String),
    /// Seeded shares of train, dev, test, grouped by normalised subject.
    Ratios([f64; 3]),
}

/// Everything an import needs; which fields apply depends on the format.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Input format.
    pub format: ImportFormat,
    /// CSV/JSONL: the column with the email text.
    pub text_col: Option<String>,
    /// CSV/JSONL: the column with the label.
    pub label_col: Option<String>,
    /// CSV/JSONL: `value=Label,…` for every distinct label value.
    pub label_map: Option<String>,
    /// CSV/JSONL: whole message or body only.
    pub text_kind: Option<TextKind>,
    /// CSV/JSONL: optional subject column (body texts).
    pub subject_col: Option<String>,
    /// CSV/JSONL: optional sender column (body texts).
    pub from_col: Option<String>,
    /// CSV/JSONL: optional id column.
    pub id_col: Option<String>,
    /// Drop rows whose label value is not mapped (counted) instead of failing.
    pub drop_unmapped: bool,
    /// Drop rows with an empty text cell (counted) instead of failing.
    pub drop_empty: bool,
    /// eml/mbox: skip files and messages that are not messages (empty,
    /// binary, no header block, too large), counted and listed, instead of
    /// failing at the first.
    pub skip_invalid: bool,
    /// eml/mbox: one label for every message.
    pub label: Option<String>,
    /// eml/mbox: CSV of `file_or_message_id,label`.
    pub labels: Option<PathBuf>,
    /// Gold evidence source (required).
    pub evidence_gold: Option<EvidenceGold>,
    /// Split assignment (required).
    pub split: Option<SplitChoice>,
    /// Seed of the split assignment.
    pub seed: u64,
    /// Rendering limits.
    pub limits: EmailLimits,
}

impl ImportOptions {
    /// Options for `format` with nothing else set.
    pub fn new(format: ImportFormat) -> Self {
        Self {
            format,
            text_col: None,
            label_col: None,
            label_map: None,
            text_kind: None,
            subject_col: None,
            from_col: None,
            id_col: None,
            drop_unmapped: false,
            drop_empty: false,
            skip_invalid: false,
            label: None,
            labels: None,
            evidence_gold: None,
            split: None,
            seed: 42,
            limits: EmailLimits::default(),
        }
    }
}

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Flags missing, conflicting or malformed.
    #[error("{0}")]
    Usage(String),
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A row or message is malformed.
    #[error("{path}:{line}: {message}")]
    Row {
        /// The file.
        path: PathBuf,
        /// 1-based line (CSV: the record's first line; mbox: the message's number).
        line: usize,
        /// Why.
        message: String,
    },
    /// The input as a whole does not fit the flags (a missing column,
    /// unmapped label values).
    #[error("{0}")]
    Input(String),
    /// A file or mailbox message that is not a message.
    #[error(
        "{input}: {reason}{}; pass --skip-invalid to skip such inputs (counted and listed)",
        .detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    Invalid {
        /// The file, or `PATH#N` for a mailbox message.
        input: String,
        /// Why it is not a message.
        reason: SkipReason,
        /// More detail, if any.
        detail: Option<String>,
    },
}

/// One message read from the input, before rendering.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    /// Where it came from, for errors and provenance.
    pub path: PathBuf,
    /// 1-based line or message number.
    pub line: usize,
    /// Id from the input, if any.
    pub id: Option<String>,
    /// The parsed email.
    pub email: Email,
    /// The row's `email` field.
    pub email_field: Value,
    /// Gold label.
    pub label: Label,
    /// Extra `meta` keys (upstream evidence categories, …).
    pub extra_meta: Map<String, Value>,
}

impl Message {
    /// Where it came from, as notes name it: the file, `PATH#N` for a
    /// mailbox message, `PATH:LINE` for a table row.
    fn source(&self, format: ImportFormat) -> String {
        match format {
            ImportFormat::Eml => self.path.display().to_string(),
            ImportFormat::Mbox => format!("{}#{}", self.path.display(), self.line),
            _ => format!("{}:{}", self.path.display(), self.line),
        }
    }
}

/// A row dropped because its rendering repeats an earlier row's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The id of the row kept.
    pub kept_id: String,
    /// Where the kept row came from.
    pub kept: String,
    /// Where the dropped one came from.
    pub dropped: String,
}

/// What an import produced.
#[derive(Debug, Clone, Default)]
pub struct ImportOutcome {
    /// E4 rows, in input order.
    pub rows: Vec<Value>,
    /// Label values dropped by `--drop-unmapped`, with counts.
    pub dropped_unmapped: BTreeMap<String, usize>,
    /// Rows dropped by `--drop-empty`.
    pub dropped_empty: usize,
    /// Rows dropped because their rendering repeats an earlier row's.
    pub duplicates: Vec<Duplicate>,
    /// Files and mailbox messages not imported, with why: files of a
    /// folder that are not messages, and invalid ones under `--skip-invalid`.
    pub skipped: Vec<Skipped>,
    /// Other things the user should know (a labels file's header line).
    pub notes: Vec<String>,
}

/// Imports `inputs` to E4 rows.
pub fn import(inputs: &[PathBuf], opts: &ImportOptions) -> Result<ImportOutcome, ImportError> {
    if inputs.is_empty() {
        return Err(ImportError::Usage("no input files".into()));
    }
    // Every missing flag in one error, before a folder of messages is read.
    let missing = missing_flags(opts);
    let (Some(evidence_gold), Some(split)) = (opts.evidence_gold, opts.split.clone()) else {
        return Err(missing_error(inputs, opts, &missing));
    };
    if !missing.is_empty() {
        return Err(missing_error(inputs, opts, &missing));
    }
    let mut outcome = ImportOutcome::default();
    let messages = match opts.format {
        ImportFormat::Csv | ImportFormat::Jsonl => table::read(inputs, opts, &mut outcome)?,
        ImportFormat::UpstreamE4 => messages::upstream(inputs, opts)?,
        ImportFormat::Eml => messages::eml(inputs, opts, &mut outcome)?,
        ImportFormat::Mbox => messages::mbox(inputs, opts, &mut outcome)?,
    };
    let importer = Importer {
        opts,
        evidence_gold,
        split,
    };
    // The first row of each rendering: its id and where it came from.
    let mut seen: HashMap<String, (String, String)> = HashMap::new();
    for m in messages {
        let source = m.source(opts.format);
        let row = importer.row(m);
        let question = row["question"].as_str().unwrap_or_default();
        let id = row["id"].as_str().unwrap_or_default().to_string();
        match seen.entry(sha256_hex(question.as_bytes())) {
            Entry::Occupied(first) => {
                let (kept_id, kept) = first.get().clone();
                outcome.duplicates.push(Duplicate {
                    kept_id,
                    kept,
                    dropped: source,
                });
            }
            Entry::Vacant(slot) => {
                slot.insert((id, source));
                outcome.rows.push(row);
            }
        }
    }
    Ok(outcome)
}

/// The required flags `opts` lacks, as help spells them.
fn missing_flags(opts: &ImportOptions) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let mut need = |absent: bool, flag: &'static str| {
        if absent {
            missing.push(flag);
        }
    };
    match opts.format {
        ImportFormat::Csv | ImportFormat::Jsonl => {
            need(opts.text_col.is_none(), "--text-col COLUMN");
            need(opts.label_col.is_none(), "--label-col COLUMN");
            need(opts.label_map.is_none(), "--label-map VALUE=LABEL,…");
            need(opts.text_kind.is_none(), "--text-kind raw|body");
        }
        ImportFormat::Eml | ImportFormat::Mbox => need(
            opts.label.is_none() && opts.labels.is_none(),
            "--label LABEL or --labels FILE (file_or_message_id,label lines)",
        ),
        ImportFormat::UpstreamE4 => {}
    }
    need(
        opts.evidence_gold.is_none(),
        "--evidence-gold extractor|none",
    );
    need(
        opts.split.is_none(),
        "--split NAME or --split-ratios TRAIN,DEV,TEST (with --seed)",
    );
    missing
}

/// One error naming every missing flag; for a table, with its columns,
/// which is what one needs to choose them.
fn missing_error(inputs: &[PathBuf], opts: &ImportOptions, missing: &[&str]) -> ImportError {
    let mut message = format!(
        "--format {} needs {} (nothing is guessed)",
        format_name(opts.format),
        missing.join("; ")
    );
    if matches!(opts.format, ImportFormat::Csv | ImportFormat::Jsonl) {
        if let Some(columns) = table::columns(inputs, opts.format) {
            message.push_str(&format!(
                ". The file's columns: {columns}. `svbench data inspect FILE` suggests a mapping."
            ));
        }
    }
    ImportError::Usage(message)
}

struct Importer<'a> {
    opts: &'a ImportOptions,
    evidence_gold: EvidenceGold,
    split: SplitChoice,
}

impl Importer<'_> {
    fn row(&self, m: Message) -> Value {
        let rendered = render(&m.email, &self.opts.limits);
        let question = rendered.text.clone();
        let (spans, gold_source) = match self.evidence_gold {
            EvidenceGold::None => (Vec::new(), GoldSource::None),
            EvidenceGold::Extractor => {
                (extractor_spans(&m.email, &rendered), GoldSource::Extractor)
            }
        };
        let digest = sha256_hex(question.as_bytes());
        let id =
            m.id.clone()
                .unwrap_or_else(|| format!("e4-imp-{}", &digest[..12]));
        let split = match &self.split {
            SplitChoice::Fixed(s) => s.clone(),
            SplitChoice::Ratios(r) => {
                ratio_split(r, self.opts.seed, &group_key(&m.email, &question))
            }
        };
        let mut meta = Map::new();
        meta.insert("split".into(), json!(split));
        meta.insert("spans".into(), json!(spans));
        meta.insert("gold_source".into(), json!(gold_source.as_str()));
        meta.insert("render_version".into(), json!(RENDER_VERSION));
        meta.insert(
            "source".into(),
            json!(format!("{}:{}", m.path.display(), m.line)),
        );
        meta.insert(
            "importer".into(),
            json!({"format": format_name(self.opts.format), "version": super::VERSION}),
        );
        meta.extend(m.extra_meta);
        json!({
            "id": id,
            "question": question,
            "answer": m.label.as_str(),
            "email": m.email_field,
            "meta": meta,
        })
    }
}

fn format_name(format: ImportFormat) -> &'static str {
    ImportFormat::ALL
        .iter()
        .find(|(_, f)| *f == format)
        .map_or("?", |(n, _)| n)
}

/// The extractor's findings as gold spans.
pub fn extractor_spans(email: &Email, rendered: &svbench_mail::Rendered) -> Vec<GoldSpan> {
    use svbench_mail::{extract, IndicatorSet, Polarity as P};
    extract(email, rendered, IndicatorSet::builtin())
        .into_iter()
        .map(|f| GoldSpan {
            start: f.start,
            end: f.end,
            text: f.text,
            category: f.category.to_string(),
            polarity: match f.polarity {
                P::Phish => super::Polarity::Phish,
                P::Benign => super::Polarity::Benign,
            },
        })
        .collect()
}

/// Rows with the same normalised subject go to one split (near-duplicates
/// of a campaign stay together); without a subject, the body's start.
fn group_key(email: &Email, question: &str) -> String {
    let subject = email.headers.subject.as_deref().unwrap_or_default();
    let mut s = subject.trim().to_lowercase();
    loop {
        let stripped = ["re:", "fw:", "fwd:", "aw:", "tr:"]
            .iter()
            .find_map(|p| s.strip_prefix(p).map(|r| r.trim_start().to_string()));
        match stripped {
            Some(r) => s = r,
            None => break,
        }
    }
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.is_empty() {
        question.chars().take(200).collect()
    } else {
        s
    }
}

/// train/dev/test from a seeded hash of the group key.
fn ratio_split(ratios: &[f64; 3], seed: u64, key: &str) -> String {
    let digest = sha256_hex(format!("{seed}\u{0}{key}").as_bytes());
    let x = u64::from_str_radix(&digest[..16], 16).unwrap_or(0) as f64 / u64::MAX as f64;
    let name = if x < ratios[0] {
        "train"
    } else if x < ratios[0] + ratios[1] {
        "dev"
    } else {
        "test"
    };
    name.to_string()
}

/// Parses `value=Label,…`; every target must be a gold label.
pub fn parse_label_map(text: &str) -> Result<BTreeMap<String, Label>, ImportError> {
    let mut map = BTreeMap::new();
    for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (value, label) = pair.rsplit_once('=').ok_or_else(|| {
            ImportError::Usage(format!("--label-map: `{pair}` is not VALUE=LABEL"))
        })?;
        let label = super::row::normalize_gold(&Value::String(label.to_string()))
            .map_err(|e| ImportError::Usage(format!("--label-map: {e}")))?;
        if map.insert(value.trim().to_string(), label).is_some() {
            return Err(ImportError::Usage(format!(
                "--label-map: `{}` is mapped twice",
                value.trim()
            )));
        }
    }
    if map.is_empty() {
        return Err(ImportError::Usage("--label-map is empty".into()));
    }
    Ok(map)
}

/// One label for eml/mbox inputs, from `--label`.
fn single_label(text: &str) -> Result<Label, ImportError> {
    super::row::normalize_gold(&Value::String(text.to_string()))
        .map_err(|e| ImportError::Usage(format!("--label: {e}")))
}

/// The formats that read the table flags.
const TABLES: Accepts = Accepts::Only(&["csv", "jsonl"]);
/// The formats that read the message-label flags.
const MESSAGES: Accepts = Accepts::Only(&["eml", "mbox"]);

/// A flag with no default.
const fn flag(
    name: &'static str,
    kind: FlagKind,
    help: &'static str,
    accepts: Accepts,
) -> ImportFlag {
    ImportFlag {
        name,
        kind,
        help,
        accepts,
        default: None,
    }
}

/// E4's importers in the registry.
pub static IMPORTER: ImporterEntry = ImporterEntry {
    formats: &[
        (
            "csv",
            "a CSV table with --text-col, --label-col, --label-map and --text-kind",
        ),
        ("jsonl", "a JSONL table with the same mapping flags as csv"),
        (
            "upstream-e4",
            "upstream E4 rows (question, answer, metadata)",
        ),
        (
            "eml",
            "message files, or folders of them (any file that is a message), with --label or --labels",
        ),
        ("mbox", "mailboxes, with --label or --labels"),
    ],
    flags: &[
        flag(
            "text-col",
            FlagKind::Text,
            "the column with the email text",
            TABLES,
        ),
        flag(
            "label-col",
            FlagKind::Text,
            "the column with the label",
            TABLES,
        ),
        flag(
            "label-map",
            FlagKind::Text,
            "every label value mapped, e.g. \"Phishing Email=Phishing,Safe Email=Legitimate\"",
            TABLES,
        ),
        flag(
            "text-kind",
            FlagKind::Text,
            "raw (whole RFC 5322 messages) or body (body text only)",
            TABLES,
        ),
        flag(
            "subject-col",
            FlagKind::Text,
            "column with the subject (body texts)",
            TABLES,
        ),
        flag(
            "from-col",
            FlagKind::Text,
            "column with the sender (body texts)",
            TABLES,
        ),
        flag("id-col", FlagKind::Text, "column with a row id", TABLES),
        flag(
            "drop-unmapped",
            FlagKind::Switch,
            "drop rows whose label value is not mapped (counted) instead of failing",
            TABLES,
        ),
        flag(
            "drop-empty",
            FlagKind::Switch,
            "drop rows with an empty text cell (counted) instead of failing",
            TABLES,
        ),
        flag(
            "label",
            FlagKind::Text,
            "the label of every message",
            MESSAGES,
        ),
        flag(
            "labels",
            FlagKind::Path,
            "a CSV of `file_or_message_id,label` lines",
            MESSAGES,
        ),
        flag(
            "skip-invalid",
            FlagKind::Switch,
            "skip files and mailbox messages that are not messages (empty, binary, no header block, too large), counted and listed, instead of failing at the first",
            MESSAGES,
        ),
        flag(
            "evidence-gold",
            FlagKind::Text,
            "gold evidence of the rows: extractor (the indicator extractor's spans) or none",
            Accepts::Every,
        ),
        flag(
            "split",
            FlagKind::Text,
            "put every row in this split",
            Accepts::Every,
        ),
        flag(
            "split-ratios",
            FlagKind::Text,
            "seeded shares of train,dev,test, e.g. 0.7,0.15,0.15",
            Accepts::Every,
        ),
        ImportFlag {
            name: "seed",
            kind: FlagKind::Count,
            help: "seed of the split assignment",
            accepts: Accepts::Every,
            default: Some("42"),
        },
    ],
    run: run_flags,
    inspect: Some(inspect_report),
};

fn run_flags(inputs: &[PathBuf], flags: &ImportFlags) -> Result<ImportReport, ImportFailure> {
    let opts = options_from_flags(flags).map_err(|e| ImportFailure::Usage(e.to_string()))?;
    let outcome = import(inputs, &opts).map_err(|e| match e {
        ImportError::Usage(m) => ImportFailure::Usage(m),
        other => ImportFailure::Data(other.to_string()),
    })?;
    Ok(ImportReport {
        notes: notes(&outcome, opts.format),
        rows: outcome.rows,
    })
}

/// The lines printed to stderr: what was dropped or skipped, and why.
pub fn notes(outcome: &ImportOutcome, format: ImportFormat) -> Vec<String> {
    let mut notes = outcome.notes.clone();
    for (value, n) in &outcome.dropped_unmapped {
        notes.push(format!(
            "dropped {n} rows with unmapped label {value:?} (--drop-unmapped)"
        ));
    }
    if outcome.dropped_empty > 0 {
        notes.push(format!(
            "dropped {} rows with an empty text cell (--drop-empty)",
            outcome.dropped_empty
        ));
    }
    let what = if format == ImportFormat::Mbox {
        ("mailbox message", "mailbox messages")
    } else {
        ("file", "files")
    };
    notes.extend(files::summary(what, &outcome.skipped));
    if !outcome.duplicates.is_empty() {
        let named: Vec<String> = outcome
            .duplicates
            .iter()
            .map(|d| format!("{} (same as {}, {})", d.dropped, d.kept_id, d.kept))
            .collect();
        notes.push(format!(
            "dropped {} rows whose rendered email repeats an earlier row: {}",
            outcome.duplicates.len(),
            files::bounded(&named)
        ));
    }
    notes.push(format!("imported {} rows", outcome.rows.len()));
    notes
}

fn inspect_report(path: &std::path::Path) -> Result<String, ImportFailure> {
    inspect::inspect(path)
        .map(|i| i.report(path))
        .map_err(|e| ImportFailure::Data(e.to_string()))
}

/// Import options from the checked flags (the registry entry already
/// refused flags the format does not read).
///
/// # Errors
/// [`ImportError::Usage`] for a malformed value.
pub fn options_from_flags(flags: &ImportFlags) -> Result<ImportOptions, ImportError> {
    let format = ImportFormat::parse(flags.format())?;
    let text = |name: &str| flags.text(name).map(str::to_string);
    let text_kind = match flags.text("text-kind") {
        None => None,
        Some("raw") => Some(TextKind::Raw),
        Some("body") => Some(TextKind::Body),
        Some(other) => {
            return Err(ImportError::Usage(format!(
                "--text-kind `{other}`: expected raw or body"
            )))
        }
    };
    let evidence_gold = match flags.text("evidence-gold") {
        None => None,
        Some("extractor") => Some(EvidenceGold::Extractor),
        Some("none") => Some(EvidenceGold::None),
        Some(other) => {
            return Err(ImportError::Usage(format!(
                "--evidence-gold `{other}`: expected extractor or none"
            )))
        }
    };
    let split = match (flags.text("split"), flags.text("split-ratios")) {
        (Some(_), Some(_)) => {
            return Err(ImportError::Usage(
                "give --split or --split-ratios, not both".into(),
            ))
        }
        (Some(s), None) => {
            if !super::dataset::SPLITS.contains(&s) {
                return Err(ImportError::Usage(format!(
                    "--split `{s}`: expected one of {}",
                    super::dataset::SPLITS.join(", ")
                )));
            }
            Some(SplitChoice::Fixed(s.to_string()))
        }
        (None, Some(r)) => Some(SplitChoice::Ratios(
            parse_ratios(r).map_err(|e| ImportError::Usage(e.to_string()))?,
        )),
        (None, None) => None,
    };
    Ok(ImportOptions {
        format,
        text_col: text("text-col"),
        label_col: text("label-col"),
        label_map: text("label-map"),
        text_kind,
        subject_col: text("subject-col"),
        from_col: text("from-col"),
        id_col: text("id-col"),
        drop_unmapped: flags.switch("drop-unmapped"),
        drop_empty: flags.switch("drop-empty"),
        skip_invalid: flags.switch("skip-invalid"),
        label: text("label"),
        labels: flags.path("labels").map(std::path::Path::to_path_buf),
        evidence_gold,
        split,
        seed: flags
            .required_count("seed")
            .map_err(|e| ImportError::Usage(e.to_string()))?,
        limits: EmailLimits::default(),
    })
}
