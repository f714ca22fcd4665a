//! Project severities (spec E2 §1.5): the same three levels for every analyzer.

use serde::Serialize;

/// Project severity of a rule. Never the tool's own level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// `low`: correctness, availability, hygiene.
    Low,
    /// `med`: weakens defence in depth, privilege or supply-chain hygiene
    /// (policies may write `medium`).
    Med,
    /// `high`: breaks container/host isolation or exposes credentials or
    /// cluster-admin (policies may write `critical`).
    High,
}

impl Severity {
    /// Reads a severity: `low`, `med`/`medium`, `high`/`critical`, in any
    /// case; anything else is `None`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Severity> {
        match text.to_ascii_lowercase().as_str() {
            "low" => Some(Severity::Low),
            "med" | "medium" => Some(Severity::Med),
            "high" | "critical" => Some(Severity::High),
            _ => None,
        }
    }

    /// The project spelling: `low`, `med` or `high`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Med => "med",
            Severity::High => "high",
        }
    }

    /// Reward weight of the level: low 0.3, med 0.6, high 1.0.
    #[must_use]
    pub fn weight(self) -> f64 {
        match self {
            Severity::Low => 0.3,
            Severity::Med => 0.6,
            Severity::High => 1.0,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
