//! Plots of a report (harness §4.4): self-contained SVG documents computed
//! from the summary and the recorded results, written next to the report
//! under `plots/` and inlined into `report.html`.

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
