//! Column-mapped CSV and JSONL: the shape of the public phishing corpora
//! (a text column and a label column, sometimes sender and subject).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use svbench_mail::{parse_message, Email};

use super::{
    parse_label_map, ImportError, ImportFormat, ImportOptions, ImportOutcome, Message, TextKind,
};

/// One record: its line and its cells by column name.
pub(super) struct Record {
    pub line: usize,
    pub cells: BTreeMap<String, String>,
}

/// A table read whole: its columns in file order and its records.
pub(super) struct Table {
    pub path: PathBuf,
    pub columns: Vec<String>,
    pub records: Vec<Record>,
}

fn read_table(path: &Path, format: ImportFormat) -> Result<Table, ImportError> {
    match format {
        ImportFormat::Csv => read_csv(path),
        _ => read_jsonl(path),
    }
}

/// The first table's columns, quoted, for an error about missing flags
/// (`None` when it cannot be read: the import reports that then).
pub(super) fn columns(inputs: &[PathBuf], format: ImportFormat) -> Option<String> {
    let table = read_table(inputs.first()?, format).ok()?;
    Some(quoted(&table.columns))
}

pub(super) fn read(
    inputs: &[PathBuf],
    opts: &ImportOptions,
    outcome: &mut ImportOutcome,
) -> Result<Vec<Message>, ImportError> {
    // `import` has checked that every mapping flag is given.
    let (Some(text_col), Some(label_col), Some(label_map), Some(kind)) = (
        &opts.text_col,
        &opts.label_col,
        &opts.label_map,
        opts.text_kind,
    ) else {
        return Err(ImportError::Usage(
            "--text-col, --label-col, --label-map and --text-kind are required".into(),
        ));
    };
    let tables = inputs
        .iter()
        .map(|p| read_table(p, opts.format))
        .collect::<Result<Vec<_>, _>>()?;
    let map = parse_label_map(label_map)?;
    let optional = [&opts.subject_col, &opts.from_col, &opts.id_col];
    for table in &tables {
        let wanted = [Some(text_col), Some(label_col)]
            .into_iter()
            .chain(optional.iter().map(|c| c.as_ref()))
            .flatten();
        for column in wanted {
            if !table.columns.contains(column) {
                return Err(ImportError::Input(format!(
                    "{}: no column `{column}` (columns: {})",
                    table.path.display(),
                    quoted(&table.columns)
                )));
            }
        }
    }
    // Every distinct label value must be mapped (or dropped on request).
    let mut unmapped: BTreeMap<String, usize> = BTreeMap::new();
    for table in &tables {
        for r in &table.records {
            let value = r.cells[label_col].trim();
            if !map.contains_key(value) {
                *unmapped.entry(value.to_string()).or_default() += 1;
            }
        }
    }
    if !unmapped.is_empty() && !opts.drop_unmapped {
        let list = unmapped
            .iter()
            .map(|(v, n)| format!("{v:?} ({n} rows)"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ImportError::Input(format!(
            "label values not in --label-map: {list}; map them, or pass --drop-unmapped"
        )));
    }
    outcome.dropped_unmapped = unmapped;
    let mut messages = Vec::new();
    for table in tables {
        for r in table.records {
            let Some(&label) = map.get(r.cells[label_col].trim()) else {
                continue;
            };
            let text = &r.cells[text_col];
            if text.trim().is_empty() {
                if opts.drop_empty {
                    outcome.dropped_empty += 1;
                    continue;
                }
                return Err(row_error(
                    &table.path,
                    r.line,
                    format!("column `{text_col}` is empty (or pass --drop-empty)"),
                ));
            }
            let cell = |col: &Option<String>| {
                col.as_ref()
                    .map(|c| r.cells[c].trim().to_string())
                    .filter(|v| !v.is_empty())
            };
            let (email, email_field) = match kind {
                TextKind::Raw => {
                    let email = parse_message(text.as_bytes(), &opts.limits).map_err(|e| {
                        row_error(&table.path, r.line, format!("not a message: {e}"))
                    })?;
                    (email, json!({"raw": text}))
                }
                TextKind::Body => body_email(text, cell(&opts.from_col), cell(&opts.subject_col)),
            };
            messages.push(Message {
                path: table.path.clone(),
                line: r.line,
                id: cell(&opts.id_col),
                email,
                email_field,
                label,
                extra_meta: Map::new(),
            });
        }
    }
    Ok(messages)
}

/// An email made of a body and optional sender and subject.
pub(super) fn body_email(
    text: &str,
    from: Option<String>,
    subject: Option<String>,
) -> (Email, Value) {
    let mut email = Email::default();
    let mut headers = Map::new();
    if let Some(f) = from {
        headers.insert("From".into(), json!(f));
        email.headers.from = Some(f);
    }
    if let Some(s) = subject {
        headers.insert("Subject".into(), json!(s));
        email.headers.subject = Some(s);
    }
    email.text = Some(text.to_string());
    let mut field = Map::new();
    if !headers.is_empty() {
        field.insert("headers".into(), Value::Object(headers));
    }
    field.insert("text".into(), json!(text));
    (email, Value::Object(field))
}

/// Column names quoted, so an empty or spaced name is visible.
fn quoted(columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn row_error(path: &Path, line: usize, message: String) -> ImportError {
    ImportError::Row {
        path: path.to_path_buf(),
        line,
        message,
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

pub(super) fn read_csv(path: &Path) -> Result<Table, ImportError> {
    let file = std::fs::File::open(path).map_err(io(path))?;
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(file);
    let header_error = |e: csv::Error| row_error(path, 1, format!("bad CSV header: {e}"));
    let columns: Vec<String> = reader
        .byte_headers()
        .map_err(header_error)?
        .iter()
        .map(|h| {
            String::from_utf8(h.to_vec())
                .map_err(|_| row_error(path, 1, "invalid UTF-8 in the header".into()))
        })
        .collect::<Result<_, _>>()?;
    let mut records = Vec::new();
    for record in reader.byte_records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            row_error(path, line, format!("bad CSV: {e}"))
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let mut cells = BTreeMap::new();
        for (column, cell) in columns.iter().zip(record.iter()) {
            let cell = std::str::from_utf8(cell).map_err(|_| {
                row_error(path, line, format!("invalid UTF-8 in column `{column}`"))
            })?;
            cells.insert(column.clone(), cell.to_string());
        }
        records.push(Record { line, cells });
    }
    Ok(Table {
        path: path.to_path_buf(),
        columns,
        records,
    })
}

pub(super) fn read_jsonl(path: &Path) -> Result<Table, ImportError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let mut columns: Vec<String> = Vec::new();
    let mut records = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        let text = std::str::from_utf8(line)
            .map_err(|_| row_error(path, line_no, "invalid UTF-8".into()))?;
        if text.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(text)
            .map_err(|e| row_error(path, line_no, format!("not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(row_error(path, line_no, "row is not a JSON object".into()));
        };
        let mut cells = BTreeMap::new();
        for (k, v) in map {
            if !columns.contains(&k) {
                columns.push(k.clone());
            }
            let cell = match v {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            };
            cells.insert(k, cell);
        }
        records.push(Record {
            line: line_no,
            cells,
        });
    }
    // A key missing from a row reads as an empty cell.
    for r in &mut records {
        for c in &columns {
            r.cells.entry(c.clone()).or_default();
        }
    }
    Ok(Table {
        path: path.to_path_buf(),
        columns,
        records,
    })
}
