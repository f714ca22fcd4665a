//! Rendering version 2: the exact text the model reads and evidence spans
//! are checked against. Changing anything here bumps [`RENDER_VERSION`].
//!
//! Version 2 (over 1): visibility decided from inherited inline styles,
//! invisible characters shown as `[U+XXXX]` markers, links past the cut
//! listed after `[… truncated]`, encoded words joined per RFC 2047 and
//! bodies recovered from malformed MIME (see `docs/e4.md`).

pub(crate) mod invisible;

use std::collections::HashSet;
use std::fmt::Write as _;

use self::invisible::mark_invisibles;
use super::html::html_to_text_within;
use super::links::{normalized_url, Link};
use super::parse::{collapse, Email};
use super::{tidy_lines, EmailLimits};
use crate::{Deadline, TimeBudgetExceeded};

/// The rendering's version, recorded with every row (`meta.render_version`).
pub const RENDER_VERSION: u32 = 2;

/// Longest header line, in characters.
const HEADER_MAX_CHARS: usize = 300;
const TRUNCATED: &str = "[… truncated]";
/// Heads the list of links the cut body no longer shows.
const AFTER_THE_CUT: &str = "Links after the cut:";
/// Longest link text, and longest target, in that list (characters).
const CUT_LINK_TEXT_MAX_CHARS: usize = 100;
const CUT_LINK_HREF_MAX_CHARS: usize = 1_000;

/// A rendered email.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// Header lines, a blank line, then the body.
    pub text: String,
    /// Links of the HTML body (or plain-text URLs when there is no HTML),
    /// of the whole body, not only the part before the cut (at most
    /// `max_links`); each one appears in `text`, in the body or in the list
    /// after `[… truncated]`.
    pub links: Vec<Link>,
    /// The HTML body hid text from the reader.
    pub hidden_text: bool,
    /// The body was cut at `body_max_chars` (or the HTML at its limits).
    pub truncated: bool,
}

/// Render `email` (version 2): headers in a fixed order, each only when
/// present, then the body from the HTML part when there is one, else the
/// first plain-text part.
pub fn render(email: &Email, limits: &EmailLimits) -> Rendered {
    match render_within(email, limits, &Deadline::NONE) {
        Ok(rendered) => rendered,
        // `Deadline::NONE` never passes.
        Err(_) => Rendered {
            text: String::new(),
            links: Vec::new(),
            hidden_text: false,
            truncated: true,
        },
    }
}

/// [`render`] that stops once `deadline` has passed (checked around and
/// inside the HTML body's parse and walk).
///
/// # Errors
/// [`TimeBudgetExceeded`].
pub fn render_within(
    email: &Email,
    limits: &EmailLimits,
    deadline: &Deadline,
) -> Result<Rendered, TimeBudgetExceeded> {
    deadline.check()?;
    let h = &email.headers;
    let attachments = (!email.attachments.is_empty()).then(|| {
        email
            .attachments
            .iter()
            .map(|a| format!("{} ({}, {})", a.name, a.mime_type, human_size(a.size)))
            .collect::<Vec<_>>()
            .join(", ")
    });
    let mut text = String::new();
    for (name, value) in [
        ("From", &h.from),
        ("Reply-To", &h.reply_to),
        ("To", &h.to),
        ("Date", &h.date),
        ("Subject", &h.subject),
        ("Authentication-Results", &h.authentication_results),
        ("Attachments", &attachments),
    ] {
        if let Some(value) = value.as_deref().map(collapse).filter(|v| !v.is_empty()) {
            let line = format!("{name}: {}", mark_invisibles(&value));
            text.extend(line.chars().take(HEADER_MAX_CHARS));
            text.push('\n');
        }
    }
    let (body, links, link_ends, hidden_text, mut truncated) = match (&email.html, &email.text) {
        (Some(html), _) => {
            let t = html_to_text_within(html, limits, deadline)?;
            (t.text, t.links, t.link_ends, t.hidden_text, t.truncated)
        }
        (None, Some(plain)) => {
            // A byte-order mark opening a body is encoding, not content.
            let plain = plain.strip_prefix('\u{FEFF}').unwrap_or(plain);
            let body = mark_invisibles(&tidy_lines(plain)).into_owned();
            let (links, ends) = plain_links(&body, limits.max_links);
            (body, links, ends, false, false)
        }
        (None, None) => (String::new(), Vec::new(), Vec::new(), false, false),
    };
    text.push('\n');
    match body.char_indices().nth(limits.body_max_chars) {
        Some((cut, _)) => {
            let kept = body[..cut].trim_end();
            text.push_str(kept);
            text.push('\n');
            text.push_str(TRUNCATED);
            truncated = true;
            list_links_after_the_cut(&mut text, &links, &link_ends, kept.len(), limits);
        }
        None => text.push_str(&body),
    }
    deadline.check()?;
    Ok(Rendered {
        text,
        links,
        hidden_text,
        truncated,
    })
}

