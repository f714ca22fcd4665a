//! `results.jsonl`, read into the fields the report needs.
//!
//! The report deserialises a lean view of each line rather than the full
//! [`svbench_core::record::ResultRecord`]: prompts, completions and transcripts
//! are skipped without allocation, which keeps 100,000-record runs fast. The
//! view accepts everything `ResultRecord` accepts, plus upstream-style records
//! (only `predicted_label` / `confidence`).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use serde::de::{self, DeserializeOwned, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use svbench_core::canonical::sha256_hex;
use svbench_core::record::Usage;
use svbench_core::ParseRecord;

use crate::error::ReportError;

/// The fields of one result record that the report reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RecordView {
    /// Position of the example in the selection (absent in some upstream files).
    #[serde(default)]
    pub index: Option<usize>,
    /// Rollout number.
    #[serde(default)]
    pub rollout_index: usize,
    /// Example id.
    #[serde(default)]
    pub example_id: String,
    /// Reference answer.
    #[serde(default)]
    pub answer: Value,
    /// Row metadata (only `meta.source` / `meta.scenario` are read).
    #[serde(default, deserialize_with = "object_or_none")]
    pub info: Option<InfoView>,
    /// The environment's structured parse record.
    #[serde(default)]
    pub parsed: Option<Value>,
    /// Parse outcome.
    #[serde(default)]
    pub parse: Option<ParseRecord>,
    /// Total reward.
    #[serde(default)]
    pub reward: Option<f64>,
    /// Component → value (null values, which a writer may produce for a
    /// non-finite number, are kept as `None`).
    #[serde(default)]
    pub rewards: BTreeMap<String, Option<f64>>,
    /// Profile that scored the sample.
    #[serde(default)]
    pub reward_profile: String,
    /// Token usage.
    #[serde(default)]
    pub usage: Usage,
    /// Per-call records (only `cached` is read).
    #[serde(default)]
    pub requests: Vec<RequestView>,
    /// Sample wall time.
    #[serde(default)]
    pub latency_ms: Option<f64>,
    /// Stopped by a length or turn limit.
    #[serde(default)]
    pub truncated: bool,
    /// Error, for errored samples.
    #[serde(default, deserialize_with = "object_or_none")]
    pub error: Option<ErrorView>,
    /// Upstream's error message key.
    #[serde(default)]
    pub completion_error: Option<Value>,
    /// E1 compatibility field.
    #[serde(default)]
    pub predicted_label: Option<Value>,
    /// E1 compatibility field.
    #[serde(default)]
    pub confidence: Option<Value>,
}

impl RecordView {
    /// Whether the sample errored (excluded from metrics).
    pub fn is_errored(&self) -> bool {
        self.error.is_some() || matches!(&self.completion_error, Some(v) if !v.is_null())
    }

    /// The error kind of an errored record.
    pub fn error_kind(&self) -> Option<String> {
        match (&self.error, &self.completion_error) {
            (Some(e), _) => Some(if e.kind.is_empty() {
                "unknown".to_string()
            } else {
                e.kind.clone()
            }),
            (None, Some(v)) if !v.is_null() => Some("completion_error".to_string()),
            _ => None,
        }
    }

    /// `info.meta.<key>` as text (non-strings rendered as JSON).
    pub fn meta(&self, key: &str) -> Option<String> {
        let v = self.info.as_ref()?.meta.as_ref()?.get(key)?;
        match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    }
}

/// `info`, reduced to its `meta` object.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct InfoView {
    /// `info.meta`.
    #[serde(default, deserialize_with = "object_or_none")]
    pub meta: Option<MetaView>,
}

/// `info.meta`, reduced to the grouping keys.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct MetaView {
    /// `meta.source`.
    #[serde(default)]
    pub source: Option<Value>,
    /// `meta.scenario`.
    #[serde(default)]
    pub scenario: Option<Value>,
}

