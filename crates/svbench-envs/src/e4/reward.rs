//! E4 rewards: the `v1` profile (E4 §5.2) on the shared triage cost matrix
//! and Brier calibration, and the `upstream` profile (E4 §7.3) with its
//! `evidence_mode` switch.

use serde::Deserialize;
use serde_json::Value;
use svbench_core::cost::{brier_calibration, CostMatrix, TriageCall, TriageGold, TriageMatrix};
use svbench_core::extract::ParseMode;
use svbench_core::reward_config::{ProfileParams, RewardConfigError};
use svbench_core::{ParseOutcome, RewardBreakdown};

use super::{Label, NAME};
use crate::kit::reward::{self, V1Constants};
use svbench_core::deadline::{Deadline, TimeBudgetExceeded};

/// The compiled-in reward config (`rewards/e4.toml`).
pub const DEFAULT_CONFIG: &str = include_str!("../../../../rewards/e4.toml");

/// Bumped whenever scoring semantics change (part of `reward_config_hash`).
/// 2: a `v1` quote must also cover half of a gold span's content words.
pub const REWARD_IMPL_VERSION: u32 = 2;

/// Profiles E4 offers.
pub const PROFILES: &[&str] = &["v1", "upstream"];

/// Upstream rubric weights (fixed for parity); `evidence_as_written` is a
/// weight-0 diagnostic.
const UPSTREAM_WEIGHTS: [(&str, f64); 6] = [
    ("reward_accuracy", 1.0),
    ("format_reward", 0.2),
    ("reward_calibration", 0.2),
    ("reward_phishing_asymmetric_cost", 0.4),
    ("reward_evidence_alignment", 0.2),
    ("evidence_as_written", 0.0),
];

/// Upstream's asymmetric-cost values for wrong labels (E4 §7.3), fixed
/// for parity: (gold, predicted, value). A correct label scores 1.
const UPSTREAM_ASYMMETRIC: [(Label, Label, f64); 6] = [
    (Label::Phishing, Label::Legitimate, -1.0),
    (Label::Phishing, Label::Abstain, 0.3),
    (Label::Legitimate, Label::Phishing, -0.2),
    (Label::Legitimate, Label::Abstain, 0.5),
    (Label::Abstain, Label::Phishing, 0.3),
    (Label::Abstain, Label::Legitimate, 0.3),
];

/// Upstream's evidence credit of an item found in an indicator, and of one
/// only found in the prompt.
const AS_WRITTEN_INDICATOR: f64 = 1.0;
const AS_WRITTEN_PROMPT: f64 = 0.5;

/// The `[upstream]` key choosing the weighted evidence value.
const EVIDENCE_MODE_KEY: &str = "evidence_mode";

/// Config names of the ambiguous-row costs, for messages.
const AMBIGUOUS_COST_NAMES: [&str; 2] = ["cost_amb_phishing", "cost_amb_legitimate"];

/// Constants of the `v1` profile (table `[v1]` of `rewards/e4.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct V1Params {
    /// Costs on clear-cut emails (`cost_fp`, `cost_fn`, `cost_abstain`).
    #[serde(flatten)]
    pub costs: CostMatrix,
    /// Phishing on gold Abstain.
    pub cost_amb_phishing: f64,
    /// Legitimate on gold Abstain.
    pub cost_amb_legitimate: f64,
    /// Weight of the Brier calibration component.
    pub w_calibration: f64,
    /// Weight of the evidence component.
    pub w_evidence: f64,
    /// Weight of the format component.
    pub w_format: f64,
    /// Calibration credit of an abstention.
    pub abstain_calibration: f64,
}

impl V1Params {
    /// The 3 × 3 cost matrix (E4 §5.2).
    pub fn matrix(&self) -> TriageMatrix {
        TriageMatrix {
            binary: self.costs,
            cost_amb_positive: self.cost_amb_phishing,
            cost_amb_negative: self.cost_amb_legitimate,
        }
    }

