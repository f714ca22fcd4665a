//! Plain statistics: mean, population standard deviation, extremes and
//! linearly interpolated percentiles. Sums run in input order.

use super::bootstrap::quantile_linear;

/// Arithmetic mean; `None` for an empty slice.
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    Some(sum / values.len() as f64)
}

/// Population standard deviation √(Σ(x − mean)²/n); `None` for an empty slice.
pub fn population_std(values: &[f64]) -> Option<f64> {
    let m = mean(values)?;
    let mut sum = 0.0;
    for v in values {
        let d = v - m;
        sum += d * d;
    }
    Some((sum / values.len() as f64).sqrt())
}

/// Smallest value; `None` for an empty slice.
pub fn min(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::min)
}

/// Largest value; `None` for an empty slice.
pub fn max(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::max)
}

/// The `p`-quantile (p in [0, 1]) of unsorted values with linear
/// interpolation (numpy's default); `None` for an empty slice.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile_linear(&sorted, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_statistics() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(mean(&v), Some(2.5));
        assert_eq!(population_std(&v), Some(1.25f64.sqrt()));
        assert_eq!(min(&v), Some(1.0));
        assert_eq!(max(&v), Some(4.0));
        assert_eq!(percentile(&v, 0.5), Some(2.5));
        assert_eq!(percentile(&v, 0.9), Some(3.7));
        assert_eq!(mean(&[]), None);
        assert_eq!(population_std(&[]), None);
        assert_eq!(percentile(&[], 0.5), None);
    }
}
