//! Plots every environment gets: total reward, reward components and
//! sample latency histograms.

use std::collections::BTreeMap;

use svbench_core::summary::Summary;

use super::axes::{Frame, Range};
use super::histogram::{caption, histogram_plot, Histogram, BINS};
use super::svg::{placeholder, truncate, Anchor, Doc, INK, PALETTE, WIDTH};
use super::Plot;
use crate::build::SummaryValues;

/// At most this many component panels are drawn.
const MAX_COMPONENTS: usize = 24;
/// Size of one component panel.
const PANEL_W: f64 = WIDTH / 2.0;
const PANEL_H: f64 = 220.0;

/// `reward`, `reward_components` and `latency`.
pub fn plots(values: &SummaryValues, summary: &Summary) -> Vec<Plot> {
    let profile = summary.reward_profile.as_deref().unwrap_or("unrecorded");
    vec![
        histogram_plot(
            "reward",
            &format!("Total reward (profile {profile})"),
            "reward",
            &values.rewards,
        ),
        components_plot(profile, &values.components),
        histogram_plot(
            "latency",
            "Sample latency",
            "latency (ms)",
            &values.latencies,
        ),
    ]
}

/// One small histogram per component, two per row.
fn components_plot(profile: &str, components: &BTreeMap<String, Vec<f64>>) -> Plot {
    let title = format!("Reward components (profile {profile})");
    let panels: Vec<(&str, Histogram)> = components
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), Histogram::of(v, BINS)?)))
        .take(MAX_COMPONENTS)
        .collect();
    let svg = if panels.is_empty() {
        placeholder(&title, "No reward component was recorded.")
    } else {
        let cols = if panels.len() > 1 { 2 } else { 1 };
        let rows = panels.len().div_ceil(cols);
        let width = PANEL_W * cols as f64;
        let mut doc = Doc::new(width, 40.0 + PANEL_H * rows as f64, &title);
        for (i, (name, h)) in panels.iter().enumerate() {
            let (col, row) = ((i % cols) as f64, (i / cols) as f64);
            let (x0, y0) = (col * PANEL_W, 40.0 + row * PANEL_H);
            doc.text(
                x0 + PANEL_W / 2.0,
                y0 + 14.0,
                &truncate(name, 40),
                Anchor::Middle,
                12.0,
                INK,
            );
            doc.text(
                x0 + PANEL_W - 12.0,
                y0 + 28.0,
                &caption(h),
                Anchor::End,
                9.0,
                INK,
            );
            let frame = Frame {
                left: x0 + 62.0,
                top: y0 + 34.0,
                width: PANEL_W - 80.0,
                height: PANEL_H - 80.0,
                x: Range::new(h.lo, h.hi),
                y: Range::counts(h.max_count()),
            };
            h.draw(&mut doc, frame, "value", PALETTE[(i + 1) % PALETTE.len()]);
        }
        doc.finish()
    };
    Plot {
        name: "reward_components".to_string(),
        title,
        svg,
    }
}

#[cfg(test)]
mod tests {
    use super::super::svg::check::assert_well_formed;
    use super::*;

    #[test]
    fn component_panels() {
        let mut c: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        assert!(components_plot("v1", &c)
            .svg
            .contains("No reward component"));
        c.insert("reward_accuracy".to_string(), vec![0.0, 1.0, 1.0]);
        let one = components_plot("v1", &c);
        assert_well_formed(&one.svg);
        c.insert("format_reward".to_string(), vec![1.0]);
        c.insert("<odd & name>".to_string(), vec![f64::NAN, 0.5]);
        let three = components_plot("v1", &c);
        assert_well_formed(&three.svg);
        assert!(three.svg.contains("&lt;odd &amp; name&gt;"));
        assert_eq!(three, components_plot("v1", &c));
    }
}
