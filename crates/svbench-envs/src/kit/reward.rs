//! The reward-profile plumbing every environment shares: profile `v1` with
//! typed constants read from its table of `rewards/<env>.toml`, profile
//! `upstream` with fixed weights, the effective parameters as recorded and
//! their `reward_config_hash`. An environment declares its constants
//! ([`V1Constants`]) and scores answers itself.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use svbench_core::reward_config::{
    load_profile, read_params, reward_config_hash, ProfileParams, RewardConfigError,
};

/// The constants of an environment's `v1` profile and what identifies its
/// reward config.
pub trait V1Constants: DeserializeOwned + Debug + Clone + Copy + PartialEq {
    /// Environment name recorded in `reward_config_hash`.
    const ENV: &'static str;
    /// The compiled-in reward config (`rewards/<env>.toml`).
    const DEFAULT_CONFIG: &'static str;
    /// Bumped whenever scoring semantics change (part of `reward_config_hash`).
    const REWARD_IMPL_VERSION: u32;
    /// Profiles the environment offers.
    const PROFILES: &'static [&'static str];
    /// Upstream rubric weights (fixed for parity).
    const UPSTREAM_WEIGHTS: &'static [(&'static str, f64)];
    /// `[min, max]` of each component by profile (the environment's report
    /// plugin declares them).
    const BOUNDS: svbench_core::reward::ProfileBounds;

    /// Checks the values once read.
    ///
    /// # Errors
    /// [`RewardConfigError::Invalid`] naming the offending key.
    fn validate(&self) -> Result<(), RewardConfigError>;

    /// Component names and weights of the `v1` profile, in order.
    fn weights(&self) -> Vec<(&'static str, f64)>;

    /// Checks the effective keys of table `[upstream]`. Most environments
    /// have none there; one that makes an upstream choice configurable
    /// (E4's `evidence_mode`) validates it here.
    ///
    /// # Errors
    /// [`RewardConfigError::Invalid`] naming the offending key.
    fn validate_upstream(_params: &ProfileParams) -> Result<(), RewardConfigError> {
        Ok(())
    }

    /// Reads and validates the constants of table `[v1]`.
    ///
    /// # Errors
    /// A key missing from the table, or a value [`V1Constants::validate`] rejects.
    fn from_params(params: &ProfileParams) -> Result<Self, RewardConfigError> {
        let p: Self = read_params(params, "v1")?;
        p.validate()?;
        Ok(p)
    }

    /// The constants of the built-in `[v1]` table.
    #[must_use]
    fn builtin() -> Self {
        let params = load_profile(Self::DEFAULT_CONFIG, "v1", None)
            .unwrap_or_else(|e| panic!("built-in {} reward config parses: {e}", Self::ENV));
        Self::from_params(&params)
            .unwrap_or_else(|e| panic!("built-in {} v1 constants are valid: {e}", Self::ENV))
    }
}

/// Which profile scores answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Profile<P> {
    /// Corrected profile with its constants.
    V1(P),
    /// Upstream's rubric.
    Upstream,
}

/// A reward profile with its effective config.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewards<P> {
    /// The profile.
    pub profile: Profile<P>,
    /// Effective constants (defaults plus overrides), as recorded in metadata.
    pub params: ProfileParams,
}

impl<P: V1Constants> Rewards<P> {
    /// Loads profile `name` from the built-in config, applying an optional
    /// override file given as `(text, origin)`.
    ///
    /// # Errors
    /// Unknown profile, unknown keys, wrong types or invalid values.
    pub fn load(name: &str, overrides: Option<(&str, &str)>) -> Result<Self, RewardConfigError> {
        let params = load_profile(P::DEFAULT_CONFIG, name, overrides)?;
        let profile = match name {
            "v1" => Profile::V1(P::from_params(&params)?),
            "upstream" => {
                P::validate_upstream(&params)?;
                Profile::Upstream
            }
            other => {
                return Err(RewardConfigError::NoSuchProfile {
                    profile: other.to_string(),
                    known: P::PROFILES.join(", "),
                })
            }
        };
        let rewards = Self { profile, params };
        // No sample's total may be ±∞ or NaN (recorded as `null`).
        let bounds = svbench_core::reward::bounds_of(P::BOUNDS, name);
        svbench_core::reward::check_total_finite(bounds, name, &rewards.weights())?;
        Ok(rewards)
    }

    /// The default `v1` profile.
    #[must_use]
    pub fn v1_default() -> Self {
        Self::load("v1", None)
            .unwrap_or_else(|e| panic!("built-in {} reward config is valid: {e}", P::ENV))
    }

    /// The `v1` constants behind the run's `v1` metrics (its cost matrix):
    /// this profile's when it is `v1`, else the built-in `v1` defaults.
    #[must_use]
    pub fn v1_constants(&self) -> P {
        match self.profile {
            Profile::V1(p) => p,
            Profile::Upstream => Self::v1_default().v1_constants(),
        }
    }

    /// Profile name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self.profile {
            Profile::V1(_) => "v1",
            Profile::Upstream => "upstream",
        }
    }

    /// Component names and weights in order.
    #[must_use]
    pub fn weights(&self) -> Vec<(&'static str, f64)> {
        match &self.profile {
            Profile::V1(p) => p.weights(),
            Profile::Upstream => P::UPSTREAM_WEIGHTS.to_vec(),
        }
    }

    /// `reward_config_hash` of the effective config.
    #[must_use]
    pub fn config_hash(&self) -> String {
        reward_config_hash(
            P::ENV,
            self.name(),
            P::REWARD_IMPL_VERSION,
            &self.weights(),
            &self.params,
        )
    }
}
