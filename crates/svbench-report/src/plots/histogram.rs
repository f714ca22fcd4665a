//! Equal-width histograms: binning in one pass over the values (after one
//! pass for the range) and drawing them into a plot area.

use super::axes::{ticks, Frame, Range};
use super::svg::{placeholder, Anchor, Doc, HEIGHT, INK, PALETTE, WIDTH};
use super::Plot;

/// Bins of a histogram.
pub const BINS: usize = 20;

/// Counts of finite values in equal-width bins over `[lo, hi]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Low edge of the first bin.
    pub lo: f64,
    /// High edge of the last bin (the last bin includes it).
    pub hi: f64,
    /// Values per bin.
    pub counts: Vec<u64>,
    /// Finite values counted.
    pub n: u64,
    /// Non-finite values left out.
    pub dropped: u64,
}

impl Histogram {
    /// Bins the finite values of `values` into `bins` bins spanning their
    /// range; `None` when no value is finite. Equal values get a unit-wide
    /// range centred on them.
    pub fn of(values: &[f64], bins: usize) -> Option<Histogram> {
        let bins = bins.max(1);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut dropped = 0u64;
        for &v in values {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            } else {
                dropped += 1;
            }
        }
        if lo > hi {
            return None;
        }
        if hi <= lo || !(hi - lo).is_finite() {
            let r = Range::new(lo - 0.5, lo + 0.5);
            (lo, hi) = (r.lo, r.hi);
        }
        let width = hi - lo;
        let mut counts = vec![0u64; bins];
        let mut n = 0u64;
        for &v in values {
            if v.is_finite() {
                // `as usize` saturates (NaN → 0), so extreme values cannot panic.
                let i = (((v - lo) / width) * bins as f64) as usize;
                counts[i.min(bins - 1)] += 1;
                n += 1;
            }
        }
        Some(Histogram {
            lo,
            hi,
            counts,
            n,
            dropped,
        })
    }

    /// The largest bin count.
    pub fn max_count(&self) -> u64 {
        self.counts.iter().copied().max().unwrap_or(0)
    }

    /// Draws the bars, axes and titles into `frame`'s area (its ranges are
    /// replaced by the histogram's).
    pub fn draw(&self, doc: &mut Doc, frame: Frame, x_title: &str, colour: &str) {
        let f = Frame {
            x: Range::new(self.lo, self.hi),
            y: Range::counts(self.max_count()),
            ..frame
        };
        let bw = (f.x.hi - f.x.lo) / self.counts.len() as f64;
        for (i, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let x0 = f.px(f.x.lo + i as f64 * bw);
            let x1 = f.px(f.x.lo + (i + 1) as f64 * bw);
            let y = f.py(c as f64);
            doc.rect_with(
                x0,
                y,
                x1 - x0,
                f.bottom() - y,
                colour,
                " stroke=\"#ffffff\" stroke-width=\"0.5\"",
            );
        }
        f.y_axis(doc, &ticks(f.y, 5, true), "count");
        f.x_axis(doc, Some(&ticks(f.x, 6, false)), x_title);
    }
}

/// A one-panel histogram plot of `values`, or a placeholder saying there
/// is none.
pub fn histogram_plot(name: &str, title: &str, x_title: &str, values: &[f64]) -> Plot {
    let svg = match Histogram::of(values, BINS) {
        None => placeholder(title, "No finite value to plot."),
        Some(h) => {
            let mut doc = Doc::new(WIDTH, HEIGHT, title);
            let frame = Frame {
                left: 70.0,
                top: 50.0,
                width: WIDTH - 100.0,
                height: HEIGHT - 110.0,
                x: Range::new(h.lo, h.hi),
                y: Range::counts(h.max_count()),
            };
            h.draw(&mut doc, frame, x_title, PALETTE[0]);
            doc.text(WIDTH - 30.0, 42.0, &caption(&h), Anchor::End, 11.0, INK);
            doc.finish()
        }
    };
    Plot {
        name: name.to_string(),
        title: title.to_string(),
        svg,
    }
}

/// `n = …, range [lo, hi]` plus how many non-finite values were left out.
pub fn caption(h: &Histogram) -> String {
    let mut s = format!("n = {}, {} bins", h.n, h.counts.len());
    if h.dropped > 0 {
        s.push_str(&format!(", {} non-finite left out", h.dropped));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::svg::check::assert_well_formed;
    use super::*;

    #[test]
    fn binning() {
        let h = Histogram::of(&[0.0, 0.5, 1.0, 1.0, f64::NAN, f64::INFINITY], 2).unwrap();
        assert_eq!((h.lo, h.hi, h.n, h.dropped), (0.0, 1.0, 4, 2));
        assert_eq!(h.counts, vec![1, 3]);
        assert!(Histogram::of(&[], 5).is_none());
        assert!(Histogram::of(&[f64::NAN], 5).is_none());
        let h = Histogram::of(&[2.0, 2.0], 20).unwrap();
        assert_eq!((h.lo, h.hi), (1.5, 2.5));
        assert_eq!(h.counts[10], 2);
        let h = Histogram::of(&[-1e308, 1e308, 0.0], 20).unwrap();
        assert_eq!(h.n, 3);
    }

    #[test]
    fn plots_are_well_formed_and_deterministic() {
        for values in [
            vec![],
            vec![f64::NAN],
            vec![3.0],
            vec![1.0, 1.0, 1.0],
            (0..1000).map(|i| (i % 37) as f64 / 36.0).collect(),
            vec![-1e308, 1e308],
        ] {
            let a = histogram_plot("reward", "Reward <total>", "reward", &values);
            assert_well_formed(&a.svg);
            let b = histogram_plot("reward", "Reward <total>", "reward", &values);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn large_inputs_are_fast() {
        let values: Vec<f64> = (0..1_000_000).map(|i| (i % 1013) as f64).collect();
        let start = std::time::Instant::now();
        let p = histogram_plot("latency", "Latency", "ms", &values);
        assert!(start.elapsed().as_secs_f64() < 2.0);
        assert!(p.svg.contains("n = 1000000"));
    }
}
