//! E1 rewards (E1 §3): the `upstream` profile reproduced exactly and the
//! corrected `v1` profile, with every component reported.

use serde::Deserialize;
use svbench_core::cost::{brier_calibration, CostMatrix, Decision};
use svbench_core::reward_config::RewardConfigError;
use svbench_core::{ParseOutcome, RewardBreakdown};

use crate::kit::reward::{self, V1Constants};

use super::{Gold, Label, NAME};

/// The compiled-in reward config (`rewards/e1.toml`).
pub const DEFAULT_CONFIG: &str = include_str!("../../../../rewards/e1.toml");

/// Bumped whenever scoring semantics change (part of `reward_config_hash`).
pub const REWARD_IMPL_VERSION: u32 = 1;

/// Profiles E1 offers.
pub const PROFILES: &[&str] = &["v1", "upstream"];

/// Upstream rubric weights (fixed for parity).
const UPSTREAM_WEIGHTS: [(&str, f64); 4] = [
    ("reward_accuracy", 1.0),
    ("format_reward", 0.1),
    ("reward_calibration", 0.2),
    ("reward_asymmetric_cost", 0.5),
];

/// Constants of the `v1` profile (table `[v1]` of `rewards/e1.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct V1Params {
    /// Costs of the decisions (`cost_fp`, `cost_fn`, `cost_abstain`).
    #[serde(flatten)]
    pub costs: CostMatrix,
    /// Weight of the Brier calibration component.
    pub w_calibration: f64,
    /// Weight of the format component.
    pub w_format: f64,
    /// Calibration credit of an abstention.
    pub abstain_calibration: f64,
}

impl V1Constants for V1Params {
    const ENV: &'static str = NAME;
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    const REWARD_IMPL_VERSION: u32 = REWARD_IMPL_VERSION;
    const PROFILES: &'static [&'static str] = PROFILES;
    const UPSTREAM_WEIGHTS: &'static [(&'static str, f64)] = &UPSTREAM_WEIGHTS;
    const BOUNDS: svbench_core::reward::ProfileBounds = crate::e1::report::plugin::COMPONENT_BOUNDS;

    fn weights(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("utility", 1.0),
            ("calibration", self.w_calibration),
            ("format", self.w_format),
        ]
    }

    /// `cost_fn > 0`, `0 ≤ cost_fp ≤ cost_fn`, `0 ≤ cost_abstain ≤ cost_fn`,
    /// `w_calibration ≥ 0`, `w_format > 0`, `abstain_calibration ∈ [0, 1]`
    /// (E1 §3.2).
    fn validate(&self) -> Result<(), RewardConfigError> {
        let invalid = |message: String| RewardConfigError::Invalid {
            profile: "v1".to_string(),
            message,
        };
        self.costs.validate().map_err(|e| invalid(e.to_string()))?;
        if !(self.w_calibration.is_finite() && self.w_calibration >= 0.0) {
            return Err(invalid(format!(
                "w_calibration must be ≥ 0 (got {})",
                self.w_calibration
            )));
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
}

impl Default for V1Params {
    /// The constants of the built-in `[v1]` table of `rewards/e1.toml`.
    fn default() -> Self {
        Self::builtin()
    }
}

/// Which profile scores answers.
pub type Profile = reward::Profile<V1Params>;

/// An E1 reward profile with its effective config.
pub type E1Rewards = reward::Rewards<V1Params>;

impl E1Rewards {
    /// Scores a parse outcome against the gold label.
    pub fn score(&self, outcome: &ParseOutcome<Label>, gold: Gold) -> RewardBreakdown {
        match self.profile {
            Profile::V1(p) => score_v1(&p, outcome, gold),
            Profile::Upstream => score_upstream(outcome, gold),
        }
    }
}

fn decision(label: Label, gold: Gold) -> Decision {
    match (label, gold) {
        (Label::Abstain, _) => Decision::Abstain,
        (l, g) if l == g.label() => Decision::Correct,
        (Label::Malicious, Gold::Benign) => Decision::FalsePositive,
        _ => Decision::FalseNegative,
    }
}

/// The `v1` profile (E1 §3.2).
pub fn score_v1(p: &V1Params, outcome: &ParseOutcome<Label>, gold: Gold) -> RewardBreakdown {
    let (utility, calibration, format) = match outcome {
        ParseOutcome::Invalid { .. } => (0.0, 0.0, 0.0),
        ParseOutcome::LabelOnly { label, .. } => {
            (p.costs.utility(decision(*label, gold)), 0.0, 0.0)
        }
        ParseOutcome::Valid {
            label,
            confidence,
            format_ok,
            ..
        } => {
            let d = decision(*label, gold);
            let cal = match d {
                Decision::Abstain => p.abstain_calibration,
                _ => brier_calibration(*confidence, d == Decision::Correct),
            };
            (p.costs.utility(d), cal, if *format_ok { 1.0 } else { 0.0 })
        }
    };
    // The weights on the stack: this runs for every scored answer.
    let weights = [
        ("utility", 1.0),
        ("calibration", p.w_calibration),
        ("format", p.w_format),
    ];
    RewardBreakdown::from_weights("v1", &weights, [utility, calibration, format])
}

/// The `upstream` profile (E1 §3.1), quirks included.
pub fn score_upstream(outcome: &ParseOutcome<Label>, gold: Gold) -> RewardBreakdown {
    let (acc, fmt, cal, cost) = match outcome {
        // Upstream mode has no LabelOnly outcome; treat one like an empty label.
        ParseOutcome::Invalid { .. } | ParseOutcome::LabelOnly { .. } => (0.0, 0.0, 0.0, 0.0),
        ParseOutcome::Valid {
            label,
            confidence,
            format_ok,
            ..
        } => {
            let correct = *label == gold.label();
            let k = if correct { 1.0 } else { 0.0 };
            let cost = if correct {
                1.0
            } else if *label == Label::Benign && gold == Gold::Malicious {
                -1.0
            } else {
                0.0
            };
            (
                k,
                if *format_ok { 1.0 } else { 0.0 },
                1.0 - (confidence - k).abs(),
                cost,
            )
        }
    };
    RewardBreakdown::from_weights("upstream", &UPSTREAM_WEIGHTS, [acc, fmt, cal, cost])
}
