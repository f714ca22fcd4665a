//! The native indicator extractor (spec E4 §3.2): findings
//! `{category, polarity, start, end, text, detail}` located in an email's
//! rendering, for the `builtin:indicators` policy, extractor gold of imported
//! rows, and `svbench scan --type email`.
//!
//! Everything tunable (phrase patterns, lists, thresholds, the policy's
//! weights) is data: `datasets/e4/indicators.toml` and
//! `datasets/e4/brands.toml`, compiled once into an [`IndicatorSet`].
//!
//! Every finding is citable by a model as evidence: its text is the rendered
//! text between `start` and `end` (Unicode code points, half-open), 4 to 200
//! characters long and word-bounded (spec §4.1 step 5). A value that does not
//! occur in the rendering (a truncated body, an unrendered header) yields no
//! finding.
//!
//! ```
//! use svbench_mail::{extract, parse_message, render, EmailLimits, IndicatorSet};
//!
//! let raw = b"From: Northwind Bank <alerts@northwlnd-bank.top>\r\n\r\nDear customer, verify your password within 24 hours.";
//! let limits = EmailLimits::default();
//! let email = parse_message(raw, &limits).unwrap();
//! let rendered = render(&email, &limits);
//! let findings = extract(&email, &rendered, IndicatorSet::builtin());
//! assert!(findings.iter().any(|f| f.category == "lookalike_domain" && f.text == "northwlnd-bank.top"));
//! assert!(findings.iter().any(|f| f.category == "generic_greeting" && f.text == "Dear customer"));
//! ```

mod attachments;
mod compile;
mod config;
mod doc;
mod domains;
mod fold;
mod lookalike;
mod phrases;
mod rewrite;
mod sender;
mod spans;

use serde::Serialize;

pub use compile::{IndicatorError, IndicatorSet};

use super::parse::Email;
use super::render::Rendered;
use crate::{Deadline, TimeBudgetExceeded};

/// The phish-polarity categories: the spec's table (§3.2), in its order,
/// then `invisible_characters` (a display name or subject that hides
/// zero-width, tag or bidi characters inside a word).
pub const PHISH_CATEGORIES: [&str; 15] = [
    "display_name_mismatch",
    "reply_to_mismatch",
    "lookalike_domain",
    "punycode_domain",
    "link_text_mismatch",
    "ip_url",
    "url_shortener",
    "suspicious_tld",
    "credential_request",
    "pii_request",
    "payment_request",
    "urgency_threat",
    "risky_attachment",
    "freemail_corporate",
    "invisible_characters",
];

/// `generic_greeting` is phish (weak); listed apart from the fourteen above
/// only because the spec's table counts it so.
pub const GENERIC_GREETING: &str = "generic_greeting";

/// The benign-polarity categories (spec §3.2).
pub const BENIGN_CATEGORIES: [&str; 4] = [
    "sender_brand_match",
    "aligned_links",
    "auth_aligned_pass",
    "internal_sender",
];

/// Which way a finding points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Polarity {
    /// Evidence that the email is phishing.
    Phish,
    /// Evidence that the email is legitimate.
    Benign,
}

impl Polarity {
    /// `phish` or `benign`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Polarity::Phish => "phish",
            Polarity::Benign => "benign",
        }
    }

    /// The polarity of a category name (`None` for an unknown name).
    #[must_use]
    pub fn of(category: &str) -> Option<Polarity> {
        if PHISH_CATEGORIES.contains(&category) || category == GENERIC_GREETING {
            Some(Polarity::Phish)
        } else if BENIGN_CATEGORIES.contains(&category) {
            Some(Polarity::Benign)
        } else {
            None
        }
    }
}

/// One indicator, located in the rendered text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// A category name of the spec's table.
    pub category: &'static str,
    /// Its polarity.
    pub polarity: Polarity,
    /// Start, in Unicode code points into `Rendered::text`.
    pub start: usize,
    /// End (exclusive), in code points.
    pub end: usize,
    /// The rendered text between `start` and `end`.
    pub text: String,
    /// Why it fired, for people (not part of any score).
    pub detail: String,
}

/// Every indicator of `email`, located in its rendering `rendered` (which
/// must be `render(email, …)`), ordered by position then category, with
/// identical (category, start, end) findings merged.
#[must_use]
pub fn extract(email: &Email, rendered: &Rendered, set: &IndicatorSet) -> Vec<Finding> {
    // `Deadline::NONE` never passes.
    extract_within(email, rendered, set, &Deadline::NONE).unwrap_or_default()
}

/// [`extract`] that stops once `deadline` has passed (checked between the
/// checks; each reads a rendering bounded by `body_max_chars`).
///
/// # Errors
/// [`TimeBudgetExceeded`].
pub fn extract_within(
    email: &Email,
    rendered: &Rendered,
    set: &IndicatorSet,
    deadline: &Deadline,
) -> Result<Vec<Finding>, TimeBudgetExceeded> {
    deadline.check()?;
    let doc = doc::Doc::new(&rendered.text);
    let mut out = spans::Collector::new(&rendered.text, set.min_chars, set.max_chars);
    let sender = sender::Sender::new(email, set);
    sender::check(&doc, email, &sender, set, &mut out);
    deadline.check()?;
    let external_links = domains::check(&doc, rendered, &sender, set, &mut out);
    deadline.check()?;
    sender::check_internal(&doc, &sender, external_links, set, &mut out);
    phrases::check(&doc, set, &mut out);
    deadline.check()?;
    attachments::check(&doc, email, set, &mut out);
    Ok(out.finish())
}

#[cfg(test)]
mod tests;
