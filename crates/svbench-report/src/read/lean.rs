//! `results.jsonl` reduced to the numbers the summary and the plots use.
//!
//! Each line is parsed into a [`RecordView`] and at once reduced to a few
//! numbers kept in columns, one entry per line in file order: reward,
//! latency, E1 outcome (a code and a confidence), an example fingerprint,
//! status flags, one interned id for the record's texts (profile, error
//! kind, source, scenario) and its component values (in a shared arena).
//! Usage counters are kept only for records that have them; an E4 record
//! is reduced to its [`E4Sample`] (gold, call, grouping keys, evidence
//! counts) on the parsing thread, not kept whole; and only E2 records keep
//! their full view (E2's metrics read the findings and patches; its
//! datasets hold hundreds of items, not millions).
//!
//! De-duplication and ordering produce [`LeanRecords::order`], the
//! surviving positions in report order; the columns are not copied. A
//! 1,000,000-record E1 run with three reward components thus holds about
//! 90 bytes per record while reading and less once the summary has taken
//! what it needs (issue 13 item 12).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::Path;

use svbench_core::record::Usage;
use svbench_core::ParseStatus;

use super::records::{read_reduced, survivors, Key, RecordView, CHUNK};
use crate::e1::outcome::{classify, status_of, E1Sample, Prediction};
use crate::e4::E4Sample;
use crate::error::ReportError;

/// "None" for the interned ids below.
pub const NONE: u32 = u32::MAX;

/// The texts of a record, interned (entries of [`LeanRecords::strings`],
/// [`NONE`] when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tags {
    /// `reward_profile` (the empty string when unrecorded).
    pub profile: u32,
    /// Error kind; [`NONE`] when the record did not error.
    pub error: u32,
    /// `meta.source` (E1).
    pub source: u32,
    /// `meta.scenario` (E1).
    pub scenario: u32,
}

/// Flag bits of [`LeanRecords::flags`]; the low two bits hold the parse
/// status.
const TRUNCATED: u8 = 1 << 2;
const HAS_EXAMPLE: u8 = 1 << 3;

fn status_bits(s: ParseStatus) -> u8 {
    match s {
        ParseStatus::Valid => 0,
        ParseStatus::LabelOnly => 1,
        ParseStatus::Invalid => 2,
        ParseStatus::NoAnswer => 3,
    }
}

fn status_from_bits(b: u8) -> ParseStatus {
    match b & 3 {
        0 => ParseStatus::Valid,
        1 => ParseStatus::LabelOnly,
        2 => ParseStatus::Invalid,
        _ => ParseStatus::NoAnswer,
    }
}

/// E1 outcome codes of [`LeanRecords::e1`]: no outcome (not E1, or
/// errored), an unusable gold label, or a sample packed as
/// `SAMPLE + prediction | gold << 2 | label_only << 3` (its confidence in
/// [`LeanRecords::e1_confidence`]).
const E1_NONE: u8 = 0;
const E1_UNUSABLE: u8 = 1;
const E1_SAMPLE: u8 = 2;

fn e1_code(e1: Option<Option<E1Sample>>) -> (u8, f64) {
    match e1 {
        None => (E1_NONE, 0.0),
        Some(None) => (E1_UNUSABLE, 0.0),
        Some(Some(s)) => {
            let p = match s.prediction {
                Prediction::Malicious => 0,
                Prediction::Benign => 1,
                Prediction::Abstain => 2,
                Prediction::Invalid => 3,
            };
            let bits = p | u8::from(s.gold_malicious) << 2 | u8::from(s.label_only) << 3;
            (E1_SAMPLE + bits, s.confidence)
        }
    }
}

fn e1_sample(code: u8, confidence: f64) -> Option<Option<E1Sample>> {
    match code {
        E1_NONE => None,
        E1_UNUSABLE => Some(None),
        c => {
            let bits = c - E1_SAMPLE;
            let prediction = match bits & 3 {
                0 => Prediction::Malicious,
                1 => Prediction::Benign,
                2 => Prediction::Abstain,
                _ => Prediction::Invalid,
            };
            Some(Some(E1Sample {
                prediction,
                confidence,
                gold_malicious: bits & 4 != 0,
                label_only: bits & 8 != 0,
            }))
        }
    }
}

/// Per-record model-call facts (absent for builtin policies).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calls {
    /// Token usage.
    pub usage: Usage,
    /// Requests answered from the cache.
    pub cached: u64,
}

