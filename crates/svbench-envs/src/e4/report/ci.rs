//! Bootstrap intervals of E4's accuracy, F1, ECE, Brier, mean reward and
//! mean evidence F1 (the shared bootstrap of E1 §4.4; examples are the
//! resampled units, so an example's rollouts stay together).

use std::ops::Range;

use crate::e4::report::summary::{E4Ci95, E4Confusion};
use svbench_core::metrics::{bootstrap, BootstrapConfig, CalibrationAccumulator};

use super::compute::{accuracy, add, detection, point};
use super::sample::E4Sample;

/// 95 % intervals over `units` (ranges of `samples`); `None` without units.
/// Undefined values in a resample take their edge values (0), except the
/// two means, which are NaN there and make the interval null.
pub fn ci95(samples: &[E4Sample], units: &[Range<usize>], cfg: BootstrapConfig) -> Option<E4Ci95> {
    let intervals = bootstrap(units.len(), cfg, |indices| {
        let mut c = E4Confusion::default();
        let mut cal = CalibrationAccumulator::new();
        let (mut reward, mut n_reward) = (0.0, 0u64);
        let (mut evidence, mut n_evidence) = (0.0, 0u64);
        for &u in indices {
            for s in &samples[units[u].clone()] {
                add(&mut c, s, 1);
                if let Some(p) = point(s) {
                    cal.add(p);
                }
                if !s.reward.is_nan() {
                    reward += s.reward;
                    n_reward += 1;
                }
                if let Some(e) = &s.evidence {
                    evidence += e.f1;
                    n_evidence += 1;
                }
            }
        }
        let mean = |sum: f64, n: u64| if n == 0 { f64::NAN } else { sum / n as f64 };
        [
            accuracy(&c).unwrap_or(0.0),
            detection(&c)[3].unwrap_or(0.0),
            cal.ece().unwrap_or(0.0),
            cal.brier().unwrap_or(0.0),
            mean(reward, n_reward),
            mean(evidence, n_evidence),
        ]
    })?;
    let finite = |r: [f64; 2]| r.iter().all(|x| x.is_finite()).then_some(r);
    let [a, f, e, b, r, ev] = intervals;
    Some(E4Ci95 {
        accuracy: finite(a),
        f1: finite(f),
        ece: finite(e),
        brier: finite(b),
        reward_mean: finite(r),
        evidence_f1: finite(ev),
    })
}
