//! `results.jsonl`, read into the fields the report needs.
//!
//! The report deserialises a lean view of each line rather than the full
//! [`svbench_core::record::ResultRecord`]: prompts, completions and transcripts
//! are skipped without allocation, which keeps 100,000-record runs fast. The
//! view accepts everything `ResultRecord` accepts, plus upstream-style
//! records. The environment's fields are read by its own [`EnvFields`] in
//! the same pass; this reader knows no environment.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::de::{self, DeserializeOwned, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::Read;
use svbench_core::canonical::{hex, sha256_hex};
use svbench_core::record::{ToolInteraction, Usage};
use svbench_core::ParseRecord;

use crate::error::ReportError;

/// The fields of one result record that the report reads: the fields every
/// record has, and the environment's own (`env`: its `parsed` object and
/// compatibility fields, read as its types by its [`EnvFields`]; `()` reads
/// none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordView<E = ()> {
    /// Position of the example in the selection (absent in some upstream files).
    pub index: Option<usize>,
    /// Rollout number.
    pub rollout_index: usize,
    /// Example id.
    pub example_id: String,
    /// Reference answer.
    pub answer: Value,
    /// Parse outcome.
    pub parse: Option<ParseRecord>,
    /// Total reward.
    pub reward: Option<f64>,
    /// Component → value (null values, which a writer may produce for a
    /// non-finite number, are kept as `None`).
    pub rewards: BTreeMap<String, Option<f64>>,
    /// Profile that scored the sample.
    pub reward_profile: String,
    /// Token usage.
    pub usage: Usage,
    /// Per-call records (`cached`, `response_model`, `system_fingerprint`).
    pub requests: Vec<RequestView>,
    /// Sample wall time.
    pub latency_ms: Option<f64>,
    /// Stopped by a length or turn limit.
    pub truncated: bool,
    /// Error, for errored samples (a value that is not an object reads as
    /// absent).
    pub error: Option<ErrorView>,
    /// Upstream's error message key.
    pub completion_error: Option<Value>,
    /// Assistant calls made (a non-number reads as absent).
    pub turns: Option<f64>,
    /// Tool calls in the sample (a non-number reads as absent).
    pub tool_calls: Option<f64>,
    /// Summed tool time, ms (a non-number reads as absent).
    pub tool_time_ms: Option<f64>,
    /// Per-call tool records (`None` when not a list; entries that do not
    /// read as one are skipped).
    pub tool_interactions: Option<Vec<ToolInteraction>>,
    /// The environment's own fields.
    pub env: E,
}

/// The top-level fields of a result record an environment reads as its
/// own types (its `parsed` object, its compatibility fields). Read in the
/// same pass as the shared fields, so nothing is buffered; an environment
/// reads odd values leniently (see [`svbench_core::env_record::lenient`])
/// so they never fail a line.
pub trait EnvFields: Default + Send + Sync + 'static {
    /// The keys read, none of them a shared field's.
    const KEYS: &'static [&'static str];

    /// Reads the value of `KEYS[key]` from `map`.
    ///
    /// # Errors
    /// Only when the input is not JSON (or a reader is strict by choice).
    fn read<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error>;
}

impl EnvFields for () {
    const KEYS: &'static [&'static str] = &[];

    fn read<'de, A: MapAccess<'de>>(&mut self, _key: usize, map: &mut A) -> Result<(), A::Error> {
        map.next_value::<IgnoredAny>().map(|_| ())
    }
}

/// Implements [`EnvFields`] for a struct: each key is read into its field
/// through a reader type that converts into the field's type (e.g.
/// `lenient::Opt<String>` into `Option<String>`).
#[macro_export]
macro_rules! env_fields {
    ($ty:ty { $($key:literal => $field:ident : $reader:ty),+ $(,)? }) => {
        impl $crate::read::EnvFields for $ty {
            const KEYS: &'static [&'static str] = &[$($key),+];

            fn read<'de, A: ::serde::de::MapAccess<'de>>(
                &mut self,
                key: usize,
                map: &mut A,
            ) -> ::std::result::Result<(), A::Error> {
                let mut at = 0usize;
                $(
                    if key == at {
                        self.$field = map.next_value::<$reader>()?.into();
                        return Ok(());
                    }
                    at += 1;
                )+
                let _ = at;
                map.next_value::<::serde::de::IgnoredAny>().map(|_| ())
            }
        }
    };
}

