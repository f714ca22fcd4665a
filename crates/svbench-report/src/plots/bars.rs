//! Vertical grouped bar charts over named categories, with the value of
//! each bar printed above it.

use super::axes::{ticks, Frame, Range};
use super::svg::{fixed, placeholder, truncate, Anchor, Doc, HEIGHT, INK, PALETTE, WIDTH};
use super::Plot;

/// One data series: a label and one value per category.
#[derive(Debug, Clone)]
pub struct Series<'a> {
    /// Legend label.
    pub label: &'a str,
    /// Values in category order (non-finite values are drawn as absent).
    pub values: Vec<f64>,
}

/// A grouped bar chart; `decimals` formats the value labels. Without any
/// category the plot is a placeholder saying `empty`.
pub fn grouped_bars(
    name: &str,
    title: &str,
    y_title: &str,
    categories: &[String],
    series: &[Series<'_>],
    decimals: usize,
    empty: &str,
) -> Plot {
    let plot = |svg| Plot {
        name: name.to_string(),
        title: title.to_string(),
        svg,
    };
    if categories.is_empty() || series.is_empty() {
        return plot(placeholder(title, empty));
    }
    let max = series
        .iter()
        .flat_map(|s| s.values.iter())
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let integer = decimals == 0;
    let y = if integer {
        Range::counts(max.ceil() as u64)
    } else {
        Range::new(0.0, if max > 0.0 { max } else { 1.0 })
    };
    let mut doc = Doc::new(WIDTH, HEIGHT, title);
    let f = Frame {
        left: 70.0,
        top: 60.0,
        width: WIDTH - 100.0,
        height: HEIGHT - 120.0,
        x: Range::new(0.0, categories.len() as f64),
        y,
    };
    if series.len() > 1 {
        let entries: Vec<(&str, &str)> = series
            .iter()
            .enumerate()
            .map(|(i, s)| (s.label, PALETTE[i % PALETTE.len()]))
            .collect();
        doc.legend(f.left, 44.0, &entries);
    }
    let slot = f.width / categories.len() as f64;
    let bar = slot * 0.8 / series.len() as f64;
    let label_size = if bar < 18.0 { 8.0 } else { 10.0 };
    for (c, cat) in categories.iter().enumerate() {
        let x0 = f.left + c as f64 * slot + slot * 0.1;
        for (k, s) in series.iter().enumerate() {
            let Some(&v) = s.values.get(c).filter(|v| v.is_finite()) else {
                continue;
            };
            let x = x0 + k as f64 * bar;
            let top = f.py(v.max(0.0));
            doc.rect(
                x,
                top,
                bar - 1.0,
                f.bottom() - top,
                PALETTE[k % PALETTE.len()],
            );
            doc.text(
                x + bar / 2.0,
                top - 3.0,
                &fixed(v, decimals),
                Anchor::Middle,
                label_size,
                INK,
            );
        }
        let max_chars = ((slot / 6.5) as usize).max(3);
        doc.text(
            f.left + (c as f64 + 0.5) * slot,
            f.bottom() + 16.0,
            &truncate(cat, max_chars),
            Anchor::Middle,
            11.0,
            INK,
        );
    }
    f.y_axis(&mut doc, &ticks(f.y, 5, integer), y_title);
    f.x_axis(&mut doc, None, "");
    plot(doc.finish())
}

#[cfg(test)]
mod tests {
    use super::super::svg::check::assert_well_formed;
    use super::*;

    #[test]
    fn bars_and_edge_cases() {
        let cats = vec!["high".to_string(), "med & <low>".to_string()];
        let series = [
            Series {
                label: "total",
                values: vec![3.0, 0.0],
            },
            Series {
                label: "found",
                values: vec![f64::NAN, 1.0],
            },
        ];
        let a = grouped_bars(
            "severity", "Severity", "findings", &cats, &series, 0, "none",
        );
        assert_well_formed(&a.svg);
        assert!(a.svg.contains("med &amp; &lt;low&gt;"));
        assert_eq!(
            a,
            grouped_bars("severity", "Severity", "findings", &cats, &series, 0, "none")
        );
        let empty = grouped_bars("x", "X", "y", &[], &series, 0, "nothing recorded");
        assert_well_formed(&empty.svg);
        assert!(empty.svg.contains("nothing recorded"));
        let zeros = [Series {
            label: "calls",
            values: vec![0.0, 0.0],
        }];
        assert_well_formed(&grouped_bars("x", "X", "y", &cats, &zeros, 2, "").svg);
    }
}