    fn weight_table(&self) -> [(&'static str, f64); 4] {
        [
            ("utility", 1.0),
            ("calibration", self.w_calibration),
            ("evidence", self.w_evidence),
            ("format", self.w_format),
        ]
    }
}

impl V1Constants for V1Params {
    const ENV: &'static str = NAME;
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    const REWARD_IMPL_VERSION: u32 = REWARD_IMPL_VERSION;
    const PROFILES: &'static [&'static str] = PROFILES;
    const UPSTREAM_WEIGHTS: &'static [(&'static str, f64)] = &UPSTREAM_WEIGHTS;
    const BOUNDS: svbench_core::reward::ProfileBounds = crate::e4::report::plugin::COMPONENT_BOUNDS;

    fn weights(&self) -> Vec<(&'static str, f64)> {
        self.weight_table().to_vec()
    }

    /// E1's rules (`cost_fn > 0`, `0 ≤ cost_fp, cost_abstain ≤ cost_fn`,
    /// `w_calibration ≥ 0`, `w_format > 0`, `abstain_calibration ∈ [0, 1]`),
    /// plus `0 ≤ cost_amb_phishing ≤ cost_amb_legitimate ≤ cost_fn` and
    /// `w_evidence ≥ 0` (E4 §5.2).
    fn validate(&self) -> Result<(), RewardConfigError> {
        let invalid = |message: String| RewardConfigError::Invalid {
            profile: "v1".to_string(),
            message,
        };
        self.matrix()
            .validate(AMBIGUOUS_COST_NAMES)
            .map_err(|e| invalid(e.to_string()))?;
        for (name, w) in [
            ("w_calibration", self.w_calibration),
            ("w_evidence", self.w_evidence),
        ] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(invalid(format!("{name} must be ≥ 0 (got {w})")));
            }
        }
        if !(self.w_format.is_finite() && self.w_format > 0.0) {
            return Err(invalid(format!(
                "w_format must be > 0 (got {})",
                self.w_format
            )));
        }
        if !(0.0..=1.0).contains(&self.abstain_calibration) {
            return Err(invalid(format!(
                "abstain_calibration must be within [0, 1] (got {})",
                self.abstain_calibration
            )));
        }
        Ok(())
    }

    fn validate_upstream(params: &ProfileParams) -> Result<(), RewardConfigError> {
        EvidenceMode::from_params(params).map(|_| ())
    }
}

impl Default for V1Params {
    /// The constants of the built-in `[v1]` table of `rewards/e4.toml`.
    fn default() -> Self {
        Self::builtin()
    }
}

/// Which value the upstream profile weights as `reward_evidence_alignment`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvidenceMode {
    /// 0, as in every real upstream rollout (default).
    Rollout,
    /// Upstream's evidence function applied to the prompt text.
    AsWritten,
}

impl EvidenceMode {
    /// The recorded spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceMode::Rollout => "rollout",
            EvidenceMode::AsWritten => "as_written",
        }
    }

    /// Reads `evidence_mode` from the effective `[upstream]` table.
    ///
    /// # Errors
    /// [`RewardConfigError::Invalid`] for any other value.
    pub fn from_params(params: &ProfileParams) -> Result<Self, RewardConfigError> {
        match params.get(EVIDENCE_MODE_KEY).and_then(Value::as_str) {
            Some("rollout") => Ok(EvidenceMode::Rollout),
            Some("as_written") => Ok(EvidenceMode::AsWritten),
            other => Err(RewardConfigError::Invalid {
                profile: "upstream".to_string(),
                message: format!(
                    "{EVIDENCE_MODE_KEY} must be \"rollout\" or \"as_written\" (got {other:?})"
                ),
            }),
        }
    }
}

/// Which profile scores answers.
pub type Profile = reward::Profile<V1Params>;

/// An E4 reward profile with its effective config. The upstream profile's
/// one parameter, `evidence_mode`, lives in `params` (validated on load)
/// and so enters `reward_config_hash`.
pub type E4Rewards = reward::Rewards<V1Params>;

