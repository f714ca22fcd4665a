//! `<env>_scoreboard.json` (harness §5.1): a top-level array with one entry
//! per run, computed from the run's artifacts by the report library.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One run's entry as written: a JSON object whose shape is its
/// environment's entry type ([`E1Entry`], [`E2Entry`], [`E4Entry`], …).
/// Every entry has `baseline`, `model`, `dataset`, `run_id` and the
/// [`EntryCommon`] fields; the board's environment says which type the rest
/// is (never a key of the entry).
pub type BoardEntry = Map<String, Value>;

/// A scoreboard file: entries sorted by `(baseline, model, dataset, run_id)`.
pub type Scoreboard = Vec<BoardEntry>;

/// A text field every entry has (empty when absent).
fn text<'a>(entry: &'a BoardEntry, key: &str) -> &'a str {
    entry.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The run id of an entry.
#[must_use]
pub fn run_id(entry: &BoardEntry) -> &str {
    text(entry, "run_id")
}

/// The sort key `(baseline, model, dataset, run_id)` of an entry.
#[must_use]
pub fn sort_key(entry: &BoardEntry) -> (&str, &str, &str, &str) {
    (
        text(entry, "baseline"),
        text(entry, "model"),
        text(entry, "dataset"),
        run_id(entry),
    )
}

/// The fields every entry carries, read from an entry (`None` when they do
/// not read as [`EntryCommon`]).
#[must_use]
pub fn common(entry: &BoardEntry) -> Option<EntryCommon> {
    EntryCommon::deserialize(&Value::Object(entry.clone())).ok()
}

/// An entry of type `T` as written.
///
/// # Errors
/// `T` does not serialise to a JSON object.
pub fn to_entry<T: Serialize>(entry: &T) -> Result<BoardEntry, serde_json::Error> {
    match serde_json::to_value(entry)? {
        Value::Object(map) => Ok(map),
        other => Err(serde::ser::Error::custom(format!(
            "a scoreboard entry must be an object, not {other}"
        ))),
    }
}

/// Whether `entry` is an entry of type `T` exactly: it reads as `T` and
/// writing that back gives the same keys (an entry of another environment
/// lacks some and carries others).
#[must_use]
pub fn is_entry_of<T: Serialize + DeserializeOwned>(entry: &BoardEntry) -> bool {
    let Ok(typed) = T::deserialize(&Value::Object(entry.clone())) else {
        return false;
    };
    let Ok(back) = to_entry(&typed) else {
        return false;
    };
    back.len() == entry.len() && back.keys().all(|k| entry.contains_key(k))
}

/// An E1 entry. Metric names and definitions are the summary's `headline`
/// ones; a value is null where it is undefined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E1Entry {
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec (empty when unrecorded).
    pub dataset: String,
    /// Result records.
    pub n: u64,
    /// Correct calls / scored samples (abstentions and invalid answers not
    /// correct): headline `accuracy`.
    pub accuracy: Option<f64>,
    /// Correct calls / non-abstained samples: headline
    /// `accuracy_non_abstained`.
    pub accuracy_non_abstained: Option<f64>,
    /// Headline `f1`.
    pub f1: Option<f64>,
    /// Headline `ece`.
    pub ece: Option<f64>,
    /// Headline `abstain_rate`.
    pub abstain_rate: Option<f64>,
    /// `cost.cost_weighted_accuracy` (upstream's 10/1 weights, over
    /// non-abstained samples).
    pub cost_weighted_accuracy: Option<f64>,
    /// Run id.
    pub run_id: String,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// An E2 entry: the summary's headline (pooled scores over findings, per
/// fixture type) first, upstream-named fields in `upstream_compat`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2Entry {
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec (empty when unrecorded).
    pub dataset: String,
    /// Result records.
    pub n: u64,
    /// Headline `micro_f1`: pooled F1 over findings.
    pub micro_f1: Option<f64>,
    /// Headline `micro_precision`.
    pub micro_precision: Option<f64>,
    /// Headline `micro_recall`.
    pub micro_recall: Option<f64>,
    /// Fixture type (`k8s`, `tf`) → `micro_f1` over its records.
    pub micro_f1_by_lang: BTreeMap<String, Option<f64>>,
    /// Headline `clean_pass_rate` (v1 sets).
    pub clean_pass_rate: Option<f64>,
    /// `patch.patch_success_rate`: applied / provided patches; null when no
    /// answer provided a patch.
    pub patch_success: Option<f64>,
    /// Run id.
    pub run_id: String,
    /// Upstream-named fields, upstream's definitions.
    pub upstream_compat: E2EntryUpstream,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// Upstream's E2 scoreboard columns, upstream's definitions: averaged
/// per-record F1 (a clean record answered `[]` counts 0) on upstream's id
/// normalisation (Terraform's `opa/` labels dropped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E2EntryUpstream {
    /// `finding_quality.f1_weighted`.
    pub f1_weighted: f64,
    /// `finding_quality.f1_weighted_positive_only`.
    pub f1_weighted_positive_only: f64,
    /// `episode.clean_pass_rate`.
    pub clean_pass_rate: f64,
    /// `episode.false_positive_rate_on_clean`.
    pub false_positive_rate_on_clean: f64,
}

