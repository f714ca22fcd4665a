//! Expected calibration error and the Brier score (E1 §4.2).

use super::ConfidencePoint;

/// Number of equal-width ECE bins on [0, 1].
pub const ECE_BINS: usize = 10;

/// The ECE bin of a confidence: bin i < 9 is [i/10, (i+1)/10), bin 9 is
/// [0.9, 1.0]. Edges are computed as `i as f64 / 10.0` (E1 §4.2). Values
/// outside [0, 1] (and NaN) fall in no bin.
pub fn ece_bin(confidence: f64) -> Option<usize> {
    if !(0.0..=1.0).contains(&confidence) {
        return None;
    }
    // floor(10c) is the right bin up to an ulp at the edges; check the edges
    // themselves so 0.3 lands in bin 3 even though 0.3 * 10 < 3 is false.
    let mut bin = ((confidence * 10.0) as usize).min(ECE_BINS - 1);
    let lo = |i: usize| i as f64 / 10.0;
    while bin > 0 && confidence < lo(bin) {
        bin -= 1;
    }
    while bin < ECE_BINS - 1 && confidence >= lo(bin + 1) {
        bin += 1;
    }
    Some(bin)
}

/// Running sums for ECE and Brier, filled in input order so that a bootstrap
/// resample and a direct computation over the same sequence agree bit for bit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CalibrationAccumulator {
    /// Points added (including those outside every bin).
    pub n: u64,
    /// Points per bin.
    pub bin_count: [u64; ECE_BINS],
    /// Correct points per bin.
    pub bin_correct: [u64; ECE_BINS],
    /// Sum of confidences per bin, in input order.
    pub bin_confidence: [f64; ECE_BINS],
    /// Sum of (c − y)², in input order.
    pub squared_error: f64,
}

impl CalibrationAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one point.
    pub fn add(&mut self, point: ConfidencePoint) {
        self.add_binned(point, ece_bin(point.confidence));
    }

    /// Adds one point whose bin was computed beforehand with [`ece_bin`].
    pub fn add_binned(&mut self, point: ConfidencePoint, bin: Option<usize>) {
        self.n += 1;
        if let Some(b) = bin {
            self.bin_count[b] += 1;
            self.bin_correct[b] += u64::from(point.correct);
            self.bin_confidence[b] += point.confidence;
        }
        let y = if point.correct { 1.0 } else { 0.0 };
        let d = point.confidence - y;
        self.squared_error += d * d;
    }

    /// Adds one pre-binned point `weight` times at once (bootstrap resamples
    /// given as multiplicities).
    pub fn add_weighted(&mut self, point: ConfidencePoint, bin: Option<usize>, weight: u32) {
        let w = u64::from(weight);
        self.n += w;
        if let Some(b) = bin {
            self.bin_count[b] += w;
            self.bin_correct[b] += w * u64::from(point.correct);
            self.bin_confidence[b] += f64::from(weight) * point.confidence;
        }
        let y = if point.correct { 1.0 } else { 0.0 };
        let d = point.confidence - y;
        self.squared_error += f64::from(weight) * (d * d);
    }

    /// Σ |B|/n · |acc(B) − mean conf(B)| over non-empty bins; `None` if n = 0.
    pub fn ece(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let mut total = 0.0;
        for b in 0..ECE_BINS {
            let count = self.bin_count[b];
            if count == 0 {
                continue;
            }
            let c = count as f64;
            let acc = self.bin_correct[b] as f64 / c;
            let conf = self.bin_confidence[b] / c;
            total += (c / n) * (acc - conf).abs();
        }
        Some(total)
    }

    /// Mean of (c − y)²; `None` if n = 0.
    pub fn brier(&self) -> Option<f64> {
        if self.n == 0 {
            None
        } else {
            Some(self.squared_error / self.n as f64)
        }
    }
}

/// Expected calibration error over `points` (10 bins, E1 §4.2).
pub fn ece(points: &[ConfidencePoint]) -> Option<f64> {
    let mut acc = CalibrationAccumulator::new();
    points.iter().for_each(|p| acc.add(*p));
    acc.ece()
}

/// Brier score: mean of (c − y)², y = 1 if correct.
pub fn brier(points: &[ConfidencePoint]) -> Option<f64> {
    let mut acc = CalibrationAccumulator::new();
    points.iter().for_each(|p| acc.add(*p));
    acc.brier()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_edges() {
        assert_eq!(ece_bin(0.0), Some(0));
        assert_eq!(ece_bin(0.3), Some(3));
        assert_eq!(ece_bin(0.7), Some(7));
        assert_eq!(ece_bin(0.9), Some(9));
        assert_eq!(ece_bin(1.0), Some(9));
        assert_eq!(ece_bin(0.29999999999999993), Some(2));
        assert_eq!(ece_bin(0.6), Some(6));
        assert_eq!(ece_bin(0.09999999999999999), Some(0));
        assert_eq!(ece_bin(-0.01), None);
        assert_eq!(ece_bin(1.0000001), None);
        assert_eq!(ece_bin(f64::NAN), None);
        for i in 0..10 {
            let e = i as f64 / 10.0;
            assert_eq!(ece_bin(e), Some(i), "edge {e}");
        }
    }

    #[test]
    fn out_of_range_counts_in_n() {
        let pts = [
            ConfidencePoint::new(1.5, true),
            ConfidencePoint::new(1.0, true),
        ];
        // Bin 9 holds one point with |1 − 1| = 0; the 1.5 point only grows n.
        assert_eq!(ece(&pts), Some(0.0));
        let pts = [
            ConfidencePoint::new(1.5, true),
            ConfidencePoint::new(0.5, true),
        ];
        assert_eq!(ece(&pts), Some(0.25));
        assert_eq!(ece(&[]), None);
        assert_eq!(brier(&[]), None);
    }
}
