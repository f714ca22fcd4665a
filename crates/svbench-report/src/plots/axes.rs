//! Plot areas with linear axes: data → pixel mapping, "nice" ticks and the
//! drawing of axes, tick labels and axis titles.

use super::svg::{fixed, Anchor, Doc, GRID, INK};

/// A linear data range; empty or non-finite ranges are widened so the
/// mapping is always defined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Low end.
    pub lo: f64,
    /// High end (> `lo`).
    pub hi: f64,
}

impl Range {
    /// `[lo, hi]`, widened to `[lo, lo + 1]` (or `[0, 1]`) when not
    /// increasing or not finite.
    pub fn new(lo: f64, hi: f64) -> Self {
        let lo = if lo.is_finite() { lo } else { 0.0 };
        let ok = |lo: f64, hi: f64| hi.is_finite() && hi > lo && (hi - lo).is_finite();
        if ok(lo, hi) {
            Range { lo, hi }
        } else if ok(lo, lo + 1.0) {
            Range { lo, hi: lo + 1.0 }
        } else {
            Range { lo: 0.0, hi: 1.0 }
        }
    }

    /// `[0, max]` for counts (at least `[0, 1]`).
    pub fn counts(max: u64) -> Self {
        Range::new(0.0, (max.max(1)) as f64)
    }

    fn frac(&self, v: f64) -> f64 {
        (v - self.lo) / (self.hi - self.lo)
    }
}

/// Tick positions and the decimals their labels need.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    /// Tick values inside the range.
    pub values: Vec<f64>,
    /// Decimals of the labels.
    pub decimals: usize,
}

/// About `target` ticks at multiples of 1, 2 or 5 × 10^k inside `r`;
/// `integer` forces whole-number steps (counts).
pub fn ticks(r: Range, target: usize, integer: bool) -> Ticks {
    let raw = (r.hi - r.lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let mut step = if norm < 1.5 {
        mag
    } else if norm < 3.5 {
        2.0 * mag
    } else if norm < 7.5 {
        5.0 * mag
    } else {
        10.0 * mag
    };
    if integer {
        step = step.max(1.0).round();
    }
    if !(step.is_finite() && step > 0.0) {
        return Ticks {
            values: vec![r.lo, r.hi],
            decimals: 2,
        };
    }
    let first = (r.lo / step).ceil() as i64;
    let last = (r.hi / step + 1e-9).floor() as i64;
    // Multiples of the step, never accumulated, so labels stay exact.
    let values = (first..=last.min(first + 50))
        .map(|k| k as f64 * step)
        .collect();
    let decimals = if integer {
        0
    } else {
        (-step.log10().floor()).clamp(0.0, 6.0) as usize
    };
    Ticks { values, decimals }
}

/// A plot area: a pixel rectangle showing `x` × `y` data ranges.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// Left edge, px.
    pub left: f64,
    /// Top edge, px.
    pub top: f64,
    /// Width, px.
    pub width: f64,
    /// Height, px.
    pub height: f64,
    /// Horizontal data range.
    pub x: Range,
    /// Vertical data range.
    pub y: Range,
}

impl Frame {
    /// Pixel x of data value `v`.
    pub fn px(&self, v: f64) -> f64 {
        self.left + self.x.frac(v) * self.width
    }

    /// Pixel y of data value `v` (up is larger).
    pub fn py(&self, v: f64) -> f64 {
        self.top + self.height - self.y.frac(v) * self.height
    }

    /// Bottom edge, px.
    pub fn bottom(&self) -> f64 {
        self.top + self.height
    }

    /// Right edge, px.
    pub fn right(&self) -> f64 {
        self.left + self.width
    }

    /// Draws the x axis with ticks (none for categorical axes) and its title.
    pub fn x_axis(&self, doc: &mut Doc, ticks: Option<&Ticks>, title: &str) {
        let b = self.bottom();
        doc.line(self.left, b, self.right(), b, INK, false);
        if let Some(t) = ticks {
            for &v in &t.values {
                let x = self.px(v);
                doc.line(x, b, x, b + 4.0, INK, false);
                doc.text(
                    x,
                    b + 16.0,
                    &fixed(v, t.decimals),
                    Anchor::Middle,
                    11.0,
                    INK,
                );
            }
        }
        doc.text(
            self.left + self.width / 2.0,
            b + 34.0,
            title,
            Anchor::Middle,
            12.0,
            INK,
        );
    }

    /// Draws the y axis with ticks, light grid lines and its title.
    pub fn y_axis(&self, doc: &mut Doc, ticks: &Ticks, title: &str) {
        doc.line(self.left, self.top, self.left, self.bottom(), INK, false);
        for &v in &ticks.values {
            let y = self.py(v);
            doc.line(self.left - 4.0, y, self.left, y, INK, false);
            if v != self.y.lo {
                doc.line(self.left, y, self.right(), y, GRID, true);
            }
            doc.text(
                self.left - 6.0,
                y + 4.0,
                &fixed(v, ticks.decimals),
                Anchor::End,
                11.0,
                INK,
            );
        }
        doc.text_vertical(self.left - 44.0, self.top + self.height / 2.0, title);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks() {
        let t = ticks(Range::new(0.0, 1.0), 5, false);
        assert_eq!(t.values, vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        assert_eq!(t.decimals, 1);
        let t = ticks(Range::counts(3), 5, true);
        assert_eq!(t.values, vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(t.decimals, 0);
        let t = ticks(Range::new(120.0, 4870.0), 5, false);
        assert_eq!(t.values.first(), Some(&1000.0));
        assert_eq!(t.decimals, 0);
        // Degenerate ranges are widened, never panic.
        let r = Range::new(f64::NAN, f64::INFINITY);
        assert_eq!((r.lo, r.hi), (0.0, 1.0));
        assert!(!ticks(Range::new(5.0, 5.0), 5, false).values.is_empty());
        let huge = Range::new(-1e308, 1e308);
        assert!(huge.hi > huge.lo);
        let _ = ticks(huge, 5, false);
    }

    #[test]
    fn mapping() {
        let f = Frame {
            left: 10.0,
            top: 20.0,
            width: 100.0,
            height: 50.0,
            x: Range::new(0.0, 1.0),
            y: Range::new(0.0, 10.0),
        };
        assert_eq!(f.px(0.5), 60.0);
        assert_eq!(f.py(0.0), 70.0);
        assert_eq!(f.py(10.0), 20.0);
    }
}
