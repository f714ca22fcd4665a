//! Dataset rows as examples: identity, splits and row hashing.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;
use serde_json::Value;

use crate::canonical::{canonical_sha256, RowHasher};

/// One dataset row ready for an environment.
#[derive(Debug, Clone)]
pub struct Example {
    /// Position in the selected, evaluation-ordered list.
    pub index: usize,
    /// Stable id (harness §0): row `id`, else `meta.hash`, else a content hash;
    /// repeats get `~1`, `~2`, ….
    pub id: String,
    /// The split the row belongs to (`meta.split` / `split`), if it says.
    pub split: Option<String>,
    /// The question shown to the model.
    pub question: String,
    /// The reference answer as given to rewards (normalised by the environment).
    pub answer: Value,
    /// Row metadata passed to rewards: the row without `question` and
    /// `answer`, as loaded, kept as JSON text. (Row hashes are computed at
    /// load time and rows are not kept as JSON trees, so a 100,000-row run
    /// stays small.)
    pub info: Box<RawValue>,
}

impl Example {
    /// The row metadata as a JSON value.
    pub fn info_value(&self) -> Value {
        // The text was produced by serde_json from a value, so it parses.
        serde_json::from_str(self.info.get()).unwrap_or(Value::Null)
    }

    /// [`sample_row_sha256`] of this example: what a result record of it
    /// must carry.
    pub fn row_sha256(&self) -> String {
        sample_row_sha256(&self.question, &self.answer, &self.info_value())
    }
}

/// The canonical hash of a dataset row as a result record carries it: its
/// `question`, reference `answer` and `info` (the rest of the row). A record
/// whose hash differs from its example's was not written from that row.
pub fn sample_row_sha256(question: &str, answer: &Value, info: &Value) -> String {
    canonical_sha256(&serde_json::json!({
        "question": question,
        "answer": answer,
        "info": info,
    }))
}

/// The selected examples of a run in evaluation order, handed out one at a
/// time: a run asks for example `i` when it dispatches it, so loaders may keep
/// rows on disk ([`crate::spool`]) and a 1,000,000-sample run never holds
/// every example in memory.
pub trait ExampleSet: Send + Sync {
    /// Examples in the set.
    fn len(&self) -> usize;

    /// Whether the set is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of example `index` (cheap: no row is read).
    ///
    /// # Panics
    /// When `index` is out of range.
    fn id(&self, index: usize) -> &str;

    /// Example `index`, with `Example::index == index`.
    ///
    /// # Panics
    /// When `index` is out of range.
    fn example(&self, index: usize) -> Result<Example, DatasetError>;
}

impl ExampleSet for Vec<Example> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }

    fn id(&self, index: usize) -> &str {
        &self[index].id
    }

    fn example(&self, index: usize) -> Result<Example, DatasetError> {
        Ok(self[index].clone())
    }
}

/// Errors reading a dataset file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DatasetError {
    /// The file could not be opened or read.
    #[error("cannot read dataset {path}: {source}")]
    Io {
        /// File path.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A line is not a JSON object or misses a field.
    #[error("{path}:{line}: {message}")]
    Row {
        /// File path (or embedded name).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The selection is empty or the split is unknown.
    #[error("{0}")]
    Selection(String),
    /// No row of the source belongs to the requested split.
    #[error("{}: no rows in split `{split}`; {}", path.display(), present_splits(present))]
    EmptySplit {
        /// File path (or embedded name).
        path: PathBuf,
        /// The split asked for.
        split: String,
        /// The splits the rows do carry, with their row counts, in order of
        /// first appearance.
        present: Vec<(String, usize)>,
    },
}

/// `the file has: train (120), dev (10)`, or that it has no rows.
fn present_splits(present: &[(String, usize)]) -> String {
    if present.is_empty() {
        return "the file has no rows".into();
    }
    let list: Vec<String> = present.iter().map(|(s, n)| format!("{s} ({n})")).collect();
    format!("the file has: {}", list.join(", "))
}

/// A raw JSONL row with its 1-based line number.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRow {
    /// 1-based line number in the source.
    pub line: usize,
    /// The parsed object.
    pub value: Value,
}

/// Parses JSONL text into objects, skipping blank lines and a leading BOM.
/// A row that is not a JSON object, repeats a key, or has a non-string
/// `split`/`meta.split` is an error naming its line. `origin` names the
/// source in errors.
pub fn parse_jsonl(text: &str, origin: &Path) -> Result<Vec<RawRow>, DatasetError> {
    let mut rows = Vec::new();
    for (i, line) in strip_bom(text).lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let row_error = |message: String| DatasetError::Row {
            path: origin.to_path_buf(),
            line: i + 1,
            message,
        };
        let value = parse_row_object(trimmed).map_err(|e| row_error(e.to_string()))?;
        check_common_fields(&value).map_err(|e| row_error(e.to_string()))?;
        rows.push(RawRow { line: i + 1, value });
    }
    Ok(rows)
}

