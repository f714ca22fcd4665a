//! E4's emails: MIME parsing ([`parse_message`]), HTML reduced to text with
//! its links ([`html_to_text`]), and the versioned rendering the model reads
//! and evidence is checked against ([`render`]).
//!
//! Every entry point is bounded by [`EmailLimits`]: a message larger than
//! `max_message_bytes` is refused, an HTML part is cut at `max_html_bytes`
//! before parsing, the DOM walk is iterative and stops after `max_html_nodes`
//! elements, and the rendered body stops at `body_max_chars`. Nothing here
//! panics on input; a message that cannot be parsed is an [`EmailError`].
//!
//! ```
//! use svbench_scan::email::{parse_message, render, EmailLimits};
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
mod parse;
mod render;
mod upstream;

pub use html::{html_to_text, HtmlText};
pub use indicators::{
    extract, Finding, IndicatorError, IndicatorSet, Polarity, BENIGN_CATEGORIES, GENERIC_GREETING,
    PHISH_CATEGORIES,
};
pub use links::{registrable_domain, Link};
pub use parse::{parse_mbox, parse_message, Attachment, Email, EmailError, Headers};
pub use render::{render, Rendered, RENDER_VERSION};
pub use upstream::parse_upstream_text;

/// Bounds on what one email may cost to parse and render.
#[derive(Debug, Clone)]
pub struct EmailLimits {
    /// A raw message larger than this is refused (`EmailError::TooLarge`).
    pub max_message_bytes: usize,
    /// An HTML part is cut here (at a character boundary) before parsing.
    pub max_html_bytes: usize,
    /// An HTML part is cut before its tag after this many (`<` characters).
    pub max_html_tags: usize,
    /// The DOM walk stops after this many nodes; the rest is not rendered.
    pub max_html_nodes: usize,
    /// The rendered body is truncated here, in characters, with a marker.
    pub body_max_chars: usize,
    /// Links kept per email.
    pub max_links: usize,
}

impl Default for EmailLimits {
    fn default() -> Self {
        Self {
            max_message_bytes: 64 << 20,
            max_html_bytes: 2 << 20,
            max_html_tags: 10_000,
            max_html_nodes: 100_000,
            body_max_chars: 6_000,
            max_links: 200,
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
