//! Group-relative advantages for RL training (harness §7.4): GRPO,
//! component-normalised and GDPO-style. The same definitions are exposed to
//! Python (`svbench.advantages`, through the bindings) and by the server's
//! `score_batch`, so a trainer gets identical numbers from any of them.
//!
//! Samples are grouped contiguously (`group_size` consecutive samples form a
//! group, TRL's layout) unless explicit group ids are given. f64 throughout;
//! NaN or infinite inputs are errors, never propagated.

use std::collections::BTreeMap;

/// Default `eps` added to the standard deviation.
pub const DEFAULT_EPS: f64 = 1e-6;

/// How samples form groups.
#[derive(Debug, Clone, PartialEq)]
pub enum Grouping<'a> {
    /// `group_size` consecutive samples per group; N must be a multiple.
    Contiguous(usize),
    /// One group id per sample; samples with equal ids form a group.
    Ids(&'a [i64]),
}

/// Normalisation constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Norm {
    /// Added to the standard deviation before dividing.
    pub eps: f64,
    /// 0 (population, default) or 1 (sample).
    pub ddof: u32,
}

impl Default for Norm {
    fn default() -> Self {
        Self {
            eps: DEFAULT_EPS,
            ddof: 0,
        }
    }
}

/// Bad input to an advantage helper.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AdvantageError {
    /// A reward, component or weight is NaN or infinite.
    #[error("{what}[{index}] is not finite ({value})")]
    NotFinite {
        /// Which input.
        what: String,
        /// Position.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Lengths, group size, ddof or eps do not fit.
    #[error("{0}")]
    Shape(String),
}

/// A sample's group index, per sample, and the number of groups.
fn group_index(n: usize, grouping: &Grouping<'_>) -> Result<(Vec<usize>, usize), AdvantageError> {
    match grouping {
        Grouping::Contiguous(g) => {
            if *g == 0 {
                return Err(AdvantageError::Shape(
                    "group_size must be at least 1".into(),
                ));
            }
            if !n.is_multiple_of(*g) {
                return Err(AdvantageError::Shape(format!(
                    "{n} samples are not a whole number of groups of {g}"
                )));
            }
            Ok(((0..n).map(|i| i / g).collect(), n / g))
        }
        Grouping::Ids(ids) => {
            if ids.len() != n {
                return Err(AdvantageError::Shape(format!(
                    "{} group ids for {n} samples",
                    ids.len()
                )));
            }
            let mut seen: BTreeMap<i64, usize> = BTreeMap::new();
            let mut out = Vec::with_capacity(n);
            for id in ids.iter() {
                let next = seen.len();
                out.push(*seen.entry(*id).or_insert(next));
            }
            let groups = seen.len();
            Ok((out, groups))
        }
    }
}

fn check_norm(norm: Norm) -> Result<(), AdvantageError> {
    if norm.ddof > 1 {
        return Err(AdvantageError::Shape(format!(
            "ddof must be 0 or 1, got {}",
            norm.ddof
        )));
    }
    if !norm.eps.is_finite() || norm.eps < 0.0 {
        return Err(AdvantageError::Shape(format!(
            "eps must be finite and non-negative, got {}",
            norm.eps
        )));
    }
    Ok(())
}