/// A leading UTF-8 byte-order mark (U+FEFF), which some editors write at
/// the start of a file: JSONL loaders accept and strip it.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Why one JSONL row is refused; the message says what is wrong (the
/// caller adds file and line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowError {
    /// An object repeats a key (the parser's message, with its position).
    #[error("{0}")]
    DuplicateKey(String),
    /// Not JSON, or text after the value (the parser's message).
    #[error("not valid JSON: {0}")]
    InvalidJson(String),
    /// Valid JSON that is not an object.
    #[error("row is not a JSON object")]
    NotAnObject,
    /// A field every environment reads as a string is something else.
    #[error("field `{field}` has the wrong type: expected a string, found {found}")]
    NotAString {
        /// `split` or `meta.split`.
        field: &'static str,
        /// The value's type, as [`json_type`] says it.
        found: String,
    },
}

/// Parses one JSONL row strictly: valid JSON, a JSON object, and no object
/// (at any depth) with the same key twice — `serde_json` would silently keep
/// the last value.
pub fn parse_row_object(text: &str) -> Result<Value, RowError> {
    use serde::de::DeserializeSeed;
    let duplicate = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue(&duplicate)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            if duplicate.get() {
                RowError::DuplicateKey(e.to_string())
            } else {
                RowError::InvalidJson(e.to_string())
            }
        })?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(RowError::NotAnObject)
    }
}

/// Checks the fields every environment reads the same way: `split` and
/// `meta.split`, when present, are strings.
pub fn check_common_fields(row: &Value) -> Result<(), RowError> {
    let fields = [
        ("split", row.get("split")),
        ("meta.split", row.get("meta").and_then(|m| m.get("split"))),
    ];
    for (field, value) in fields {
        if let Some(s) = value.filter(|s| !s.is_string()) {
            return Err(RowError::NotAString {
                field,
                found: json_type(s),
            });
        }
    }
    Ok(())
}

/// `null`, `a boolean`, `a number`, `a string`, `an array` or `an object`,
/// with the value for scalars.
pub fn json_type(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Builds a [`Value`] like serde_json does, refusing duplicate keys; the
/// cell records that a refusal was for a duplicate key.
struct StrictValue<'c>(&'c Cell<bool>);

impl<'de> serde::de::DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor(self.0))
    }
}

struct StrictVisitor<'c>(&'c Cell<bool>);

impl<'de> serde::de::Visitor<'de> for StrictVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN/Infinity, so this is always a number.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue(self.0))? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                self.0.set(true);
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate key `{key}` in a JSON object (rows must not repeat keys)"
                )));
            }
            let v = map.next_value_seed(StrictValue(self.0))?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Reads a JSONL file (UTF-8) into objects, line by line: a line longer
/// than [`crate::lines::MAX_ROW_BYTES`] is an error naming it, read no
/// further than the limit.
pub fn read_jsonl(path: &Path) -> Result<Vec<RawRow>, DatasetError> {
    read_jsonl_limited(path, crate::lines::MAX_ROW_BYTES)
}

/// [`read_jsonl`] with rows of at most `max_row_bytes`.
pub fn read_jsonl_limited(path: &Path, max_row_bytes: usize) -> Result<Vec<RawRow>, DatasetError> {
    let io = |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut lines = crate::lines::BoundedLines::new(
        std::io::BufReader::with_capacity(1 << 16, file),
        max_row_bytes,
    );
    let mut rows = Vec::new();
    let mut buf = Vec::new();
    loop {
        let line = match lines.next_into(&mut buf) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(crate::lines::LineError::Io(e)) => return Err(io(e)),
            Err(e @ crate::lines::LineError::TooLong { line, .. }) => {
                return Err(DatasetError::Row {
                    path: path.to_path_buf(),
                    line,
                    message: e.to_string(),
                })
            }
        };
        let row_error = |message: String| DatasetError::Row {
            path: path.to_path_buf(),
            line,
            message,
        };
        let text = std::str::from_utf8(&buf).map_err(|_| row_error("invalid UTF-8".into()))?;
        let text = if line == 1 { strip_bom(text) } else { text };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        let value = parse_row_object(trimmed).map_err(|e| row_error(e.to_string()))?;
        check_common_fields(&value).map_err(|e| row_error(e.to_string()))?;
        rows.push(RawRow { line, value });
    }
    Ok(rows)
}

/// The split a row declares: top-level `split`, else `meta.split`.
pub fn row_split(row: &Value) -> Option<&str> {
    row.get("split").and_then(Value::as_str).or_else(|| {
        row.get("meta")
            .and_then(|m| m.get("split"))
            .and_then(Value::as_str)
    })
}

