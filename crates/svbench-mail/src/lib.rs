//! E4's emails as a library, apart from the config analyzers so that E4
//! builds without them: MIME parsing ([`parse_message`]), HTML reduced to
//! text with its links ([`html_to_text`]), the versioned rendering the model
//! reads and evidence is checked against ([`render`]), and the phishing
//! indicator extractor ([`extract`]).
//!
//! Every entry point is bounded by [`EmailLimits`]: a message larger than
//! `max_message_bytes` is refused, an HTML part is cut at `max_html_bytes`,
//! `max_html_tags` and the attribute limits before parsing, the DOM walk is
//! iterative and stops after `max_html_nodes` elements, and the rendered
//! body stops at `body_max_chars` (the links past it listed after the
//! marker, at most `max_links`). An mbox is read one message at a time
//! ([`MboxReader`]). The `_within` entry points also stop at a [`Deadline`]
//! (checked inside their loops). Nothing here panics on input; a message
//! that cannot be parsed is an [`EmailError`].
//!
//! [`Deadline`]: crate::Deadline
//!
//! ```
//! use svbench_mail::{parse_message, render, EmailLimits};
//!
//! let raw = b"From: Bank <alerts@bank.test>\r\nSubject: Verify\r\nContent-Type: text/html\r\n\r\n\
//!             <p>Verify <a href=\"http://203.0.113.7/login\">now</a></p>";
//! let limits = EmailLimits::default();
//! let email = parse_message(raw, &limits).unwrap();
//! let rendered = render(&email, &limits);
//! assert_eq!(rendered.text, "From: Bank <alerts@bank.test>\nSubject: Verify\n\nVerify now [link: http://203.0.113.7/login]");
//! assert_eq!(rendered.links[0].href_host.as_deref(), Some("203.0.113.7"));
//! ```

mod html;
mod indicators;
mod links;
mod mbox;
mod parse;
mod render;
mod tags;
mod upstream;

pub use html::{html_dom_stats, html_to_text, html_to_text_within, DomStats, HtmlText};
pub use indicators::{
    extract, extract_within, Finding, IndicatorError, IndicatorSet, Polarity, BENIGN_CATEGORIES,
    GENERIC_GREETING, PHISH_CATEGORIES,
};
pub use links::{registrable_domain, Link};
pub use mbox::{is_mbox_separator, MboxError, MboxItem, MboxReader};
pub use parse::{parse_message, Attachment, Email, EmailError, Headers};
pub use render::{render, render_within, Rendered, RENDER_VERSION};
pub use tags::{scan_attributes, AttributeLimit, AttributeScan};
pub use upstream::parse_upstream_text;

pub use svbench_core::deadline::{Deadline, TimeBudgetExceeded};

/// Bounds on what one email may cost to parse and render.
#[derive(Debug, Clone)]
pub struct EmailLimits {
    /// A raw message larger than this is refused (`EmailError::TooLarge`).
    pub max_message_bytes: usize,
    /// An HTML part is cut here (at a character boundary) before parsing.
    pub max_html_bytes: usize,
    /// An HTML part is cut before its tag after this many (`<` characters).
    pub max_html_tags: usize,
    /// An HTML part is cut before the tag that would have more attributes
    /// than this, or take the `<html>` and `<body>` tags together past it
    /// (html5ever compares each attribute of a tag with every earlier one).
    pub max_html_attributes: usize,
    /// An HTML part is cut before the formatting start tag (`<b>`,
    /// `<font>`, … but not `<a>`) that would take the attributes of all of
    /// them past this (html5ever compares each new formatting element with
    /// the open ones of its name, attributes and all).
    pub max_html_formatting_attributes: usize,
    /// The DOM walk stops after this many nodes; the rest is not rendered.
    pub max_html_nodes: usize,
    /// The rendered body is truncated here, in characters, with a marker;
    /// the links past it are listed after the marker, in at most this many
    /// characters again.
    pub body_max_chars: usize,
    /// Links kept per email, from the whole body (and listed after the cut).
    pub max_links: usize,
    /// Messages scanned per mbox; the rest is reported, not scanned.
    pub max_mbox_messages: usize,
}

impl Default for EmailLimits {
    fn default() -> Self {
        Self {
            max_message_bytes: 64 << 20,
            max_html_bytes: 2 << 20,
            max_html_tags: 10_000,
            max_html_attributes: 64,
            max_html_formatting_attributes: 500,
            max_html_nodes: 100_000,
            body_max_chars: 6_000,
            max_links: 200,
            max_mbox_messages: 100_000,
        }
    }
}

/// Lines with trailing whitespace dropped, at most one blank line in a row,
/// none at the start or end (how both HTML and plain bodies are laid out).
fn tidy_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank {
                out.push('\n');
            }
        }
        blank = false;
        out.push_str(line);
    }
    out
}
