//! E1 plots: reliability diagram, risk–coverage curve and confusion
//! heatmap. The reliability bins are the ECE bins of the metrics
//! (`CalibrationAccumulator`, invalid outputs at confidence 1.0 and
//! incorrect, abstentions left out), recomputed from the records.

use crate::e1::summary::{E1Metrics, E1Summary};
use svbench_core::metrics::{CalibrationAccumulator, RiskCoveragePoint, ECE_BINS};

use super::axes::{ticks, Frame, Range};
use super::svg::{fixed, num, placeholder, Anchor, Doc, GRID, HEIGHT, INK, PALETTE, WIDTH};
use super::Plot;
use crate::e1::compute::point;
use crate::e1::{E1Sample, Prediction};

/// At most this many points of the risk–coverage curve are drawn.
const MAX_CURVE_POINTS: usize = 2_000;

/// `reliability`, `risk_coverage` and `confusion` of the summary's E1
/// samples (in record order).
pub fn plots(samples: &[E1Sample], e1: &E1Summary, m: &E1Metrics) -> Vec<Plot> {
    let mut cal = CalibrationAccumulator::new();
    for p in samples.iter().filter_map(point) {
        cal.add(p);
    }
    vec![
        reliability(&cal),
        risk_coverage(&e1.extras.risk_coverage),
        confusion(samples, m),
    ]
}

