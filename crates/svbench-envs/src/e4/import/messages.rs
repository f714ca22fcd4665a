//! Whole messages: message files, mailboxes and upstream E4 rows.

use std::collections::HashMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use svbench_mail::{parse_message, parse_upstream_text, Email, MboxError, MboxItem, MboxReader};

use super::files::{self, SkipReason, Skipped};
use super::{single_label, ImportError, ImportOptions, ImportOutcome, Message};
use crate::e4::row::normalize_gold;
use crate::e4::Label;

/// The row's structured `email` field for a parsed message (legacy
/// charsets are decoded already, so the field is valid JSON text).
pub(crate) fn structured_field(email: &Email) -> Value {
    let mut headers = Map::new();
    for (name, value) in email.headers.fields() {
        if let Some(v) = value {
            headers.insert(name.into(), json!(v));
        }
    }
    let mut field = Map::new();
    if !headers.is_empty() {
        field.insert("headers".into(), Value::Object(headers));
    }
    if let Some(t) = &email.text {
        field.insert("text".into(), json!(t));
    }
    if let Some(t) = &email.html {
        field.insert("html".into(), json!(t));
    }
    if !email.attachments.is_empty() {
        let items: Vec<Value> = email
            .attachments
            .iter()
            .map(|a| json!({"name": a.name, "type": a.mime_type, "size": a.size}))
            .collect();
        field.insert("attachments".into(), Value::Array(items));
    }
    Value::Object(field)
}

