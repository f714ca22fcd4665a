//! Plots every environment gets: total reward, reward components and
//! sample latency histograms.

use std::collections::BTreeMap;

use svbench_core::summary::Summary;

use super::axes::{Frame, Range};
use super::histogram::{caption, histogram_plot, Histogram, BINS};
use super::svg::{placeholder, truncate, Anchor, Doc, INK, PALETTE, WIDTH};
use super::{scored_in_profile, Plot};
use crate::read::LeanRun;

/// At most this many component panels are drawn.
const MAX_COMPONENTS: usize = 24;
/// Size of one component panel.
const PANEL_W: f64 = WIDTH / 2.0;
const PANEL_H: f64 = 220.0;

/// `reward`, `reward_components` and `latency`.
pub fn plots(run: &LeanRun, summary: &Summary) -> Vec<Plot> {
    let mut rewards = Vec::new();
    let mut components: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in scored_in_profile(run, summary) {
        if let Some(x) = r.reward() {
            rewards.push(x);
        }
        for (k, v) in run.records.components(r) {
            if let Some(v) = v {
                components.entry(k).or_default().push(v);
            }
        }
    }
    let profile = summary.reward_profile.as_deref().unwrap_or("unrecorded");
    let latencies: Vec<f64> = run
        .records
        .records
        .iter()
        .filter_map(|r| r.latency_ms())
        .collect();
    vec![
        histogram_plot(
            "reward",
            &format!("Total reward (profile {profile})"),
            "reward",
            &rewards,
        ),
        components_plot(profile, &components),
        histogram_plot("latency", "Sample latency", "latency (ms)", &latencies),
    ]
}

/// One small histogram per component, two per row.
fn components_plot(profile: &str, components: &BTreeMap<&str, Vec<f64>>) -> Plot {
    let title = format!("Reward components (profile {profile})");
    let panels: Vec<(&str, Histogram)> = components
        .iter()
        .filter_map(|(k, v)| Some((*k, Histogram::of(v, BINS)?)))
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
    use super::super::svg::tests::assert_well_formed;
    use super::*;

    #[test]
    fn component_panels() {
        let mut c: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        assert!(components_plot("v1", &c)
            .svg
            .contains("No reward component"));
        c.insert("reward_accuracy", vec![0.0, 1.0, 1.0]);
        let one = components_plot("v1", &c);
        assert_well_formed(&one.svg);
        c.insert("format_reward", vec![1.0]);
        c.insert("<odd & name>", vec![f64::NAN, 0.5]);
        let three = components_plot("v1", &c);
        assert_well_formed(&three.svg);
        assert!(three.svg.contains("&lt;odd &amp; name&gt;"));
        assert_eq!(three, components_plot("v1", &c));
    }
}
