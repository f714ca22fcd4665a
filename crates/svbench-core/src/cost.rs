//! The cost-matrix utility and Brier calibration (defined in E1 §3.2, reused by E4).

/// A cost matrix with an abstain column: cost of each (predicted, gold) pair
/// relative to the worst error, a missed positive.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
pub struct CostMatrix {
    /// Cost of a false alarm (positive predicted on a negative).
    pub cost_fp: f64,
    /// Cost of a miss (negative predicted on a positive); the normaliser.
    pub cost_fn: f64,
    /// Cost of abstaining.
    pub cost_abstain: f64,
}

/// Why a [`CostMatrix`] is not usable.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum CostError {
    /// A cost is NaN or infinite.
    #[error("costs must be finite numbers")]
    NotFinite,
    /// `cost_fn`, the normaliser, is not positive.
    #[error("cost_fn must be > 0 (got {cost_fn})")]
    MissNotPositive {
        /// The value given.
        cost_fn: f64,
    },
    /// `cost_fp` or `cost_abstain` is outside `[0, cost_fn]`.
    #[error("{name} must be within [0, cost_fn] (got {value}, cost_fn {cost_fn})")]
    OutOfRange {
        /// `cost_fp` or `cost_abstain`.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The normaliser.
        cost_fn: f64,
    },
}

/// A decision against a binary gold label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Predicted the gold label.
    Correct,
    /// Predicted positive on a negative.
    FalsePositive,
    /// Predicted negative on a positive.
    FalseNegative,
    /// Declined to decide.
    Abstain,
}

impl CostMatrix {
    /// Checks `cost_fn > 0`, `0 ≤ cost_fp ≤ cost_fn`, `0 ≤ cost_abstain ≤ cost_fn`.
    pub fn validate(&self) -> Result<(), CostError> {
        let all_finite = [self.cost_fp, self.cost_fn, self.cost_abstain]
            .iter()
            .all(|x| x.is_finite());
        if !all_finite {
            return Err(CostError::NotFinite);
        }
        if self.cost_fn <= 0.0 {
            return Err(CostError::MissNotPositive {
                cost_fn: self.cost_fn,
            });
        }
        if !(0.0..=self.cost_fn).contains(&self.cost_fp) {
            return Err(CostError::OutOfRange {
                name: "cost_fp",
                value: self.cost_fp,
                cost_fn: self.cost_fn,
            });
        }
        if !(0.0..=self.cost_fn).contains(&self.cost_abstain) {
            return Err(CostError::OutOfRange {
                name: "cost_abstain",
                value: self.cost_abstain,
                cost_fn: self.cost_fn,
            });
        }
        Ok(())
    }

    /// The cost of a decision.
    pub fn cost(&self, decision: Decision) -> f64 {
        match decision {
            Decision::Correct => 0.0,
            Decision::FalsePositive => self.cost_fp,
            Decision::FalseNegative => self.cost_fn,
            Decision::Abstain => self.cost_abstain,
        }
    }

    /// u = 1 − cost/cost_fn.
    pub fn utility(&self, decision: Decision) -> f64 {
        1.0 - self.cost(decision) / self.cost_fn
    }
}

/// Brier calibration credit of a decided label: 1 − (c − y)², y = 1 if correct.
pub fn brier_calibration(confidence: f64, correct: bool) -> f64 {
    let y = if correct { 1.0 } else { 0.0 };
    1.0 - (confidence - y) * (confidence - y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_matrix_utilities() {
        let m = CostMatrix {
            cost_fp: 0.25,
            cost_fn: 1.0,
            cost_abstain: 0.15,
        };
        assert!(m.validate().is_ok());
        assert_eq!(m.utility(Decision::Correct), 1.0);
        assert_eq!(m.utility(Decision::FalsePositive), 0.75);
        assert_eq!(m.utility(Decision::FalseNegative), 0.0);
        assert!((m.utility(Decision::Abstain) - 0.85).abs() < 1e-15);
    }

    #[test]
    fn invalid_matrices_rejected() {
        let bad = [
            ((0.25, 0.0, 0.1), "cost_fn must be > 0 (got 0)"),
            (
                (2.0, 1.0, 0.1),
                "cost_fp must be within [0, cost_fn] (got 2, cost_fn 1)",
            ),
            (
                (0.2, 1.0, -0.1),
                "cost_abstain must be within [0, cost_fn] (got -0.1, cost_fn 1)",
            ),
            ((f64::NAN, 1.0, 0.1), "costs must be finite numbers"),
        ];
        for ((fp, fnc, ab), message) in bad {
            let m = CostMatrix {
                cost_fp: fp,
                cost_fn: fnc,
                cost_abstain: ab,
            };
            assert_eq!(
                m.validate().map_err(|e| e.to_string()),
                Err(message.to_string()),
                "{fp} {fnc} {ab}"
            );
        }
    }

    #[test]
    fn brier_values() {
        assert!((brier_calibration(0.9, true) - 0.99).abs() < 1e-12);
        assert!((brier_calibration(0.9, false) - 0.19).abs() < 1e-12);
    }
}
