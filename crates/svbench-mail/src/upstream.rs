//! Upstream E4 rows (spec §3.3 `upstream-e4`): an email already written as
//! plain text, leading `Name: value` lines up to the first blank line being
//! headers and the rest the body. Parsed back into an [`Email`] whose
//! rendering is the original text when the text has the rendering's shape
//! (headers in its order, a blank line, a tidy body).

use super::parse::{collapse, Attachment, Email};
use super::EmailLimits;
use svbench_core::text::cut_at_char;

/// Parse an upstream row's `question` text. Never fails: text without a
/// header block is all body. Header names are case-insensitive; names that
/// rendering does not write (other than `Return-Path` and `Message-ID`,
/// which are kept unrendered) are dropped, so such a text does not
/// round-trip. The body is cut at `max_message_bytes`.
#[must_use]
pub fn parse_upstream_text(question: &str, limits: &EmailLimits) -> Email {
    let text = cut_at_char(question, limits.max_message_bytes);
    let mut email = Email::default();
    let body = match header_block(text) {
        Some((block, body)) => {
            for line in block.lines() {
                if let Some((name, value)) = line.split_once(':') {
                    set_header(&mut email, name.trim(), value.trim());
                }
            }
            body
        }
        None => text,
    };
    email.text = Some(body.to_string());
    email
}

/// The header lines and the body, when the text starts with at least one
/// `Name: value` line and every line up to the first blank line is one.
fn header_block(text: &str) -> Option<(&str, &str)> {
    let (block, body) = text
        .split_once("\r\n\r\n")
        .filter(|(b, _)| !b.contains("\n\n"))
        .or_else(|| text.split_once("\n\n"))?;
    let is_header = |line: &str| {
        line.split_once(':').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
    };
    block
        .lines()
        .all(|l| is_header(l.trim_end_matches('\r')))
        .then_some((block, body))
}

fn set_header(email: &mut Email, name: &str, value: &str) {
    let h = &mut email.headers;
    let value = Some(collapse(value)).filter(|v| !v.is_empty());
    match name.to_ascii_lowercase().as_str() {
        "from" => h.from = value,
        "reply-to" => h.reply_to = value,
        "to" => h.to = value,
        "date" => h.date = value,
        "subject" => h.subject = value,
        "authentication-results" => h.authentication_results = value,
        "return-path" => {
            h.return_path = value.map(|v| v.trim_matches(['<', '>']).to_string());
        }
        "message-id" => h.message_id = value.map(|v| v.trim_matches(['<', '>']).to_string()),
        "attachments" => email.attachments = value.as_deref().map(attachments).unwrap_or_default(),
        _ => {}
    }
}

/// `name (type, size), …` as rendering writes it, back into attachments;
/// sizes are chosen to render the same (`2 KB` → 2048 bytes).
fn attachments(value: &str) -> Vec<Attachment> {
    let mut out = Vec::new();
    let mut rest = value;
    while !rest.is_empty() {
        let (item, tail) = match rest.find("), ") {
            Some(i) => (&rest[..=i], &rest[i + 3..]),
            None => (rest, ""),
        };
        rest = tail;
        let parsed = item
            .strip_suffix(')')
            .and_then(|i| i.rsplit_once(" ("))
            .and_then(|(name, meta)| {
                let (mime, size) = meta.rsplit_once(", ")?;
                Some(Attachment {
                    name: name.to_string(),
                    mime_type: mime.to_string(),
                    size: parse_size(size)?,
                })
            });
        out.push(parsed.unwrap_or_else(|| Attachment {
            name: item.to_string(),
            mime_type: "application/octet-stream".to_string(),
            size: 0,
        }));
    }
    out
}

/// `812 B`, `2 KB`, `3.4 MB` in bytes.
fn parse_size(size: &str) -> Option<u64> {
    let (number, unit) = size.split_once(' ')?;
    let scale: f64 = match unit {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        _ => return None,
    };
    let n: f64 = number
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n >= 0.0)?;
    // Bounded by the check above and the f64 → u64 saturating cast.
    Some((n * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::super::render;
    use super::*;

    fn round_trip(text: &str) -> String {
        let limits = EmailLimits::default();
        render(&parse_upstream_text(text, &limits), &limits).text
    }

    #[test]
    fn rendered_shaped_text_round_trips() {
        for text in [
            "From: a@b.example\nSubject: Hi\n\nBody line one.\nhttps://x.example/y",
            "From: Bank <a@b.example>\nReply-To: c@d.example\nTo: e@f.example\nDate: Tue, 04 Mar 2025 09:12:44 +0000\nSubject: S\nAttachments: a.pdf.html (text/html, 2 KB), b.zip (application/zip, 812 B), c.iso (application/octet-stream, 3.4 MB)\n\nBody.",
        ] {
            assert_eq!(round_trip(text), text);
        }
    }

    #[test]
    fn text_without_a_header_block_is_body() {
        let limits = EmailLimits::default();
        let e = parse_upstream_text("Just a note: hello\nsecond line", &limits);
        assert_eq!(e.headers.from, None);
        assert_eq!(e.text.as_deref(), Some("Just a note: hello\nsecond line"));
        let e = parse_upstream_text("From: a@b.example\nnot a header\n\nbody", &limits);
        assert_eq!(e.headers.from, None);
        let e = parse_upstream_text(
            "Return-Path: <x@y.example>\nFrom: a@b.example\n\nbody",
            &limits,
        );
        assert_eq!(e.headers.return_path.as_deref(), Some("x@y.example"));
        assert_eq!(e.text.as_deref(), Some("body"));
    }
}
