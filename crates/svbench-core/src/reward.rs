//! Reward breakdowns: a reward is a named, weighted sum of components.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::reward_config::RewardConfigError;

/// Component name → `[min, max]` of its value, as an environment's
/// scoring code defines them (weights are configurable; these bounds are
/// not). Each environment declares its own, per reward profile, with its
/// report plugin.
pub type ComponentBounds = &'static [(&'static str, [f64; 2])];

/// An environment's component bounds by reward profile.
pub type ProfileBounds = &'static [(&'static str, ComponentBounds)];

/// The bounds of `profile` in `table`.
#[must_use]
pub fn bounds_of(table: ProfileBounds, profile: &str) -> Option<ComponentBounds> {
    table.iter().find(|(p, _)| *p == profile).map(|(_, b)| *b)
}

/// The `[lowest, highest]` total reward with the component weights
/// `weights`: Σ weight × the component's `bounds`. `None` without bounds,
/// when `weights` is empty or names a component whose bounds are not known.
#[must_use]
pub fn total_range(
    bounds: Option<ComponentBounds>,
    weights: &BTreeMap<String, f64>,
) -> Option<[f64; 2]> {
    let bounds = bounds?;
    if weights.is_empty() {
        return None;
    }
    let mut range = [0.0, 0.0];
    for (name, w) in weights {
        let (_, [lo, hi]) = bounds.iter().find(|(c, _)| c == name)?;
        let (a, b) = (w * lo, w * hi);
        range[0] += a.min(b);
        range[1] += a.max(b);
    }
    range.iter().all(|x| x.is_finite()).then_some(range)
}

/// Refuses component weights whose largest possible total is not a finite
/// number: a non-finite weight, or Σ |weight| × the component's largest
/// absolute value (its `bounds`; ±1 for a component without declared
/// bounds) that overflows. Reward configs are
/// checked with it when they load, so no sample's total can be ±∞ or NaN
/// (which JSON would record as `null`, as if the sample had errored).
///
/// # Errors
/// [`RewardConfigError::Invalid`] naming the weight.
pub fn check_total_finite(
    bounds: Option<ComponentBounds>,
    profile: &str,
    weights: &[(&str, f64)],
) -> Result<(), RewardConfigError> {
    let bounds = bounds.unwrap_or(&[]);
    let invalid = |message: String| RewardConfigError::Invalid {
        profile: profile.to_string(),
        message,
    };
    let mut largest = 0.0f64;
    for (name, w) in weights {
        if !w.is_finite() {
            return Err(invalid(format!(
                "the weight of component `{name}` must be a finite number (got {w:e})"
            )));
        }
        let bound = bounds
            .iter()
            .find(|(c, _)| c == name)
            .map_or(1.0, |(_, [lo, hi])| lo.abs().max(hi.abs()));
        largest += w.abs() * bound;
        if !largest.is_finite() {
            return Err(invalid(format!(
                "the largest possible total reward is not finite: the weight of component \
                 `{name}` ({w:e}) makes Σ |weight| × bound overflow; use smaller weights"
            )));
        }
    }
    Ok(())
}

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
///
/// A component that does not apply to a sample (E4's `evidence` on a row
/// without usable gold, spec §4.3) has no value: it is listed in
/// `not_applicable` instead of `components`, so it is absent from
/// [`RewardBreakdown::values`] and [`RewardBreakdown::weights`] (a recorded
/// null) and its weight is left out of the total.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardBreakdown {
    /// Reward profile name (`v1`, `upstream`).
    pub profile: &'static str,
    /// Components in the profile's declared order.
    pub components: Vec<RewardComponent>,
    /// Σ weight × value, summed in component order.
    pub total: f64,
    /// Components of the profile without a value for this sample, in
    /// declared order (empty for every E1 and E2 reward).
    pub not_applicable: Vec<&'static str>,
}

impl RewardBreakdown {
    /// Builds a breakdown whose total is the weighted sum of `components`.
    pub fn weighted(profile: &'static str, components: Vec<RewardComponent>) -> Self {
        let total = components.iter().map(|c| c.weight * c.value).sum();
        Self {
            profile,
            components,
            total,
            not_applicable: Vec::new(),
        }
    }