/// The shared fields' keys, in [`RecordView`]'s order.
const SHARED_KEYS: [&str; 18] = [
    "index",
    "rollout_index",
    "example_id",
    "answer",
    "parse",
    "reward",
    "rewards",
    "reward_profile",
    "usage",
    "requests",
    "latency_ms",
    "truncated",
    "error",
    "completion_error",
    "turns",
    "tool_calls",
    "tool_time_ms",
    "tool_interactions",
];

/// A key of a record line as the reader files it (no allocation).
enum FieldKey {
    Shared(usize),
    Env(usize),
    Other,
}

struct FieldKeySeed(&'static [&'static str]);

impl<'de> de::DeserializeSeed<'de> for FieldKeySeed {
    type Value = FieldKey;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<FieldKey, D::Error> {
        de.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldKeySeed {
    type Value = FieldKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<FieldKey, E> {
        Ok(
            if let Some(i) = SHARED_KEYS.iter().position(|k| *k == key) {
                FieldKey::Shared(i)
            } else if let Some(i) = self.0.iter().position(|k| *k == key) {
                FieldKey::Env(i)
            } else {
                FieldKey::Other
            },
        )
    }
}

/// An object read as `T`, and anything else (null, strings, numbers,
/// arrays) as `None`, so odd upstream values never fail a line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectOrNone<T>(pub Option<T>);

impl<T> From<ObjectOrNone<T>> for Option<T> {
    fn from(v: ObjectOrNone<T>) -> Self {
        v.0
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for ObjectOrNone<T> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        object_or_none(de).map(ObjectOrNone)
    }
}

impl<'de, E: EnvFields> Deserialize<'de> for RecordView<E> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_map(RecordVisitor(std::marker::PhantomData))
    }
}

struct RecordVisitor<E>(std::marker::PhantomData<E>);

impl<'de, E: EnvFields> Visitor<'de> for RecordVisitor<E> {
    type Value = RecordView<E>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct RecordView")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RecordView<E>, A::Error> {
        use svbench_core::env_record::lenient::{List, Opt};
        let mut r = RecordView::<E>::default();
        // A key given twice fails the line, as a derived reader does.
        let mut seen = [false; SHARED_KEYS.len()];
        let mut env_seen = vec![false; E::KEYS.len()];
        while let Some(key) = map.next_key_seed(FieldKeySeed(E::KEYS))? {
            match key {
                FieldKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
                FieldKey::Env(i) => {
                    if std::mem::replace(&mut env_seen[i], true) {
                        return Err(de::Error::duplicate_field(E::KEYS[i]));
                    }
                    r.env.read(i, &mut map)?;
                }
                FieldKey::Shared(i) => {
                    if std::mem::replace(&mut seen[i], true) {
                        return Err(de::Error::duplicate_field(SHARED_KEYS[i]));
                    }
                    match i {
                        0 => r.index = map.next_value()?,
                        1 => r.rollout_index = map.next_value()?,
                        2 => r.example_id = map.next_value()?,
                        3 => r.answer = map.next_value()?,
                        4 => r.parse = map.next_value()?,
                        5 => r.reward = map.next_value()?,
                        6 => r.rewards = map.next_value()?,
                        7 => r.reward_profile = map.next_value()?,
                        8 => r.usage = map.next_value()?,
                        9 => r.requests = map.next_value()?,
                        10 => r.latency_ms = map.next_value()?,
                        11 => r.truncated = map.next_value()?,
                        12 => r.error = map.next_value::<ObjectOrNone<_>>()?.0,
                        13 => r.completion_error = map.next_value()?,
                        14 => r.turns = map.next_value::<Opt<_>>()?.0,
                        15 => r.tool_calls = map.next_value::<Opt<_>>()?.0,
                        16 => r.tool_time_ms = map.next_value::<Opt<_>>()?.0,
                        _ => r.tool_interactions = map.next_value::<List<_>>()?.0,
                    }
                }
            }
        }
        Ok(r)
    }
}