impl E4Rewards {
    /// The upstream profile's evidence mode (`Rollout` under `v1`).
    pub fn evidence_mode(&self) -> EvidenceMode {
        match self.profile {
            Profile::V1(_) => EvidenceMode::Rollout,
            Profile::Upstream => {
                EvidenceMode::from_params(&self.params).unwrap_or(EvidenceMode::Rollout)
            }
        }
    }

    /// The parser mode that follows the profile.
    pub fn parse_mode(&self) -> ParseMode {
        match self.profile {
            Profile::V1(_) => ParseMode::V1,
            Profile::Upstream => ParseMode::Upstream,
        }
    }
}

/// The gold label as a triage class.
pub fn triage_gold(gold: Label) -> TriageGold {
    match gold {
        Label::Phishing => TriageGold::Positive,
        Label::Legitimate => TriageGold::Negative,
        Label::Abstain => TriageGold::Ambiguous,
    }
}

/// A predicted label as a triage call.
pub fn triage_call(label: Label) -> TriageCall {
    match label {
        Label::Phishing => TriageCall::Positive,
        Label::Legitimate => TriageCall::Negative,
        Label::Abstain => TriageCall::Abstain,
    }
}

/// The `v1` profile (E4 §5.2). `evidence` is the grounded F1, `None` where
/// not applicable (its weight then leaves the total).
pub fn score_v1(
    p: &V1Params,
    outcome: &ParseOutcome<Label>,
    gold: Label,
    evidence: Option<f64>,
) -> RewardBreakdown {
    let m = p.matrix();
    let utility = |label: Label| m.utility(triage_call(label), triage_gold(gold));
    let (u, cal, ev, fmt) = match outcome {
        ParseOutcome::Invalid { .. } => (0.0, 0.0, evidence.map(|_| 0.0), 0.0),
        ParseOutcome::LabelOnly { label, .. } => (utility(*label), 0.0, evidence, 0.0),
        ParseOutcome::Valid {
            label,
            confidence,
            format_ok,
            ..
        } => {
            let cal = match label {
                Label::Abstain => p.abstain_calibration,
                // A decided label on a gold-Abstain row is never correct.
                l => brier_calibration(*confidence, *l == gold),
            };
            let fmt = if *format_ok { 1.0 } else { 0.0 };
            (utility(*label), cal, evidence, fmt)
        }
    };
    RewardBreakdown::from_optional_weights(
        "v1",
        &p.weight_table(),
        [Some(u), Some(cal), ev, Some(fmt)],
    )
}

/// The `upstream` profile (E4 §7.3). `as_written` is
/// [`evidence_as_written`] of the answer; `mode` picks what is weighted.
pub fn score_upstream(
    outcome: &ParseOutcome<Label>,
    gold: Label,
    as_written: f64,
    mode: EvidenceMode,
) -> RewardBreakdown {
    let weighted_evidence = match mode {
        EvidenceMode::Rollout => 0.0,
        EvidenceMode::AsWritten => as_written,
    };
    let (acc, fmt, cal, asym) = match outcome {
        // Upstream mode has no LabelOnly outcome; treat one like an empty label.
        ParseOutcome::Invalid { .. } | ParseOutcome::LabelOnly { .. } => (0.0, 0.0, 0.0, 0.0),
        ParseOutcome::Valid {
            label,
            confidence,
            format_ok,
            ..
        } => {
            let correct = *label == gold;
            let k = if correct { 1.0 } else { 0.0 };
            let asym = if correct {
                1.0
            } else {
                UPSTREAM_ASYMMETRIC
                    .iter()
                    .find(|(g, l, _)| *g == gold && l == label)
                    .map_or(0.0, |t| t.2)
            };
            let fmt = if *format_ok { 1.0 } else { 0.0 };
            (k, fmt, 1.0 - (confidence - k).abs(), asym)
        }
    };
    RewardBreakdown::from_weights(
        "upstream",
        &UPSTREAM_WEIGHTS,
        [acc, fmt, cal, asym, weighted_evidence, as_written],
    )
}