    /// [`RewardBreakdown::from_weights`] where a value may be `None` (not
    /// applicable): such a component goes to `not_applicable` and its
    /// weight is dropped from the total.
    pub fn from_optional_weights(
        profile: &'static str,
        weights: &[(&'static str, f64)],
        values: impl IntoIterator<Item = Option<f64>>,
    ) -> Self {
        let mut components = Vec::with_capacity(weights.len());
        let mut not_applicable = Vec::new();
        for (&(name, weight), value) in weights.iter().zip(values) {
            match value {
                Some(value) => components.push(RewardComponent {
                    name,
                    weight,
                    value,
                }),
                None => not_applicable.push(name),
            }
        }
        Self {
            not_applicable,
            ..Self::weighted(profile, components)
        }
    }

    /// Whether `name` is a component of the profile without a value here.
    pub fn is_not_applicable(&self, name: &str) -> bool {
        self.not_applicable.contains(&name)
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

#[cfg(test)]
mod range_tests {
    use super::*;

    /// Bounds of the shapes environments declare (E1 v1 and upstream, E2
    /// v1 and upstream, E4 v1).
    const E1_V1: ComponentBounds = &[
        ("utility", [0.0, 1.0]),
        ("calibration", [0.0, 1.0]),
        ("format", [0.0, 1.0]),
    ];
    const E1_UP: ComponentBounds = &[
        ("reward_accuracy", [0.0, 1.0]),
        ("format_reward", [0.0, 1.0]),
        ("reward_calibration", [0.0, 1.0]),
        ("reward_asymmetric_cost", [-1.0, 1.0]),
    ];
    const E2_V1: ComponentBounds = &[
        ("detection", [0.0, 1.0]),
        ("patch", [0.0, 1.0]),
        ("format", [0.0, 1.0]),
    ];
    const E2_UP: ComponentBounds = &[("reward_config_auditing", [0.0, 2.0])];
    const E4_V1: ComponentBounds = &[
        ("utility", [0.0, 1.0]),
        ("calibration", [0.0, 1.0]),
        ("evidence", [0.0, 1.0]),
        ("format", [0.0, 1.0]),
    ];

    #[test]
    fn bounds_are_found_by_profile() {
        let table: ProfileBounds = &[("v1", E1_V1), ("upstream", E1_UP)];
        assert_eq!(bounds_of(table, "upstream"), Some(E1_UP));
        assert_eq!(bounds_of(table, "v2"), None);
    }

    fn weights(w: &[(&str, f64)]) -> BTreeMap<String, f64> {
        w.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn ranges_follow_the_recorded_weights() {
        let close = |r: Option<[f64; 2]>, want: [f64; 2]| {
            r.is_some_and(|[lo, hi]| (lo - want[0]).abs() < 1e-12 && (hi - want[1]).abs() < 1e-12)
        };
        let e1_v1 = weights(&[("utility", 1.0), ("calibration", 0.25), ("format", 0.05)]);
        assert!(close(total_range(Some(E1_V1), &e1_v1), [0.0, 1.3]));
        let e1_up = weights(&[
            ("reward_accuracy", 1.0),
            ("format_reward", 0.1),
            ("reward_calibration", 0.2),
            ("reward_asymmetric_cost", 0.5),
        ]);
        assert!(close(total_range(Some(E1_UP), &e1_up), [-0.5, 1.8]));
        let e2_v1 = weights(&[("detection", 1.0), ("patch", 0.5), ("format", 0.05)]);
        assert!(close(total_range(Some(E2_V1), &e2_v1), [0.0, 1.55]));
    }

    #[test]
    fn not_applicable_components_leave_the_total() {
        let w = [("utility", 1.0), ("evidence", 0.4), ("format", 0.05)];
        let b = RewardBreakdown::from_optional_weights("v1", &w, [Some(1.0), None, Some(1.0)]);
        assert!((b.total - 1.05).abs() < 1e-15);
        assert!(b.is_not_applicable("evidence"));
        assert!(!b.values().contains_key("evidence"));
        assert!(!b.weights().contains_key("evidence"));
        let all =
            RewardBreakdown::from_optional_weights("v1", &w, [Some(1.0), Some(0.5), Some(1.0)]);
        assert_eq!(
            all,
            RewardBreakdown::from_weights("v1", &w, [1.0, 0.5, 1.0])
        );
        let e4 = weights(&[
            ("utility", 1.0),
            ("calibration", 0.25),
            ("evidence", 0.4),
            ("format", 0.05),
        ]);
        let r = total_range(Some(E4_V1), &e4).unwrap();
        assert!((r[1] - 1.7).abs() < 1e-12 && r[0] == 0.0);
    }

    #[test]
    fn weights_whose_largest_total_overflows_are_refused_naming_the_weight() {
        let ok = [("utility", 1.0), ("calibration", 1e300), ("format", 1.0)];
        assert!(check_total_finite(Some(E1_V1), "v1", &ok).is_ok());
        // Each weight is finite; their sum over many components is not.
        let many: Vec<(&str, f64)> = ["utility", "calibration", "format"]
            .iter()
            .map(|c| (*c, 1e308))
            .collect();
        let e = check_total_finite(Some(E1_V1), "v1", &many).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("`calibration`") && msg.contains("not finite"),
            "{msg}"
        );
        // A bound above 1 counts: E2 upstream's auditing reward reaches 2.
        let e = check_total_finite(
            Some(E2_UP),
            "upstream",
            &[("reward_config_auditing", 1e308)],
        )
        .unwrap_err();
        assert!(e.to_string().contains("reward_config_auditing"), "{e}");
        for w in [f64::INFINITY, f64::NAN] {
            let e = check_total_finite(None, "v1", &[("x", w)]).unwrap_err();
            assert!(e.to_string().contains("`x` must be a finite number"), "{e}");
        }
    }

    #[test]
    fn unknown_components_or_profiles_have_no_range() {
        let w = weights(&[("utility", 1.0), ("mystery", 1.0)]);
        assert_eq!(total_range(Some(E1_V1), &w), None);
        assert_eq!(total_range(None, &w), None);
        assert_eq!(total_range(Some(E1_V1), &BTreeMap::new()), None);
    }
}
