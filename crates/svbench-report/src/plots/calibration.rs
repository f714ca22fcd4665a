//! Calibration plots every environment with stated confidences can draw:
//! the reliability diagram and the risk–coverage curve.

use svbench_core::metrics::{CalibrationAccumulator, RiskCoveragePoint, ECE_BINS};

use super::axes::{ticks, Frame, Range};
use super::svg::{fixed, placeholder, Anchor, Doc, GRID, HEIGHT, INK, PALETTE, WIDTH};
use super::Plot;

/// At most this many points of the risk–coverage curve are drawn.
const MAX_CURVE_POINTS: usize = 2_000;

/// A plot named `name`.
pub fn plot(name: &str, title: &str, svg: String) -> Plot {
    Plot {
        name: name.to_string(),
        title: title.to_string(),
        svg,
    }
}

/// Accuracy per confidence bin against the diagonal, with bin counts.
pub fn reliability(cal: &CalibrationAccumulator) -> Plot {
    let title = "Reliability diagram";
    if cal.n == 0 {
        return plot(
            "reliability",
            title,
            placeholder(
                title,
                "No calibration point (no decided or invalid prediction).",
            ),
        );
    }
    let mut doc = Doc::new(WIDTH, HEIGHT + 20.0, title);
    let f = Frame {
        left: 70.0,
        top: 60.0,
        width: WIDTH - 100.0,
        height: HEIGHT - 120.0,
        x: Range::new(0.0, 1.0),
        y: Range::new(0.0, 1.0),
    };
    doc.legend(
        f.left,
        44.0,
        &[("accuracy", PALETTE[0]), ("mean confidence", INK)],
    );
    doc.line(f.px(0.0), f.py(0.0), f.px(1.0), f.py(1.0), GRID, true);
    let width = 1.0 / ECE_BINS as f64;
    for b in 0..ECE_BINS {
        let n = cal.bin_count[b];
        if n == 0 {
            continue;
        }
        let acc = cal.bin_correct[b] as f64 / n as f64;
        let conf = cal.bin_confidence[b] / n as f64;
        let (x0, x1) = (f.px(b as f64 * width), f.px((b + 1) as f64 * width));
        let top = f.py(acc);
        doc.rect_with(
            x0,
            top,
            x1 - x0,
            f.bottom() - top,
            PALETTE[0],
            " fill-opacity=\"0.8\" stroke=\"#ffffff\"",
        );
        doc.circle(f.px(conf), f.py(acc), 3.0, INK);
        doc.text(
            (x0 + x1) / 2.0,
            top - 4.0,
            &format!("n={n}"),
            Anchor::Middle,
            10.0,
            INK,
        );
    }
    f.y_axis(&mut doc, &ticks(f.y, 5, false), "accuracy");
    f.x_axis(&mut doc, Some(&ticks(f.x, 10, false)), "confidence");
    let ece = cal.ece().map_or("—".to_string(), |e| fixed(e, 4));
    doc.text(
        f.left,
        f.bottom() + 56.0,
        &format!(
            "{} points in {ECE_BINS} bins; ECE {ece}. Invalid outputs count at confidence 1.0 as incorrect; abstentions are left out.",
            cal.n
        ),
        Anchor::Start,
        10.0,
        INK,
    );
    plot("reliability", title, doc.finish())
}

/// A summary's risk–coverage curve (thinned to at most
/// [`MAX_CURVE_POINTS`] evenly spaced points, ends kept); shared by every
/// environment with one.
pub fn risk_coverage(curve: &[RiskCoveragePoint]) -> Plot {
    let title = "Risk–coverage curve";
    let pts: Vec<(f64, f64)> = curve
        .iter()
        .map(|p| (p.coverage, p.risk))
        .filter(|(c, r)| c.is_finite() && r.is_finite())
        .collect();
    if pts.is_empty() {
        return plot(
            "risk_coverage",
            title,
            placeholder(title, "No risk–coverage point (no calibration point)."),
        );
    }
    let max_risk = pts.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let mut doc = Doc::new(WIDTH, HEIGHT, title);
    let f = Frame {
        left: 70.0,
        top: 50.0,
        width: WIDTH - 100.0,
        height: HEIGHT - 110.0,
        x: Range::new(0.0, 1.0),
        y: Range::new(
            0.0,
            if max_risk > 0.0 {
                max_risk.min(1.0)
            } else {
                1.0
            },
        ),
    };
    let shown = thin(&pts, MAX_CURVE_POINTS);
    let px: Vec<(f64, f64)> = shown.iter().map(|&(c, r)| (f.px(c), f.py(r))).collect();
    doc.polyline(&px, PALETTE[1]);
    if px.len() <= 50 {
        for &(x, y) in &px {
            doc.circle(x, y, 2.5, PALETTE[1]);
        }
    }
    f.y_axis(
        &mut doc,
        &ticks(f.y, 5, false),
        "risk (error rate among covered)",
    );
    f.x_axis(&mut doc, Some(&ticks(f.x, 10, false)), "coverage");
    doc.text(
        WIDTH - 30.0,
        42.0,
        &format!(
            "{} thresholds; AURC (standard) {}",
            pts.len(),
            fixed(svbench_core::metrics::aurc_from_curve(curve), 4)
        ),
        Anchor::End,
        11.0,
        INK,
    );
    plot("risk_coverage", title, doc.finish())
}

/// Every `len / max`-th point, keeping the first and the last.
fn thin(pts: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if pts.len() <= max || max < 2 {
        return pts.to_vec();
    }
    let last = pts.len() - 1;
    (0..max).map(|i| pts[i * last / (max - 1)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_ends() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 0.0)).collect();
        let t = thin(&pts, 4);
        assert_eq!(t.len(), 4);
        assert_eq!((t[0].0, t[3].0), (0.0, 9.0));
        let curve = [RiskCoveragePoint {
            threshold: 0.5,
            coverage: f64::NAN,
            risk: 0.0,
            n_covered: 0,
        }];
        assert!(risk_coverage(&curve).svg.contains("No risk"));
    }
}
