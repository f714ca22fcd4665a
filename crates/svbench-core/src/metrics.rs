//! Metric primitives: confusion counts, ECE, Brier, risk–coverage, AURC, F1,
//! bootstrap confidence intervals.
