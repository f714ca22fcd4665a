//! E1 `sv-env-network-logs`: network flow classification (spec `e1-network-logs.md`).

pub mod bench;
pub mod dataset;
pub mod entry;
pub mod env;
pub mod generate;
pub mod heuristic;
pub mod import;
pub mod leak;
pub mod parse;
pub mod policy;
pub mod prompt;
pub mod report;
pub mod reward;
pub mod zeek;

use std::fmt;

/// Canonical environment name.
pub const NAME: &str = svbench_core::identity::NETWORK_LOGS.name;
/// Short id, used in file names and config ids.
pub const ALIAS: &str = svbench_core::identity::NETWORK_LOGS.short;
/// Environment version (recorded as `env_version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A label an answer may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    /// Normal traffic.
    Benign,
    /// Attack traffic.
    Malicious,
    /// No decision.
    Abstain,
}

impl Label {
    /// Canonical spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Benign => "Benign",
            Label::Malicious => "Malicious",
            Label::Abstain => "Abstain",
        }
    }

    /// Exact, case-sensitive match of the canonical spelling.
    pub fn from_exact(s: &str) -> Option<Label> {
        match s {
            "Benign" => Some(Label::Benign),
            "Malicious" => Some(Label::Malicious),
            "Abstain" => Some(Label::Abstain),
            _ => None,
        }
    }

    /// ASCII-case-insensitive match without trimming.
    pub fn from_ascii_ci(s: &str) -> Option<Label> {
        [Label::Benign, Label::Malicious, Label::Abstain]
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A gold label: never `Abstain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gold {
    /// Normal traffic.
    Benign,
    /// Attack traffic.
    Malicious,
}

impl Gold {
    /// Canonical spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Gold::Benign => "Benign",
            Gold::Malicious => "Malicious",
        }
    }

    /// The matching answer label.
    pub fn label(self) -> Label {
        match self {
            Gold::Benign => Label::Benign,
            Gold::Malicious => Label::Malicious,
        }
    }
}
