//! The shared percentile bootstrap (E1 §4.4, harness §4.2): `ChaCha8Rng`
//! seeded with `seed_from_u64`, resample indices drawn with `gen_range(0..N)`,
//! quantiles 2.5 % and 97.5 % with linear interpolation h = (B − 1)p.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bootstrap settings; the defaults are 1,000 resamples and seed 1234.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootstrapConfig {
    /// Number of resamples B.
    pub resamples: usize,
    /// RNG seed.
    pub seed: u64,
}

impl BootstrapConfig {
    /// Default number of resamples.
    pub const DEFAULT_RESAMPLES: usize = 1000;
    /// Default seed.
    pub const DEFAULT_SEED: u64 = 1234;
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        Self {
            resamples: Self::DEFAULT_RESAMPLES,
            seed: Self::DEFAULT_SEED,
        }
    }
}

/// 95 % percentile-bootstrap intervals `[low, high]` of K statistics over `n`
/// units ([`bootstrap_level`] at 0.95).
///
/// For each of `cfg.resamples` resamples, `n` indices are drawn with
/// replacement (`gen_range(0..n)`, in order, from one RNG stream) and `stat`
/// receives them; it returns the K statistics of that resample (it must map
/// undefined values to their edge-case values, never NaN). Returns `None`
/// when `n` or the number of resamples is 0.
pub fn bootstrap<const K: usize, F>(
    n: usize,
    cfg: BootstrapConfig,
    stat: F,
) -> Option<[[f64; 2]; K]>
where
    F: FnMut(&[usize]) -> [f64; K],
{
    bootstrap_level(n, cfg, 0.95, stat)
}

/// [`bootstrap`] with a chosen central interval: quantiles (1 − level)/2 and
/// (1 + level)/2 (`svbench compare --ci`).
pub fn bootstrap_level<const K: usize, F>(
    n: usize,
    cfg: BootstrapConfig,
    level: f64,
    mut stat: F,
) -> Option<[[f64; 2]; K]>
where
    F: FnMut(&[usize]) -> [f64; K],
{
    if n == 0 || cfg.resamples == 0 {
        return None;
    }
    let mut values: [Vec<f64>; K] = std::array::from_fn(|_| Vec::with_capacity(cfg.resamples));
    let mut record = |indices: &[usize]| {
        for (k, v) in stat(indices).into_iter().enumerate() {
            values[k].push(v);
        }
    };
    if n.saturating_mul(cfg.resamples) < PIPELINE_MIN_DRAWS {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let mut indices = vec![0usize; n];
        for _ in 0..cfg.resamples {
            draw(&mut rng, &mut indices);
            record(&indices);
        }
    } else {
        pipelined(n, cfg, &mut record);
    }
    Some(intervals(values, level))
}

/// Below this many draws the bootstrap runs on the calling thread.
const PIPELINE_MIN_DRAWS: usize = 1 << 20;

/// Fills `indices` with one resample.
fn draw(rng: &mut ChaCha8Rng, indices: &mut [usize]) {
    let n = indices.len();
    for slot in indices.iter_mut() {
        *slot = rng.gen_range(0..n);
    }
}

/// Draws resamples on a helper thread while the caller computes statistics:
/// the same single RNG stream in the same order, so the results are
/// identical to the sequential loop, in about half the time on two cores.
fn pipelined(n: usize, cfg: BootstrapConfig, record: &mut dyn FnMut(&[usize])) {
    use std::sync::mpsc::sync_channel;
    let (full_tx, full_rx) = sync_channel::<Vec<usize>>(2);
    let (empty_tx, empty_rx) = sync_channel::<Vec<usize>>(3);
    for _ in 0..3 {
        // Capacity 3 holds all three buffers; this cannot block or fail.
        let _ = empty_tx.send(vec![0usize; n]);
    }
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
            for _ in 0..cfg.resamples {
                let Ok(mut buf) = empty_rx.recv() else { return };
                draw(&mut rng, &mut buf);
                if full_tx.send(buf).is_err() {
                    return;
                }
            }
        });
        // Owned here so that, should `record` panic, dropping them unblocks
        // and ends the drawing thread before the scope joins it.
        let (full_rx, empty_tx) = (full_rx, empty_tx);
        for _ in 0..cfg.resamples {
            // The drawing thread sends exactly `resamples` buffers.
            let Ok(buf) = full_rx.recv() else { break };
            record(&buf);
            let _ = empty_tx.send(buf);
        }
    });
}

fn intervals<const K: usize>(mut values: [Vec<f64>; K], level: f64) -> [[f64; 2]; K] {
    let tail = (1.0 - level.clamp(0.0, 1.0)) / 2.0;
    std::array::from_fn(|k| {
        let v = &mut values[k];
        v.sort_by(f64::total_cmp);
        // Non-empty by construction, so both quantiles exist.
        let lo = quantile_linear(v, tail).unwrap_or(f64::NAN);
        let hi = quantile_linear(v, 1.0 - tail).unwrap_or(f64::NAN);
        [lo, hi]
    })
}

/// The `p`-quantile of ascending `sorted` values with linear interpolation:
/// h = (B − 1)p, x⌊h⌋ + (h − ⌊h⌋)(x⌊h⌋+1 − x⌊h⌋). `None` if empty.
pub fn quantile_linear(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = last as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let frac = h - lo as f64;
    let x_lo = sorted[lo.min(last)];
    if lo >= last || frac == 0.0 {
        return Some(x_lo);
    }
    Some(x_lo + frac * (sorted[lo + 1] - x_lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile_linear(&v, 0.0), Some(1.0));
        assert_eq!(quantile_linear(&v, 1.0), Some(5.0));
        assert_eq!(quantile_linear(&v, 0.025), Some(1.1));
        assert_eq!(quantile_linear(&v, 0.975), Some(4.9));
        assert_eq!(quantile_linear(&[7.0], 0.3), Some(7.0));
        assert_eq!(quantile_linear(&[], 0.3), None);
    }

    #[test]
    fn pipelined_equals_sequential() {
        // 2^20 draws or more take the two-thread path; compare with a
        // sequential re-implementation of the stream.
        let n = 1100;
        let cfg = BootstrapConfig::default();
        let data: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64).collect();
        let mean_of =
            |idx: &[usize]| [idx.iter().map(|&i| data[i]).sum::<f64>() / idx.len() as f64];
        assert!(n * cfg.resamples >= PIPELINE_MIN_DRAWS);
        let got = bootstrap(n, cfg, mean_of).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let mut idx = vec![0; n];
        let mut vals = Vec::new();
        for _ in 0..cfg.resamples {
            draw(&mut rng, &mut idx);
            vals.push(mean_of(&idx)[0]);
        }
        assert_eq!(got, intervals([vals], 0.95));
    }

    #[test]
    fn same_seed_same_interval() {
        let data: Vec<f64> = (0..50).map(|i| (i % 7) as f64).collect();
        let mean_of =
            |idx: &[usize]| [idx.iter().map(|&i| data[i]).sum::<f64>() / idx.len() as f64];
        let cfg = BootstrapConfig::default();
        let a = bootstrap(data.len(), cfg, mean_of).unwrap();
        let b = bootstrap(data.len(), cfg, mean_of).unwrap();
        assert_eq!(a, b);
        assert!(a[0][0] <= a[0][1]);
        let c = bootstrap(data.len(), BootstrapConfig { seed: 1, ..cfg }, mean_of).unwrap();
        assert_ne!(a, c);
        assert!(bootstrap(0, cfg, mean_of).is_none());
    }
}