impl MetaView {
    fn get(&self, key: &str) -> Option<&Value> {
        match key {
            "source" => self.source.as_ref(),
            "scenario" => self.scenario.as_ref(),
            _ => None,
        }
    }
}

/// A per-call record, reduced to the cache flag.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RequestView {
    /// Answered from the cache.
    #[serde(default)]
    pub cached: bool,
}

/// A per-sample error, reduced to its kind.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ErrorView {
    /// Error class.
    #[serde(default)]
    pub kind: String,
}

/// Deserialises an object as `Some(T)` and anything else (null, strings,
/// numbers, arrays) as `None`, so odd upstream values never fail a line.
fn object_or_none<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: DeserializeOwned> Visitor<'de> for V<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(self)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    de.deserialize_any(V(std::marker::PhantomData))
}

/// Keys that `--strict` requires on every line.
const STRICT_KEYS: [&str; 5] = ["index", "rollout_index", "example_id", "reward", "rewards"];

/// The records of a run, sorted and de-duplicated.
#[derive(Debug, Clone, Default)]
pub struct LoadedRecords {
    /// Records sorted by `(index, rollout_index)`; for a repeated key the
    /// last line wins.
    pub records: Vec<RecordView>,
    /// SHA-256 of the file bytes (of the empty string when the file is absent).
    pub sha256: String,
    /// Whether `results.jsonl` exists.
    pub file_present: bool,
    /// Lines superseded by a later line with the same key.
    pub superseded: usize,
    /// Reading warnings (torn last line, …).
    pub warnings: Vec<String>,
}

/// Reads `results.jsonl`. A torn or unparseable last line is skipped with a
/// warning; any other unparseable line is an error naming it.
pub fn read_records(path: &Path, strict: bool) -> Result<LoadedRecords, ReportError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(LoadedRecords {
                sha256: sha256_hex(b""),
                warnings: vec!["results.jsonl is missing: the run recorded no sample".to_string()],
                ..LoadedRecords::default()
            });
        }
        Err(source) => {
            return Err(ReportError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let (sha256, parsed) = std::thread::scope(|scope| {
        let hasher = scope.spawn(|| sha256_hex(&bytes));
        let parsed = parse_lines(&bytes, strict);
        // The hasher cannot panic on a byte slice; fall back to hashing here.
        let sha = hasher.join().unwrap_or_else(|_| sha256_hex(&bytes));
        (sha, parsed)
    });
    let lines = parsed;
    let last_line = lines.last().map(|(n, _)| *n);
    let mut warnings = Vec::new();
    let mut kept: Vec<(usize, RecordView)> = Vec::with_capacity(lines.len());
    for (line, result) in lines {
        match result {
            Ok(rec) => kept.push((line, rec)),
            Err(message) if Some(line) == last_line && !message.starts_with(STRICT_PREFIX) => {
                warnings.push(format!(
                    "results.jsonl line {line} is torn or unparseable ({message}); it is the last line and was skipped"
                ));
            }
            Err(message) => {
                if let Some(m) = message.strip_prefix(STRICT_PREFIX) {
                    return Err(ReportError::Strict {
                        message: format!("{}:{line}: {m}", path.display()),
                    });
                }
                return Err(ReportError::ResultsLine {
                    path: path.to_path_buf(),
                    line,
                    message,
                });
            }
        }
    }
    let (records, superseded) = dedupe_and_sort(kept);
    Ok(LoadedRecords {
        records,
        sha256,
        file_present: true,
        superseded,
        warnings,
    })
}

const STRICT_PREFIX: &str = "\u{0}strict:";

type LineResult = (usize, Result<RecordView, String>);

/// Parses every non-blank line, in parallel chunks, keeping file order.
fn parse_lines(bytes: &[u8], strict: bool) -> Vec<LineResult> {
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| l.iter().any(|b| !b.is_ascii_whitespace()))
        .collect();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    if threads == 1 || lines.len() < 2048 {
        return lines
            .iter()
            .map(|(n, l)| (*n, parse_line(l, strict)))
            .collect();
    }
    let chunk = lines.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(n, l)| (*n, parse_line(l, strict)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut out = Vec::with_capacity(lines.len());
        for (h, part) in handles.into_iter().zip(lines.chunks(chunk)) {
            match h.join() {
                Ok(v) => out.extend(v),
                // A parser thread cannot panic on input; if it somehow did,
                // redo its chunk on this thread.
                Err(_) => out.extend(part.iter().map(|(n, l)| (*n, parse_line(l, strict)))),
            }
        }
        out
    })
}