fn plot(name: &str, title: &str, svg: String) -> Plot {
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

/// Gold (rows) × predicted outcome (columns) counts, shaded by count.
pub fn confusion(samples: &[E1Sample], m: &E1Metrics) -> Plot {
    let title = "Confusion matrix";
    let cm = &m.confusion_matrix;
    // The summary has abstentions only in total; split them by gold here.
    let abstain_mal = samples
        .iter()
        .filter(|s| s.prediction == Prediction::Abstain && s.gold_malicious)
        .count() as u64;
    let abstain_ben = cm.abstain.saturating_sub(abstain_mal);
    let rows = [
        (
            "gold malicious",
            [cm.tp, cm.fn_, abstain_mal, cm.invalid_malicious],
        ),
        (
            "gold benign",
            [cm.fp, cm.tn, abstain_ben, cm.invalid_benign],
        ),
    ];
    let cols = ["malicious", "benign", "abstain", "invalid"];
    let max = rows
        .iter()
        .flat_map(|r| r.1.iter())
        .copied()
        .max()
        .unwrap_or(0);
    let mut doc = Doc::new(WIDTH, 300.0, title);
    let (left, top, cw, ch) = (150.0, 70.0, 110.0, 80.0);
    doc.text(
        left + cw * 2.0,
        52.0,
        "predicted",
        Anchor::Middle,
        12.0,
        INK,
    );
    for (j, c) in cols.iter().enumerate() {
        doc.text(
            left + cw * (j as f64 + 0.5),
            top - 6.0,
            c,
            Anchor::Middle,
            11.0,
            INK,
        );
    }
    for (i, (label, cells)) in rows.iter().enumerate() {
        let y = top + ch * i as f64;
        doc.text(
            left - 8.0,
            y + ch / 2.0 + 4.0,
            label,
            Anchor::End,
            11.0,
            INK,
        );
        for (j, &n) in cells.iter().enumerate() {
            let x = left + cw * j as f64;
            let shade = if max == 0 { 0.0 } else { n as f64 / max as f64 };
            doc.rect_with(
                x,
                y,
                cw,
                ch,
                PALETTE[0],
                &format!(
                    " fill-opacity=\"{}\" stroke=\"{INK}\" stroke-width=\"0.5\"",
                    num(0.05 + 0.9 * shade)
                ),
            );
            let ink = if shade > 0.55 { "#ffffff" } else { INK };
            doc.text(
                x + cw / 2.0,
                y + ch / 2.0 + 5.0,
                &n.to_string(),
                Anchor::Middle,
                14.0,
                ink,
            );
        }
    }
    doc.text(
        left,
        top + ch * 2.0 + 24.0,
        &format!(
            "{} samples; {} label-only answers counted as decided with confidence 0.",
            rows.iter().flat_map(|r| r.1.iter()).sum::<u64>(),
            cm.label_only
        ),
        Anchor::Start,
        10.0,
        INK,
    );
    plot("confusion", title, doc.finish())
}

#[cfg(test)]
mod tests {
    use super::super::svg::tests::assert_well_formed;
    use super::*;
    use crate::e1::{compute, DEFAULT_COSTS};
    use svbench_core::metrics::RiskCoveragePoint;

    fn summary_of(samples: &[E1Sample]) -> (CalibrationAccumulator, E1Summary, E1Metrics) {
        let c = compute(samples, &DEFAULT_COSTS);
        let mut cal = CalibrationAccumulator::new();
        for p in samples.iter().filter_map(point) {
            cal.add(p);
        }
        let (_, record) = crate::e1::cost_matrix(None, &Default::default(), None);
        let e1 = E1Summary {
            extras: c.extras,
            cost_matrix_v1: record,
            groups: Default::default(),
            ci95: None,
            undefined: c.undefined,
        };
        (cal, e1, c.metrics)
    }

    fn render(samples: &[E1Sample]) -> Vec<Plot> {
        let (cal, e1, m) = summary_of(samples);
        vec![
            reliability(&cal),
            risk_coverage(&e1.extras.risk_coverage),
            confusion(samples, &m),
        ]
    }

    #[test]
    fn edge_cases_render_well_formed_and_deterministic() {
        let many: Vec<E1Sample> = (0..100_000)
            .map(|i| E1Sample::decided(i % 3 == 0, i % 2 == 0, (i % 1000) as f64 / 999.0))
            .collect();
        let cases: Vec<Vec<E1Sample>> = vec![
            vec![],
            vec![E1Sample::abstain(true)],
            vec![E1Sample::invalid(false)],
            vec![E1Sample::decided(true, true, 0.9)],
            vec![E1Sample::decided(true, true, 0.5); 10],
            vec![E1Sample::decided(false, true, f64::NAN)],
            many,
        ];
        for s in &cases {
            let a = render(s);
            for p in &a {
                assert_well_formed(&p.svg);
            }
            assert_eq!(a, render(s));
        }
        let big = render(&cases[6]);
        assert!(big[0].svg.contains("n=10"), "bin counts are printed");
        assert!(big[1].svg.len() < 200_000, "the curve is thinned");
    }

    #[test]
    fn reliability_shows_bins_and_confusion_splits_abstentions() {
        let s = vec![
            E1Sample::decided(true, true, 0.95),
            E1Sample::decided(true, false, 0.95),
            E1Sample::decided(false, false, 0.35),
            E1Sample::abstain(true),
            E1Sample::abstain(false),
            E1Sample::abstain(false),
            E1Sample::invalid(true),
        ];
        let p = render(&s);
        assert!(
            p[0].svg.contains(">n=3<"),
            "bin 9: two decided + one invalid"
        );
        assert!(p[0].svg.contains(">n=1<"));
        let conf = &p[2].svg;
        // Row gold malicious: tp 1, fn 0, abstain 1, invalid 1.
        assert!(conf.contains("gold malicious"));
        assert_eq!(conf.matches(">1</text>").count(), 5);
        assert_eq!(conf.matches(">2</text>").count(), 1);
    }

    #[test]
    fn thinning_keeps_ends() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 0.0)).collect();
        let t = thin(&pts, 4);
        assert_eq!(t.len(), 4);
        assert_eq!((t[0].0, t[3].0), (0.0, 9.0));
        let mut e1 = summary_of(&[]).1;
        e1.extras.risk_coverage = vec![RiskCoveragePoint {
            threshold: 0.5,
            coverage: f64::NAN,
            risk: 0.0,
            n_covered: 0,
        }];
        assert!(risk_coverage(&e1.extras.risk_coverage)
            .svg
            .contains("No risk"));
    }
}
