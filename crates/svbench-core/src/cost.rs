//! The cost-matrix utility and Brier calibration (defined in E1 §3.2, reused by E4).
//!
//! [`CostMatrix`] scores a decision against a binary gold label (E1);
//! [`TriageMatrix`] adds a third, ambiguous gold class on top of it (E4 §5.2).

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

/// A gold class of a triage task: the binary classes plus "cannot be told
/// from the input" (E4's gold `Abstain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TriageGold {
    /// The positive class (E4: Phishing).
    Positive,
    /// The negative class (E4: Legitimate).
    Negative,
    /// Genuinely ambiguous: abstaining is the right call.
    Ambiguous,
}

/// A predicted action of a triage task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TriageCall {
    /// Call it positive.
    Positive,
    /// Call it negative.
    Negative,
    /// Send it to a human.
    Abstain,
}

/// A 3 × 3 cost matrix: [`CostMatrix`] for the clear-cut gold classes, plus
/// the costs of deciding on an ambiguous item (abstaining there costs 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriageMatrix {
    /// Costs on clear-cut items; `cost_fn` normalises every cost.
    pub binary: CostMatrix,
    /// Cost of calling an ambiguous item positive (the cautious error).
    pub cost_amb_positive: f64,
    /// Cost of calling an ambiguous item negative.
    pub cost_amb_negative: f64,
}

/// Why a [`TriageMatrix`] is not usable.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TriageCostError {
    /// The clear-cut part is invalid.
    #[error(transparent)]
    Binary(#[from] CostError),
    /// The ambiguous-row costs break `0 ≤ positive ≤ negative ≤ cost_fn`.
    #[error(
        "ambiguous-item costs must satisfy 0 ≤ {positive_name} ≤ {negative_name} ≤ cost_fn \
         (got {positive}, {negative}, cost_fn {cost_fn})"
    )]
    AmbiguousOrder {
        /// Config name of the positive call's cost.
        positive_name: &'static str,
        /// Config name of the negative call's cost.
        negative_name: &'static str,
        /// The positive call's cost.
        positive: f64,
        /// The negative call's cost.
        negative: f64,
        /// The normaliser.
        cost_fn: f64,
    },
}

impl TriageMatrix {
    /// [`CostMatrix::validate`], then `0 ≤ cost_amb_positive ≤
    /// cost_amb_negative ≤ cost_fn`; `names` are the two ambiguous costs'
    /// config keys, for the message.
    pub fn validate(&self, names: [&'static str; 2]) -> Result<(), TriageCostError> {
        self.binary.validate()?;
        let (p, n, f) = (
            self.cost_amb_positive,
            self.cost_amb_negative,
            self.binary.cost_fn,
        );
        // NaN fails every comparison, so it lands here too.
        if !(0.0 <= p && p <= n && n <= f) {
            return Err(TriageCostError::AmbiguousOrder {
                positive_name: names[0],
                negative_name: names[1],
                positive: p,
                negative: n,
                cost_fn: f,
            });
        }
        Ok(())
    }

    /// The cost of `call` on an item of class `gold`.
    pub fn cost(&self, call: TriageCall, gold: TriageGold) -> f64 {
        let decision = match (gold, call) {
            (TriageGold::Ambiguous, TriageCall::Abstain) => return 0.0,
            (TriageGold::Ambiguous, TriageCall::Positive) => return self.cost_amb_positive,
            (TriageGold::Ambiguous, TriageCall::Negative) => return self.cost_amb_negative,
            (_, TriageCall::Abstain) => Decision::Abstain,
            (TriageGold::Positive, TriageCall::Positive)
            | (TriageGold::Negative, TriageCall::Negative) => Decision::Correct,
            (TriageGold::Negative, TriageCall::Positive) => Decision::FalsePositive,
            (TriageGold::Positive, TriageCall::Negative) => Decision::FalseNegative,
        };
        self.binary.cost(decision)
    }

    /// u = 1 − cost/cost_fn.
    pub fn utility(&self, call: TriageCall, gold: TriageGold) -> f64 {
        1.0 - self.cost(call, gold) / self.binary.cost_fn
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

    fn triage() -> TriageMatrix {
        TriageMatrix {
            binary: CostMatrix {
                cost_fp: 0.5,
                cost_fn: 1.0,
                cost_abstain: 0.3,
            },
            cost_amb_positive: 0.3,
            cost_amb_negative: 0.6,
        }
    }

    #[test]
    fn triage_matrix_utilities() {
        use TriageCall as C;
        use TriageGold as G;
        let m = triage();
        assert!(m.validate(["a", "b"]).is_ok());
        let want = [
            (G::Positive, [1.0, 0.0, 0.7]),
            (G::Negative, [0.5, 1.0, 0.7]),
            (G::Ambiguous, [0.7, 0.4, 1.0]),
        ];
        for (gold, row) in want {
            for (call, u) in [C::Positive, C::Negative, C::Abstain].into_iter().zip(row) {
                assert!(
                    (m.utility(call, gold) - u).abs() < 1e-12,
                    "{gold:?} {call:?}"
                );
            }
        }
    }

    #[test]
    fn triage_order_enforced() {
        let mut m = triage();
        m.cost_amb_positive = 0.7;
        let e = m.validate(["cost_amb_phishing", "cost_amb_legitimate"]);
        assert!(matches!(e, Err(TriageCostError::AmbiguousOrder { .. })));
        assert!(e.unwrap_err().to_string().contains("cost_amb_phishing"));
        let mut m = triage();
        m.cost_amb_negative = 1.5;
        assert!(m.validate(["a", "b"]).is_err());
        let mut m = triage();
        m.cost_amb_positive = f64::NAN;
        assert!(m.validate(["a", "b"]).is_err());
        let mut m = triage();
        m.binary.cost_fp = 2.0;
        assert!(matches!(
            m.validate(["a", "b"]),
            Err(TriageCostError::Binary(_))
        ));
    }

    #[test]
    fn brier_values() {
        assert!((brier_calibration(0.9, true) - 0.99).abs() < 1e-12);
        assert!((brier_calibration(0.9, false) - 0.19).abs() < 1e-12);
    }
}
