//! Selective prediction: risk–coverage curves and AURC (E1 §4.2, §4.4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ConfidencePoint;

/// One point of a risk–coverage curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RiskCoveragePoint {
    /// Confidence threshold t: predictions with c ≥ t are covered.
    pub threshold: f64,
    /// Covered share of all points.
    pub coverage: f64,
    /// Error rate among covered points.
    pub risk: f64,
    /// Number of covered points.
    pub n_covered: u64,
}

/// Points sorted by confidence, descending, with running error counts.
/// NaN confidences are never covered (c ≥ t is false) but stay in `n`.
struct Sorted {
    n: u64,
    /// Descending confidences (NaN removed).
    confidences: Vec<f64>,
    /// errors[k] = errors among the first k sorted points.
    errors: Vec<u64>,
}

impl Sorted {
    fn new(points: &[ConfidencePoint]) -> Self {
        let mut sorted: Vec<ConfidencePoint> = points
            .iter()
            .copied()
            .filter(|p| !p.confidence.is_nan())
            .collect();
        sorted.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let mut errors = Vec::with_capacity(sorted.len() + 1);
        errors.push(0);
        let mut e = 0;
        for p in &sorted {
            e += u64::from(!p.correct);
            errors.push(e);
        }
        Self {
            n: points.len() as u64,
            confidences: sorted.iter().map(|p| p.confidence).collect(),
            errors,
        }
    }

    /// Number of points with confidence ≥ t.
    fn covered(&self, t: f64) -> usize {
        self.confidences.partition_point(|c| *c >= t)
    }
}

/// Upstream's AURC (its own definition, not the standard one): thresholds
/// τ_j = j/100 for j = 0…100, coverage cov_j = |{c ≥ τ_j}|/n, risk r_j = error
/// rate among covered (0 if none), AURC = max(0, Σ_{j=1..100} (cov_{j−1} −
/// cov_j)(r_j + r_{j−1})/2). `None` if there are no points.
pub fn aurc_upstream(points: &[ConfidencePoint]) -> Option<f64> {
    if points.is_empty() {
        return None;
    }
    let s = Sorted::new(points);
    let n = s.n as f64;
    let at = |j: u32| {
        let t = f64::from(j) / 100.0;
        let k = s.covered(t);
        let cov = k as f64 / n;
        let risk = if k == 0 {
            0.0
        } else {
            s.errors[k] as f64 / k as f64
        };
        (cov, risk)
    };
    let mut total = 0.0;
    let (mut prev_cov, mut prev_risk) = at(0);
    for j in 1..=100 {
        let (cov, risk) = at(j);
        total += (prev_cov - cov) * (risk + prev_risk) / 2.0;
        prev_cov = cov;
        prev_risk = risk;
    }
    Some(total.max(0.0))
}

/// The risk–coverage curve at every distinct confidence, descending threshold;
/// ties are all-or-nothing (E1 §4.4).
pub fn risk_coverage(points: &[ConfidencePoint]) -> Vec<RiskCoveragePoint> {
    let s = Sorted::new(points);
    let n = s.n as f64;
    let mut out = Vec::new();
    let mut k = 0;
    while k < s.confidences.len() {
        let t = s.confidences[k];
        // Advance past every point tied with t.
        let mut end = k + 1;
        while end < s.confidences.len() && s.confidences[end] == t {
            end += 1;
        }
        out.push(RiskCoveragePoint {
            threshold: t,
            coverage: end as f64 / n,
            risk: s.errors[end] as f64 / end as f64,
            n_covered: end as u64,
        });
        k = end;
    }
    out
}

/// Standard AURC: Σ_t (cov_t − cov_prev)·risk_t over the risk–coverage curve,
/// cov_prev starting at 0. `None` if there are no points.
pub fn aurc_standard(points: &[ConfidencePoint]) -> Option<f64> {
    if points.is_empty() {
        return None;
    }
    Some(aurc_from_curve(&risk_coverage(points)))
}

/// Standard AURC of an already computed curve.
pub fn aurc_from_curve(curve: &[RiskCoveragePoint]) -> f64 {
    let mut total = 0.0;
    let mut prev = 0.0;
    for p in curve {
        total += (p.coverage - prev) * p.risk;
        prev = p.coverage;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(v: &[(f64, bool)]) -> Vec<ConfidencePoint> {
        v.iter()
            .map(|(c, k)| ConfidencePoint::new(*c, *k))
            .collect()
    }

    #[test]
    fn ties_are_all_or_nothing() {
        let p = pts(&[(0.5, true), (0.5, false), (0.9, true)]);
        let rc = risk_coverage(&p);
        assert_eq!(rc.len(), 2);
        assert_eq!(rc[0].n_covered, 1);
        assert_eq!(rc[1].n_covered, 3);
        assert!((rc[1].risk - 1.0 / 3.0).abs() < 1e-15);
        let a = aurc_standard(&p).unwrap();
        assert!((a - (2.0 / 3.0) * (1.0 / 3.0)).abs() < 1e-15);
    }

    #[test]
    fn empty_and_nan() {
        assert_eq!(aurc_upstream(&[]), None);
        assert_eq!(aurc_standard(&[]), None);
        let p = pts(&[(f64::NAN, false), (1.0, true)]);
        let rc = risk_coverage(&p);
        assert_eq!(rc.len(), 1);
        assert_eq!(rc[0].coverage, 0.5);
    }
}
