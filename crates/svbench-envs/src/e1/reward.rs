//! E1 rewards (E1 §3): the `upstream` profile reproduced exactly and the
//! corrected `v1` profile, with every component reported.

use svbench_core::cost::{brier_calibration, CostMatrix, Decision};
use svbench_core::reward_config::{
    load_profile, param_f64, reward_config_hash, ProfileParams, RewardConfigError,
};
use svbench_core::{ParseOutcome, RewardBreakdown, RewardComponent};

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct V1Params {
    /// Costs of the decisions.
    pub costs: CostMatrix,
    /// Weight of the Brier calibration component.
    pub w_calibration: f64,
    /// Weight of the format component.
    pub w_format: f64,
    /// Calibration credit of an abstention.
    pub abstain_calibration: f64,
}

impl Default for V1Params {
    /// The constants of the built-in `[v1]` table of `rewards/e1.toml`.
    fn default() -> Self {
        let params =
            load_profile(DEFAULT_CONFIG, "v1", None).expect("built-in E1 reward config parses");
        Self::from_params(&params).expect("built-in E1 v1 constants are valid")
    }
}

impl V1Params {
    /// Reads and validates the constants (E1 §3.2).
    pub fn from_params(params: &ProfileParams) -> Result<Self, RewardConfigError> {
        let get = |k| param_f64(params, "v1", k);
        let p = Self {
            costs: CostMatrix {
                cost_fp: get("cost_fp")?,
                cost_fn: get("cost_fn")?,
                cost_abstain: get("cost_abstain")?,
            },
            w_calibration: get("w_calibration")?,
            w_format: get("w_format")?,
            abstain_calibration: get("abstain_calibration")?,
        };
        p.validate()?;
        Ok(p)
    }

    /// `cost_fn > 0`, `0 ≤ cost_fp ≤ cost_fn`, `0 ≤ cost_abstain ≤ cost_fn`,
    /// `w_calibration ≥ 0`, `w_format > 0`, `abstain_calibration ∈ [0, 1]`.
    pub fn validate(&self) -> Result<(), RewardConfigError> {
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

/// Which profile scores answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Profile {
    /// Corrected profile with its constants.
    V1(V1Params),
    /// Upstream's rubric.
    Upstream,
}

/// An E1 reward profile with its effective config.
#[derive(Debug, Clone, PartialEq)]
pub struct E1Rewards {
    /// The profile.
    pub profile: Profile,
    /// Effective constants (defaults plus overrides), as recorded in metadata.
    pub params: ProfileParams,
}

impl E1Rewards {
    /// Loads profile `name` from the built-in config, applying an optional
    /// override file given as `(text, origin)`.
    pub fn load(name: &str, overrides: Option<(&str, &str)>) -> Result<Self, RewardConfigError> {
        let params = load_profile(DEFAULT_CONFIG, name, overrides)?;
        let profile = match name {
            "v1" => Profile::V1(V1Params::from_params(&params)?),
            "upstream" => Profile::Upstream,
            other => {
                return Err(RewardConfigError::NoSuchProfile {
                    profile: other.to_string(),
                    known: PROFILES.join(", "),
                })
            }
        };
        Ok(Self { profile, params })
    }

    /// The default `v1` profile.
    pub fn v1_default() -> Self {
        Self::load("v1", None).expect("built-in E1 reward config is valid")
    }

    /// Profile name.
    pub fn name(&self) -> &'static str {
        match self.profile {
            Profile::V1(_) => "v1",
            Profile::Upstream => "upstream",
        }
    }

    /// Component names and weights in order.
    pub fn weights(&self) -> Vec<(&'static str, f64)> {
        match self.profile {
            Profile::V1(p) => vec![
                ("utility", 1.0),
                ("calibration", p.w_calibration),
                ("format", p.w_format),
            ],
            Profile::Upstream => UPSTREAM_WEIGHTS.to_vec(),
        }
    }

    /// `reward_config_hash` of the effective config.
    pub fn config_hash(&self) -> String {
        reward_config_hash(
            NAME,
            self.name(),
            REWARD_IMPL_VERSION,
            &self.weights(),
            &self.params,
        )
    }

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
    RewardBreakdown::weighted(
        "v1",
        vec![
            RewardComponent {
                name: "utility",
                weight: 1.0,
                value: utility,
            },
            RewardComponent {
                name: "calibration",
                weight: p.w_calibration,
                value: calibration,
            },
            RewardComponent {
                name: "format",
                weight: p.w_format,
                value: format,
            },
        ],
    )
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
    let values = [acc, fmt, cal, cost];
    RewardBreakdown::weighted(
        "upstream",
        UPSTREAM_WEIGHTS
            .iter()
            .zip(values)
            .map(|(&(name, weight), value)| RewardComponent {
                name,
                weight,
                value,
            })
            .collect(),
    )
}