/// The reduced records of a run: columns indexed by a record's position
/// (its line among the parsed lines, in file order) and the surviving
/// positions in report order, de-duplicated and sorted as
/// [`super::LoadedRecords`].
#[derive(Debug, Clone, Default)]
pub struct LeanRecords {
    /// Surviving positions sorted by `(index, rollout_index)`; for a
    /// repeated key the last line wins.
    pub order: Vec<usize>,
    /// Total reward, `NaN` when absent (JSON has no NaN).
    pub reward: Vec<f64>,
    /// Sample wall time, `NaN` when absent.
    pub latency: Vec<f64>,
    /// Fingerprint of `example_id` (meaningful when the id is not empty).
    pub example: Vec<[u64; 2]>,
    /// Parse status, truncation and whether the example id is not empty.
    flags: Vec<u8>,
    /// The record's texts: an entry of `tag_table`.
    tags: Vec<u32>,
    /// Distinct [`Tags`].
    tag_table: Vec<Tags>,
    /// E1 outcome codes (E1 runs only).
    e1: Vec<u8>,
    /// E1 stated confidences (E1 runs only).
    e1_confidence: Vec<f64>,
    /// Component values start at this position of `values`.
    comps_start: Vec<u32>,
    /// Component names: an entry of `shapes`.
    comps_shape: Vec<u32>,
    /// Component values (`NaN` for a recorded null).
    values: Vec<f64>,
    /// Component-name lists (indices into `names`, in key order).
    shapes: Vec<Vec<u32>>,
    /// Component names.
    pub names: Vec<String>,
    /// Interned text (profiles, error kinds, sources, scenarios).
    pub strings: Vec<String>,
    /// Model-call facts of the surviving records that have any (in no
    /// particular order: only their sums are used).
    pub calls: Vec<Calls>,
    /// Full views of E2 records, by position.
    full: Vec<RecordView>,
    /// E4 samples by position (`None`: no usable gold label), E4 runs only.
    e4: Vec<Option<E4Sample>>,
    /// Distinct revision tokens of the records kept.
    pub revisions: BTreeSet<String>,
    /// SHA-256 of the file bytes (of the empty string when the file is absent).
    pub sha256: String,
    /// Whether `results.jsonl` exists.
    pub file_present: bool,
    /// Lines superseded by a later line with the same key.
    pub superseded: usize,
    /// Reading warnings (torn last line, …).
    pub warnings: Vec<String>,
}

