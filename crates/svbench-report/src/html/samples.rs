//! `results.jsonl`, read for the transcript browser of `report.html`.
//!
//! Unlike the lean reader of [`crate::read`], this one shows what a person
//! reads: prompt, every turn, tool calls and results, parsed answer, reward
//! components and errors. Memory does not grow with the transcripts: a
//! first pass keeps, per sample, where its line is, how it is filed and how
//! large its transcript is ([`Entry`], ~80 bytes); the page then reads the
//! listed rows and the embedded transcripts back from the file by offset.
//! Fields are taken as raw JSON text (never re-serialised unless a text in
//! them is cut at [`super::TEXT_CAP`]) and copied into the page with `<`
//! escaped. Lines are parsed on all cores in chunks.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::{de, Deserialize};
use serde_json::value::RawValue;
use serde_json::Value;
use svbench_core::ParseStatus;

use crate::error::ReportError;
use crate::plugin::ReportPlugin;
use crate::read::records::{map_lines, stream_lines, LineFailure, CHUNK};

/// How a sample is filed in the browser (legend in the page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// The sample errored (no reward).
    Error,
    /// No usable answer (`parse.status` invalid or no_answer).
    Invalid,
    /// Graded wrong.
    Wrong,
    /// E1: the model abstained.
    Abstain,
    /// Graded correct.
    Correct,
    /// Scored, in an environment without a correct/wrong rule (E3–E6).
    Scored,
}

impl Outcome {
    /// Every outcome, in display order.
    pub const ALL: [Outcome; 6] = [
        Outcome::Correct,
        Outcome::Wrong,
        Outcome::Abstain,
        Outcome::Invalid,
        Outcome::Error,
        Outcome::Scored,
    ];

    /// The name used in the page and in `#outcome=` fragments.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Error => "error",
            Outcome::Invalid => "invalid",
            Outcome::Wrong => "wrong",
            Outcome::Abstain => "abstain",
            Outcome::Correct => "correct",
            Outcome::Scored => "scored",
        }
    }
}

/// One sample as the index pass keeps it: where its line is, how it sorts,
/// how it is filed and how large its transcript is (~80 bytes).
#[derive(Debug, Clone)]
pub struct Entry {
    /// Byte offset of the line in `results.jsonl`.
    offset: u64,
    /// Line length in bytes.
    len: u64,
    /// 1-based line number.
    line: u32,
    /// `index`, `u64::MAX` when absent.
    index: u64,
    /// Rollout number.
    rollout: u32,
    /// Fingerprint of the example id.
    id: [u64; 2],
    /// The example id is not empty.
    has_id: bool,
    /// How it is filed.
    pub outcome: Outcome,
    /// Interned reward profile.
    profile: u32,
    /// Bytes the transcript adds to the page (after the per-text cap).
    detail_bytes: u64,
    /// Texts of the transcript cut at [`super::TEXT_CAP`].
    cut_texts: u32,
}

impl Entry {
    /// Position in the file (reads in this order are sequential).
    pub(super) fn offset_key(&self) -> u64 {
        self.offset
    }

    /// Bytes the transcript adds to the page.
    pub fn detail_bytes(&self) -> u64 {
        self.detail_bytes
    }

    /// Texts of the transcript cut at [`super::TEXT_CAP`].
    pub fn cut_texts(&self) -> u32 {
        self.cut_texts
    }
}

impl crate::read::records::Keyed for Entry {
    type Id = [u64; 2];
    fn id_key(&self) -> Option<&[u64; 2]> {
        self.has_id.then_some(&self.id)
    }
    fn index(&self) -> Option<usize> {
        (self.index != u64::MAX).then_some(self.index as usize)
    }
    fn rollout(&self) -> usize {
        self.rollout as usize
    }
    fn line(&self) -> usize {
        self.line as usize
    }
}

/// The samples of a run, indexed (transcripts stay in the file).
#[derive(Debug, Clone, Default)]
pub struct SampleIndex {
    /// Sorted by `(index, rollout_index)`; for a repeated key the last line wins.
    pub entries: Vec<Entry>,
    /// Interned reward profiles.
    pub profiles: Vec<String>,
    /// Reading notes (torn last line, superseded lines).
    pub warnings: Vec<String>,
}