fn read(path: &Path) -> Result<Vec<u8>, ImportError> {
    std::fs::read(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn row_error(path: &Path, line: usize, message: impl Into<String>) -> ImportError {
    ImportError::Row {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Upstream E4 rows: leading `Name: value` lines are headers, the rest the body.
pub(super) fn upstream(
    inputs: &[PathBuf],
    opts: &ImportOptions,
) -> Result<Vec<Message>, ImportError> {
    let mut out = Vec::new();
    for path in inputs {
        let bytes = read(path)?;
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = i + 1;
            let text =
                std::str::from_utf8(line).map_err(|_| row_error(path, line_no, "invalid UTF-8"))?;
            if text.trim().is_empty() {
                continue;
            }
            let row: Value = serde_json::from_str(text)
                .map_err(|e| row_error(path, line_no, format!("not valid JSON: {e}")))?;
            let question = row["question"]
                .as_str()
                .ok_or_else(|| row_error(path, line_no, "missing string field `question`"))?;
            let label = normalize_gold(row.get("answer").unwrap_or(&Value::Null))
                .map_err(|e| row_error(path, line_no, e.to_string()))?;
            let email = parse_upstream_text(question, &opts.limits);
            let mut extra = Map::new();
            let metadata = &row["metadata"];
            if let Some(v) = metadata.get("evidence") {
                extra.insert("upstream_evidence_categories".into(), v.clone());
            }
            if let Some(v) = metadata.get("phishing_indicators") {
                extra.insert("upstream_indicators".into(), v.clone());
            }
            out.push(Message {
                path: path.clone(),
                line: line_no,
                id: row["id"].as_str().map(str::to_string),
                email_field: structured_field(&email),
                email,
                label,
                extra_meta: extra,
            });
        }
    }
    Ok(out)
}

/// Key column names that mark a first line of a labels file as a header.
const KEY_HEADERS: [&str; 9] = [
    "file",
    "filename",
    "file_name",
    "path",
    "id",
    "message_id",
    "message-id",
    "key",
    "name",
];
/// Label column names that mark a first line of a labels file as a header.
const LABEL_HEADERS: [&str; 6] = ["label", "labels", "class", "answer", "gold", "category"];

/// `file_or_message_id,label` lines. A first line whose label is not a
/// label is a header and is skipped; a note says so unless it names its
/// columns as headers do (`file,label`, `id,label`, …).
fn label_file(path: &Path, notes: &mut Vec<String>) -> Result<HashMap<String, Label>, ImportError> {
    let text = String::from_utf8(read(path)?).map_err(|_| row_error(path, 0, "invalid UTF-8"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut map = HashMap::new();
    let mut first = true;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (key, label) = line
            .rsplit_once(',')
            .ok_or_else(|| row_error(path, i + 1, "expected `file_or_message_id,label`"))?;
        let unquote = |s: &str| s.trim().trim_matches('"').trim().to_string();
        let (key, label) = (unquote(key), unquote(label));
        let parsed = normalize_gold(&Value::String(label.clone()));
        if std::mem::take(&mut first) && parsed.is_err() {
            let named = |names: &[&str], s: &str| names.iter().any(|n| n.eq_ignore_ascii_case(s));
            if !(named(&KEY_HEADERS, &key) && named(&LABEL_HEADERS, &label)) {
                notes.push(format!(
                    "{}: line {} `{}` has no label (Phishing, Legitimate or Abstain): read as a header and skipped",
                    path.display(),
                    i + 1,
                    line.trim()
                ));
            }
            continue;
        }
        let label = parsed.map_err(|e| row_error(path, i + 1, e.to_string()))?;
        map.insert(key, label);
    }
    Ok(map)
}

/// How eml/mbox messages get their labels.
enum Labels {
    All(Label),
    ByKey(HashMap<String, Label>),
}

impl Labels {
    /// From `--label` or `--labels` (the caller has checked one is given).
    fn from_opts(opts: &ImportOptions, notes: &mut Vec<String>) -> Result<Self, ImportError> {
        match (&opts.label, &opts.labels) {
            (Some(l), None) => Ok(Labels::All(single_label(l)?)),
            (None, Some(p)) => Ok(Labels::ByKey(label_file(p, notes)?)),
            (Some(_), Some(_)) => Err(ImportError::Usage("give --label or --labels, not both".into())),
            (None, None) => Err(ImportError::Usage(
                "eml and mbox inputs need --label LABEL or --labels FILE (file_or_message_id,label)".into(),
            )),
        }
    }

    /// The first key with a label, else an error naming what was tried.
    fn find(&self, keys: &[String], path: &Path, line: usize) -> Result<Label, ImportError> {
        match self {
            Labels::All(l) => Ok(*l),
            Labels::ByKey(map) => keys
                .iter()
                .find_map(|k| map.get(k).copied())
                .ok_or_else(|| {
                    row_error(
                        path,
                        line,
                        format!(
                            "unlabelled message (no label for any of: {})",
                            keys.join(", ")
                        ),
                    )
                }),
        }
    }
}

fn message_id_key(email: &Email) -> Option<String> {
    email
        .headers
        .message_id
        .as_deref()
        .map(|id| id.trim_matches(|c| c == '<' || c == '>').to_string())
}

/// An input that is not a message: skipped when it was never meant to be
/// one (a README in a mail folder) or under `--skip-invalid`, else the
/// import's error.
fn refuse(
    outcome: &mut ImportOutcome,
    opts: &ImportOptions,
    meant: bool,
    skipped: Skipped,
) -> Result<(), ImportError> {
    if meant && !opts.skip_invalid {
        return Err(ImportError::Invalid {
            input: skipped.source,
            reason: skipped.reason,
            detail: skipped.detail,
        });
    }
    outcome.skipped.push(skipped);
    Ok(())
}

fn skipped(source: String, reason: SkipReason, detail: Option<String>) -> Skipped {
    Skipped {
        source,
        reason,
        detail,
    }
}

/// Sniffs and parses one message's bytes; why not, if it is not one.
fn parse_sniffed(
    bytes: &[u8],
    opts: &ImportOptions,
) -> Result<Email, (SkipReason, Option<String>)> {
    files::sniff(bytes, &opts.limits).map_err(|r| (r, None))?;
    parse_message(files::strip_separator(bytes), &opts.limits).map_err(|e| {
        let reason = match e {
            svbench_mail::EmailError::TooLarge { .. } => SkipReason::TooLarge,
            _ => SkipReason::NotAMessage,
        };
        (reason, Some(e.to_string()))
    })
}

/// Message files, folders walked recursively in path order. Every file of
/// a folder is read: those that are messages are taken whatever their
/// name; the others are skipped and counted (an `.eml` file or a file
/// named on the command line that is not a message is invalid).
pub(super) fn eml(
    inputs: &[PathBuf],
    opts: &ImportOptions,
    outcome: &mut ImportOutcome,
) -> Result<Vec<Message>, ImportError> {
    let labels = Labels::from_opts(opts, &mut outcome.notes)?;
    let mut out = Vec::new();
    for files::Candidate { path, meant } in files::walk(inputs)? {
        let source = path.display().to_string();
        let bytes = match files::read_message_file(&path, &opts.limits) {
            Ok(bytes) => bytes,
            Err(e) if opts.skip_invalid => {
                let s = skipped(source, SkipReason::Unreadable, Some(e.to_string()));
                refuse(outcome, opts, meant, s)?;
                continue;
            }
            Err(source) => return Err(ImportError::Io { path, source }),
        };
        let email = match parse_sniffed(&bytes, opts) {
            Ok(email) => email,
            Err((reason, detail)) => {
                refuse(outcome, opts, meant, skipped(source, reason, detail))?;
                continue;
            }
        };
        let mut keys = vec![source];
        if let Some(name) = path.file_name() {
            keys.push(name.to_string_lossy().into_owned());
        }
        keys.extend(message_id_key(&email));
        let label = labels.find(&keys, &path, 1)?;
        out.push(Message {
            line: 1,
            id: None,
            email_field: structured_field(&email),
            email,
            label,
            extra_meta: Map::new(),
            path,
        });
    }
    Ok(out)
}

/// Mailboxes, read one message at a time; a message's "line" is its
/// 1-based number in the file.
pub(super) fn mbox(
    inputs: &[PathBuf],
    opts: &ImportOptions,
    outcome: &mut ImportOutcome,
) -> Result<Vec<Message>, ImportError> {
    let labels = Labels::from_opts(opts, &mut outcome.notes)?;
    let mut out = Vec::new();
    for path in inputs {
        let io = |source| ImportError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut reader = MboxReader::new(BufReader::new(file), &opts.limits);
        for (i, item) in (&mut reader).enumerate() {
            let n = i + 1;
            let source = format!("{}#{n}", path.display());
            let bytes = match item {
                Ok(MboxItem::Message(bytes)) => bytes,
                Ok(MboxItem::TooLarge { size, limit }) => {
                    let detail = format!("{size} bytes, more than the limit of {limit}");
                    let s = skipped(source, SkipReason::TooLarge, Some(detail));
                    refuse(outcome, opts, true, s)?;
                    continue;
                }
                Err(MboxError::Io(e)) => return Err(io(e)),
                Err(e) => return Err(row_error(path, n, e.to_string())),
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                refuse(
                    outcome,
                    opts,
                    true,
                    skipped(source, SkipReason::EmptyMessage, None),
                )?;
                continue;
            }
            let email = match parse_sniffed(&bytes, opts) {
                Ok(email) => email,
                Err((reason, detail)) => {
                    refuse(outcome, opts, true, skipped(source, reason, detail))?;
                    continue;
                }
            };
            let mut keys = vec![source];
            keys.extend(message_id_key(&email));
            let label = labels.find(&keys, path, n)?;
            out.push(Message {
                path: path.clone(),
                line: n,
                id: None,
                email_field: structured_field(&email),
                email,
                label,
                extra_meta: Map::new(),
            });
        }
        if reader.messages() == 0 {
            let s = skipped(path.display().to_string(), SkipReason::NoMessages, None);
            refuse(outcome, opts, true, s)?;
        }
    }
    Ok(out)
}
