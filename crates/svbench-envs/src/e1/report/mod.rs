//! E1 (`sv-env-network-logs`) metrics from recorded fields (E1 §4).

pub mod board;
pub mod ci;
pub mod compute;
pub mod guard;
pub mod headline;
pub mod markdown;
pub mod outcome;
pub mod plots;
pub mod plugin;
pub mod record;
pub mod summary;

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use crate::e1::report::summary::{
    CostMatrixRecord, E1Ci95, E1Group, E1Groups, E1Metrics, E1Summary, E1UpstreamMetrics,
};
use serde_json::Value;
use svbench_core::cost::CostMatrix;
use svbench_core::metrics::BootstrapConfig;

pub use compute::{compute, E1Computed, Tally};
pub use outcome::{classify, E1Sample, Prediction};

/// Default v1 cost matrix (E1 §3.2).
pub const DEFAULT_COSTS: CostMatrix = CostMatrix {
    cost_fp: 0.25,
    cost_fn: 1.0,
    cost_abstain: 0.15,
};

/// The scored E1 samples of a run with their grouping keys and example units.
#[derive(Debug, Clone, Default)]
pub struct E1Input {
    /// Samples in record order.
    pub samples: Vec<E1Sample>,
    /// `meta.source` per sample, as an index into `keys` (`unknown` when missing).
    pub sources: Vec<u32>,
    /// `meta.scenario` per sample, as an index into `keys` (`unknown` when missing).
    pub scenarios: Vec<u32>,
    /// The distinct grouping keys.
    pub keys: Vec<String>,
    /// Contiguous sample ranges belonging to one example (bootstrap units).
    pub units: Vec<Range<usize>>,
    key_ids: HashMap<String, u32>,
    last_example: Option<String>,
}

impl E1Input {
    /// Adds a sample of example `example` (samples of one example must be
    /// added consecutively).
    pub fn push(
        &mut self,
        sample: E1Sample,
        example: &str,
        source: Option<String>,
        scenario: Option<String>,
    ) {
        let same = self.last_example.as_deref() == Some(example) && !example.is_empty();
        self.push_unit(sample, same, source.as_deref(), scenario.as_deref());
        self.last_example = Some(example.to_string());
    }

    /// Adds a sample; `same_example` when it belongs to the example of the
    /// previous sample.
    pub fn push_unit(
        &mut self,
        sample: E1Sample,
        same_example: bool,
        source: Option<&str>,
        scenario: Option<&str>,
    ) {
        let i = self.samples.len();
        self.samples.push(sample);
        let source = self.key(source.unwrap_or("unknown"));
        self.sources.push(source);
        let scenario = self.key(scenario.unwrap_or("unknown"));
        self.scenarios.push(scenario);
        match self.units.last_mut() {
            Some(r) if same_example => r.end = i + 1,
            _ => self.units.push(i..i + 1),
        }
    }

    /// Adds a sample without recording example units (`units` stays
    /// empty): for callers that compute the intervals themselves.
    pub fn push_sample(&mut self, sample: E1Sample, source: Option<&str>, scenario: Option<&str>) {
        self.samples.push(sample);
        let source = self.key(source.unwrap_or("unknown"));
        self.sources.push(source);
        let scenario = self.key(scenario.unwrap_or("unknown"));
        self.scenarios.push(scenario);
    }

    fn key(&mut self, k: &str) -> u32 {
        if let Some(&id) = self.key_ids.get(k) {
            return id;
        }
        let id = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        self.keys.push(k.to_string());
        self.key_ids.insert(k.to_string(), id);
        id
    }
}

/// The v1 cost matrix for `expected_cost_v1`: the run's `reward_params` when
/// its profile is v1 (and they are valid), else the defaults.
pub fn cost_matrix(
    profile: Option<&str>,
    params: &BTreeMap<String, Value>,
    recorded: Option<&Value>,
) -> (CostMatrix, CostMatrixRecord) {
    let read = |get: &dyn Fn(&str) -> Option<f64>| {
        Some(CostMatrix {
            cost_fp: get("cost_fp")?,
            cost_fn: get("cost_fn")?,
            cost_abstain: get("cost_abstain")?,
        })
        .filter(|m| m.validate().is_ok())
    };
    let from_params = (profile == Some("v1"))
        .then(|| read(&|k| params.get(k).and_then(Value::as_f64)))
        .flatten();
    let from_record = || read(&|k| recorded?.get(k).and_then(Value::as_f64));
    let (m, source) = match (from_params, from_record()) {
        (Some(m), _) => (m, "reward_params"),
        (None, Some(m)) => (m, "env_provenance"),
        (None, None) => (DEFAULT_COSTS, "defaults"),
    };
    (
        m,
        CostMatrixRecord {
            cost_fp: m.cost_fp,
            cost_fn: m.cost_fn,
            cost_abstain: m.cost_abstain,
            source: source.to_string(),
        },
    )
}

/// Everything E1 contributes to a summary.
#[derive(Debug, Clone)]
pub struct E1Report {
    /// `metrics` (invalid-aware).
    pub metrics: E1Metrics,
    /// `upstream_compat`.
    pub upstream: E1UpstreamMetrics,
    /// The top-level `e1` object.
    pub e1: E1Summary,
    /// Counts of the whole set.
    pub tally: Tally,
}

/// Computes E1's metrics, groups and intervals.
pub fn e1_report(
    input: &E1Input,
    matrix: (CostMatrix, CostMatrixRecord),
    cfg: BootstrapConfig,
) -> E1Report {
    let ci95 = ci::ci95(&input.samples, &input.units, cfg);
    e1_report_with_ci(input, matrix, ci95)
}

/// Computes E1's metrics and groups, with intervals computed by the caller
/// (the summary shares one bootstrap between E1's metrics and the reward).
pub fn e1_report_with_ci(
    input: &E1Input,
    matrix: (CostMatrix, CostMatrixRecord),
    ci95: Option<E1Ci95>,
) -> E1Report {
    let (m, record) = matrix;
    let all = compute(&input.samples, &m);
    let groups = E1Groups {
        source: groups(&input.samples, &input.sources, &input.keys, &m),
        scenario: groups(&input.samples, &input.scenarios, &input.keys, &m),
    };
    E1Report {
        metrics: all.metrics,
        upstream: all.upstream,
        tally: all.tally,
        e1: E1Summary {
            extras: all.extras,
            cost_matrix_v1: record,
            groups,
            ci95,
            undefined: all.undefined,
        },
    }
}

fn groups(
    samples: &[E1Sample],
    ids: &[u32],
    keys: &[String],
    m: &CostMatrix,
) -> BTreeMap<String, E1Group> {
    let mut by: BTreeMap<&str, Vec<E1Sample>> = BTreeMap::new();
    for (s, k) in samples.iter().zip(ids) {
        let key = keys.get(*k as usize).map_or("unknown", String::as_str);
        by.entry(key).or_default().push(*s);
    }
    by.into_iter()
        .map(|(k, v)| {
            let c = compute(&v, &m.clone());
            (
                k.to_string(),
                E1Group {
                    n: v.len() as u64,
                    metrics: c.metrics,
                    extras: c.extras,
                    undefined: c.undefined,
                },
            )
        })
        .collect()
}