impl<E> RecordView<E> {
    /// The record without its environment part, and that part.
    pub fn split(self) -> (RecordView, E) {
        let RecordView {
            index,
            rollout_index,
            example_id,
            answer,
            parse,
            reward,
            rewards,
            reward_profile,
            usage,
            requests,
            latency_ms,
            truncated,
            error,
            completion_error,
            turns,
            tool_calls,
            tool_time_ms,
            tool_interactions,
            env,
        } = self;
        let shared = RecordView {
            index,
            rollout_index,
            example_id,
            answer,
            parse,
            reward,
            rewards,
            reward_profile,
            usage,
            requests,
            latency_ms,
            truncated,
            error,
            completion_error,
            turns,
            tool_calls,
            tool_time_ms,
            tool_interactions,
            env: (),
        };
        (shared, env)
    }

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
}

/// A value of a row's `info.meta` as text (non-strings rendered as JSON;
/// null and absent are `None`), as grouping keys read it.
#[must_use]
pub fn meta_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A per-call record, reduced to the cache flag and the observed model
/// revision (for the run manifest).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RequestView {
    /// Answered from the cache.
    #[serde(default)]
    pub cached: bool,
    /// Response `model` as reported.
    #[serde(default)]
    pub response_model: Option<String>,
    /// Response `system_fingerprint` as reported.
    #[serde(default)]
    pub system_fingerprint: Option<String>,
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
pub struct LoadedRecords<E = ()> {
    /// Records sorted by `(index, rollout_index)`; for a repeated key the
    /// last line wins.
    pub records: Vec<RecordView<E>>,
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
///
/// The file is streamed in chunks: each chunk's complete lines are parsed on
/// all cores while another thread hashes the bytes, so memory stays bounded
/// by the records kept, not the file size.
pub fn read_records<E: EnvFields>(
    path: &Path,
    strict: bool,
) -> Result<LoadedRecords<E>, ReportError> {
    read_records_chunked(path, strict, CHUNK)
}

fn read_records_chunked<E: EnvFields>(
    path: &Path,
    strict: bool,
    chunk: usize,
) -> Result<LoadedRecords<E>, ReportError> {
    let mut kept = Vec::new();
    let read = read_reduced(path, strict, chunk, &|r| r, &mut |line, r| {
        kept.push((line, r))
    })?;
    let (records, superseded) = dedupe_and_sort(kept);
    Ok(LoadedRecords {
        records,
        sha256: read.sha256,
        file_present: read.file_present,
        superseded,
        warnings: read.warnings,
    })
}

/// What reading `results.jsonl` found besides the records.
pub(crate) struct ReadInfo {
    /// SHA-256 of the file bytes.
    pub sha256: String,
    /// Whether the file exists.
    pub file_present: bool,
    /// Reading warnings.
    pub warnings: Vec<String>,
}

/// Streams `results.jsonl` in chunks of `chunk` bytes: each chunk's complete
/// lines are parsed (and reduced by `reduce`) on all cores while another
/// thread hashes the bytes, then handed to `sink` in file order with their
/// line numbers, so memory is bounded by what the sink keeps. A
/// torn or unparseable last line is skipped with a warning; any other
/// unparseable line is an error naming it.
pub(crate) fn read_reduced<E: EnvFields, T: Send>(
    path: &Path,
    strict: bool,
    chunk: usize,
    reduce: &(dyn Fn(RecordView<E>) -> T + Sync),
    sink: &mut dyn FnMut(usize, T),
) -> Result<ReadInfo, ReportError> {
    let streamed = stream_lines(
        path,
        chunk,
        true,
        &|line, _offset| parse_line(line, strict).map(reduce),
        sink,
    )?;
    Ok(match streamed {
        None => ReadInfo {
            sha256: sha256_hex(b""),
            file_present: false,
            warnings: vec!["results.jsonl is missing: the run recorded no sample".to_string()],
        },
        Some(s) => ReadInfo {
            sha256: s.sha256.unwrap_or_default(),
            file_present: true,
            warnings: s.warnings,
        },
    })
}

/// Why a line of `results.jsonl` yields no record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineFailure {
    /// Not a record (bad JSON, a field of the wrong type): fatal unless it
    /// is the last line, which may have been torn by an interrupted run.
    Unparseable(String),
    /// A record that `--strict` refuses: fatal wherever it stands.
    Strict(String),
}