impl SampleIndex {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Reward profile of an entry (empty when unrecorded).
    pub fn profile(&self, e: &Entry) -> &str {
        self.profiles
            .get(e.profile as usize)
            .map_or("", String::as_str)
    }
}

/// One listed row of the browser, read back from the file.
#[derive(Debug, Clone)]
pub struct Row {
    /// Example id.
    pub example_id: String,
    /// Position in the selection.
    pub index: Option<usize>,
    /// Rollout number.
    pub rollout_index: usize,
    /// Split.
    pub split: String,
    /// Total reward.
    pub reward: Option<f64>,
    /// Reward profile that scored it.
    pub reward_profile: String,
    /// One line shown in the list (prediction, or start of the completion).
    pub preview: String,
}

/// One transcript, read back from the file: the prompt messages (raw JSON,
/// texts capped) and the rest as a JSON object (raw fields, `<` not yet
/// escaped).
#[derive(Debug, Clone)]
pub struct Transcript {
    /// Prompt messages.
    pub prompt: Vec<String>,
    /// The other fields.
    pub detail: String,
}

/// Raw view of a record's line: every shared field the browser shows,
/// unparsed (read with [`typed`], [`text`] and [`present`]). Each field is
/// the record's field of the same name; an environment's own top-level
/// keys are read from the line when its plugin asks ([`SampleView::other`]).
#[derive(Debug, Deserialize)]
#[allow(missing_docs)]
pub struct SampleView<'a> {
    #[serde(default, borrow)]
    pub index: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub rollout_index: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub example_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub split: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub question: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub info: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub prompt: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub answer: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub completion: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub completion_messages: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub tool_interactions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub parsed: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub parse: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub reward: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub rewards: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub reward_profile: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub error: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub completion_error: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub truncated: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub latency_ms: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub turns: Option<&'a RawValue>,
    /// The whole line.
    #[serde(skip)]
    line: &'a [u8],
}

impl<'a> SampleView<'a> {
    /// The view of one record's line.
    ///
    /// # Errors
    /// The line is not a JSON object.
    pub fn read(line: &'a [u8]) -> Result<Self, serde_json::Error> {
        let mut view: Self = serde_json::from_slice(line)?;
        view.line = line;
        Ok(view)
    }

    /// The top-level fields `keys` that the view does not hold (an
    /// environment's compatibility fields), found by reading the line again
    /// (so ask only when needed); each `None` when absent, all `None` when
    /// the line is no object.
    #[must_use]
    pub fn others<const N: usize>(&self, keys: [&str; N]) -> [Option<&'a RawValue>; N] {
        let mut de = serde_json::Deserializer::from_slice(self.line);
        de::DeserializeSeed::deserialize(FieldsOf(keys), &mut de).unwrap_or([None; N])
    }
}

/// Finds some top-level fields of a JSON object, skipping the others.
struct FieldsOf<'k, const N: usize>([&'k str; N]);

impl<'de, const N: usize> de::DeserializeSeed<'de> for FieldsOf<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de, const N: usize> de::Visitor<'de> for FieldsOf<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(at) = map.next_key_seed(KeyAmong(&self.0))? {
            match at {
                Some(i) => found[i] = Some(map.next_value::<&'de RawValue>()?),
                None => map.next_value::<de::IgnoredAny>().map(drop)?,
            }
        }
        Ok(found)
    }
}

/// A key's position among the wanted ones (`None`: not wanted), read
/// without copying it.
struct KeyAmong<'a, 'k>(&'a [&'k str]);

impl<'de> de::DeserializeSeed<'de> for KeyAmong<'_, '_> {
    type Value = Option<usize>;

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl de::Visitor<'_> for KeyAmong<'_, '_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == key))
    }
}

/// What the index pass reads from one line.
struct Indexed {
    entry: Entry,
    profile: String,
}

