//! Bootstrap intervals of E1's accuracy, F1, ECE and Brier (E1 §4.4).
//!
//! The resampled units are examples: an example's rollouts stay together, so
//! with one rollout per example this is the plain resample of N samples.

use std::ops::Range;

use svbench_core::metrics::{bootstrap, ece_bin, BootstrapConfig, CalibrationAccumulator};
use svbench_core::summary::E1Ci95;

use super::compute::{calibration, detection, point, Tally, Undefined};
use super::outcome::E1Sample;

/// 95 % intervals over `units` (ranges of `samples`); `None` without units.
/// Undefined resample values take their edge-case values.
pub fn ci95(samples: &[E1Sample], units: &[Range<usize>], cfg: BootstrapConfig) -> Option<E1Ci95> {
    // Bin each calibration point once instead of once per resample.
    let prepared: Vec<_> = samples
        .iter()
        .map(|s| {
            let p = point(s);
            (*s, p, p.and_then(|p| ece_bin(p.confidence)))
        })
        .collect();
    let intervals = bootstrap(units.len(), cfg, |indices| {
        let mut tally = Tally::default();
        let mut cal = CalibrationAccumulator::new();
        for &u in indices {
            for (s, p, bin) in &prepared[units[u].clone()] {
                tally.add(s);
                if let Some(p) = p {
                    cal.add_binned(*p, *bin);
                }
            }
        }
        let mut und = Undefined::default();
        let det = detection(&tally, &mut und);
        let c = calibration(&cal, &mut und);
        [det.accuracy, det.f1, c.ece, c.brier]
    })?;
    let [accuracy, f1, ece, brier] = intervals;
    Some(E1Ci95 {
        accuracy,
        f1,
        ece,
        brier,
    })
}