/// Upstream's evidence function as written (E4 §7.3): 0 unless gold is
/// Phishing and the list is non-empty; each item, lower-cased, scores 1 if
/// it equals, contains or is contained in a lower-cased indicator, else 0.5
/// if it occurs in the lower-cased prompt; the mean, capped at 1.
pub fn evidence_as_written(
    gold: Label,
    evidence: &[String],
    prompt: &str,
    indicators: &[String],
) -> f64 {
    // `Deadline::NONE` never passes.
    evidence_as_written_within(gold, evidence, prompt, indicators, &Deadline::NONE).unwrap_or(0.0)
}

/// [`evidence_as_written`] that stops once `deadline` has passed: upstream's
/// list is not capped, and each item is searched for in the whole prompt,
/// so the deadline is checked before every item.
///
/// # Errors
/// [`TimeBudgetExceeded`].
pub fn evidence_as_written_within(
    gold: Label,
    evidence: &[String],
    prompt: &str,
    indicators: &[String],
    deadline: &Deadline,
) -> Result<f64, TimeBudgetExceeded> {
    if gold != Label::Phishing || evidence.is_empty() {
        return Ok(0.0);
    }
    deadline.check()?;
    let prompt = prompt.to_lowercase();
    let indicators: Vec<String> = indicators.iter().map(|i| i.to_lowercase()).collect();
    let mut total = 0.0;
    for item in evidence {
        deadline.check()?;
        let item = item.to_lowercase();
        total += if indicators
            .iter()
            .any(|i| item.contains(i.as_str()) || i.contains(item.as_str()))
        {
            AS_WRITTEN_INDICATOR
        } else if prompt.contains(item.as_str()) {
            AS_WRITTEN_PROMPT
        } else {
            0.0
        };
    }
    Ok((total / evidence.len() as f64).min(1.0))
}

/// §5.3's belief thresholds (lower, upper) on a clear-cut email, in closed
/// form from the config: with honest confidence, `Legitimate` is optimal
/// for P(Phishing) below `lower`, `Phishing` above `upper`, `Abstain` in
/// between. With a = cost_fp/cost_fn, b = cost_abstain/cost_fn,
/// w = w_calibration, k = abstain_calibration, e = w(1 − k):
/// E[Phishing] − E[Abstain] = w p² + (a − w) p + (b − a + e) and
/// E[Legitimate] − E[Abstain] = w p² − (1 + w) p + (b + e). When the
/// abstain band is empty both are the Phishing/Legitimate break-even
/// a/(1 + a).
pub fn decision_thresholds(p: &V1Params) -> (f64, f64) {
    let f = p.costs.cost_fn;
    let (a, b) = (p.costs.cost_fp / f, p.costs.cost_abstain / f);
    let w = p.w_calibration;
    let e = w * (1.0 - p.abstain_calibration);
    let clamp = |x: f64| x.clamp(0.0, 1.0);
    // Phishing beats Abstain above the larger root (none: everywhere).
    let upper = roots(w, a - w, b - a + e).map_or(0.0, |(_, hi)| clamp(hi));
    // Legitimate beats Abstain below the smaller root (none: everywhere).
    let lower = roots(w, -(1.0 + w), b + e).map_or(1.0, |(lo, _)| clamp(lo));
    if lower <= upper {
        (lower, upper)
    } else {
        let t = a / (1.0 + a);
        (t, t)
    }
}

/// Real roots of A x² + B x + C, ascending (a linear equation's one root
/// twice); `None` when there is none.
fn roots(qa: f64, qb: f64, qc: f64) -> Option<(f64, f64)> {
    if qa == 0.0 {
        return (qb != 0.0).then(|| {
            let r = -qc / qb;
            (r, r)
        });
    }
    let d = qb * qb - 4.0 * qa * qc;
    if d < 0.0 {
        return None;
    }
    // The cancellation-free form of the quadratic formula.
    let q = -0.5 * (qb + qb.signum() * d.sqrt());
    let (r1, r2) = if q == 0.0 {
        (0.0, 0.0)
    } else {
        (q / qa, qc / q)
    };
    Some((r1.min(r2), r1.max(r2)))
}
