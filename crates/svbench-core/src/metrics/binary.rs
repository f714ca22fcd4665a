//! Binary confusion counts and the rates derived from them.

/// Counts of a binary decision task (positive = the class to detect).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BinaryCounts {
    /// Positive predicted on positive gold.
    pub tp: u64,
    /// Negative predicted on negative gold.
    pub tn: u64,
    /// Positive predicted on negative gold.
    pub fp: u64,
    /// Negative predicted on positive gold.
    pub fn_: u64,
}

impl BinaryCounts {
    /// Adds one decided prediction.
    pub fn add(&mut self, predicted_positive: bool, gold_positive: bool) {
        match (predicted_positive, gold_positive) {
            (true, true) => self.tp += 1,
            (false, false) => self.tn += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
        }
    }

    /// TP + TN + FP + FN.
    pub fn total(&self) -> u64 {
        self.tp + self.tn + self.fp + self.fn_
    }

    /// TP / (TP + FN), `None` without positives.
    pub fn recall(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// FP / (FP + TN), `None` without negatives.
    pub fn fpr(&self) -> Option<f64> {
        ratio(self.fp, self.fp + self.tn)
    }

    /// TP / (TP + FP), `None` without positive calls.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fp)
    }

    /// (TP + TN) / total, `None` when empty.
    pub fn accuracy(&self) -> Option<f64> {
        ratio(self.tp + self.tn, self.total())
    }
}

/// `num / den` as `f64`, `None` when `den` is 0.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    if den == 0 {
        None
    } else {
        Some(num as f64 / den as f64)
    }
}

/// F1 of a precision and a recall, computed as upstream does
/// (`2 * p * r / (p + r)`), 0 when `p + r` is 0.
pub fn f1_score(precision: f64, recall: f64) -> f64 {
    let denom = precision + recall;
    if denom == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / denom
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_zero_denominators() {
        let mut c = BinaryCounts::default();
        assert_eq!(c.recall(), None);
        assert_eq!(c.precision(), None);
        assert_eq!(c.accuracy(), None);
        c.add(true, true);
        c.add(false, true);
        c.add(true, false);
        c.add(false, false);
        c.add(false, false);
        assert_eq!(
            c,
            BinaryCounts {
                tp: 1,
                tn: 2,
                fp: 1,
                fn_: 1
            }
        );
        assert_eq!(c.recall(), Some(0.5));
        assert_eq!(c.precision(), Some(0.5));
        assert_eq!(c.fpr(), Some(1.0 / 3.0));
        assert_eq!(c.accuracy(), Some(0.6));
        assert_eq!(f1_score(0.5, 0.5), 0.5);
        assert_eq!(f1_score(0.0, 0.0), 0.0);
    }
}
