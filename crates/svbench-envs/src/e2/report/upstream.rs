//! E2's upstream-named metrics (spec E2 §6, harness §4.1): upstream
//! `bench/report.py` definitions, computed from each record's compatibility
//! fields (`predicted_violations`, `oracle_violations`,
//! `post_patch_violations`, `patch`, `patch_applied`, `valid_json`,
//! `fixture_type`) and its tool records.

use std::collections::{BTreeMap, BTreeSet};

use crate::e2::report::record::ViolationEntry;
use crate::e2::report::summary::{
    E2Episode, E2FindingQuality, E2Metrics, E2PatchMetrics, E2SeverityCounts, E2ToolEconomy,
    E2ToolUse,
};
use serde::Deserialize;
use serde_json::Value;
use svbench_core::metrics::f1_score;

use crate::e2::report::record::E2Fields;
use svbench_report::read::RecordView;

/// Upstream severity levels, in `severity_breakdown` order.
pub const SEVERITIES: [&str; 3] = ["high", "med", "low"];

/// The tools of `tool_distribution` (harness §4.1).
pub const TOOLS: [&str; 3] = ["opa", "kube-linter", "semgrep"];

/// Analyzer namespaces a tool prefix may name.
const NAMESPACES: [&str; 3] = ["kube-linter", "semgrep", "opa"];

/// Upstream's severity normalisation (spec E2 §5.1, the same rule as the
/// environment's `upstream_severity`): lower-cased; `medium` → med,
/// `critical` → high, anything else → med.
pub fn severity(text: Option<&str>) -> &'static str {
    match text.map(str::to_ascii_lowercase).as_deref() {
        Some("low") => "low",
        Some("high" | "critical") => "high",
        _ => "med",
    }
}

/// Severity weight: low 0.3, med 0.6, high 1.0.
pub fn weight(severity: &str) -> f64 {
    match severity {
        "low" => 0.3,
        "high" => 1.0,
        _ => 0.6,
    }
}

/// The tool a `tool` field names (`run_*` aliases map onto their tool).
fn tool_name(tool: &str) -> String {
    match tool {
        "run_kubelinter" | "run_kube_linter" | "kubelinter" => "kube-linter".to_string(),
        "run_semgrep" => "semgrep".to_string(),
        "run_opa" => "opa".to_string(),
        other => other.to_string(),
    }
}

/// A normalised finding list: entries as listed (duplicates kept) and the
/// id → severity map (last duplicate wins).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    /// `(id, severity)` per entry, in order.
    pub entries: Vec<(String, &'static str)>,
    /// Distinct ids with the severity of their last entry.
    pub map: BTreeMap<String, &'static str>,
}

/// Normalises one list as upstream's report does: id from `id`, else
/// `tool/rule_id`; severities normalised; when any id carries a known tool
/// prefix, unprefixed ids get the fixture's primary prefix and other tools'
/// ids are dropped. Entries without an id are skipped.
///
/// The prefix decision is made per list (upstream normalised each list on
/// its own); the reward's primary filter, which looks at both lists and drops
/// unprefixed ids, is a different rule (E2 §5.1).
pub fn normalise<'a>(
    list: impl IntoIterator<Item = &'a ViolationEntry>,
    fixture_type: &str,
) -> Findings {
    let primary = if fixture_type == "tf" {
        "semgrep"
    } else {
        "kube-linter"
    };
    let mut raw: Vec<(String, &'static str)> = Vec::new();
    for entry in list {
        let id = if entry.id.is_empty() {
            match (&entry.tool, &entry.rule_id) {
                (Some(t), Some(r)) => Some(format!("{}/{}", tool_name(&scalar(t)), scalar(r))),
                _ => None,
            }
        } else {
            Some(entry.id.clone())
        };
        if let Some(id) = id {
            raw.push((id, severity(entry.severity.as_deref())));
        }
    }
    let namespace = |id: &str| {
        id.split_once('/')
            .map(|(t, _)| t)
            .filter(|t| NAMESPACES.contains(t))
            .map(str::to_string)
    };
    let prefixed = raw.iter().any(|(id, _)| namespace(id).is_some());
    let mut out = Findings::default();
    for (id, sev) in raw {
        let id = if !prefixed {
            id
        } else {
            match namespace(&id) {
                Some(t) if t == primary => id,
                Some(_) => continue,
                None => format!("{primary}/{id}"),
            }
        };
        out.map.insert(id.clone(), sev);
        out.entries.push((id, sev));
    }
    out
}

/// The model's `violations` items that are objects, read as entries.
pub fn predicted_entries(r: &RecordView<E2Fields>) -> Vec<ViolationEntry> {
    r.env
        .predicted_violations
        .iter()
        .flatten()
        .filter_map(|v| ViolationEntry::deserialize(v).ok())
        .collect()
}

/// Python's `str()` of a JSON scalar (upstream formatted `f"{tool}/{rule_id}"`).
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Null => "None".to_string(),
        other => other.to_string(),
    }
}