impl LeanRecords {
    /// Number of surviving records.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no record survived.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// An interned string.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.strings.get(id as usize).map(String::as_str)
    }

    /// The interned texts of the record at `pos`.
    pub fn tags(&self, pos: usize) -> Tags {
        self.tags
            .get(pos)
            .and_then(|t| self.tag_table.get(*t as usize))
            .copied()
            .unwrap_or(Tags {
                profile: NONE,
                error: NONE,
                source: NONE,
                scenario: NONE,
            })
    }

    /// `reward_profile` of the record at `pos` (empty when unrecorded).
    pub fn profile(&self, pos: usize) -> &str {
        self.text(self.tags(pos).profile).unwrap_or("")
    }

    /// Whether the record at `pos` errored.
    pub fn is_errored(&self, pos: usize) -> bool {
        self.tags(pos).error != NONE
    }

    /// Total reward of the record at `pos`.
    pub fn reward(&self, pos: usize) -> Option<f64> {
        self.reward.get(pos).copied().filter(|x| !x.is_nan())
    }

    /// Sample wall time of the record at `pos`.
    pub fn latency_ms(&self, pos: usize) -> Option<f64> {
        self.latency.get(pos).copied().filter(|x| !x.is_nan())
    }

    /// Parse status as counted.
    pub fn status(&self, pos: usize) -> ParseStatus {
        status_from_bits(self.flags.get(pos).copied().unwrap_or(0))
    }

    /// Whether the record at `pos` was stopped by a limit.
    pub fn truncated(&self, pos: usize) -> bool {
        self.flags.get(pos).is_some_and(|f| f & TRUNCATED != 0)
    }

    /// Fingerprint of the example id; `None` when the id is empty (an
    /// example of its own).
    pub fn example(&self, pos: usize) -> Option<[u64; 2]> {
        let has = self.flags.get(pos).is_some_and(|f| f & HAS_EXAMPLE != 0);
        has.then(|| self.example.get(pos).copied()).flatten()
    }

    /// E1 outcome (`None` outside E1 and for errored records; `Some(None)`
    /// for an unusable gold).
    pub fn e1(&self, pos: usize) -> Option<Option<E1Sample>> {
        let code = self.e1.get(pos).copied().unwrap_or(E1_NONE);
        e1_sample(code, self.e1_confidence.get(pos).copied().unwrap_or(0.0))
    }

    /// `(component name, value)` of the record at `pos` in name order,
    /// `None` for a recorded null.
    pub fn components(&self, pos: usize) -> impl Iterator<Item = (&str, Option<f64>)> + '_ {
        let names = self
            .comps_shape
            .get(pos)
            .and_then(|s| self.shapes.get(*s as usize))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let start = self.comps_start.get(pos).copied().unwrap_or(0) as usize;
        names.iter().enumerate().map(move |(k, n)| {
            let v = self.values.get(start + k).copied().unwrap_or(f64::NAN);
            (
                self.names
                    .get(*n as usize)
                    .map(String::as_str)
                    .unwrap_or(""),
                (!v.is_nan()).then_some(v),
            )
        })
    }

    /// The full view of an E2 record.
    pub fn full(&self, pos: usize) -> Option<&RecordView> {
        self.full.get(pos)
    }

    /// The E4 sample of a record (E4 runs; `None` without a usable gold
    /// label).
    pub fn e4(&self, pos: usize) -> Option<&E4Sample> {
        self.e4.get(pos).and_then(Option::as_ref)
    }

    /// Takes the E4 sample of a record out of the column.
    pub fn take_e4(&mut self, pos: usize) -> Option<E4Sample> {
        self.e4.get_mut(pos).and_then(Option::take)
    }

    /// Frees the latency column (once the summary has taken its values).
    pub fn release_latency(&mut self) {
        self.latency = Vec::new();
    }

    /// Frees the reward column.
    pub fn release_reward(&mut self) {
        self.reward = Vec::new();
    }

    /// Frees the component values.
    pub fn release_components(&mut self) {
        self.comps_start = Vec::new();
        self.comps_shape = Vec::new();
        self.values = Vec::new();
    }

    /// Frees the per-record data (what the summary and plots read), keeping
    /// hashes, warnings, names and the revision tokens; the run then reads
    /// as having no record.
    pub fn release_records(&mut self) {
        self.order = Vec::new();
        self.reward = Vec::new();
        self.latency = Vec::new();
        self.example = Vec::new();
        self.flags = Vec::new();
        self.tags = Vec::new();
        self.e1 = Vec::new();
        self.e1_confidence = Vec::new();
        self.release_components();
        self.calls = Vec::new();
        self.full = Vec::new();
        self.e4 = Vec::new();
    }
}

/// What a line is reduced to on a parsing thread, before interning.
struct Parsed {
    example: [u64; 2],
    has_example: bool,
    index: Option<usize>,
    rollout: usize,
    reward: f64,
    latency: f64,
    status: ParseStatus,
    truncated: bool,
    e1: Option<Option<E1Sample>>,
    profile: String,
    error: Option<String>,
    source: Option<String>,
    scenario: Option<String>,
    comps: BTreeMap<String, Option<f64>>,
    calls: Option<Calls>,
    revisions: Vec<String>,
    full: Option<Box<RecordView>>,
    e4: Option<E4Sample>,
}

/// A 128-bit fingerprint of an example id (two SipHash passes with
/// different prefixes; collisions are not a practical concern).
pub(crate) fn fingerprint(id: &str) -> [u64; 2] {
    let mut out = [0u64; 2];
    for (salt, slot) in out.iter_mut().enumerate() {
        let mut h = std::hash::DefaultHasher::new();
        (salt as u8).hash(&mut h);
        id.hash(&mut h);
        *slot = h.finish();
    }
    out
}

/// What a reader keeps of each record beyond the shared columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep {
    /// E1 outcomes and grouping keys.
    pub e1: bool,
    /// E4 samples ([`crate::e4::sample`]).
    pub e4: bool,
    /// The full view (E2).
    pub full: bool,
}

