//! Profile `upstream` (spec E2 §5.1): upstream `reward.py` and the rubric of
//! `sv_env_config_verification.py`, quirks included — duplicated predictions
//! each count as a true positive, false positives are weighted by the
//! *predicted* severity, an empty list scores 0 while inventing a finding on a
//! clean item scores 0.05, and any applied patch earns the oracle weight of
//! every oracle id missing from the re-scan (no preservation check).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value;
use svbench_core::RewardBreakdown;

use super::Detection;
use crate::e2::oracle::upstream_severity_value;
use crate::e2::{E2Parse, Lang, OracleViolation, PredictedViolation, Severity};

/// Upstream rubric components and weights (fixed for parity).
pub const WEIGHTS: [(&str, f64); 3] = [
    ("reward_config_auditing", 1.0),
    ("format_reward", 0.05),
    ("tool_observation_reward", 0.2),
];

/// Upstream's constant added to every scored answer.
const BASE_BONUS: f64 = 0.05;
/// Upper clamp of `reward_config_auditing`.
const RCA_MAX: f64 = 2.0;
/// Prefixes that trigger the primary-tool filter.
const TOOL_PREFIXES: [&str; 3] = ["kube-linter/", "semgrep/", "opa/"];

/// An id as written (unnormalised) with its severity.
type Entry = (String, Severity);

/// What upstream's patch path made of the answer's patch (spec E2 §5.1,
/// "Upstream patch path").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum UpstreamPatch {
    /// No patch, an empty one, or one that did not apply: no bonus.
    #[default]
    NotApplied,
    /// The patch applied (leniently); `after` holds the full ids of the
    /// primary analyzer's findings on the patched text.
    Applied {
        /// Post-patch primary findings, full ids `tool/rule`.
        after: BTreeSet<String>,
    },
    /// The patched text held no valid object: upstream's adapter raised and
    /// the eval harness scored `reward_config_auditing` 0.
    AdapterError,
}

/// The `upstream` breakdown with the detection details behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamScore {
    /// Components `reward_config_auditing`, `format_reward`,
    /// `tool_observation_reward` and the total.
    pub breakdown: RewardBreakdown,
    /// Detection of the answer (after the primary filter); `None` when rca
    /// was not computed (invalid answer, empty list, adapter error).
    pub detection: Option<Detection>,
    /// The patch bonus added to rca (0 without an applied patch).
    pub patch_bonus: f64,
    /// Detection of the tool observations; `None` when either side was empty.
    pub tool_detection: Option<Detection>,
}

/// Upstream's fixed severity weights: low .3, med .6, high 1.0.
fn weight(severity: Severity) -> f64 {
    severity.weight()
}

fn primary_prefix(lang: Lang) -> &'static str {
    match lang {
        Lang::K8s => "kube-linter/",
        Lang::Tf => "semgrep/",
    }
}

/// The primary-tool filter: when any id on either side carries a tool prefix,
/// both sides keep only ids of the primary tool (unprefixed ids vanish).
fn primary_filter<'a>(
    lang: Lang,
    oracle: &'a [Entry],
    predicted: &'a [Entry],
) -> (Vec<&'a Entry>, Vec<&'a Entry>) {
    let prefixed = |id: &str| TOOL_PREFIXES.iter().any(|p| id.starts_with(p));
    let active = oracle.iter().chain(predicted).any(|(id, _)| prefixed(id));
    let primary = primary_prefix(lang);
    let keep = |(id, _): &&Entry| !active || id.starts_with(primary);
    (
        oracle.iter().filter(keep).collect(),
        predicted.iter().filter(keep).collect(),
    )
}

/// Weighted detection of a predicted list against the oracle map: TP over
/// the list (duplicates counted each time), FP at the predicted severity, FN
/// over distinct oracle ids missing from the predictions.
fn detect(o: &BTreeMap<&str, f64>, predicted: &[&Entry]) -> Detection {
    let mut tp = 0.0;
    let mut fp = 0.0;
    for (id, severity) in predicted {
        match o.get(id.as_str()) {
            Some(w) => tp += w,
            None => fp += weight(*severity),
        }
    }
    let p: HashSet<&str> = predicted.iter().map(|(id, _)| id.as_str()).collect();
    let fn_ = o
        .iter()
        .filter(|(id, _)| !p.contains(**id))
        .map(|(_, w)| w)
        .sum();
    Detection::from_weights(tp, fp, fn_)
}

/// id → oracle weight, the last duplicate winning (a Python dict built in order).
fn oracle_map<'a>(oracle: &[&'a Entry]) -> BTreeMap<&'a str, f64> {
    oracle
        .iter()
        .map(|(id, s)| (id.as_str(), weight(*s)))
        .collect()
}

fn pairs_of_oracle(oracle: &[OracleViolation]) -> Vec<Entry> {
    oracle.iter().map(|v| (v.id.clone(), v.severity)).collect()
}

fn pairs_of_answer(violations: &[PredictedViolation]) -> Vec<Entry> {
    violations
        .iter()
        .map(|v| (v.id.clone(), v.severity))
        .collect()
}