/// Reads `results.jsonl` into an index of its samples (one streaming pass;
/// transcripts are measured, not kept). A missing file is an empty run; a
/// torn or unparseable last line is skipped with a warning; any other
/// unparseable line is an error naming it (as [`crate::read`]).
pub fn read_samples(path: &Path, plugin: &dyn ReportPlugin) -> Result<SampleIndex, ReportError> {
    let mut kept: Vec<Entry> = Vec::new();
    let mut profiles: Vec<String> = Vec::new();
    let mut profile_ids: HashMap<String, u32> = HashMap::new();
    let streamed = stream_lines(
        path,
        CHUNK,
        false,
        &|l, offset| index_line(l, offset, plugin).map_err(LineFailure::Unparseable),
        &mut |line, mut p: Indexed| {
            p.entry.line = u32::try_from(line).unwrap_or(u32::MAX);
            p.entry.profile = match profile_ids.get(&p.profile) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(profiles.len()).unwrap_or(u32::MAX);
                    profiles.push(p.profile.clone());
                    profile_ids.insert(p.profile, id);
                    id
                }
            };
            kept.push(p.entry);
        },
    )?;
    let Some(streamed) = streamed else {
        return Ok(SampleIndex::default());
    };
    let mut warnings = streamed.warnings;
    let (entries, superseded) = crate::read::records::dedupe_and_sort_in_place(kept);
    if superseded > 0 {
        warnings.push(format!(
            "{superseded} line(s) of results.jsonl were superseded by a later line with the same key"
        ));
    }
    Ok(SampleIndex {
        entries,
        profiles,
        warnings,
    })
}

fn index_line(line: &[u8], offset: u64, plugin: &dyn ReportPlugin) -> Result<Indexed, String> {
    let v = SampleView::read(line).map_err(|e| e.to_string())?;
    let outcome = outcome(&v, plugin);
    let (prompt, detail, cut) = transcript_parts(&v, plugin);
    let id = text(v.example_id);
    Ok(Indexed {
        entry: Entry {
            offset,
            len: line.len() as u64,
            line: 0,
            index: typed::<usize>(v.index).map_or(u64::MAX, |i| i as u64),
            rollout: typed::<usize>(v.rollout_index)
                .map_or(0, |r| u32::try_from(r).unwrap_or(u32::MAX)),
            id: crate::read::lean::fingerprint(&id),
            has_id: !id.is_empty(),
            outcome,
            profile: 0,
            detail_bytes: (prompt.iter().map(|m| m.len() + 1).sum::<usize>() + detail.len() + 32)
                as u64,
            cut_texts: cut,
        },
        profile: text(v.reward_profile),
    })
}

/// Bytes of lines read back and parsed together.
const READ_BACK_BATCH: usize = 32 << 20;

/// Reads the lines of `entries` back from `file` (a seek where they are
/// not contiguous) and maps them with `f` on all cores, in the order given.
/// Lines are read in batches of at most [`READ_BACK_BATCH`] bytes (or one
/// line), so memory holds one batch and the results.
pub(super) fn read_back<R: Send, E: Send>(
    file: &mut std::fs::File,
    entries: &[&Entry],
    f: impl Fn(&[u8]) -> Result<R, E> + Sync,
) -> std::io::Result<Vec<Result<R, E>>> {
    use std::io::{Seek, SeekFrom};
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let mut out = Vec::with_capacity(entries.len());
    let mut buf: Vec<u8> = Vec::new();
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    let mut pos: Option<u64> = None;
    let mut flush = |buf: &mut Vec<u8>, spans: &mut Vec<std::ops::Range<usize>>| {
        let lines: Vec<(usize, &[u8])> = spans
            .iter()
            .enumerate()
            .map(|(i, r)| (i, &buf[r.clone()]))
            .collect();
        out.extend(map_lines(&lines, threads, &f).into_iter().map(|(_, r)| r));
        buf.clear();
        spans.clear();
    };
    for e in entries {
        let len = usize::try_from(e.len).unwrap_or(usize::MAX);
        if !spans.is_empty() && buf.len().saturating_add(len) > READ_BACK_BATCH {
            flush(&mut buf, &mut spans);
        }
        if pos != Some(e.offset) {
            file.seek(SeekFrom::Start(e.offset))?;
        }
        let start = buf.len();
        buf.resize(start + len, 0);
        file.read_exact(&mut buf[start..])?;
        spans.push(start..start + len);
        pos = Some(e.offset + e.len);
    }
    if !spans.is_empty() {
        flush(&mut buf, &mut spans);
    }
    Ok(out)
}

