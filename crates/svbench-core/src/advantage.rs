//! Group-relative advantages for RL training (harness §7.4): GRPO,
//! component-normalised and GDPO-style. The same definitions are exposed to
//! Python (`svbench.advantages`, through the bindings) and by the server's
//! `score_batch`, so a trainer gets identical numbers from any of them.
//!
//! Samples are grouped contiguously (`group_size` consecutive samples form a
//! group, TRL's layout) unless explicit group ids are given. f64 throughout;
//! NaN or infinite inputs are errors, never propagated.
//!
//! The `*_partial` variants take `None` for a value that does not apply
//! (TRL's `None` reward, which it turns into NaN and skips with nan-aware
//! statistics): it is left out of its group's mean and spread and adds
//! nothing to a sum, and a sample with no value at all gets advantage 0
//! and is left out of GDPO's batch statistics. With `eps = 1e-4, ddof = 1`,
//! [`gdpo_partial`] is TRL's `multi_objective_aggregation =
//! "normalize_then_sum"` and [`grpo_partial`] its default
//! `"sum_then_normalize"` with `scale_rewards = "group"`. Without `None`
//! they give exactly the bits of the plain functions, which call them.

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

fn check_finite_partial(what: &str, values: &[Option<f64>]) -> Result<(), AdvantageError> {
    match values
        .iter()
        .position(|v| v.is_some_and(|x| !x.is_finite()))
    {
        Some(index) => Err(AdvantageError::NotFinite {
            what: what.to_string(),
            index,
            value: values[index].unwrap_or(f64::NAN),
        }),
        None => Ok(()),
    }
}

fn present(values: &[f64]) -> Vec<Option<f64>> {
    values.iter().copied().map(Some).collect()
}