/// Per-record precision/recall/F1 on distinct ids.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
}

fn prf(tp: f64, fp: f64, fn_: f64) -> Prf {
    let precision = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
    let recall = if tp + fn_ > 0.0 { tp / (tp + fn_) } else { 0.0 };
    Prf {
        precision,
        recall,
        f1: f1_score(precision, recall),
    }
}

/// Weighted and unweighted scores of one record: TP = oracle weight of
/// predicted ids in the oracle, FP = predicted weight of the others, FN =
/// oracle weight of missed ids.
pub fn record_scores(oracle: &Findings, predicted: &Findings) -> (Prf, Prf) {
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    let (mut tpn, mut fpn, mut fnn) = (0.0, 0.0, 0.0);
    for (id, sev) in &predicted.map {
        match oracle.map.get(id) {
            Some(o) => {
                tp += weight(o);
                tpn += 1.0;
            }
            None => {
                fp += weight(sev);
                fpn += 1.0;
            }
        }
    }
    for (id, sev) in &oracle.map {
        if !predicted.map.contains_key(id) {
            fn_ += weight(sev);
            fnn += 1.0;
        }
    }
    (prf(tp, fp, fn_), prf(tpn, fpn, fnn))
}

/// A record's fixture type (`k8s` unless it says `tf`/`terraform`).
pub fn fixture_type(r: &RecordView<E2Fields>) -> &'static str {
    match r.env.fixture_type.as_deref() {
        Some("tf" | "terraform") => "tf",
        _ => "k8s",
    }
}

fn number(v: Option<f64>) -> f64 {
    v.filter(|x| x.is_finite()).unwrap_or(0.0)
}

/// A record's tool calls and time: the totals when recorded, else summed
/// from `tool_interactions`.
fn tool_totals(r: &RecordView<E2Fields>) -> (f64, f64) {
    let interactions = r.tool_interactions.as_deref();
    let calls = match r.tool_calls {
        Some(v) => number(Some(v)),
        None => interactions.map_or(0.0, |a| a.len() as f64),
    };
    let time = match r.tool_time_ms {
        Some(v) => number(Some(v)),
        None => interactions.map_or(0.0, |a| {
            a.iter().map(|i| number(Some(i.duration_ms))).sum::<f64>()
        }),
    };
    (calls, time)
}

/// What one record contributes to the bootstrap of the headline metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RecordContribution {
    /// The record's weighted F1.
    pub f1_weighted: f64,
    /// It carried a non-empty patch.
    pub patch_provided: bool,
    /// Its patch applied.
    pub patch_applied: bool,
    /// Its finding counts `[tp, fp, fn]` on the v1 sets (`None` without a
    /// `parsed` object).
    pub micro: Option<[u32; 3]>,
}

/// Accumulates the upstream-named metrics over records.
#[derive(Debug, Clone, Default)]
pub struct UpstreamAcc {
    n: u64,
    weighted: [f64; 3],
    unweighted: [f64; 3],
    positive: u64,
    f1w_positive: f64,
    f1u_positive: f64,
    provided: u64,
    applied: u64,
    fixed_weight: f64,
    oracle_weight_applied: f64,
    fixed_count: f64,
    new_count: f64,
    tool_calls: f64,
    tool_time: f64,
    predicted_len: f64,
    tools: BTreeMap<&'static str, (u64, f64)>,
    valid_json: u64,
    turns: f64,
    clean: u64,
    clean_pass: u64,
    severity: BTreeMap<&'static str, E2SeverityCounts>,
}

