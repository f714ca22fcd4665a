//! Bootstrap intervals of E1's accuracy, F1, ECE and Brier (E1 §4.4).
//!
//! The resampled units are examples: an example's rollouts stay together, so
//! with one rollout per example this is the plain resample of N samples.
//!
//! Samples that contribute identically to these four statistics (same
//! outcome, gold and confidence) share a class; a resample is tallied as
//! counts per class, so its cost is one small array update per drawn sample
//! and one pass over the classes, which keeps 100,000-sample runs fast.

use std::collections::HashMap;
use std::ops::Range;

use crate::e1::report::summary::E1Ci95;
use svbench_core::metrics::{
    bootstrap, ece_bin, BootstrapConfig, CalibrationAccumulator, ConfidencePoint,
};

use super::compute::{calibration, detection, point, Tally, Undefined};
use super::outcome::{E1Sample, Prediction};

/// A class representative with its calibration point and ECE bin.
#[derive(Debug, Clone, Copy)]
struct Class {
    sample: E1Sample,
    point: Option<ConfidencePoint>,
    bin: Option<usize>,
}

/// Distinct sample classes of a run.
#[derive(Debug, Clone, Default)]
pub struct E1Classes {
    classes: Vec<Class>,
    index: HashMap<(u8, bool, u64), u32>,
}

impl E1Classes {
    /// No classes yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The class of a sample, created on first sight.
    pub fn class_of(&mut self, s: &E1Sample) -> u32 {
        let code = match s.prediction {
            Prediction::Malicious => 0u8,
            Prediction::Benign => 1,
            Prediction::Abstain => 2,
            Prediction::Invalid => 3,
        };
        // Abstentions and invalid outputs do not depend on the stated confidence.
        let conf = match s.prediction {
            Prediction::Malicious | Prediction::Benign => s.confidence.to_bits(),
            _ => 0,
        };
        let key = (code, s.gold_malicious, conf);
        if let Some(&k) = self.index.get(&key) {
            return k;
        }
        let sample = E1Sample {
            label_only: false,
            ..*s
        };
        let p = point(&sample);
        let k = self.classes.len() as u32;
        self.classes.push(Class {
            sample,
            point: p,
            bin: p.and_then(|p| ece_bin(p.confidence)),
        });
        self.index.insert(key, k);
        k
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there is no class.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// `[accuracy, f1, ece, brier]` of a resample given as counts per class;
    /// undefined values take their edge-case values.
    pub fn stats(&self, counts: &[u32]) -> [f64; 4] {
        let mut tally = Tally::default();
        let mut cal = CalibrationAccumulator::new();
        for (c, &w) in self.classes.iter().zip(counts) {
            if w == 0 {
                continue;
            }
            tally.add_weighted(&c.sample, u64::from(w));
            if let Some(p) = c.point {
                cal.add_weighted(p, c.bin, w);
            }
        }
        let mut und = Undefined::default();
        let det = detection(&tally, &mut und);
        let c = calibration(&cal, &mut und);
        [det.accuracy, det.f1, c.ece, c.brier]
    }
}

/// Turns four `[low, high]` intervals into the `ci95` object.
pub fn to_ci95(v: [[f64; 2]; 4]) -> E1Ci95 {
    let [accuracy, f1, ece, brier] = v;
    E1Ci95 {
        accuracy,
        f1,
        ece,
        brier,
    }
}

/// 95 % intervals over `units` (ranges of `samples`); `None` without units.
pub fn ci95(samples: &[E1Sample], units: &[Range<usize>], cfg: BootstrapConfig) -> Option<E1Ci95> {
    let mut classes = E1Classes::new();
    let class: Vec<u32> = samples.iter().map(|s| classes.class_of(s)).collect();
    let mut counts = vec![0u32; classes.len()];
    let intervals = bootstrap(units.len(), cfg, |indices| {
        counts.iter_mut().for_each(|c| *c = 0);
        for &u in indices {
            for &k in &class[units[u].clone()] {
                counts[k as usize] += 1;
            }
        }
        classes.stats(&counts)
    })?;
    Some(to_ci95(intervals))
}