/// Every value of a plain function's result is present (all inputs were).
fn unwrap_all(values: Vec<Option<f64>>) -> Vec<f64> {
    values.into_iter().map(|v| v.unwrap_or(0.0)).collect()
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

/// (x − mean_g) / (std_g + eps) for every present sample, per group; the
/// group's statistics are over its present samples only.
fn normalize_groups(
    values: &[Option<f64>],
    groups: &[usize],
    n_groups: usize,
    norm: Norm,
) -> Vec<Option<f64>> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_groups];
    for (i, g) in groups.iter().enumerate() {
        members[*g].push(i);
    }
    let mut out = vec![None; values.len()];
    for idx in &members {
        let (mean, std) = mean_std(idx.iter().filter_map(|&i| values[i]), norm.ddof);
        // With eps = 0 a group whose values are all equal has no spread to
        // scale by: its samples are all average (0), never 0/0 = NaN.
        let scale = std + norm.eps;
        for &i in idx {
            out[i] = values[i].map(|v| if scale > 0.0 { (v - mean) / scale } else { 0.0 });
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
    grpo_partial(&present(rewards), grouping, norm)
}

/// [`grpo`] where `None` marks a sample with no reward: it is left out of
/// its group's mean and spread and its advantage is 0.
///
/// # Errors
/// As [`grpo`].
pub fn grpo_partial(
    rewards: &[Option<f64>],
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<f64>, AdvantageError> {
    check_norm(norm)?;
    check_finite_partial("rewards", rewards)?;
    let (groups, n_groups) = group_index(rewards.len(), grouping)?;
    Ok(unwrap_all(normalize_groups(
        rewards, &groups, n_groups, norm,
    )))
}

/// Checks components and weights name the same set, have N finite values each.
fn check_components(
    components: &BTreeMap<String, Vec<Option<f64>>>,
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
        check_finite_partial(name, values)?;
    }
    for (name, w) in weights {
        check_finite(&format!("weights.{name}"), &[*w])?;
    }
    Ok(n)
}

fn all_present(components: &BTreeMap<String, Vec<f64>>) -> BTreeMap<String, Vec<Option<f64>>> {
    components
        .iter()
        .map(|(k, v)| (k.clone(), present(v)))
        .collect()
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
    let a = component_sums(&all_present(components), weights, grouping, norm)?;
    Ok(unwrap_all(a))
}

/// [`component_normalized`] where `None` marks a component that does not
/// apply to a sample: it is left out of that component's group statistics
/// and of the sample's sum; a sample with no component at all gets 0.
///
/// # Errors
/// As [`component_normalized`].
pub fn component_normalized_partial(
    components: &BTreeMap<String, Vec<Option<f64>>>,
    weights: &BTreeMap<String, f64>,
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<f64>, AdvantageError> {
    Ok(unwrap_all(component_sums(
        components, weights, grouping, norm,
    )?))
}

/// Σ_k w_k ĉ_ik over the components present in sample i; `None` where no
/// component is.
fn component_sums(
    components: &BTreeMap<String, Vec<Option<f64>>>,
    weights: &BTreeMap<String, f64>,
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<Option<f64>>, AdvantageError> {
    check_norm(norm)?;
    let n = check_components(components, weights)?;
    let (groups, n_groups) = group_index(n, grouping)?;
    let mut out: Vec<Option<f64>> = vec![None; n];
    for (name, values) in components {
        let w = weights[name];
        let normed = normalize_groups(values, &groups, n_groups, norm);
        for (a, c) in out.iter_mut().zip(normed) {
            if let Some(c) = c {
                *a = Some(a.unwrap_or(0.0) + w * c);
            }
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
    gdpo_partial(&all_present(components), weights, grouping, norm)
}

/// [`gdpo`] with `None` for components that do not apply, as in
/// [`component_normalized_partial`]; a sample with no component at all is
/// left out of the batch mean and spread and gets 0. TRL's
/// `normalize_then_sum` with `eps = 1e-4, ddof = 1`.
///
/// # Errors
/// As [`component_normalized`].
pub fn gdpo_partial(
    components: &BTreeMap<String, Vec<Option<f64>>>,
    weights: &BTreeMap<String, f64>,
    grouping: &Grouping<'_>,
    norm: Norm,
) -> Result<Vec<f64>, AdvantageError> {
    let a = component_sums(components, weights, grouping, norm)?;
    let whole = vec![0usize; a.len()];
    Ok(unwrap_all(normalize_groups(&a, &whole, 1, norm)))
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

    fn opt(v: &[f64]) -> Vec<Option<f64>> {
        // NaN stands for "not applicable" in these fixtures only.
        v.iter().map(|x| (!x.is_nan()).then_some(*x)).collect()
    }

    #[test]
    fn missing_rewards_are_left_out_of_their_group() {
        let trl = Norm { eps: 1e-4, ddof: 1 };
        let a = grpo_partial(
            &opt(&[1.0, f64::NAN, 0.0, 0.5, 2.0, 2.0]),
            &Grouping::Contiguous(3),
            trl,
        )
        .unwrap();
        let first = grpo(&[1.0, 0.0], &Grouping::Contiguous(2), trl).unwrap();
        let second = grpo(&[0.5, 2.0, 2.0], &Grouping::Contiguous(3), trl).unwrap();
        assert_eq!(
            a,
            vec![first[0], 0.0, first[1], second[0], second[1], second[2]]
        );
        // A group with one present value: no spread, advantage 0.
        let one = grpo_partial(&opt(&[f64::NAN, 3.0]), &Grouping::Contiguous(2), trl).unwrap();
        assert_eq!(one, vec![0.0, 0.0]);
    }

    #[test]
    fn a_missing_component_adds_nothing_to_the_sum() {
        let g = Grouping::Contiguous(3);
        let n = Norm { eps: 1e-4, ddof: 1 };
        let comps = [
            ("a", opt(&[1.0, 0.0, f64::NAN])),
            ("b", opt(&[0.2, 0.4, 0.9])),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let weights = w(&[("a", 1.0), ("b", 0.5)]);
        let got = component_normalized_partial(&comps, &weights, &g, n).unwrap();
        let a = grpo(&[1.0, 0.0], &Grouping::Contiguous(2), n).unwrap();
        let b = grpo(&[0.2, 0.4, 0.9], &g, n).unwrap();
        assert_eq!(got, vec![a[0] + 0.5 * b[0], a[1] + 0.5 * b[1], 0.5 * b[2]]);
    }

    /// TRL drops a completion every reward function returned None for from
    /// the batch statistics and gives it advantage 0: the others get what
    /// they would get without it.
    #[test]
    fn gdpo_leaves_unscorable_samples_out_of_the_batch() {
        let n = Norm { eps: 1e-4, ddof: 1 };
        let a = [0.0, 1.0, f64::NAN, 1.0, 1.0, 0.0];
        let b = [0.5, f64::NAN, f64::NAN, 0.1, 0.7, 0.2];
        let comps = [("a", opt(&a)), ("b", opt(&b))]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let weights = w(&[("a", 1.0), ("b", 2.0)]);
        let got = gdpo_partial(&comps, &weights, &Grouping::Contiguous(3), n).unwrap();
        assert_eq!(got[2], 0.0);
        let keep = [0, 1, 3, 4, 5];
        let ids = [0, 0, 1, 1, 1];
        let sub = [
            ("a", opt(&keep.map(|i| a[i]))),
            ("b", opt(&keep.map(|i| b[i]))),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let want = gdpo_partial(&sub, &weights, &Grouping::Ids(&ids), n).unwrap();
        let kept: Vec<f64> = keep.iter().map(|&i| got[i]).collect();
        assert_eq!(kept, want);
        assert!(want.iter().all(|x| x.is_finite() && *x != 0.0));
    }

    #[test]
    fn a_present_non_finite_value_is_still_an_error() {
        let comps = [("a".to_string(), vec![Some(1.0), None, Some(f64::NAN)])]
            .into_iter()
            .collect();
        assert!(matches!(
            gdpo_partial(
                &comps,
                &w(&[("a", 1.0)]),
                &Grouping::Contiguous(3),
                Norm::default()
            ),
            Err(AdvantageError::NotFinite { index: 2, .. })
        ));
        assert!(grpo_partial(
            &[None, Some(f64::INFINITY)],
            &Grouping::Contiguous(2),
            Norm::default()
        )
        .is_err());
    }

    /// The functions as they were before `None` support, kept to pin that
    /// results without `None` stay bit for bit the same.
    mod before {
        use super::super::{mean_std, Norm};
        use std::collections::BTreeMap;

        pub fn norm_groups(values: &[f64], g: usize, norm: Norm) -> Vec<f64> {
            let mut out = vec![0.0; values.len()];
            for (chunk, o) in values.chunks(g).zip(out.chunks_mut(g)) {
                let (mean, std) = mean_std(chunk.iter().copied(), norm.ddof);
                let scale = std + norm.eps;
                for (v, x) in chunk.iter().zip(o) {
                    *x = if scale > 0.0 { (v - mean) / scale } else { 0.0 };
                }
            }
            out
        }

        pub fn gdpo(
            c: &BTreeMap<String, Vec<f64>>,
            w: &BTreeMap<String, f64>,
            g: usize,
            norm: Norm,
        ) -> Vec<f64> {
            let n = c.values().next().map_or(0, Vec::len);
            let mut out = vec![0.0; n];
            for (name, values) in c {
                for (a, x) in out.iter_mut().zip(norm_groups(values, g, norm)) {
                    *a += w[name] * x;
                }
            }
            norm_groups(&out, n.max(1), norm)
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
        fn results_without_none_are_bit_identical_to_before(
            (g, x, y) in batch(), ddof in 0u32..2, eps in prop_oneof![Just(0.0), Just(1e-6), Just(1e-4)],
        ) {
            let norm = Norm { eps, ddof };
            let grouping = Grouping::Contiguous(g);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&grpo(&x, &grouping, norm).unwrap()), bits(&before::norm_groups(&x, g, norm)));
            let comps = c(&[("a", x), ("b", y)]);
            let ws = w(&[("a", 1.0), ("b", 0.3)]);
            prop_assert_eq!(
                bits(&gdpo(&comps, &ws, &grouping, norm).unwrap()),
                bits(&before::gdpo(&comps, &ws, g, norm))
            );
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