/// After the truncation marker, the links whose rendering ends past `cut`
/// (bytes into the body), each target once and none the kept part shows:
/// `- TEXT [link: HREF]`, or `- [link: HREF]` when the text is the URL or
/// empty. The list holds at most `max_links` lines and `body_max_chars`
/// characters (or one line); what does not fit is counted
/// (`[… 3 more links]`).
fn list_links_after_the_cut(
    text: &mut String,
    links: &[Link],
    ends: &[usize],
    cut: usize,
    limits: &EmailLimits,
) {
    let mut seen: HashSet<&str> = links
        .iter()
        .zip(ends)
        .filter(|(_, end)| **end <= cut)
        .map(|(l, _)| l.href.as_str())
        .collect();
    let mut lines: Vec<String> = Vec::new();
    let mut chars = 0usize;
    let mut left_out = 0usize;
    for (link, _) in links.iter().zip(ends).filter(|(_, end)| **end > cut) {
        if !seen.insert(link.href.as_str()) {
            continue;
        }
        let line = cut_link_line(link);
        let len = line.chars().count() + 1;
        // The first line always fits: it is bounded by the clip lengths.
        let full = !lines.is_empty() && chars + len > limits.body_max_chars;
        if lines.len() >= limits.max_links || full {
            left_out += 1;
            continue;
        }
        chars += len;
        lines.push(line);
    }
    if lines.is_empty() && left_out == 0 {
        return;
    }
    text.push('\n');
    text.push_str(AFTER_THE_CUT);
    for line in lines {
        text.push('\n');
        text.push_str(&line);
    }
    if left_out > 0 {
        let s = if left_out == 1 { "" } else { "s" };
        // Writing to a String cannot fail.
        let _ = write!(text, "\n[… {left_out} more link{s}]");
    }
}

/// One line of the list after the cut, written as the body writes links.
fn cut_link_line(link: &Link) -> String {
    let href = clip(
        &mark_invisibles(&collapse(&link.href)),
        CUT_LINK_HREF_MAX_CHARS,
    );
    let visible = collapse(&link.visible_text);
    if visible.is_empty() || normalized_url(&visible) == normalized_url(&link.href) {
        format!("- [link: {href}]")
    } else {
        format!(
            "- {} [link: {href}]",
            clip(&visible, CUT_LINK_TEXT_MAX_CHARS)
        )
    }
}

/// `s` cut at `max` characters, with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// URLs written in plain text, and where each ends (bytes).
fn plain_links(text: &str, max: usize) -> (Vec<Link>, Vec<usize>) {
    let mut finder = linkify::LinkFinder::new();
    finder
        .kinds(&[linkify::LinkKind::Url])
        .url_must_have_scheme(false);
    finder
        .links(text)
        .take(max)
        .map(|l| (Link::new(l.as_str(), l.as_str()), l.end()))
        .unzip()
}

/// `812 B`, `2 KB`, `3.4 MB`.
pub(crate) fn human_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    match bytes {
        b if b < KB => format!("{b} B"),
        b if b < KB * KB => format!("{} KB", b.div_ceil(KB)),
        b => format!("{:.1} MB", b as f64 / (KB * KB) as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_message, Attachment};
    use super::*;

    const SPEC_EXAMPLE: &str = "From: Northwind Bank <alerts@northwlnd-bank.top>\r\n\
        Reply-To: recovery.desk@freemail.example\r\n\
        To: dana.ortiz@acme-corp.example\r\n\
        Date: Tue, 04 Mar 2025 09:12:44 +0000\r\n\
        Subject: =?utf-8?q?Unusual_sign-in=3A_verify?=\r\n   within 24 hours\r\n\
        MIME-Version: 1.0\r\n\
        Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n\
        --b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
        <p>Dear customer,<br>We detected an unusual sign-in.</p>\
        <p><a href=\"http://203.0.113.7/northwind/login\">Verify now</a></p>\r\n\
        --b1\r\nContent-Type: text/html; name=\"statement.pdf.html\"\r\n\
        Content-Disposition: attachment; filename=\"statement.pdf.html\"\r\n\r\n\
        <html>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx</html>\r\n\
        --b1--\r\n";

    #[test]
    fn renders_the_documented_layout() {
        let limits = EmailLimits::default();
        let email = parse_message(SPEC_EXAMPLE.as_bytes(), &limits).unwrap();
        assert_eq!(email.attachments.len(), 1);
        let r = render(&email, &limits);
        assert_eq!(
            r.text,
            "From: Northwind Bank <alerts@northwlnd-bank.top>\n\
             Reply-To: recovery.desk@freemail.example\n\
             To: dana.ortiz@acme-corp.example\n\
             Date: Tue, 04 Mar 2025 09:12:44 +0000\n\
             Subject: Unusual sign-in: verify within 24 hours\n\
             Attachments: statement.pdf.html (text/html, 87 B)\n\
             \n\
             Dear customer,\n\
             We detected an unusual sign-in.\n\
             Verify now [link: http://203.0.113.7/northwind/login]"
        );
        assert_eq!(r.links[0].href_host.as_deref(), Some("203.0.113.7"));
        assert_eq!(render(&email, &limits), r, "rendering is deterministic");
    }

    #[test]
    fn plain_text_bodies_long_headers_and_truncation() {
        let mut email = Email {
            text: Some("Hello  \r\n\r\n\r\n\r\nsee www.bank.test/x now\n".into()),
            ..Email::default()
        };
        email.headers.subject = Some("s".repeat(1_000));
        email.attachments.push(Attachment {
            name: "a.zip".into(),
            mime_type: "application/zip".into(),
            size: 5 << 20,
        });
        let r = render(&email, &EmailLimits::default());
        let subject_line = r.text.lines().next().unwrap();
        assert_eq!(subject_line.chars().count(), HEADER_MAX_CHARS);
        assert!(r.text.contains(
            "Attachments: a.zip (application/zip, 5.0 MB)\n\nHello\n\nsee www.bank.test/x now"
        ));
        assert_eq!(r.links[0].href_host.as_deref(), Some("www.bank.test"));
        let r = render(
            &email,
            &EmailLimits {
                body_max_chars: 3,
                ..EmailLimits::default()
            },
        );
        assert!(r.truncated);
        assert!(
            r.text.ends_with(
                "\n\nHel\n[… truncated]\nLinks after the cut:\n- [link: www.bank.test/x]"
            ),
            "{}",
            r.text
        );
    }
}
