//! Paired comparisons of two runs (harness §5.3): the paired bootstrap of a
//! mean difference, the sign test and the exact McNemar test, both as
//! two-sided exact binomial tests with p = min(1, 2·P[X ≤ k]), X ~ Bin(n, ½).

use super::bootstrap::{bootstrap_level, BootstrapConfig};

/// `P[X ≤ k]` for X ~ Bin(n, ½), exact to floating-point accuracy for any
/// n (summed in log space, so 2⁻ⁿ never underflows).
#[must_use]
pub fn binomial_half_cdf(k: u64, n: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    let ln2 = std::f64::consts::LN_2;
    // log C(n, i) − n·ln 2, built up term by term.
    let mut log_term = -(n as f64) * ln2;
    let mut logs = Vec::with_capacity(k as usize + 1);
    logs.push(log_term);
    for i in 0..k {
        log_term += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
        logs.push(log_term);
    }
    let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = logs.iter().map(|l| (l - max).exp()).sum();
    (max + sum.ln()).exp().min(1.0)
}

/// Two-sided exact binomial p-value of `a` against `b` successes:
/// min(1, 2·P[X ≤ min(a, b)]), X ~ Bin(a + b, ½); 1 when a + b = 0.
#[must_use]
pub fn two_sided_binomial(a: u64, b: u64) -> f64 {
    let n = a + b;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_half_cdf(a.min(b), n)).min(1.0)
}

/// The sign test of paired differences.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignTest {
    /// Differences above zero.
    pub n_pos: u64,
    /// Differences below zero.
    pub n_neg: u64,
    /// Ties (dropped from the test).
    pub n_zero: u64,
    /// Two-sided exact p-value; 1 with no non-zero difference.
    pub p_value: f64,
}

/// The sign test of `deltas` (ties dropped).
#[must_use]
pub fn sign_test(deltas: &[f64]) -> SignTest {
    let n_pos = deltas.iter().filter(|d| **d > 0.0).count() as u64;
    let n_neg = deltas.iter().filter(|d| **d < 0.0).count() as u64;
    SignTest {
        n_pos,
        n_neg,
        n_zero: deltas.len() as u64 - n_pos - n_neg,
        p_value: two_sided_binomial(n_pos, n_neg),
    }
}

/// McNemar's exact test for a binary metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McNemar {
    /// Pairs where A was right and B wrong.
    pub b: u64,
    /// Pairs where A was wrong and B right.
    pub c: u64,
    /// Two-sided exact p-value.
    pub p_value: f64,
}

/// McNemar's test of paired binary outcomes `(a_right, b_right)`.
#[must_use]
pub fn mcnemar(pairs: &[(bool, bool)]) -> McNemar {
    let b = pairs.iter().filter(|(a, b)| *a && !*b).count() as u64;
    let c = pairs.iter().filter(|(a, b)| !*a && *b).count() as u64;
    McNemar {
        b,
        c,
        p_value: two_sided_binomial(b, c),
    }
}

/// Percentile interval of the mean of `deltas` over `cfg.resamples`
/// resamples of pair indices (the shared bootstrap's RNG and quantiles);
/// `None` without pairs or resamples.
#[must_use]
pub fn paired_bootstrap_ci(deltas: &[f64], cfg: BootstrapConfig, level: f64) -> Option<[f64; 2]> {
    let n = deltas.len();
    bootstrap_level(n, cfg, level, |idx| {
        [idx.iter().map(|&i| deltas[i]).sum::<f64>() / n as f64]
    })
    .map(|[ci]| ci)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact reference: Σ C(n, i) / 2ⁿ with integer arithmetic.
    fn reference_cdf(k: u64, n: u64) -> f64 {
        let mut c: u128 = 1;
        let mut total: u128 = 0;
        for i in 0..=k {
            total += c;
            c = c * u128::from(n - i) / u128::from(i + 1);
        }
        total as f64 / 2f64.powi(n as i32)
    }

    #[test]
    fn cdf_matches_integer_reference() {
        for n in [1u64, 2, 5, 10, 31, 60] {
            for k in 0..=n {
                let a = binomial_half_cdf(k, n);
                let b = reference_cdf(k.min(n), n);
                assert!((a - b).abs() < 1e-12, "n {n} k {k}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn large_n_does_not_underflow() {
        // Symmetric: P[X ≤ n/2] is a bit over one half.
        let p = binomial_half_cdf(50_000, 100_000);
        assert!(p > 0.5 && p < 0.51, "{p}");
        assert!(binomial_half_cdf(0, 5_000) >= 0.0);
    }

    #[test]
    fn sign_test_and_mcnemar_known_values() {
        // 9 positive, 1 negative, 2 ties: p = 2·P[X ≤ 1], X ~ Bin(10, ½) = 22/1024.
        let mut d = vec![1.0; 9];
        d.extend([-0.5, 0.0, 0.0]);
        let s = sign_test(&d);
        assert_eq!((s.n_pos, s.n_neg, s.n_zero), (9, 1, 2));
        assert!((s.p_value - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(&[0.0, 0.0]).p_value, 1.0);
        // b = 1, c = 5: 2·P[X ≤ 1], X ~ Bin(6, ½) = 14/64.
        let mut pairs = vec![(true, false)];
        pairs.extend([(false, true); 5]);
        pairs.push((true, true));
        let m = mcnemar(&pairs);
        assert_eq!((m.b, m.c), (1, 5));
        assert!((m.p_value - 14.0 / 64.0).abs() < 1e-12);
    }

    #[test]
    fn paired_bootstrap_brackets_the_mean() {
        let d: Vec<f64> = (0..200).map(|i| f64::from(i % 5) / 10.0).collect();
        let cfg = BootstrapConfig {
            resamples: 2000,
            seed: 0,
        };
        let [lo, hi] = paired_bootstrap_ci(&d, cfg, 0.95).expect("pairs");
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        assert!(lo < mean && mean < hi, "{lo} {mean} {hi}");
        let [lo90, hi90] = paired_bootstrap_ci(&d, cfg, 0.90).expect("pairs");
        assert!(lo90 >= lo && hi90 <= hi);
        assert_eq!(paired_bootstrap_ci(&d, cfg, 0.95), Some([lo, hi]));
        assert!(paired_bootstrap_ci(&[], cfg, 0.95).is_none());
    }
}