/// What [`stream_lines`] found besides the records.
pub(crate) struct Streamed {
    /// SHA-256 of the file bytes, when asked for.
    pub sha256: Option<String>,
    /// Reading warnings (a skipped torn last line).
    pub warnings: Vec<String>,
}

/// The one reader of `results.jsonl` (the summary's and report.html's):
/// reads the file in chunks of `chunk` bytes, parses each chunk's complete
/// lines with `parse` (given the line and its byte offset in the file) on
/// all cores, optionally hashing the bytes on another thread, and hands the
/// results to `sink` in file order with their 1-based line numbers, so
/// memory is bounded by what the sink keeps. `None` when the file does not
/// exist. A torn or unparseable last line is skipped with a warning; any
/// other unparseable line, and any [`LineFailure::Strict`], is an error
/// naming it.
pub(crate) fn stream_lines<T, P>(
    path: &Path,
    chunk: usize,
    hash: bool,
    parse: &P,
    sink: &mut dyn FnMut(usize, T),
) -> Result<Option<Streamed>, ReportError>
where
    T: Send,
    P: Fn(&[u8], u64) -> Result<T, LineFailure> + Sync,
{
    let read_err = |source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let mut hasher = hash.then(Sha256::new);
    let mut buf: Vec<u8> = Vec::with_capacity(chunk + chunk / 4);
    // File offset of buf[0].
    let mut base = 0u64;
    let mut next_line = 1usize;
    // The first unparseable line; fatal unless it turns out to be the last.
    let mut failed: Option<(usize, String)> = None;
    let mut eof = false;
    while !eof {
        let start = buf.len();
        buf.resize(start + chunk, 0);
        let got = read_full(&mut file, &mut buf[start..]).map_err(read_err)?;
        buf.truncate(start + got);
        eof = got == 0;
        // Complete lines end at the last newline; at EOF the rest is a line too.
        let end = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None => continue,
            }
        };
        let lines = split_lines(&buf[..end], &mut next_line);
        let bytes = &buf[..end];
        let origin = bytes.as_ptr() as usize;
        let parsed = std::thread::scope(|scope| {
            let hashing = hasher
                .as_mut()
                .map(|h| scope.spawn(move || h.update(bytes)));
            let parsed = map_lines(&lines, threads, |l| {
                parse(l, base + (l.as_ptr() as usize - origin) as u64)
            });
            // Hashing a byte slice cannot panic.
            if let Some(h) = hashing {
                let _ = h.join();
            }
            parsed
        });
        for (line, result) in parsed {
            if let Some((bad, message)) = failed.take() {
                // A later non-blank line exists: the earlier failure is fatal.
                return Err(ReportError::ResultsLine {
                    path: path.to_path_buf(),
                    line: bad,
                    message,
                });
            }
            match result {
                Ok(rec) => sink(line, rec),
                Err(LineFailure::Strict(m)) => {
                    return Err(ReportError::Strict {
                        message: format!("{}:{line}: {m}", path.display()),
                    });
                }
                Err(LineFailure::Unparseable(message)) => failed = Some((line, message)),
            }
        }
        buf.drain(..end);
        base += end as u64;
    }
    let mut warnings = Vec::new();
    if let Some((line, message)) = failed {
        warnings.push(format!(
            "results.jsonl line {line} is torn or unparseable ({message}); it is the last line and was skipped"
        ));
    }
    Ok(Some(Streamed {
        sha256: hasher.map(|h| hex(&h.finalize())),
        warnings,
    }))
}

