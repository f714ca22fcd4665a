//! `results.jsonl` reduced to the numbers the summary and the plots use.
//!
//! Each line is parsed into a [`RecordView`] and at once reduced to a
//! [`Lean`] record of fixed size (about 100 bytes): reward, component values
//! (in a shared arena), E1 outcome, grouping keys, latency, parse status and
//! counters, with repeated text (profiles, error kinds, component names,
//! sources, scenarios) interned. Only E2 records keep their full view (E2's
//! metrics read the findings and patches; its datasets hold hundreds of
//! items, not millions). A 1,000,000-record E1 run thus needs ~150 MB
//! instead of ~2 KB per record.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::Path;

use svbench_core::record::Usage;
use svbench_core::ParseStatus;

use super::records::{dedupe_and_sort_in_place, read_reduced, Keyed, RecordView, CHUNK};
use crate::e1::outcome::{classify, status_of, E1Sample};
use crate::error::ReportError;

/// "None" for the interned ids and sentinel-coded numbers below.
pub const NONE: u32 = u32::MAX;

/// One record, reduced.
#[derive(Debug, Clone, PartialEq)]
pub struct Lean {
    /// Fingerprint of `example_id` (128 bits); meaningful with `has_example`.
    example: [u64; 2],
    /// `index`, `u64::MAX` when absent.
    index: u64,
    /// Total reward, `NaN` when absent (JSON has no NaN).
    reward: f64,
    /// Sample wall time, `NaN` when absent.
    latency_ms: f64,
    /// 1-based line in the file.
    line: u32,
    /// Rollout number.
    pub rollout_index: u32,
    /// Component values start at this position of [`LeanRecords::values`].
    comps_start: u32,
    /// Component names: an entry of [`LeanRecords::shapes`].
    comps_shape: u32,
    /// Interned `reward_profile`.
    pub profile: u32,
    /// Interned error kind; [`NONE`] when the record did not error.
    pub error: u32,
    /// Interned `meta.source` ([`NONE`] when absent).
    pub source: u32,
    /// Interned `meta.scenario` ([`NONE`] when absent).
    pub scenario: u32,
    /// Usage, cache hits and response revisions: an entry of
    /// [`LeanRecords::calls`], [`NONE`] when all zero.
    calls: u32,
    /// Full view (E2 only): an entry of [`LeanRecords::full`], else [`NONE`].
    full: u32,
    /// Parse status as counted.
    pub status: ParseStatus,
    /// Stopped by a limit.
    pub truncated: bool,
    /// The example id is not empty.
    has_example: bool,
    /// E1 outcome (`None` outside E1; `Some(None)` for an unusable gold).
    pub e1: Option<Option<E1Sample>>,
}

impl Lean {
    /// Total reward.
    pub fn reward(&self) -> Option<f64> {
        (!self.reward.is_nan()).then_some(self.reward)
    }

    /// Sample wall time.
    pub fn latency_ms(&self) -> Option<f64> {
        (!self.latency_ms.is_nan()).then_some(self.latency_ms)
    }

    /// Fingerprint of the example id; `None` when the id is empty (an
    /// example of its own).
    pub fn example(&self) -> Option<[u64; 2]> {
        self.has_example.then_some(self.example)
    }

    /// Whether the sample errored.
    pub fn is_errored(&self) -> bool {
        self.error != NONE
    }
}

impl Keyed for Lean {
    type Id = [u64; 2];
    fn id_key(&self) -> Option<[u64; 2]> {
        self.example()
    }
    fn index(&self) -> Option<usize> {
        (self.index != u64::MAX).then_some(self.index as usize)
    }
    fn rollout(&self) -> usize {
        self.rollout_index as usize
    }
    fn line(&self) -> usize {
        self.line as usize
    }
}

