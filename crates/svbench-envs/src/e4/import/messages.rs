//! Whole messages: `.eml` files, mailboxes and upstream E4 rows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use svbench_mail::{parse_mbox, parse_message, parse_upstream_text, Email};

use super::{single_label, ImportError, ImportOptions, Message};
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

/// `file_or_message_id,label` lines.
fn label_file(path: &Path) -> Result<HashMap<String, Label>, ImportError> {
    let text = String::from_utf8(read(path)?).map_err(|_| row_error(path, 0, "invalid UTF-8"))?;
    let mut map = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (key, label) = line
            .rsplit_once(',')
            .ok_or_else(|| row_error(path, i + 1, "expected `file_or_message_id,label`"))?;
        let label = normalize_gold(&Value::String(label.to_string()))
            .map_err(|e| row_error(path, i + 1, e.to_string()))?;
        map.insert(key.trim().to_string(), label);
    }
    Ok(map)
}

/// How eml/mbox messages get their labels.
enum Labels {
    All(Label),
    ByKey(HashMap<String, Label>),
}

impl Labels {
    fn from_opts(opts: &ImportOptions) -> Result<Self, ImportError> {
        match (&opts.label, &opts.labels) {
            (Some(l), None) => Ok(Labels::All(single_label(l)?)),
            (None, Some(p)) => Ok(Labels::ByKey(label_file(p)?)),
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

/// `.eml` files, directories walked recursively in path order.
pub(super) fn eml(inputs: &[PathBuf], opts: &ImportOptions) -> Result<Vec<Message>, ImportError> {
    let labels = Labels::from_opts(opts)?;
    let mut files = Vec::new();
    for input in inputs {
        collect_eml(input, &mut files)?;
    }
    let mut out = Vec::new();
    for path in files {
        let email = parse_message(&read(&path)?, &opts.limits)
            .map_err(|e| row_error(&path, 1, e.to_string()))?;
        let mut keys = vec![path.display().to_string()];
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

fn collect_eml(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io)?
            .map(|e| e.map(|e| e.path()).map_err(io))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x.eq_ignore_ascii_case("eml")) {
                collect_eml(&e, out)?;
            }
        }
        Ok(())
    } else {
        out.push(path.to_path_buf());
        Ok(())
    }
}

/// Mailboxes; a message's "line" is its 1-based number in the file.
pub(super) fn mbox(inputs: &[PathBuf], opts: &ImportOptions) -> Result<Vec<Message>, ImportError> {
    let labels = Labels::from_opts(opts)?;
    let mut out = Vec::new();
    for path in inputs {
        let raw = read(path)?;
        for (i, email) in parse_mbox(&raw, &opts.limits).enumerate() {
            let n = i + 1;
            let email = email.map_err(|e| row_error(path, n, format!("message {n}: {e}")))?;
            let mut keys = vec![format!("{}#{n}", path.display())];
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
    }
    Ok(out)
}
