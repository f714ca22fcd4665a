//! E1 plots: reliability diagram, risk–coverage curve and confusion
//! heatmap. The reliability bins are the ECE bins of the metrics
//! (`CalibrationAccumulator`, invalid outputs at confidence 1.0 and
//! incorrect, abstentions left out), recomputed from the records.

use crate::e1::report::summary::{E1Metrics, E1Summary};
use svbench_core::metrics::CalibrationAccumulator;

use crate::e1::report::compute::point;
use crate::e1::report::{E1Sample, Prediction};
use svbench_report::plots::calibration::{plot, reliability, risk_coverage};
use svbench_report::plots::svg::{num, Anchor, Doc, INK, PALETTE, WIDTH};
use svbench_report::plots::Plot;

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
    use super::*;
    use crate::e1::report::{compute, DEFAULT_COSTS};
    use svbench_report::plots::svg::check::assert_well_formed;

    fn summary_of(samples: &[E1Sample]) -> (CalibrationAccumulator, E1Summary, E1Metrics) {
        let c = compute(samples, &DEFAULT_COSTS);
        let mut cal = CalibrationAccumulator::new();
        for p in samples.iter().filter_map(point) {
            cal.add(p);
        }
        let (_, record) = crate::e1::report::cost_matrix(None, &Default::default(), None);
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
}