fn check_finite(what: &str, values: &[f64]) -> Result<(), AdvantageError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(AdvantageError::NotFinite {
            what: what.to_string(),
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// mean(S) = Σx/|S|; std(S) = sqrt(Σ(x − mean)²/(|S| − ddof)), 0 when |S| ≤ ddof.
/// Sums run in sample order so every implementation gets the same bits.
fn mean_std(values: impl Iterator<Item = f64> + Clone, ddof: u32) -> (f64, f64) {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values.clone() {
        sum += v;
        n += 1;
    }
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = sum / n as f64;
    let denom = n as f64 - f64::from(ddof);
    if denom <= 0.0 {
        return (mean, 0.0);
    }
    let mut ss = 0.0;
    for v in values {
        let d = v - mean;
        ss += d * d;
    }
    (mean, (ss / denom).sqrt())
}

/// (x − mean_g) / (std_g + eps) for every sample, per group.
fn normalize_groups(values: &[f64], groups: &[usize], n_groups: usize, norm: Norm) -> Vec<f64> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_groups];
    for (i, g) in groups.iter().enumerate() {
        members[*g].push(i);
    }
    let mut out = vec![0.0; values.len()];
    for idx in &members {
        let (mean, std) = mean_std(idx.iter().map(|&i| values[i]), norm.ddof);
        // With eps = 0 a group whose values are all equal has no spread to
        // scale by: its samples are all average (0), never 0/0 = NaN.
        let scale = std + norm.eps;
        for &i in idx {
            out[i] = if scale > 0.0 {
                (values[i] - mean) / scale
            } else {
                0.0
            };
        }
    }
    out
}