fn reduce(r: RecordView, keep: Keep) -> Parsed {
    let (is_e1, keep_full) = (keep.e1, keep.full);
    let e4 = if keep.e4 { crate::e4::sample(&r) } else { None };
    let error = r.error_kind();
    let status = status_of(&r, is_e1);
    let e1 = (is_e1 && error.is_none()).then(|| classify(&r).ok());
    let nonempty = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
    let cached = if r.requests.is_empty() {
        r.usage.cached_requests
    } else {
        r.requests.iter().filter(|q| q.cached).count() as u64
    };
    let revisions: Vec<String> = r
        .requests
        .iter()
        .filter_map(|req| {
            crate::manifest::revision_token(
                nonempty(&req.response_model),
                nonempty(&req.system_fingerprint),
            )
        })
        .collect();
    let calls = (r.usage != Usage::default() || cached > 0).then(|| Calls {
        usage: r.usage.clone(),
        cached,
    });
    let (source, scenario) = if is_e1 {
        (r.meta("source"), r.meta("scenario"))
    } else {
        (None, None)
    };
    let mut r = r;
    Parsed {
        example: fingerprint(&r.example_id),
        has_example: !r.example_id.is_empty(),
        index: r.index,
        rollout: r.rollout_index,
        reward: r.reward.unwrap_or(f64::NAN),
        latency: r.latency_ms.unwrap_or(f64::NAN),
        status,
        truncated: r.truncated,
        e1,
        profile: std::mem::take(&mut r.reward_profile),
        error,
        source,
        scenario,
        comps: std::mem::take(&mut r.rewards),
        calls,
        revisions,
        full: keep_full.then(|| Box::new(r)),
        e4,
    }
}

/// Interns strings and shapes on the reading thread.
#[derive(Default)]
struct Interner {
    strings: HashMap<String, u32>,
    names: HashMap<String, u32>,
    shapes: HashMap<Vec<u32>, u32>,
    tags: HashMap<Tags, u32>,
}

fn intern(map: &mut HashMap<String, u32>, list: &mut Vec<String>, s: String) -> u32 {
    if let Some(&id) = map.get(&s) {
        return id;
    }
    let id = u32::try_from(list.len()).unwrap_or(NONE);
    list.push(s.clone());
    map.insert(s, id);
    id
}

fn intern_copy<K: Hash + Eq + Clone>(map: &mut HashMap<K, u32>, list: &mut Vec<K>, k: K) -> u32 {
    if let Some(&id) = map.get(&k) {
        return id;
    }
    let id = u32::try_from(list.len()).unwrap_or(NONE);
    list.push(k.clone());
    map.insert(k, id);
    id
}

/// Reads `results.jsonl` into lean records, keeping per record what
/// `keep` says beyond the shared columns.
pub fn read_lean(path: &Path, strict: bool, keep: Keep) -> Result<LeanRecords, ReportError> {
    read_lean_chunked(path, strict, keep, CHUNK)
}