impl UpstreamAcc {
    /// Adds one scored record; returns its bootstrap contribution.
    pub fn add(&mut self, r: &RecordView<E2Fields>) -> RecordContribution {
        let ft = fixture_type(r);
        let oracle = normalise(r.env.oracle_violations.iter().flatten(), ft);
        let predicted = normalise(&predicted_entries(r), ft);
        let (w, u) = record_scores(&oracle, &predicted);
        self.n += 1;
        for (acc, s) in [(&mut self.weighted, w), (&mut self.unweighted, u)] {
            acc[0] += s.precision;
            acc[1] += s.recall;
            acc[2] += s.f1;
        }
        if oracle.map.is_empty() {
            self.clean += 1;
            self.clean_pass += u64::from(predicted.map.is_empty());
        } else {
            self.positive += 1;
            self.f1w_positive += w.f1;
            self.f1u_positive += u.f1;
        }

        let (applied, provided) = (r.env.patch_applied, r.env.patch_provided);
        self.provided += u64::from(provided);
        self.applied += u64::from(applied);
        let post = applied.then(|| normalise(r.env.post_patch_violations.iter().flatten(), ft));
        if let Some(post) = &post {
            for (id, sev) in &oracle.entries {
                self.oracle_weight_applied += weight(sev);
                if !post.map.contains_key(id) {
                    self.fixed_weight += weight(sev);
                }
            }
            let oracle_ids: BTreeSet<&String> = oracle.map.keys().collect();
            let post_ids: BTreeSet<&String> = post.map.keys().collect();
            self.fixed_count += oracle_ids.difference(&post_ids).count() as f64;
            self.new_count += post_ids.difference(&oracle_ids).count() as f64;
        }

        for (id, sev) in &oracle.entries {
            let c = self.severity.entry(sev).or_default();
            c.total += 1;
            if post.as_ref().is_some_and(|p| !p.map.contains_key(id)) {
                c.fixed += 1;
            }
        }
        for id in predicted.map.keys() {
            if let Some(sev) = oracle.map.get(id) {
                self.severity.entry(sev).or_default().found += 1;
            }
        }

        let (calls, time) = tool_totals(r);
        self.tool_calls += calls;
        self.tool_time += time;
        self.predicted_len += r
            .env
            .predicted_violations
            .as_ref()
            .map_or(0.0, |a| a.len() as f64);
        for i in r.tool_interactions.iter().flatten() {
            let name = tool_name(&i.tool);
            if let Some(t) = TOOLS.iter().find(|t| **t == name) {
                let e = self.tools.entry(t).or_default();
                e.0 += 1;
                e.1 += number(Some(i.duration_ms));
            }
        }
        self.valid_json += u64::from(r.env.valid_json);
        self.turns += number(r.turns);
        RecordContribution {
            f1_weighted: w.f1,
            patch_provided: provided,
            patch_applied: applied,
            micro: None,
        }
    }

    /// The `metrics` object.
    pub fn metrics(&self) -> E2Metrics {
        let n = self.n as f64;
        let mean = |x: f64| if self.n == 0 { 0.0 } else { x / n };
        let div = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let applied = self.applied as f64;
        E2Metrics {
            finding_quality: E2FindingQuality {
                precision_weighted: mean(self.weighted[0]),
                recall_weighted: mean(self.weighted[1]),
                f1_weighted: mean(self.weighted[2]),
                precision_unweighted: mean(self.unweighted[0]),
                recall_unweighted: mean(self.unweighted[1]),
                f1_unweighted: mean(self.unweighted[2]),
                f1_weighted_positive_only: div(self.f1w_positive, self.positive as f64),
                f1_unweighted_positive_only: div(self.f1u_positive, self.positive as f64),
            },
            patch: E2PatchMetrics {
                patch_provided_rate: mean(self.provided as f64),
                patch_success_rate: div(applied, self.provided as f64),
                patch_fix_rate: div(self.fixed_weight, self.oracle_weight_applied),
                mean_violations_fixed: div(self.fixed_count, applied),
                new_violations_introduced: div(self.new_count, applied),
            },
            tool_economy: E2ToolEconomy {
                mean_tool_calls: mean(self.tool_calls),
                mean_tool_time_ms: mean(self.tool_time),
                calls_per_finding: div(self.tool_calls, self.predicted_len),
                tool_distribution: TOOLS
                    .iter()
                    .map(|t| {
                        let (calls, time_ms) = self.tools.get(t).copied().unwrap_or_default();
                        (t.to_string(), E2ToolUse { calls, time_ms })
                    })
                    .collect(),
            },
            episode: E2Episode {
                format_valid_rate: mean(self.valid_json as f64),
                mean_turns: mean(self.turns),
                clean_pass_rate: div(self.clean_pass as f64, self.clean as f64),
                false_positive_rate_on_clean: div(
                    (self.clean - self.clean_pass) as f64,
                    self.clean as f64,
                ),
            },
        }
    }

    /// `severity_breakdown`: every level present, in `high, med, low` keys.
    pub fn severity_breakdown(&self) -> BTreeMap<String, E2SeverityCounts> {
        SEVERITIES
            .iter()
            .map(|s| {
                (
                    s.to_string(),
                    self.severity.get(s).cloned().unwrap_or_default(),
                )
            })
            .collect()
    }
}
