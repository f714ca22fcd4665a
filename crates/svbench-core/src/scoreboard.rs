//! `<env>_scoreboard.json` (harness §5.1): a top-level array with one entry
//! per run, computed from the run's artifacts by the report library.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// A scoreboard file: entries sorted by `(baseline, model, dataset, run_id)`.
pub type Scoreboard = Vec<ScoreboardEntry>;

/// One run's entry. Written untagged (as upstream's boards); read back by
/// the key only its kind writes, since every metric may be null and an
/// untagged read would take any entry for the first kind listed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ScoreboardEntry {
    /// E1 (`sv-env-network-logs`).
    E1(E1Entry),
    /// E2 (`sv-env-config-verification`).
    E2(E2Entry),
    /// E4 (`sv-env-phishing-detection`).
    E4(E4Entry),
}

impl<'de> Deserialize<'de> for ScoreboardEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        let has = |k: &str| v.get(k).is_some();
        let entry = if has("upstream_compat") {
            serde_json::from_value(v).map(ScoreboardEntry::E2)
        } else if has("evidence_f1") {
            serde_json::from_value(v).map(ScoreboardEntry::E4)
        } else {
            serde_json::from_value(v).map(ScoreboardEntry::E1)
        };
        entry.map_err(D::Error::custom)
    }
}

impl ScoreboardEntry {
    /// The run id.
    #[must_use]
    pub fn run_id(&self) -> &str {
        match self {
            ScoreboardEntry::E1(e) => &e.run_id,
            ScoreboardEntry::E2(e) => &e.run_id,
            ScoreboardEntry::E4(e) => &e.run_id,
        }
    }

    /// The sort key `(baseline, model, dataset, run_id)`.
    #[must_use]
    pub fn sort_key(&self) -> (&str, &str, &str, &str) {
        match self {
            ScoreboardEntry::E1(e) => (&e.baseline, &e.model, &e.dataset, &e.run_id),
            ScoreboardEntry::E2(e) => (&e.baseline, &e.model, &e.dataset, &e.run_id),
            ScoreboardEntry::E4(e) => (&e.baseline, &e.model, &e.dataset, &e.run_id),
        }
    }

    /// The fields every entry has.
    #[must_use]
    pub fn common(&self) -> &EntryCommon {
        match self {
            ScoreboardEntry::E1(e) => &e.common,
            ScoreboardEntry::E2(e) => &e.common,
            ScoreboardEntry::E4(e) => &e.common,
        }
    }
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

    fn round_trip(e: &ScoreboardEntry) -> ScoreboardEntry {
        let text = serde_json::to_string(e).expect("serialises");
        serde_json::from_str(&text).expect("reads back")
    }

    /// Entries whose metrics are all null still read back as their own kind
    /// (an untagged read took every E2 entry for an E1 one).
    #[test]
    fn every_kind_reads_back_as_itself() {
        let e1 = ScoreboardEntry::E1(E1Entry {
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
        });
        let e2 = ScoreboardEntry::E2(E2Entry {
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
        });
        let e4 = ScoreboardEntry::E4(E4Entry {
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
        });
        for e in [e1, e2, e4] {
            assert_eq!(round_trip(&e), e);
        }
    }
}
