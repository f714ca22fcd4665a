//! E2 rewards (spec E2 §5): the `upstream` profile reproduced exactly
//! ([`upstream`]) and the corrected `v1` profile ([`v1`]), every component
//! always reported.
//!
//! Both profiles are pure functions over already-computed facts: parsed
//! answers, normalised ids, catalogue severities (a lookup closure) and patch
//! results as finding-id sets. Parsing, id normalisation, patch application
//! and scanning happen elsewhere (`parse`, `ids`, `svbench_scan::patch`), so
//! the scoring rules can be read and tested on their own.

pub mod upstream;
pub mod v1;

use serde::Deserialize;
use svbench_core::reward_config::RewardConfigError;
use svbench_core::RewardBreakdown;

use crate::kit::reward::{self, V1Constants};

use super::{Severity, Tool, NAME};

pub use upstream::{score_upstream, tool_observation_reward, UpstreamPatch, UpstreamScore};
pub use v1::{score_v1, PatchEvaluation, PatchScore, V1Answer, V1Score};

/// The compiled-in reward config (`rewards/e2.toml`).
pub const DEFAULT_CONFIG: &str = include_str!("../../../../rewards/e2.toml");

/// Bumped whenever scoring semantics change (part of `reward_config_hash`).
pub const REWARD_IMPL_VERSION: u32 = 1;

/// Profiles E2 offers.
pub const PROFILES: &[&str] = &["v1", "upstream"];

/// A catalogue severity lookup: the project severity of `rule` in namespace
/// `tool`, `None` for rules the catalogue does not know (spec E2 §1.5–1.7).
pub type SeverityLookup<'a> = &'a dyn Fn(Tool, &str) -> Option<Severity>;

/// Weighted detection counts and the scores derived from them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Detection {
    /// Weight of true positives.
    pub tp: f64,
    /// Weight of false positives.
    pub fp: f64,
    /// Weight of false negatives.
    pub fn_: f64,
    /// TP / (TP + FP), 0 on a zero denominator.
    pub precision: f64,
    /// TP / (TP + FN), 0 on a zero denominator.
    pub recall: f64,
    /// Harmonic mean of precision and recall, 0 when both are 0.
    pub f1: f64,
}

impl Detection {
    /// Precision, recall and F1 of weighted counts (spec E2 §5.1/§5.2).
    #[must_use]
    pub fn from_weights(tp: f64, fp: f64, fn_: f64) -> Self {
        let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
        let precision = ratio(tp, tp + fp);
        let recall = ratio(tp, tp + fn_);
        let f1 = ratio(2.0 * precision * recall, precision + recall);
        Self {
            tp,
            fp,
            fn_,
            precision,
            recall,
            f1,
        }
    }
}

/// Constants of the `v1` profile (table `[v1]` of `rewards/e2.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct V1Params {
    /// Weight of the patch component.
    pub w_patch: f64,
    /// Weight of the format component.
    pub w_format: f64,
    /// Penalty factor on the weight of findings a patch introduces.
    pub new_finding_factor: f64,
    /// Weight of a `low` catalogue severity.
    pub weight_low: f64,
    /// Weight of a `med` catalogue severity (also ids outside the catalogue).
    pub weight_med: f64,
    /// Weight of a `high` catalogue severity.
    pub weight_high: f64,
}

impl V1Constants for V1Params {
    const ENV: &'static str = NAME;
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    const REWARD_IMPL_VERSION: u32 = REWARD_IMPL_VERSION;
    const PROFILES: &'static [&'static str] = PROFILES;
    const UPSTREAM_WEIGHTS: &'static [(&'static str, f64)] = &upstream::WEIGHTS;
    const BOUNDS: svbench_core::reward::ProfileBounds = crate::e2::report::plugin::COMPONENT_BOUNDS;

    fn weights(&self) -> Vec<(&'static str, f64)> {
        v1::weights(self).to_vec()
    }

    /// `w_patch`, `w_format`, `new_finding_factor` finite and ≥ 0; severity
    /// weights finite with `0 < weight_low ≤ weight_med ≤ weight_high` (a
    /// zero weight would make a whole severity class free to spam).
    ///
    /// # Errors
    /// [`RewardConfigError::Invalid`] naming the offending key.
    fn validate(&self) -> Result<(), RewardConfigError> {
        let invalid = |message: String| RewardConfigError::Invalid {
            profile: "v1".to_string(),
            message,
        };
        for (name, v) in [
            ("w_patch", self.w_patch),
            ("w_format", self.w_format),
            ("new_finding_factor", self.new_finding_factor),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(invalid(format!("{name} must be ≥ 0 (got {v})")));
            }
        }
        let (l, m, h) = (self.weight_low, self.weight_med, self.weight_high);
        if !([l, m, h].iter().all(|w| w.is_finite()) && 0.0 < l && l <= m && m <= h) {
            return Err(invalid(format!(
                "severity weights must satisfy 0 < weight_low ≤ weight_med ≤ weight_high \
                 (got {l}, {m}, {h})"
            )));
        }
        Ok(())
    }
}

impl V1Params {
    /// The weight of a severity level.
    #[must_use]
    pub fn severity_weight(&self, severity: Severity) -> f64 {
        match severity {
            Severity::Low => self.weight_low,
            Severity::Med => self.weight_med,
            Severity::High => self.weight_high,
        }
    }
}

impl Default for V1Params {
    /// The constants of the built-in `[v1]` table of `rewards/e2.toml`.
    fn default() -> Self {
        Self::builtin()
    }
}

/// Which profile gives the scalar reward.
pub type Profile = reward::Profile<V1Params>;

/// An E2 reward profile with its effective config.
pub type E2Rewards = reward::Rewards<V1Params>;

impl E2Rewards {
    /// The active profile's breakdown out of both profiles' scores (E2
    /// computes and records both; `--reward-profile` picks the scalar).
    #[must_use]
    pub fn select<'s>(&self, v1: &'s V1Score, upstream: &'s UpstreamScore) -> &'s RewardBreakdown {
        match self.profile {
            Profile::V1(_) => &v1.breakdown,
            Profile::Upstream => &upstream.breakdown,
        }
    }
}
