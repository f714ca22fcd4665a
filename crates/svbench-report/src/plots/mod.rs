//! Plots of a report (harness §4.4): self-contained SVG documents computed
//! from the summary and the per-record values it was computed from
//! ([`crate::build::SummaryValues`] and the environment's own plot data:
//! nothing is read or collected again), written next to the report
//! under `plots/` and inlined into `report.html`.
//!
//! Every plot is hand-written SVG (no plotting crate, no fonts: text uses
//! the generic `sans-serif` family), with fixed number formatting so
//! identical inputs give identical bytes. Plots with nothing to show are
//! still written, as a short note, so the set of files depends only on the
//! environment. No PNG is produced: no renderer that works without system
//! fonts is bundled.

pub mod axes;
pub mod bars;
pub mod calibration;
pub mod common;
pub mod histogram;
pub mod svg;

/// One plot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plot {
    /// File stem: written as `plots/<name>.svg`.
    pub name: String,
    /// Human title (used in `report.md` links and `report.html`).
    pub title: String,
    /// The complete SVG document (deterministic bytes for identical inputs).
    pub svg: String,
}