/// GRPO: A_i = (r_i − mean_g(r)) / (std_g(r) + eps).
///
/// # Errors
/// Non-finite rewards, a bad grouping, ddof ∉ {0, 1} or a negative eps.
pub fn grpo(
    rewards: &[f64],
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<f64>, AdvantageError> {
    check_norm(norm)?;
    check_finite("rewards", rewards)?;
    let (groups, n_groups) = group_index(rewards.len(), grouping)?;
    Ok(normalize_groups(rewards, &groups, n_groups, norm))
}

/// Checks components and weights name the same set, have N finite values each.
fn check_components(
    components: &BTreeMap<String, Vec<f64>>,
    weights: &BTreeMap<String, f64>,
) -> Result<usize, AdvantageError> {
    if components.is_empty() {
        return Err(AdvantageError::Shape("no components given".into()));
    }
    let names: Vec<&String> = components.keys().collect();
    let weight_names: Vec<&String> = weights.keys().collect();
    if names != weight_names {
        return Err(AdvantageError::Shape(format!(
            "components {names:?} and weights {weight_names:?} name different sets"
        )));
    }
    let n = components.values().next().map_or(0, Vec::len);
    for (name, values) in components {
        if values.len() != n {
            return Err(AdvantageError::Shape(format!(
                "component `{name}` has {} values, expected {n}",
                values.len()
            )));
        }
        check_finite(name, values)?;
    }
    for (name, w) in weights {
        check_finite(&format!("weights.{name}"), &[*w])?;
    }
    Ok(n)
}

/// Component-normalised: ĉ_ik = (c_ik − mean_g(c_k)) / (std_g(c_k) + eps);
/// A_i = Σ_k w_k ĉ_ik, components summed in name order.
///
/// # Errors
/// As [`grpo`], plus components and weights naming different sets or
/// components of unequal length.
pub fn component_normalized(
    components: &BTreeMap<String, Vec<f64>>,
    weights: &BTreeMap<String, f64>,
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<f64>, AdvantageError> {
    check_norm(norm)?;
    let n = check_components(components, weights)?;
    let (groups, n_groups) = group_index(n, grouping)?;
    let mut out = vec![0.0; n];
    for (name, values) in components {
        let w = weights[name];
        let normed = normalize_groups(values, &groups, n_groups, norm);
        for (a, c) in out.iter_mut().zip(normed) {
            *a += w * c;
        }
    }
    Ok(out)
}

/// GDPO-style: component-normalised advantages, then normalised again over
/// the whole batch: A'_i = (A_i − mean_B(A)) / (std_B(A) + eps).
///
/// # Errors
/// As [`component_normalized`].
pub fn gdpo(
    components: &BTreeMap<String, Vec<f64>>,
    weights: &BTreeMap<String, f64>,
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<f64>, AdvantageError> {
    let a = component_normalized(components, weights, grouping, norm)?;
    let whole = vec![0usize; a.len()];
    Ok(normalize_groups(&a, &whole, 1, norm))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn c(pairs: &[(&str, Vec<f64>)]) -> BTreeMap<String, Vec<f64>> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }
    fn w(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn worked_example_of_the_spec() {
        let a = grpo(
            &[1.0, 0.0, 0.0, 1.0],
            &Grouping::Contiguous(4),
            Norm::default(),
        )
        .unwrap();
        let e = 0.5 / (0.5 + 1e-6);
        assert_eq!(a, vec![e, -e, -e, e]);
        assert!((a[0] - 0.999998).abs() < 1e-6);
    }

    #[test]
    fn constant_groups_give_zeros() {
        let a = grpo(
            &[3.0, 3.0, 1.0, 1.0],
            &Grouping::Contiguous(2),
            Norm::default(),
        )
        .unwrap();
        assert_eq!(a, vec![0.0; 4]);
    }

    /// Found by the `api_body` fuzz target: GDPO with eps = 0 on a group of
    /// one gave NaN.
    #[test]
    fn zero_eps_on_a_constant_group_is_zero_not_nan() {
        let none = Norm { eps: 0.0, ddof: 0 };
        assert_eq!(
            grpo(&[1.0], &Grouping::Contiguous(1), none).unwrap(),
            vec![0.0]
        );
        assert_eq!(
            grpo(&[0.5, 0.5], &Grouping::Contiguous(2), none).unwrap(),
            vec![0.0, 0.0]
        );
        let comps = c(&[("a", vec![1.0])]);
        let w: BTreeMap<String, f64> = [("a".to_string(), 1.0)].into_iter().collect();
        assert_eq!(
            gdpo(&comps, &w, &Grouping::Contiguous(1), none).unwrap(),
            vec![0.0]
        );
    }

    #[test]
    fn ddof_one_with_trl_eps_matches_trl_scaling() {
        // TRL: (r − mean) / (unbiased std + 1e-4).
        let r = [1.0, 0.0, 0.5];
        let a = grpo(&r, &Grouping::Contiguous(3), Norm { eps: 1e-4, ddof: 1 }).unwrap();
        let mean = 0.5;
        let std = ((0.25 + 0.25 + 0.0) / 2.0f64).sqrt();
        assert_eq!(a[0], (1.0 - mean) / (std + 1e-4));
        // A group of one has std 0 under ddof 1, not a division by zero.
        let one = grpo(
            &[2.0],
            &Grouping::Contiguous(1),
            Norm { eps: 1e-4, ddof: 1 },
        )
        .unwrap();
        assert_eq!(one, vec![0.0]);
    }

    #[test]
    fn group_ids_group_non_contiguous_samples() {
        let ids = [7, 9, 7, 9];
        let a = grpo(&[1.0, 5.0, 0.0, 5.0], &Grouping::Ids(&ids), Norm::default()).unwrap();
        let b = grpo(
            &[1.0, 0.0, 5.0, 5.0],
            &Grouping::Contiguous(2),
            Norm::default(),
        )
        .unwrap();
        assert_eq!(a, vec![b[0], b[2], b[1], b[3]]);
    }

    #[test]
    fn bad_input_is_an_error() {
        let n = Norm::default();
        assert!(matches!(
            grpo(&[1.0, f64::NAN], &Grouping::Contiguous(2), n),
            Err(AdvantageError::NotFinite { index: 1, .. })
        ));
        assert!(grpo(&[1.0, f64::INFINITY], &Grouping::Contiguous(2), n).is_err());
        assert!(grpo(&[1.0, 2.0, 3.0], &Grouping::Contiguous(2), n).is_err());
        assert!(grpo(&[1.0], &Grouping::Contiguous(0), n).is_err());
        assert!(grpo(
            &[1.0],
            &Grouping::Contiguous(1),
            Norm { eps: 1e-6, ddof: 2 }
        )
        .is_err());
        assert!(grpo(&[1.0], &Grouping::Ids(&[1, 2]), n).is_err());
        let comps = c(&[("a", vec![1.0, 2.0])]);
        assert!(
            component_normalized(&comps, &w(&[("b", 1.0)]), &Grouping::Contiguous(2), n).is_err()
        );
        let uneven = c(&[("a", vec![1.0, 2.0]), ("b", vec![1.0])]);
        assert!(component_normalized(
            &uneven,
            &w(&[("a", 1.0), ("b", 1.0)]),
            &Grouping::Contiguous(1),
            n
        )
        .is_err());
        assert!(gdpo(&comps, &w(&[("a", f64::NAN)]), &Grouping::Contiguous(2), n).is_err());
    }

    #[test]
    fn component_normalized_with_one_component_is_weighted_grpo() {
        let r = vec![0.2, 0.9, 0.4, 0.4, 1.0, 0.0];
        let g = Grouping::Contiguous(3);
        let a = component_normalized(
            &c(&[("x", r.clone())]),
            &w(&[("x", 2.0)]),
            &g,
            Norm::default(),
        )
        .unwrap();
        let b = grpo(&r, &g, Norm::default()).unwrap();
        for (x, y) in a.iter().zip(b) {
            assert_eq!(*x, 2.0 * y);
        }
    }

    fn batch() -> impl Strategy<Value = (usize, Vec<f64>, Vec<f64>)> {
        (1usize..6, 1usize..6).prop_flat_map(|(g, k)| {
            let n = g * k;
            (
                Just(g),
                proptest::collection::vec(-5.0f64..5.0, n),
                proptest::collection::vec(0.0f64..1.0, n),
            )
        })
    }

    proptest! {
        #[test]
        fn grpo_groups_have_zero_mean((g, r, _) in batch()) {
            let a = grpo(&r, &Grouping::Contiguous(g), Norm::default()).unwrap();
            for chunk in a.chunks(g) {
                let m: f64 = chunk.iter().sum::<f64>() / chunk.len() as f64;
                prop_assert!(m.abs() < 1e-9);
            }
        }

        #[test]
        fn gdpo_batch_has_zero_mean_and_unit_std((g, x, y) in batch()) {
            let comps = c(&[("a", x), ("b", y)]);
            let a = gdpo(&comps, &w(&[("a", 1.0), ("b", 0.5)]), &Grouping::Contiguous(g), Norm::default())
                .unwrap();
            let n = a.len() as f64;
            let m: f64 = a.iter().sum::<f64>() / n;
            prop_assert!(m.abs() < 1e-9);
            let var: f64 = a.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
            // Unit std unless every advantage was 0 (all groups constant) or
            // eps dominates a tiny spread.
            let raw = component_normalized(&comps, &w(&[("a", 1.0), ("b", 0.5)]), &Grouping::Contiguous(g), Norm::default()).unwrap();
            let rm: f64 = raw.iter().sum::<f64>() / n;
            let rstd = (raw.iter().map(|v| (v - rm) * (v - rm)).sum::<f64>() / n).sqrt();
            if rstd > 1e-3 {
                prop_assert!((var.sqrt() - 1.0).abs() < 1e-2);
            } else {
                prop_assert!(var.sqrt() < 1.0 + 1e-9);
            }
        }

        #[test]
        fn shifting_a_group_leaves_its_advantages((g, r, _) in batch(), shift in -3.0f64..3.0) {
            let a = grpo(&r, &Grouping::Contiguous(g), Norm::default()).unwrap();
            let shifted: Vec<f64> = r.iter().map(|x| x + shift).collect();
            let b = grpo(&shifted, &Grouping::Contiguous(g), Norm::default()).unwrap();
            for (x, y) in a.iter().zip(b) {
                prop_assert!((x - y).abs() < 1e-6);
            }
        }
    }
}