/// Bytes read per chunk.
pub(crate) const CHUNK: usize = 8 << 20;

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The non-blank lines of `bytes` with their 1-based numbers, continuing
/// the count in `next_line`.
pub(crate) fn split_lines<'a>(bytes: &'a [u8], next_line: &mut usize) -> Vec<(usize, &'a [u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |line: &'a [u8], n: usize| {
        if line.iter().any(|b| !b.is_ascii_whitespace()) {
            out.push((n, line));
        }
    };
    for nl in memchr::memchr_iter(b'\n', bytes) {
        push(&bytes[start..nl], *next_line);
        *next_line += 1;
        start = nl + 1;
    }
    if start < bytes.len() {
        push(&bytes[start..], *next_line);
        *next_line += 1;
    }
    out
}

/// Applies `f` to every line on up to `threads` scoped threads, keeping
/// the lines' order and numbers (shared by the summary's reader and
/// report.html's transcript reader).
pub(crate) fn map_lines<'a, R, F>(
    lines: &[(usize, &'a [u8])],
    threads: usize,
    f: F,
) -> Vec<(usize, R)>
where
    R: Send,
    F: Fn(&'a [u8]) -> R + Sync,
{
    let one = |part: &[(usize, &'a [u8])]| -> Vec<(usize, R)> {
        part.iter().map(|(n, l)| (*n, f(l))).collect()
    };
    if threads == 1 || lines.len() < 256 {
        return one(lines);
    }
    let chunk = lines.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let one = &one;
        let handles: Vec<_> = lines
            .chunks(chunk)
            .map(|part| (part, scope.spawn(move || one(part))))
            .collect();
        let mut out = Vec::with_capacity(lines.len());
        for (part, h) in handles {
            match h.join() {
                Ok(v) => out.extend(v),
                // A parser thread cannot panic on input; if it somehow did,
                // redo its part on this thread.
                Err(_) => out.extend(one(part)),
            }
        }
        out
    })
}

fn parse_line<E: EnvFields>(line: &[u8], strict: bool) -> Result<RecordView<E>, LineFailure> {
    let unparseable = |e: serde_json::Error| LineFailure::Unparseable(e.to_string());
    let rec: RecordView<E> = serde_json::from_slice(line).map_err(unparseable)?;
    if strict {
        let obj: serde_json::Map<String, Value> =
            serde_json::from_slice(line).map_err(unparseable)?;
        let missing: Vec<&str> = STRICT_KEYS
            .iter()
            .copied()
            .filter(|k| !obj.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            return Err(LineFailure::Strict(format!(
                "missing field(s) {}",
                missing.join(", ")
            )));
        }
        if !rec.is_errored() && rec.parse.is_none() {
            return Err(LineFailure::Strict(
                "scored record without `parse`".to_string(),
            ));
        }
    }
    Ok(rec)
}

/// The key under which a later line supersedes an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Key<I> {
    /// `(example_id, rollout_index)`.
    Id(I, usize),
    /// `(index, rollout_index)` of a record without an example id.
    Index(usize, usize),
    /// Neither: the line is its own key.
    Line(usize),
}

/// What de-duplication and ordering read from a record.
pub(crate) trait Keyed {
    /// The example id as kept (the text, or a fingerprint of it).
    type Id: Ord + ?Sized;
    /// The example id; `None` when empty.
    fn id_key(&self) -> Option<&Self::Id>;
    /// Position of the example in the selection.
    fn index(&self) -> Option<usize>;
    /// Rollout number.
    fn rollout(&self) -> usize;
    /// 1-based line number in the file.
    fn line(&self) -> usize;
}

impl<E> Keyed for (usize, RecordView<E>) {
    type Id = str;
    fn id_key(&self) -> Option<&str> {
        (!self.1.example_id.is_empty()).then_some(self.1.example_id.as_str())
    }
    fn index(&self) -> Option<usize> {
        self.1.index
    }
    fn rollout(&self) -> usize {
        self.1.rollout_index
    }
    fn line(&self) -> usize {
        self.0
    }
}