fn parse_line(line: &[u8], strict: bool) -> Result<RecordView, String> {
    let rec: RecordView = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    if strict {
        let obj: serde_json::Map<String, Value> =
            serde_json::from_slice(line).map_err(|e| e.to_string())?;
        let missing: Vec<&str> = STRICT_KEYS
            .iter()
            .copied()
            .filter(|k| !obj.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "{STRICT_PREFIX}missing field(s) {}",
                missing.join(", ")
            ));
        }
        if !rec.is_errored() && rec.parse.is_none() {
            return Err(format!("{STRICT_PREFIX}scored record without `parse`"));
        }
    }
    Ok(rec)
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Id(String, usize),
    Index(usize, usize),
    Line(usize),
}

/// Keeps the last line per `(example_id, rollout_index)` and sorts by
/// `(index, rollout_index)`, file order breaking ties.
fn dedupe_and_sort(lines: Vec<(usize, RecordView)>) -> (Vec<RecordView>, usize) {
    let mut slot: HashMap<Key, usize> = HashMap::with_capacity(lines.len());
    let mut kept: Vec<Option<(usize, usize, RecordView)>> = Vec::with_capacity(lines.len());
    let mut superseded = 0;
    for (pos, (line, rec)) in lines.into_iter().enumerate() {
        let key = if !rec.example_id.is_empty() {
            Key::Id(rec.example_id.clone(), rec.rollout_index)
        } else if let Some(i) = rec.index {
            Key::Index(i, rec.rollout_index)
        } else {
            Key::Line(line)
        };
        let order = rec.index.unwrap_or(pos);
        if let Some(&old) = slot.get(&key) {
            kept[old] = None;
            superseded += 1;
        }
        slot.insert(key, kept.len());
        kept.push(Some((order, line, rec)));
    }
    let mut kept: Vec<(usize, usize, RecordView)> = kept.into_iter().flatten().collect();
    kept.sort_by(|a, b| (a.0, a.2.rollout_index, a.1).cmp(&(b.0, b.2.rollout_index, b.1)));
    (kept.into_iter().map(|(_, _, r)| r).collect(), superseded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(s: &str) -> RecordView {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn tolerant_fields() {
        let r =
            view(r#"{"info": "x", "error": null, "predicted_label": "Benign", "confidence": 0.5}"#);
        assert!(r.info.is_none());
        assert!(!r.is_errored());
        let r = view(
            r#"{"info": {"meta": {"source": "iot23", "scenario": 3}}, "error": {"kind": "timeout", "message": "m"}}"#,
        );
        assert_eq!(r.meta("source").as_deref(), Some("iot23"));
        assert_eq!(r.meta("scenario").as_deref(), Some("3"));
        assert_eq!(r.error_kind().as_deref(), Some("timeout"));
    }

    #[test]
    fn last_line_wins_and_sorts() {
        let a = view(r#"{"index": 1, "example_id": "b", "reward": 1.0}"#);
        let b = view(r#"{"index": 0, "example_id": "a", "reward": 2.0}"#);
        let c = view(r#"{"index": 1, "example_id": "b", "reward": 3.0}"#);
        let (recs, sup) = dedupe_and_sort(vec![(1, a), (2, b), (3, c)]);
        assert_eq!(sup, 1);
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].example_id, "a");
        assert_eq!(recs[1].reward, Some(3.0));
    }
}
