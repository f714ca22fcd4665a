//! E4 `sv-env-phishing-detection`: phishing triage whose evidence is checked
//! against the email (spec `e4-phishing-detection.md`).
//!
//! The email code (MIME parsing, rendering, the indicator extractor) lives in
//! `svbench_mail`; this module holds what makes it an environment.

pub mod args;
pub mod bench;
pub mod dataset;
pub mod entry;
pub mod env;
pub mod generate;
pub mod grounding;
pub mod import;
pub mod normalize;
pub mod parse;
pub mod policy;
pub mod prompt;
pub mod report;
pub mod reward;
pub mod row;
pub mod score;

use std::fmt;

use serde::{Deserialize, Serialize};

/// Canonical environment name.
pub const NAME: &str = svbench_core::identity::PHISHING_DETECTION.name;
/// Short id, used in file names and config ids.
pub const ALIAS: &str = svbench_core::identity::PHISHING_DETECTION.short;
/// Environment version (recorded as `env_version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A label an answer (or a gold row) may carry. Unlike E1, `Abstain` is also
/// a gold label: the email alone cannot settle the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// A phishing email.
    Phishing,
    /// A legitimate email.
    Legitimate,
    /// Send to a human analyst.
    Abstain,
}

impl Label {
    /// Every label, in canonical order.
    pub const ALL: [Label; 3] = [Label::Phishing, Label::Legitimate, Label::Abstain];

    /// Canonical spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Phishing => "Phishing",
            Label::Legitimate => "Legitimate",
            Label::Abstain => "Abstain",
        }
    }

    /// Exact, case-sensitive match of the canonical spelling.
    pub fn from_exact(s: &str) -> Option<Label> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// ASCII-case-insensitive match without trimming.
    pub fn from_ascii_ci(s: &str) -> Option<Label> {
        Self::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which conclusion a gold span supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Polarity {
    /// An indicator of phishing.
    Phish,
    /// An anchor of legitimacy.
    Benign,
}

/// A gold span of a row (`meta.spans`): offsets in Unicode code points into
/// `question`, half-open, like Python slicing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldSpan {
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// `question[start..end]`.
    pub text: String,
    /// Indicator category (`lookalike_domain`, `sender_brand_match`, …).
    pub category: String,
    /// What the span supports.
    pub polarity: Polarity,
}

/// Where a row's gold spans come from (`meta.gold_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GoldSource {
    /// Inserted and recorded by the generator.
    Annotated,
    /// Found by the indicator extractor on import.
    Extractor,
    /// No spans: evidence is not scored for the row.
    None,
}

impl GoldSource {
    /// The recorded spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GoldSource::Annotated => "annotated",
            GoldSource::Extractor => "extractor",
            GoldSource::None => "none",
        }
    }
}