/// The id a row declares before de-duplication (harness §0).
pub fn base_example_id(row: &Value) -> String {
    if let Some(id) = row.get("id") {
        match id {
            Value::String(s) if !s.is_empty() => return s.clone(),
            Value::Number(n) => return n.to_string(),
            _ => {}
        }
    }
    if let Some(h) = row
        .get("meta")
        .and_then(|m| m.get("hash"))
        .and_then(Value::as_str)
    {
        if !h.is_empty() {
            return h.to_string();
        }
    }
    canonical_sha256(row)[..16].to_string()
}

/// Assigns unique ids in source order; repeats get `~1`, `~2`, … and a warning.
pub fn assign_example_ids<'a>(
    rows: impl IntoIterator<Item = &'a Value>,
) -> (Vec<String>, Vec<String>) {
    dedupe_ids(rows.into_iter().map(base_example_id))
}

/// Makes base ids unique in order: repeats get `~1`, `~2`, … and a warning.
pub fn dedupe_ids(base_ids: impl IntoIterator<Item = String>) -> (Vec<String>, Vec<String>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut ids = Vec::new();
    let mut warnings = Vec::new();
    for base in base_ids {
        let count = seen.entry(base.clone()).or_insert(0);
        if *count == 0 {
            ids.push(base);
        } else {
            let id = format!("{base}~{count}");
            warnings.push(format!("duplicate example id {base}: renamed to {id}"));
            ids.push(id);
        }
        *count += 1;
    }
    (ids, warnings)
}

/// `dataset_sha256`-style hash of rows in order (harness §9.2).
pub fn rows_sha256<'a>(rows: impl IntoIterator<Item = &'a Value>) -> String {
    let mut h = RowHasher::new();
    for row in rows {
        h.push(row);
    }
    h.finish()
}

/// Splits a row into its `question`, `answer` and the rest (the `info`
/// handed to rewards), without copying.
pub fn split_row(row: Value) -> (Option<Value>, Option<Value>, Value) {
    match row {
        Value::Object(mut map) => {
            let question = map.shift_remove("question");
            let answer = map.shift_remove("answer");
            (question, answer, Value::Object(map))
        }
        other => (None, None, other),
    }
}

/// Row metadata handed to rewards: the row without `question` and `answer`.
pub fn row_info(row: &Value) -> Value {
    match row {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "question" && k.as_str() != "answer")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => Value::Object(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_prefer_id_then_hash_then_content() {
        assert_eq!(
            base_example_id(&json!({"id": "x1", "meta": {"hash": "h"}})),
            "x1"
        );
        assert_eq!(base_example_id(&json!({"meta": {"hash": "abc"}})), "abc");
        assert_eq!(base_example_id(&json!({"q": 1})).len(), 16);
    }

    #[test]
    fn duplicate_ids_get_suffixes_and_warnings() {
        let rows = vec![
            json!({"meta": {"hash": "a"}}),
            json!({"meta": {"hash": "a"}}),
            json!({"meta": {"hash": "b"}}),
            json!({"meta": {"hash": "a"}}),
        ];
        let (ids, warnings) = assign_example_ids(&rows);
        assert_eq!(ids, vec!["a", "a~1", "b", "a~2"]);
        assert_eq!(warnings.len(), 2);
    }

    #[test]
    fn malformed_line_names_its_number() {
        let err = parse_jsonl("{\"a\":1}\n\nnot json\n", Path::new("d.jsonl")).unwrap_err();
        assert!(err.to_string().starts_with("d.jsonl:3:"), "{err}");
    }

    #[test]
    fn row_errors_say_what_is_wrong() {
        let dup = parse_row_object(r#"{"a":{"b":1,"b":2}}"#).unwrap_err();
        assert!(matches!(dup, RowError::DuplicateKey(_)), "{dup:?}");
        assert!(
            dup.to_string()
                .starts_with("duplicate key `b` in a JSON object (rows must not repeat keys)"),
            "{dup}"
        );
        // A key text that looks like the duplicate message is still bad JSON.
        let bad = parse_row_object(r#"{"duplicate key": 1"#).unwrap_err();
        assert!(matches!(bad, RowError::InvalidJson(_)), "{bad:?}");
        assert!(bad.to_string().starts_with("not valid JSON: "), "{bad}");
        assert_eq!(parse_row_object("[1]"), Err(RowError::NotAnObject));
        assert_eq!(
            check_common_fields(&json!({"meta": {"split": 3}}))
                .unwrap_err()
                .to_string(),
            "field `meta.split` has the wrong type: expected a string, found a number (3)"
        );
        assert!(check_common_fields(&json!({"split": "a", "meta": {"split": "b"}})).is_ok());
    }
}