/// The key of a record.
fn key_of<T: Keyed>(rec: &T) -> Key<&T::Id> {
    match (rec.id_key(), rec.index()) {
        (Some(id), _) => Key::Id(id, rec.rollout()),
        (None, Some(i)) => Key::Index(i, rec.rollout()),
        (None, None) => Key::Line(rec.line()),
    }
}

/// Keeps the last line per `(example_id, rollout_index)` and sorts by
/// `(index, rollout_index)`, file order breaking ties.
fn dedupe_and_sort<E>(lines: Vec<(usize, RecordView<E>)>) -> (Vec<RecordView<E>>, usize) {
    let (sorted, superseded) = dedupe_and_sort_in_place(lines);
    (sorted.into_iter().map(|(_, r)| r).collect(), superseded)
}

/// The surviving positions of `n` records (in file order) in report order,
/// and how many were superseded: for each key (`key(pos)`) only the last
/// position survives; survivors sort by `(index, rollout_index)` as
/// `order(pos)` gives them (a record without an index sorts at its
/// position), file order breaking ties.
///
/// Both steps sort positions with comparators that read the records, so
/// the extra memory is two words per record (no hash table of keys).
pub(crate) fn survivors<K: Ord>(
    n: usize,
    key: impl Fn(usize) -> Key<K>,
    order: impl Fn(usize) -> (Option<usize>, usize),
) -> (Vec<usize>, usize) {
    let mut alive = vec![true; n];
    let mut superseded = 0;
    {
        // A line key is unique: only id and index keys can repeat.
        let mut by_key: Vec<usize> = (0..n)
            .filter(|&p| !matches!(key(p), Key::Line(_)))
            .collect();
        by_key.sort_unstable_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
        for w in by_key.windows(2) {
            if key(w[0]) == key(w[1]) {
                alive[w[0]] = false;
                superseded += 1;
            }
        }
    }
    let mut kept: Vec<usize> = (0..n).filter(|&p| alive[p]).collect();
    drop(alive);
    kept.sort_unstable_by_key(|&p| {
        let (index, rollout) = order(p);
        (index.unwrap_or(p), rollout, p)
    });
    (kept, superseded)
}