/// Per-record model-call facts (absent for builtin policies).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calls {
    /// Token usage.
    pub usage: Usage,
    /// Requests answered from the cache.
    pub cached: u64,
    /// `model+fingerprint` tokens of the responses (see
    /// [`crate::manifest::observed_revision`]): an entry of
    /// `revision_sets`, [`NONE`] when none.
    revisions: u32,
}

/// The reduced records of a run, sorted and de-duplicated as
/// [`super::LoadedRecords`].
#[derive(Debug, Clone, Default)]
pub struct LeanRecords {
    /// Records sorted by `(index, rollout_index)`; for a repeated key the
    /// last line wins.
    pub records: Vec<Lean>,
    /// Interned text (profiles, error kinds, sources, scenarios).
    pub strings: Vec<String>,
    /// Component names.
    pub names: Vec<String>,
    /// Component-name lists (indices into `names`, in key order).
    pub shapes: Vec<Vec<u32>>,
    /// Component values (`NaN` for a recorded null).
    pub values: Vec<f64>,
    /// Model-call facts.
    pub calls: Vec<Calls>,
    /// Full views of E2 records.
    pub full: Vec<RecordView>,
    /// Distinct sets of revision tokens.
    revision_sets: Vec<Vec<String>>,
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
    /// An interned string.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.strings.get(id as usize).map(String::as_str)
    }

    /// `reward_profile` of a record (empty when unrecorded).
    pub fn profile(&self, r: &Lean) -> &str {
        self.text(r.profile).unwrap_or("")
    }

    /// The error kind of an errored record.
    pub fn error_kind(&self, r: &Lean) -> Option<&str> {
        self.text(r.error)
    }

    /// `(component name, value)` of a record in name order, `None` for a
    /// recorded null.
    pub fn components<'a>(&'a self, r: &Lean) -> impl Iterator<Item = (&'a str, Option<f64>)> + 'a {
        let names = self
            .shapes
            .get(r.comps_shape as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let start = r.comps_start as usize;
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

    /// Model-call facts of a record.
    pub fn calls(&self, r: &Lean) -> Option<&Calls> {
        self.calls.get(r.calls as usize)
    }

    /// Frees the per-record data (what the summary and plots read), keeping
    /// hashes, warnings and the revision tokens.
    pub fn release_records(&mut self) {
        self.records = Vec::new();
        self.values = Vec::new();
        self.calls = Vec::new();
        self.full = Vec::new();
        self.revision_sets = Vec::new();
    }

    /// The full view of an E2 record.
    pub fn full(&self, r: &Lean) -> Option<&RecordView> {
        self.full.get(r.full as usize)
    }
}

/// What a line is reduced to on a parsing thread, before interning.
struct Parsed {
    lean: Lean,
    profile: String,
    error: Option<String>,
    source: Option<String>,
    scenario: Option<String>,
    comps: BTreeMap<String, Option<f64>>,
    calls: Option<Calls>,
    revisions: Vec<String>,
    full: Option<Box<RecordView>>,
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

fn reduce(r: RecordView, is_e1: bool, keep_full: bool) -> Parsed {
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
    let calls =
        (r.usage != Usage::default() || cached > 0 || !revisions.is_empty()).then(|| Calls {
            usage: r.usage.clone(),
            cached,
            revisions: NONE,
        });
    let lean = Lean {
        example: fingerprint(&r.example_id),
        has_example: !r.example_id.is_empty(),
        index: r.index.map_or(u64::MAX, |i| i as u64),
        line: 0,
        rollout_index: u32::try_from(r.rollout_index).unwrap_or(u32::MAX),
        reward: r.reward.unwrap_or(f64::NAN),
        latency_ms: r.latency_ms.unwrap_or(f64::NAN),
        comps_start: 0,
        comps_shape: NONE,
        profile: NONE,
        error: NONE,
        source: NONE,
        scenario: NONE,
        calls: NONE,
        full: NONE,
        status,
        truncated: r.truncated,
        e1,
    };
    let (source, scenario) = if is_e1 {
        (r.meta("source"), r.meta("scenario"))
    } else {
        (None, None)
    };
    let mut r = r;
    let comps = std::mem::take(&mut r.rewards);
    Parsed {
        lean,
        profile: std::mem::take(&mut r.reward_profile),
        error,
        source,
        scenario,
        comps,
        calls,
        revisions,
        full: keep_full.then(|| Box::new(r)),
    }
}

/// Interns strings and component shapes on the reading thread.
#[derive(Default)]
struct Interner {
    strings: HashMap<String, u32>,
    names: HashMap<String, u32>,
    shapes: HashMap<Vec<u32>, u32>,
    revisions: HashMap<Vec<String>, u32>,
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

/// Reads `results.jsonl` into lean records. `is_e1` decides whether E1
/// outcomes and grouping keys are kept, `keep_full` whether the full view
/// is (E2).
pub fn read_lean(
    path: &Path,
    strict: bool,
    is_e1: bool,
    keep_full: bool,
) -> Result<LeanRecords, ReportError> {
    read_lean_chunked(path, strict, is_e1, keep_full, CHUNK)
}

fn read_lean_chunked(
    path: &Path,
    strict: bool,
    is_e1: bool,
    keep_full: bool,
    chunk: usize,
) -> Result<LeanRecords, ReportError> {
    let mut out = LeanRecords::default();
    let mut int = Interner::default();
    let mut kept: Vec<Lean> = Vec::new();
    let read = read_reduced(
        path,
        strict,
        chunk,
        &|r| reduce(r, is_e1, keep_full),
        &mut |line, p: Parsed| {
            let mut lean = p.lean;
            lean.line = u32::try_from(line).unwrap_or(u32::MAX);
            lean.profile = intern(&mut int.strings, &mut out.strings, p.profile);
            if let Some(e) = p.error {
                lean.error = intern(&mut int.strings, &mut out.strings, e);
            }
            if let Some(s) = p.source {
                lean.source = intern(&mut int.strings, &mut out.strings, s);
            }
            if let Some(s) = p.scenario {
                lean.scenario = intern(&mut int.strings, &mut out.strings, s);
            }
            let mut shape = Vec::with_capacity(p.comps.len());
            lean.comps_start = u32::try_from(out.values.len()).unwrap_or(NONE);
            for (name, v) in p.comps {
                shape.push(intern(&mut int.names, &mut out.names, name));
                out.values.push(v.unwrap_or(f64::NAN));
            }
            lean.comps_shape = match int.shapes.get(&shape) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(out.shapes.len()).unwrap_or(NONE);
                    out.shapes.push(shape.clone());
                    int.shapes.insert(shape, id);
                    id
                }
            };
            if let Some(mut c) = p.calls {
                if !p.revisions.is_empty() {
                    c.revisions = match int.revisions.get(&p.revisions) {
                        Some(&id) => id,
                        None => {
                            let id = u32::try_from(out.revision_sets.len()).unwrap_or(NONE);
                            out.revision_sets.push(p.revisions.clone());
                            int.revisions.insert(p.revisions, id);
                            id
                        }
                    };
                }
                lean.calls = u32::try_from(out.calls.len()).unwrap_or(NONE);
                out.calls.push(c);
            }
            if let Some(f) = p.full {
                lean.full = u32::try_from(out.full.len()).unwrap_or(NONE);
                out.full.push(*f);
            }
            kept.push(lean);
        },
    )?;
    let (sorted, superseded) = dedupe_and_sort_in_place(kept);
    out.records = sorted;
    out.revisions = out
        .records
        .iter()
        .filter_map(|r| out.calls(r))
        .filter_map(|c| out.revision_sets.get(c.revisions as usize))
        .flatten()
        .cloned()
        .collect();
    out.sha256 = read.sha256;
    out.file_present = read.file_present;
    out.superseded = superseded;
    out.warnings = read.warnings;
    Ok(out)
}