/// The listed row of a line.
///
/// # Errors
/// The line is not a record's JSON (the file changed since it was indexed).
pub(super) fn row_of(line: &[u8], plugin: &dyn ReportPlugin) -> Result<Row, serde_json::Error> {
    let v = SampleView::read(line)?;
    let completion = text(v.completion);
    Ok(Row {
        example_id: text(v.example_id),
        index: typed(v.index),
        rollout_index: typed(v.rollout_index).unwrap_or(0),
        split: text(v.split),
        reward: typed(v.reward),
        reward_profile: text(v.reward_profile),
        preview: preview(&v, plugin, &completion),
    })
}

/// The transcript of a line.
///
/// # Errors
/// The line is not a record's JSON (the file changed since it was indexed).
pub(super) fn transcript_of(
    line: &[u8],
    plugin: &dyn ReportPlugin,
) -> Result<Transcript, serde_json::Error> {
    let v = SampleView::read(line)?;
    let (prompt, detail, _) = transcript_parts(&v, plugin);
    Ok(Transcript {
        prompt: prompt.into_iter().map(Cow::into_owned).collect(),
        detail,
    })
}

/// How a line is filed.
fn outcome(v: &SampleView, plugin: &dyn ReportPlugin) -> Outcome {
    let errored = present(v.error).is_some() || present(v.completion_error).is_some();
    if errored {
        return Outcome::Error;
    }
    let parse: Option<svbench_core::ParseRecord> = typed(v.parse);
    if let Some(p) = &parse {
        if matches!(p.status, ParseStatus::Invalid | ParseStatus::NoAnswer) {
            return Outcome::Invalid;
        }
    }
    plugin.grade(v)
}

/// The prompt messages (each an element of a `prompt` array) and the rest
/// of the transcript as a JSON object, every text capped at
/// [`super::TEXT_CAP`]; with the number of texts cut.
fn transcript_parts<'a>(
    v: &SampleView<'a>,
    plugin: &dyn ReportPlugin,
) -> (Vec<Cow<'a, str>>, String, u32) {
    let mut cut = 0u32;
    let prompt: Vec<Cow<'a, str>> = present(v.prompt)
        .and_then(|p| serde_json::from_str::<Vec<&RawValue>>(p.get()).ok())
        .map(|msgs| msgs.iter().map(|m| cap_texts(m.get(), &mut cut)).collect())
        .unwrap_or_default();
    let mut detail = String::new();
    detail.push('{');
    let fields: [(&str, Option<&RawValue>); 16] = [
        ("question", v.question),
        ("answer", v.answer),
        ("completion", v.completion),
        ("completion_messages", v.completion_messages),
        ("tool_interactions", v.tool_interactions),
        ("parse", v.parse),
        ("parsed", v.parsed),
        ("reward", v.reward),
        ("rewards", v.rewards),
        ("reward_profile", v.reward_profile),
        ("error", v.error),
        ("completion_error", v.completion_error),
        ("truncated", v.truncated),
        ("latency_ms", v.latency_ms),
        ("turns", v.turns),
        (
            "prompt_raw",
            present(v.prompt).filter(|_| prompt.is_empty()),
        ),
    ];
    let mut first = true;
    for (key, raw) in fields {
        let Some(raw) = present(raw) else { continue };
        if !first {
            detail.push(',');
        }
        first = false;
        detail.push('"');
        detail.push_str(key);
        detail.push_str("\":");
        detail.push_str(&cap_texts(raw.get(), &mut cut));
    }
    if let Some((key, json)) = plugin.sample_extra(v) {
        if !first {
            detail.push(',');
        }
        detail.push('"');
        detail.push_str(key);
        detail.push_str("\":");
        detail.push_str(&cap_texts(&json, &mut cut));
    }
    detail.push('}');
    (prompt, detail, cut)
}