/// [`dedupe_and_sort`] for any keyed record (lines in file order), without
/// a second copy of the records: the sort works on a permutation applied in
/// place.
pub(crate) fn dedupe_and_sort_in_place<T: Keyed>(mut lines: Vec<T>) -> (Vec<T>, usize) {
    let (order, superseded) = survivors(
        lines.len(),
        |p| key_of(&lines[p]),
        |p| (lines[p].index(), lines[p].rollout()),
    );
    let kept = order.len();
    // Target i takes the record at perm[i]; superseded records go last.
    let mut perm = order;
    {
        let mut alive = vec![false; lines.len()];
        perm.iter().for_each(|&p| alive[p] = true);
        perm.extend((0..lines.len()).filter(|p| !alive[*p]));
    }
    for i in 0..perm.len() {
        let mut j = i;
        loop {
            let k = perm[j];
            perm[j] = j;
            if k == i || k == j {
                break;
            }
            lines.swap(j, k);
            j = k;
        }
    }
    lines.truncate(kept);
    (lines, superseded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(s: &str) -> RecordView {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn tolerant_fields() {
        let r = view(r#"{"error": null, "predicted_label": "Benign", "confidence": 0.5}"#);
        assert!(!r.is_errored());
        let r = view(r#"{"error": {"kind": "timeout", "message": "m"}}"#);
        assert_eq!(r.error_kind().as_deref(), Some("timeout"));
        let r = view(r#"{"error": "boom"}"#);
        assert!(!r.is_errored());
        assert_eq!(meta_text(Some(&Value::from(3))).as_deref(), Some("3"));
        assert_eq!(meta_text(Some(&Value::Null)), None);
    }

    /// An environment's own fields, read in the same pass.
    #[derive(Debug, Default, PartialEq)]
    struct Probe {
        label: Option<String>,
        flag: bool,
    }

    crate::env_fields!(Probe {
        "label" => label: svbench_core::env_record::lenient::Opt<String>,
        "flag" => flag: svbench_core::env_record::lenient::Truthy,
    });

    #[test]
    fn environment_fields_are_read_by_the_environment() {
        let line =
            r#"{"index": 2, "label": "x", "flag": [1], "prompt": [{"a": 1}], "reward": 0.5}"#;
        let r: RecordView<Probe> = serde_json::from_str(line).unwrap();
        assert_eq!((r.index, r.reward), (Some(2), Some(0.5)));
        assert_eq!(
            r.env,
            Probe {
                label: Some("x".into()),
                flag: true
            }
        );
        // The generic view skips them; an odd value reads as absent.
        let r: RecordView = serde_json::from_str(line).unwrap();
        assert_eq!(r.split().1, ());
        let r: RecordView<Probe> = serde_json::from_str(r#"{"label": 3}"#).unwrap();
        assert_eq!(r.env.label, None);
        // A key given twice fails the line, shared or the environment's.
        for dup in [
            r#"{"reward": 1, "reward": 2}"#,
            r#"{"label": "a", "label": "b"}"#,
        ] {
            let e = serde_json::from_str::<RecordView<Probe>>(dup).unwrap_err();
            assert!(e.to_string().contains("duplicate field"), "{e}");
        }
        assert!(serde_json::from_str::<RecordView>("[1]").is_err());
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let dir = std::env::temp_dir().join(format!("svbench-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.jsonl");
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&format!(
                "{{\"index\": {}, \"example_id\": \"e{}\", \"reward\": {}}}\n",
                39 - i,
                39 - i,
                i
            ));
            if i % 7 == 0 {
                text.push_str("   \n");
            }
        }
        text.push_str("{\"index\": 40, \"exa");
        std::fs::write(&path, &text).unwrap();
        let whole = read_records_chunked::<()>(&path, false, 1 << 20).unwrap();
        for chunk in [1, 7, 64, 333] {
            let r = read_records_chunked::<()>(&path, false, chunk).unwrap();
            assert_eq!(r.records, whole.records, "chunk {chunk}");
            assert_eq!(r.sha256, whole.sha256);
            assert_eq!(r.warnings, whole.warnings);
        }
        assert_eq!(whole.records.len(), 40);
        assert_eq!(whole.records[0].example_id, "e0");
        assert_eq!(whole.sha256, sha256_hex(text.as_bytes()));
        assert!(
            whole.warnings[0].contains("line 47"),
            "{:?}",
            whole.warnings
        );
        // The same damage in the middle is an error naming the line.
        let bad = text.replacen("{\"index\": 30", "{\"index: 30", 1);
        std::fs::write(&path, bad).unwrap();
        for chunk in [5, 1 << 20] {
            match read_records_chunked::<()>(&path, false, chunk) {
                Err(ReportError::ResultsLine { line, .. }) => assert_eq!(line, 12),
                other => panic!("expected a line error, got {other:?}"),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn strict_refusals_are_fatal_even_on_the_last_line() {
        let dir = std::env::temp_dir().join(format!("svbench-strict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.jsonl");
        let good = r#"{"index": 0, "rollout_index": 0, "example_id": "a", "reward": 1, "rewards": {}, "parse": {"status": "valid"}}"#;
        std::fs::write(&path, format!("{good}\n{{\"index\": 1}}\n")).unwrap();
        match read_records::<()>(&path, true) {
            Err(ReportError::Strict { message }) => assert_eq!(
                message,
                format!(
                    "{}:2: missing field(s) rollout_index, example_id, reward, rewards",
                    path.display()
                )
            ),
            other => panic!("expected a strict error, got {other:?}"),
        }
        // Without --strict the same file reads.
        assert_eq!(read_records::<()>(&path, false).unwrap().records.len(), 2);
        // An unparseable line before a strict refusal is the error reported.
        std::fs::write(&path, format!("{{\n{good}\n{{\"index\": 1}}\n")).unwrap();
        match read_records::<()>(&path, true) {
            Err(ReportError::ResultsLine { line, .. }) => assert_eq!(line, 1),
            other => panic!("expected a line error, got {other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
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