/// An E4 entry: the summary's headline in E4's definitions (invalid answers
/// kept as misses), then the rates a triage reader weighs against them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct E4Entry {
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec (empty when unrecorded).
    pub dataset: String,
    /// Result records.
    pub n: u64,
    /// How reports name the policy when it is not a baseline: the oracle's
    /// `oracle (upper bound)`; null for every other run.
    pub policy_label: Option<String>,
    /// Headline `f1`: Phishing calls on clear-cut emails.
    pub f1: Option<f64>,
    /// Phishing calls that were right.
    pub precision: Option<f64>,
    /// Headline `recall_strict`: phishing emails called Phishing / all
    /// phishing emails (abstentions and invalid answers are misses).
    pub recall_strict: Option<f64>,
    /// Legitimate emails called Phishing / decided legitimate emails.
    pub fpr: Option<f64>,
    /// Headline `accuracy`: three labels over every scored email.
    pub accuracy: Option<f64>,
    /// Headline `evidence_f1`: mean evidence score where evidence is scored.
    pub evidence_f1: Option<f64>,
    /// Headline `ece`.
    pub ece: Option<f64>,
    /// Abstentions over every scored email.
    pub abstain_rate: Option<f64>,
    /// Mean v1 triage cost per email (invalid answers charged as a missed
    /// phishing email).
    pub expected_cost_v1: Option<f64>,
    /// Run id.
    pub run_id: String,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// Fields every entry carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntryCommon {
    /// Invalid / scored.
    pub parse_failure_rate: Option<f64>,
    /// Errored / records.
    pub error_rate: Option<f64>,
    /// Canonical hash of the loaded split.
    pub dataset_sha256: Option<String>,
    /// Split evaluated.
    pub split: Option<String>,
    /// Reward profile of the metrics.
    pub reward_profile: Option<String>,
    /// Mean total reward.
    pub reward_mean: Option<f64>,
    /// `[lowest, highest]` total the reward profile can give.
    pub reward_range: Option<[f64; 2]>,
    /// svbench version that computed the entry.
    pub svbench_version: String,
    /// When the run finished (RFC 3339).
    pub run_finished_at: Option<String>,
    /// Metric → 95 % bootstrap interval `[low, high]` (E1 `accuracy`, `f1`;
    /// E2 `micro_f1`, `f1_weighted`, `patch_success`; E4 `f1`, `accuracy`,
    /// `evidence_f1`); a metric without a defined interval is absent.
    pub ci95: BTreeMap<String, [f64; 2]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn common() -> EntryCommon {
        EntryCommon {
            parse_failure_rate: None,
            error_rate: None,
            dataset_sha256: None,
            split: None,
            reward_profile: None,
            reward_mean: None,
            reward_range: None,
            svbench_version: "0.1.0".into(),
            run_finished_at: None,
            ci95: BTreeMap::new(),
        }
    }

    /// Entries whose metrics are all null are still told apart by their
    /// keys (an untagged read took every E2 entry for an E1 one).
    #[test]
    fn every_kind_is_its_own_and_no_other() {
        let e1 = to_entry(&E1Entry {
            baseline: "b".into(),
            model: "m".into(),
            dataset: "d".into(),
            n: 1,
            accuracy: None,
            accuracy_non_abstained: None,
            f1: None,
            ece: None,
            abstain_rate: None,
            cost_weighted_accuracy: None,
            run_id: "r1".into(),
            common: common(),
        })
        .expect("object");
        let e2 = to_entry(&E2Entry {
            baseline: "b".into(),
            model: "m".into(),
            dataset: "d".into(),
            n: 1,
            micro_f1: None,
            micro_precision: None,
            micro_recall: None,
            micro_f1_by_lang: BTreeMap::new(),
            clean_pass_rate: None,
            patch_success: None,
            run_id: "r2".into(),
            upstream_compat: E2EntryUpstream {
                f1_weighted: 0.1,
                f1_weighted_positive_only: 0.2,
                clean_pass_rate: 0.3,
                false_positive_rate_on_clean: 0.4,
            },
            common: common(),
        })
        .expect("object");
        let e4 = to_entry(&E4Entry {
            baseline: "b".into(),
            model: "m".into(),
            dataset: "d".into(),
            n: 1,
            policy_label: None,
            f1: None,
            precision: None,
            recall_strict: None,
            fpr: None,
            accuracy: None,
            evidence_f1: None,
            ece: None,
            abstain_rate: None,
            expected_cost_v1: None,
            run_id: "r4".into(),
            common: common(),
        })
        .expect("object");
        let checks: [fn(&BoardEntry) -> bool; 3] = [
            is_entry_of::<E1Entry>,
            is_entry_of::<E2Entry>,
            is_entry_of::<E4Entry>,
        ];
        for (i, e) in [&e1, &e2, &e4].into_iter().enumerate() {
            for (j, check) in checks.iter().enumerate() {
                assert_eq!(check(e), i == j, "entry {i} read as kind {j}");
            }
        }
        assert_eq!(run_id(&e2), "r2");
        assert_eq!(sort_key(&e4), ("b", "m", "d", "r4"));
        assert_eq!(
            super::common(&e1).map(|c| c.svbench_version),
            Some("0.1.0".into())
        );
    }
}
