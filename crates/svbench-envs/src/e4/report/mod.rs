//! E4 (`sv-env-phishing-detection`) metrics from recorded fields (E4 §8).

pub mod board;
pub mod ci;
pub mod compute;
pub mod evidence;
pub mod guard;
pub mod headline;
pub mod highlight;
pub mod markdown;
pub mod plots;
pub mod plugin;
pub mod record;
pub mod sample;
pub mod summary;

use std::collections::BTreeMap;
use std::ops::Range;

use crate::e4::report::summary::{
    E4Ci95, E4CostMatrixRecord, E4Group, E4Groups, E4Metrics, E4UpstreamMetrics,
};
use serde_json::Value;
use svbench_core::cost::{CostMatrix, TriageMatrix};
use svbench_core::metrics::BootstrapConfig;

pub use sample::{sample, Call, E4Sample, EvidenceRow, Gold};

/// Default v1 triage costs (E4 §5.2).
pub const DEFAULT_COSTS: TriageMatrix = TriageMatrix {
    binary: CostMatrix {
        cost_fp: 0.5,
        cost_fn: 1.0,
        cost_abstain: 0.3,
    },
    cost_amb_positive: 0.3,
    cost_amb_negative: 0.6,
};

/// The config keys of the two ambiguous-row costs.
const AMBIGUOUS_KEYS: [&str; 2] = ["cost_amb_phishing", "cost_amb_legitimate"];

/// The scored E4 rows of a run with their example units.
#[derive(Debug, Clone, Default)]
pub struct E4Input {
    /// Rows in record order.
    pub samples: Vec<E4Sample>,
    /// Contiguous row ranges belonging to one example (bootstrap units).
    pub units: Vec<Range<usize>>,
}

impl E4Input {
    /// Adds a row; `same_example` when it belongs to the example of the
    /// previous row.
    pub fn push(&mut self, s: E4Sample, same_example: bool) {
        let i = self.samples.len();
        self.samples.push(s);
        match self.units.last_mut() {
            Some(r) if same_example => r.end = i + 1,
            _ => self.units.push(i..i + 1),
        }
    }
}

/// The v1 triage matrix for `expected_cost_v1`: the run's `reward_params`
/// when its profile is v1 (and they are valid), else the defaults.
pub fn cost_matrix(
    profile: Option<&str>,
    params: &BTreeMap<String, Value>,
    recorded: Option<&Value>,
) -> (TriageMatrix, E4CostMatrixRecord) {
    let read = |get: &dyn Fn(&str) -> Option<f64>| {
        Some(TriageMatrix {
            binary: CostMatrix {
                cost_fp: get("cost_fp")?,
                cost_fn: get("cost_fn")?,
                cost_abstain: get("cost_abstain")?,
            },
            cost_amb_positive: get(AMBIGUOUS_KEYS[0])?,
            cost_amb_negative: get(AMBIGUOUS_KEYS[1])?,
        })
        .filter(|m| m.validate(AMBIGUOUS_KEYS).is_ok())
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
    let record = E4CostMatrixRecord {
        cost_fn: m.binary.cost_fn,
        cost_fp: m.binary.cost_fp,
        cost_abstain: m.binary.cost_abstain,
        cost_amb_phishing: m.cost_amb_positive,
        cost_amb_legitimate: m.cost_amb_negative,
        source: source.to_string(),
    };
    (m, record)
}

/// Everything E4 contributes to a summary.
#[derive(Debug, Clone)]
pub struct E4Report {
    /// `metrics` (reward means filled in by the caller).
    pub metrics: E4Metrics,
    /// `upstream_compat`.
    pub upstream: E4UpstreamMetrics,
}

/// Computes E4's metrics, groups and intervals.
pub fn e4_report(
    input: &E4Input,
    matrix: (TriageMatrix, E4CostMatrixRecord),
    cfg: BootstrapConfig,
) -> E4Report {
    e4_report_with_ci(input, matrix, ci::ci95(&input.samples, &input.units, cfg))
}

/// Computes E4's metrics and groups with the given intervals.
pub fn e4_report_with_ci(
    input: &E4Input,
    matrix: (TriageMatrix, E4CostMatrixRecord),
    ci95: Option<E4Ci95>,
) -> E4Report {
    let (m, record) = matrix;
    let rows: Vec<&E4Sample> = input.samples.iter().collect();
    let group = |key: fn(&E4Sample) -> &str| -> BTreeMap<String, E4Group> {
        let mut by: BTreeMap<&str, Vec<&E4Sample>> = BTreeMap::new();
        for s in &rows {
            by.entry(key(s)).or_default().push(s);
        }
        by.into_iter()
            .map(|(k, v)| {
                let g = E4Group {
                    n: v.len() as u64,
                    metrics: compute::metric_set(&v, &m),
                };
                (k.to_string(), g)
            })
            .collect()
    };
    let groups = E4Groups {
        phishing_type: group(|s| &s.phishing_type),
        difficulty: group(|s| &s.difficulty),
        family: group(|s| &s.family),
        gold: group(|s| s.gold.name()),
    };
    E4Report {
        metrics: E4Metrics {
            reward: None,
            components: BTreeMap::new(),
            all: compute::metric_set(&rows, &m),
            groups,
            ci95,
            cost_matrix_v1: record,
        },
        upstream: compute::upstream(&rows),
    }
}