/// `reward_config_auditing` with its detection and patch bonus; `None`
/// detection when the answer scores 0 before any matching.
fn config_auditing(
    lang: Lang,
    oracle: &[OracleViolation],
    violations: &[PredictedViolation],
    patch: &UpstreamPatch,
) -> (f64, Option<Detection>, f64) {
    // The empty check comes before the filter: a list of only `opa/` ids
    // is scored (as all-filtered), an empty one is not.
    if violations.is_empty() || *patch == UpstreamPatch::AdapterError {
        return (0.0, None, 0.0);
    }
    let oracle = pairs_of_oracle(oracle);
    let predicted = pairs_of_answer(violations);
    let (oracle, predicted) = primary_filter(lang, &oracle, &predicted);
    let o = oracle_map(&oracle);
    let detection = detect(&o, &predicted);
    let bonus = match patch {
        UpstreamPatch::Applied { after } => o
            .iter()
            .filter(|(id, _)| !after.contains(**id))
            .map(|(_, w)| w)
            .sum(),
        UpstreamPatch::NotApplied | UpstreamPatch::AdapterError => 0.0,
    };
    let r = detection.f1 + bonus + BASE_BONUS;
    (r.clamp(0.0, RCA_MAX), Some(detection), bonus)
}

/// Python's `str()` of a JSON scalar, as upstream formatted `f"{tool}/{rule_id}"`.
fn python_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(true) => Some("True".to_string()),
        Value::Bool(false) => Some("False".to_string()),
        Value::Null => Some("None".to_string()),
        // Containers would print as Python reprs; no tool output has them.
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Collects `tool/rule_id` of every object (at any depth) having both keys,
/// first occurrence kept, with its normalised severity.
fn collect_observed(value: &Value, seen: &mut HashSet<String>, out: &mut Vec<Entry>) {
    match value {
        Value::Object(map) => {
            if let (Some(tool), Some(rule)) = (map.get("tool"), map.get("rule_id")) {
                if let (Some(tool), Some(rule)) = (python_str(tool), python_str(rule)) {
                    let id = format!("{tool}/{rule}");
                    if seen.insert(id.clone()) {
                        let sev = upstream_severity_value(map.get("severity"));
                        out.push((id, sev));
                    }
                }
            }
            for v in map.values() {
                collect_observed(v, seen, out);
            }
        }
        Value::Array(items) => {
            for v in items {
                collect_observed(v, seen, out);
            }
        }
        _ => {}
    }
}

/// `tool_observation_reward` (spec E2 §5.1): the detection F1 of the findings
/// shown in `tool` messages against the oracle, after the primary filter; 0
/// when nothing was observed or either side is empty after the filter.
/// Contents that are not JSON are skipped.
#[must_use]
pub fn tool_observation_reward<S: AsRef<str>>(
    lang: Lang,
    oracle: &[OracleViolation],
    tool_messages: &[S],
) -> (f64, Option<Detection>) {
    let mut seen = HashSet::new();
    let mut observed = Vec::new();
    for content in tool_messages {
        if let Ok(value) = serde_json::from_str::<Value>(content.as_ref()) {
            collect_observed(&value, &mut seen, &mut observed);
        }
    }
    if observed.is_empty() {
        return (0.0, None);
    }
    let oracle = pairs_of_oracle(oracle);
    let (oracle, observed) = primary_filter(lang, &oracle, &observed);
    if oracle.is_empty() || observed.is_empty() {
        return (0.0, None);
    }
    let detection = detect(&oracle_map(&oracle), &observed);
    (detection.f1.max(0.0), Some(detection))
}

/// Scores one episode under the `upstream` profile.
///
/// `parse` must come from the upstream parser (spec E2 §3.3): there `Valid`
/// means the exact validation succeeded, which is what `format_reward`
/// credits. `oracle` is the row's label list (severities normalised
/// upstream's way, [`crate::e2::oracle::upstream_severity`]);
/// `tool_messages` the contents of the episode's `tool` messages, read even
/// when there is no answer.
#[must_use]
pub fn score_upstream<S: AsRef<str>>(
    lang: Lang,
    oracle: &[OracleViolation],
    parse: &E2Parse,
    patch: &UpstreamPatch,
    tool_messages: &[S],
) -> UpstreamScore {
    let (rca, detection, patch_bonus, format) = match parse {
        E2Parse::Valid { answer, .. } => {
            let (rca, detection, bonus) = config_auditing(lang, oracle, &answer.violations, patch);
            (rca, detection, bonus, 1.0)
        }
        E2Parse::Invalid { .. } | E2Parse::NoAnswer => (0.0, None, 0.0, 0.0),
    };
    let (tool_obs, tool_detection) = tool_observation_reward(lang, oracle, tool_messages);
    let breakdown = RewardBreakdown::from_weights("upstream", &WEIGHTS, [rca, format, tool_obs]);
    UpstreamScore {
        breakdown,
        detection,
        patch_bonus,
        tool_detection,
    }
}