/// Raw JSON with every string longer than [`super::TEXT_CAP`] bytes cut
/// to that size (at a character boundary) and ended by a visible marker;
/// borrowed unchanged when no string can be that long.
pub fn cap_texts<'a>(raw: &'a str, cut: &mut u32) -> Cow<'a, str> {
    if raw.len() <= super::TEXT_CAP {
        return Cow::Borrowed(raw);
    }
    let Ok(mut value) = serde_json::from_str::<Value>(raw) else {
        return Cow::Borrowed(raw);
    };
    let before = *cut;
    cap_value(&mut value, cut);
    if *cut == before {
        return Cow::Borrowed(raw);
    }
    match serde_json::to_string(&value) {
        Ok(text) => Cow::Owned(text),
        Err(_) => Cow::Borrowed(raw),
    }
}

fn cap_value(v: &mut Value, cut: &mut u32) {
    match v {
        Value::String(s) if s.len() > super::TEXT_CAP => {
            let mut end = super::TEXT_CAP;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let total = s.len();
            s.truncate(end);
            s.push_str(&super::truncation_marker(end, total));
            *cut = cut.saturating_add(1);
        }
        Value::Array(items) => items.iter_mut().for_each(|x| cap_value(x, cut)),
        Value::Object(map) => map.values_mut().for_each(|x| cap_value(x, cut)),
        _ => {}
    }
}

/// `Some(value)` for a present, non-null raw field.
pub fn present(raw: Option<&RawValue>) -> Option<&RawValue> {
    raw.filter(|r| r.get() != "null")
}

/// A present raw field read as `T` (`None` when absent, null or not a `T`).
pub fn typed<T: serde::de::DeserializeOwned>(raw: Option<&RawValue>) -> Option<T> {
    serde_json::from_str(present(raw)?.get()).ok()
}

/// A raw field as text: strings unquoted, other values as their JSON.
pub fn text(raw: Option<&RawValue>) -> String {
    match present(raw) {
        None => String::new(),
        Some(r) => serde_json::from_str::<String>(r.get()).unwrap_or_else(|_| r.get().to_string()),
    }
}

const PREVIEW_CHARS: usize = 100;

/// One line for the list: the predicted label and the gold one when the
/// environment has labels, else the completion's start.
fn preview(v: &SampleView, plugin: &dyn ReportPlugin, completion: &str) -> String {
    let mut out = String::new();
    if let Some((label, conf)) = plugin.predicted_label(v) {
        if !label.is_empty() {
            out.push_str(&label);
            if let Some(c) = conf {
                out.push_str(&format!(" ({c})"));
            }
            out.push_str(" · gold ");
            out.push_str(&text(v.answer));
            return out;
        }
    }
    if let Some(e) = present(v.error).and_then(|e| serde_json::from_str::<Value>(e.get()).ok()) {
        let kind = e.get("kind").and_then(Value::as_str).unwrap_or("error");
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        out = format!("{kind}: {msg}");
    } else {
        out.push_str(completion);
    }
    let collapsed: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(PREVIEW_CHARS) {
        Some((i, _)) => format!("{}…", &collapsed[..i]),
        None => collapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_fields_are_read_from_the_line_on_request() {
        let line = br#"{"answer": "x", "predicted_label": "Benign", "confid\u0065nce": 0.5, "rest": [1, {"a": 2}]}"#;
        let v = SampleView::read(line).expect("an object");
        let [label, conf, missing] = v.others(["predicted_label", "confidence", "missing"]);
        assert_eq!(label.map(RawValue::get), Some(r#""Benign""#));
        // An escaped key is the key it spells.
        assert_eq!(conf.map(RawValue::get), Some("0.5"));
        assert!(missing.is_none());
        assert_eq!(text(v.answer), "x");
    }
}