fn read_lean_chunked(
    path: &Path,
    strict: bool,
    keep: Keep,
    chunk: usize,
) -> Result<LeanRecords, ReportError> {
    let is_e1 = keep.e1;
    let mut out = LeanRecords::default();
    let mut int = Interner::default();
    // Dedupe keys, dropped once the order is known.
    let mut index: Vec<u64> = Vec::new();
    let mut rollout: Vec<u32> = Vec::new();
    // Model-call facts and revision tokens by position.
    let mut calls: Vec<(usize, Calls)> = Vec::new();
    let mut revisions: Vec<(usize, Vec<String>)> = Vec::new();
    let read = read_reduced(
        path,
        strict,
        chunk,
        &|r| reduce(r, keep),
        &mut |_line, p: Parsed| {
            let pos = out.reward.len();
            let mut tags = Tags {
                profile: intern(&mut int.strings, &mut out.strings, p.profile),
                error: NONE,
                source: NONE,
                scenario: NONE,
            };
            if let Some(e) = p.error {
                tags.error = intern(&mut int.strings, &mut out.strings, e);
            }
            if let Some(s) = p.source {
                tags.source = intern(&mut int.strings, &mut out.strings, s);
            }
            if let Some(s) = p.scenario {
                tags.scenario = intern(&mut int.strings, &mut out.strings, s);
            }
            out.tags
                .push(intern_copy(&mut int.tags, &mut out.tag_table, tags));
            let mut shape = Vec::with_capacity(p.comps.len());
            out.comps_start
                .push(u32::try_from(out.values.len()).unwrap_or(NONE));
            for (name, v) in p.comps {
                shape.push(intern(&mut int.names, &mut out.names, name));
                out.values.push(v.unwrap_or(f64::NAN));
            }
            out.comps_shape
                .push(intern_copy(&mut int.shapes, &mut out.shapes, shape));
            out.reward.push(p.reward);
            out.latency.push(p.latency);
            out.example.push(p.example);
            out.flags.push(
                status_bits(p.status)
                    | if p.truncated { TRUNCATED } else { 0 }
                    | if p.has_example { HAS_EXAMPLE } else { 0 },
            );
            if is_e1 {
                let (code, confidence) = e1_code(p.e1);
                out.e1.push(code);
                out.e1_confidence.push(confidence);
            }
            index.push(p.index.map_or(u64::MAX, |i| i as u64));
            rollout.push(u32::try_from(p.rollout).unwrap_or(u32::MAX));
            if let Some(c) = p.calls {
                calls.push((pos, c));
            }
            if !p.revisions.is_empty() {
                revisions.push((pos, p.revisions));
            }
            if keep.e4 {
                out.e4.push(p.e4);
            }
            if let Some(f) = p.full {
                // Aligned with the positions: E2 keeps every record's view.
                out.full.resize_with(pos, RecordView::default);
                out.full.push(*f);
            }
        },
    )?;
    let idx = |p: usize| (index[p] != u64::MAX).then_some(index[p] as usize);
    let (order, superseded) = survivors(
        index.len(),
        |p| match (out.example(p), idx(p)) {
            (Some(id), _) => Key::Id(id, rollout[p] as usize),
            (None, Some(i)) => Key::Index(i, rollout[p] as usize),
            (None, None) => Key::Line(p),
        },
        |p| (idx(p), rollout[p] as usize),
    );
    drop(index);
    drop(rollout);
    let mut alive = vec![false; out.reward.len()];
    order.iter().for_each(|&p| alive[p] = true);
    out.calls = calls
        .into_iter()
        .filter(|(p, _)| alive[*p])
        .map(|(_, c)| c)
        .collect();
    out.revisions = revisions
        .into_iter()
        .filter(|(p, _)| alive[*p])
        .flat_map(|(_, r)| r)
        .collect();
    out.order = order;
    out.sha256 = read.sha256;
    out.file_present = read.file_present;
    out.superseded = superseded;
    out.warnings = read.warnings;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e4_records_are_reduced_to_samples_not_kept_whole() {
        // Many records, each with a large question: what is kept per record
        // is its sample (a few fields), never the record (issue item 11d:
        // a 200,000-record E4 report held every record).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let question = "q".repeat(64 << 10);
        let lines: String = (0..400)
            .map(|i| {
                let gold = ["Phishing", "Legitimate", "Abstain"][i % 3];
                format!(
                    "{}\n",
                    serde_json::json!({"example_id": format!("e{i}"), "index": i,
                        "answer": gold, "question": question, "reward": 1.0,
                        "parse": {"status": "valid", "reason": null, "format_ok": true}})
                )
            })
            .collect();
        std::fs::write(&path, lines).unwrap();
        let keep = Keep {
            e1: false,
            e4: true,
            full: false,
        };
        let mut lr = read_lean(&path, false, keep).unwrap();
        assert_eq!(lr.len(), 400);
        for p in 0..400 {
            assert!(lr.full(p).is_none(), "record {p} kept whole");
            let gold = lr.e4(p).map(|s| s.gold.name());
            assert_eq!(gold, Some(["Phishing", "Legitimate", "Abstain"][p % 3]));
        }
        assert!(lr.take_e4(0).is_some() && lr.e4(0).is_none());
    }

    #[test]
    fn e1_codes_round_trip() {
        assert_eq!(e1_sample(e1_code(None).0, 0.0), None);
        assert_eq!(e1_sample(e1_code(Some(None)).0, 0.0), Some(None));
        for gold in [false, true] {
            let mut samples = vec![
                E1Sample::decided(true, gold, 0.7),
                E1Sample::decided(false, gold, 0.1),
                E1Sample::abstain(gold),
                E1Sample::invalid(gold),
            ];
            let mut label_only = E1Sample::decided(false, gold, 0.0);
            label_only.label_only = true;
            samples.push(label_only);
            for s in samples {
                let (code, confidence) = e1_code(Some(Some(s)));
                assert_eq!(e1_sample(code, confidence), Some(Some(s)));
            }
        }
    }
}
