//! Reward breakdowns: a reward is a named, weighted sum of components.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One named reward component with its weight and value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewardComponent {
    /// Component name (the spec's, or upstream's rubric function name).
    pub name: &'static str,
    /// Weight in the total.
    pub weight: f64,
    /// Value before weighting.
    pub value: f64,
}

/// Every component of a reward, the profile that produced it and the total.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardBreakdown {
    /// Reward profile name (`v1`, `upstream`).
    pub profile: &'static str,
    /// Components in the profile's declared order.
    pub components: Vec<RewardComponent>,
    /// Σ weight × value, summed in component order.
    pub total: f64,
}

impl RewardBreakdown {
    /// Builds a breakdown whose total is the weighted sum of `components`.
    pub fn weighted(profile: &'static str, components: Vec<RewardComponent>) -> Self {
        let total = components.iter().map(|c| c.weight * c.value).sum();
        Self {
            profile,
            components,
            total,
        }
    }

    /// [`RewardBreakdown::weighted`] of `(name, weight)` pairs and their
    /// values, paired in order.
    pub fn from_weights(
        profile: &'static str,
        weights: &[(&'static str, f64)],
        values: impl IntoIterator<Item = f64>,
    ) -> Self {
        Self::weighted(
            profile,
            weights
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

    /// Component name → value, the `rewards` object of a result record.
    pub fn values(&self) -> BTreeMap<String, f64> {
        self.components
            .iter()
            .map(|c| (c.name.to_string(), c.value))
            .collect()
    }

    /// Component name → weight.
    pub fn weights(&self) -> BTreeMap<String, f64> {
        self.components
            .iter()
            .map(|c| (c.name.to_string(), c.weight))
            .collect()
    }

    /// The value of one component, if present.
    pub fn component(&self, name: &str) -> Option<f64> {
        self.components
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.value)
    }
}
