//! `results.jsonl` reduced to the numbers the summary and the plots use.
//!
//! Each line is parsed into a [`RecordView`] and at once reduced to a few
//! numbers kept in columns, one entry per line in file order: reward,
//! latency, an example fingerprint, status flags, one interned id for the
//! record's texts (profile, error kind, the environment's two grouping
//! keys) and its component values (in a shared arena). Usage counters are
//! kept only for records that have them. The environment's part of the
//! record is reduced by its plugin ([`EnvReport::reduce`]) on the parsing
//! thread to its sample, returned beside the columns by position: E1's is
//! an outcome code, E4's a row of a few fields, E2's the full view (its
//! metrics read the findings and patches; its datasets hold hundreds of
//! items, not millions).
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
use crate::error::ReportError;
use crate::plugin::EnvReport;

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
    /// The environment's grouping keys ([`EnvReport::groups`]).
    pub groups: [u32; 2],
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
                groups: [NONE; 2],
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
        self.release_components();
        self.calls = Vec::new();
    }
}

/// What a line is reduced to on a parsing thread, before interning.
struct Parsed<S> {
    example: [u64; 2],
    has_example: bool,
    index: Option<usize>,
    rollout: usize,
    reward: f64,
    latency: f64,
    status: ParseStatus,
    truncated: bool,
    profile: String,
    error: Option<String>,
    groups: [Option<String>; 2],
    comps: BTreeMap<String, Option<f64>>,
    calls: Option<Calls>,
    revisions: Vec<String>,
    sample: S,
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

fn reduce<P: EnvReport>(r: RecordView<P::Fields>, plugin: &P) -> Parsed<P::Sample> {
    let error = r.error_kind();
    let status = match &r.parse {
        Some(p) => p.status,
        None => plugin.status_without_parse(&r),
    };
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
    let groups = plugin.groups(&r);
    let mut r = r;
    let errored = error.is_some();
    Parsed {
        example: fingerprint(&r.example_id),
        has_example: !r.example_id.is_empty(),
        index: r.index,
        rollout: r.rollout_index,
        reward: r.reward.unwrap_or(f64::NAN),
        latency: r.latency_ms.unwrap_or(f64::NAN),
        status,
        truncated: r.truncated,
        profile: std::mem::take(&mut r.reward_profile),
        error,
        groups,
        comps: std::mem::take(&mut r.rewards),
        calls,
        revisions,
        sample: plugin.reduce(r, errored),
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

/// Reads `results.jsonl` into lean records and, by position, the samples
/// `plugin` reduces each record's environment part to.
pub fn read_lean<P: EnvReport>(
    path: &Path,
    strict: bool,
    plugin: &P,
) -> Result<(LeanRecords, Vec<P::Sample>), ReportError> {
    read_lean_chunked(path, strict, plugin, CHUNK)
}

fn read_lean_chunked<P: EnvReport>(
    path: &Path,
    strict: bool,
    plugin: &P,
    chunk: usize,
) -> Result<(LeanRecords, Vec<P::Sample>), ReportError> {
    let mut out = LeanRecords::default();
    let mut samples = Vec::new();
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
        &|r| reduce(r, plugin),
        &mut |_line, p: Parsed<P::Sample>| {
            let pos = out.reward.len();
            let mut tags = Tags {
                profile: intern(&mut int.strings, &mut out.strings, p.profile),
                error: NONE,
                groups: [NONE; 2],
            };
            if let Some(e) = p.error {
                tags.error = intern(&mut int.strings, &mut out.strings, e);
            }
            for (slot, key) in tags.groups.iter_mut().zip(p.groups) {
                if let Some(k) = key {
                    *slot = intern(&mut int.strings, &mut out.strings, k);
                }
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
            index.push(p.index.map_or(u64::MAX, |i| i as u64));
            rollout.push(u32::try_from(p.rollout).unwrap_or(u32::MAX));
            if let Some(c) = p.calls {
                calls.push((pos, c));
            }
            if !p.revisions.is_empty() {
                revisions.push((pos, p.revisions));
            }
            samples.push(p.sample);
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
    Ok((out, samples))
}
