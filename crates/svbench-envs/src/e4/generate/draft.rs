//! An email under construction with its marked pieces, and how it becomes a
//! rendered question with gold spans.
//!
//! Templates never compute offsets: they mark the text they insert (a header
//! part, a body clause, a link) and [`Draft::finish`] renders the email with
//! `svbench_mail::render` and finds each marked text in the rendering.
//! Header marks are searched in their own header line, body marks in
//! document order, so offsets always come from the real rendering.

use std::collections::BTreeMap;

use svbench_mail::{render, Attachment, Email, EmailLimits, Headers};

use crate::e4::Polarity;

/// What an inserted text stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Spec §3.2 category.
    pub category: &'static str,
    /// `phish` or `benign`.
    pub polarity: Polarity,
}

/// A phish indicator mark.
pub const fn phish(category: &'static str) -> Mark {
    Mark {
        category,
        polarity: Polarity::Phish,
    }
}

/// A benign anchor mark.
pub const fn benign(category: &'static str) -> Mark {
    Mark {
        category,
        polarity: Polarity::Benign,
    }
}

/// A header line a mark lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderLine {
    /// `From:`
    From,
    /// `Reply-To:`
    ReplyTo,
    /// `Authentication-Results:`
    Auth,
    /// `Attachments:`
    Attachments,
}

impl HeaderLine {
    fn prefix(self) -> &'static str {
        match self {
            HeaderLine::From => "From: ",
            HeaderLine::ReplyTo => "Reply-To: ",
            HeaderLine::Auth => "Authentication-Results: ",
            HeaderLine::Attachments => "Attachments: ",
        }
    }
}

/// A link: visible text and target, with marks on the whole rendered link
/// (`text [link: href]`), on the URL, and on a domain inside the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPiece {
    /// Anchor text (HTML bodies); plain bodies show only the URL.
    pub visible: String,
    /// Target URL.
    pub href: String,
    /// Marks on `visible [link: href]` (HTML only).
    pub whole: Vec<Mark>,
    /// Marks on the URL.
    pub url: Vec<Mark>,
    /// A domain inside the URL and its marks.
    pub host: Option<(String, Vec<Mark>)>,
}

/// One piece of a body paragraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Unmarked text.
    Text(String),
    /// Text carrying marks.
    Marked(String, Vec<Mark>),
    /// A link.
    Link(LinkPiece),
}

/// An email being written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Draft {
    /// `From` value.
    pub from: String,
    /// `Reply-To` value.
    pub reply_to: Option<String>,
    /// `To` value.
    pub to: String,
    /// `Date` value.
    pub date: String,
    /// `Subject` value.
    pub subject: String,
    /// `Authentication-Results` value.
    pub auth: Option<String>,
    /// Attachments.
    pub attachments: Vec<Attachment>,
    /// Body paragraphs.
    pub paragraphs: Vec<Vec<Piece>>,
    /// HTML body (links as anchors) rather than plain text.
    pub html: bool,
    /// Marks on header text.
    pub header_marks: Vec<(HeaderLine, String, Mark)>,
}

/// A gold span, offsets in code points into the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// First code point.
    pub start: usize,
    /// One past the last.
    pub end: usize,
    /// The covered text.
    pub text: String,
    /// The category a reader cites it for.
    pub category: &'static str,
    /// Every category on this text (more than one when merged).
    pub categories: Vec<&'static str>,
    /// What it supports.
    pub polarity: Polarity,
}

/// A finished email: the structure, its rendering and its spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The structured email.
    pub email: Email,
    /// `render(email)`.
    pub question: String,
    /// Gold spans in order of position.
    pub spans: Vec<Span>,
}

/// When two categories mark the same text, the first of this list names the
/// span (spec §5.4: a lookalike on a suspicious TLD is a lookalike span).
const PRIORITY: &[&str] = &[
    "lookalike_domain",
    "punycode_domain",
    "link_text_mismatch",
    "ip_url",
    "url_shortener",
    "freemail_corporate",
    "reply_to_mismatch",
    "display_name_mismatch",
    "risky_attachment",
    "credential_request",
    "pii_request",
    "payment_request",
    "urgency_threat",
    "suspicious_tld",
    "generic_greeting",
    "sender_brand_match",
    "internal_sender",
    "aligned_links",
    "auth_aligned_pass",
];

fn rank(category: &str) -> usize {
    PRIORITY
        .iter()
        .position(|c| *c == category)
        .unwrap_or(PRIORITY.len())
}

impl Draft {
    /// Adds a paragraph.
    pub fn para(&mut self, pieces: Vec<Piece>) {
        self.paragraphs.push(pieces);
    }

    /// Marks `text` in a header line.
    pub fn mark_header(&mut self, line: HeaderLine, text: &str, mark: Mark) {
        self.header_marks.push((line, text.to_string(), mark));
    }

    /// The structured email this draft stands for.
    pub fn email(&self) -> Email {
        let body = if self.html {
            self.html_body()
        } else {
            self.plain_body()
        };
        Email {
            headers: Headers {
                from: Some(self.from.clone()),
                reply_to: self.reply_to.clone(),
                to: Some(self.to.clone()),
                date: Some(self.date.clone()),
                subject: Some(self.subject.clone()),
                authentication_results: self.auth.clone(),
                ..Headers::default()
            },
            text: (!self.html).then(|| body.clone()),
            html: self.html.then_some(body),
            attachments: self.attachments.clone(),
        }
    }

    fn plain_body(&self) -> String {
        let paras: Vec<String> = self
            .paragraphs
            .iter()
            .map(|p| {
                p.iter()
                    .map(|piece| match piece {
                        Piece::Text(t) | Piece::Marked(t, _) => t.as_str(),
                        Piece::Link(l) => l.href.as_str(),
                    })
                    .collect()
            })
            .collect();
        paras.join("\n\n") + "\n"
    }

    fn html_body(&self) -> String {
        let mut out = String::from("<html><body>");
        for p in &self.paragraphs {
            out.push_str("<p>");
            for piece in p {
                match piece {
                    // Line breaks inside a paragraph (signatures, quoted
                    // history) stay line breaks.
                    Piece::Text(t) | Piece::Marked(t, _) => {
                        out.push_str(&escape(t).replace('\n', "<br>\n"));
                    }
                    Piece::Link(l) => {
                        out.push_str(&format!(
                            "<a href=\"{}\">{}</a>",
                            escape(&l.href),
                            escape(&l.visible)
                        ));
                    }
                }
            }
            out.push_str("</p>");
        }
        out.push_str("</body></html>");
        out
    }

    /// Body marks in document order: (text, mark).
    fn body_marks(&self) -> Vec<(String, Mark)> {
        let mut out = Vec::new();
        for piece in self.paragraphs.iter().flatten() {
            match piece {
                Piece::Text(_) => {}
                Piece::Marked(t, marks) => out.extend(marks.iter().map(|m| (t.clone(), *m))),
                Piece::Link(l) => {
                    if self.html {
                        let whole = format!("{} [link: {}]", l.visible, l.href);
                        out.extend(l.whole.iter().map(|m| (whole.clone(), *m)));
                    }
                    out.extend(l.url.iter().map(|m| (l.href.clone(), *m)));
                    if let Some((host, marks)) = &l.host {
                        out.extend(marks.iter().map(|m| (host.clone(), *m)));
                    }
                }
            }
        }
        out
    }

    /// Renders the draft and locates every mark.
    ///
    /// # Panics
    /// When a marked text is not found word-bounded where it was put: a
    /// template bug, caught by the generator's tests.
    pub fn finish(&self) -> Built {
        let email = self.email();
        let question = render(&email, &EmailLimits::default()).text;
        let chars: Vec<char> = question.chars().collect();
        let body_start = find(&chars, &['\n', '\n'], 0).map_or(chars.len(), |i| i + 2);
        let mut found: BTreeMap<(usize, usize), Vec<Mark>> = BTreeMap::new();
        for (line, text, mark) in &self.header_marks {
            let (lo, hi) = header_line(&chars, line.prefix(), body_start)
                .unwrap_or_else(|| panic!("no {:?} line for `{text}`", line));
            let needle: Vec<char> = text.chars().collect();
            let at = *occurrences(&chars[..hi], &needle, lo)
                .last()
                .unwrap_or_else(|| panic!("`{text}` not in its {line:?} line:\n{question}"));
            found
                .entry((at, at + needle.len()))
                .or_default()
                .push(*mark);
        }
        let mut cursor = body_start;
        for (text, mark) in self.body_marks() {
            let needle: Vec<char> = text.chars().collect();
            let at = occurrences(&chars, &needle, cursor)
                .first()
                .copied()
                .unwrap_or_else(|| panic!("`{text}` not in the body:\n{question}"));
            cursor = at;
            found.entry((at, at + needle.len())).or_default().push(mark);
        }
        let spans = found
            .into_iter()
            .map(|((start, end), mut marks)| {
                marks.sort_by_key(|m| rank(m.category));
                marks.dedup();
                Span {
                    start,
                    end,
                    text: chars[start..end].iter().collect(),
                    category: marks[0].category,
                    categories: marks.iter().map(|m| m.category).collect(),
                    polarity: marks[0].polarity,
                }
            })
            .collect();
        Built {
            email,
            question,
            spans,
        }
    }
}

/// Minimal escaping for text and attribute values.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn find(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    (from..=hay.len().saturating_sub(needle.len())).find(|&i| hay[i..].starts_with(needle))
}

/// The value range of the header line starting with `prefix`.
fn header_line(chars: &[char], prefix: &str, body_start: usize) -> Option<(usize, usize)> {
    let prefix: Vec<char> = prefix.chars().collect();
    let mut line_start = 0;
    while line_start < body_start {
        let end = (line_start..chars.len())
            .find(|&i| chars[i] == '\n')
            .unwrap_or(chars.len());
        if chars[line_start..end].starts_with(&prefix) {
            return Some((line_start + prefix.len(), end));
        }
        line_start = end + 1;
    }
    None
}

/// Word-bounded occurrences of `needle` in `hay` from `from` (spec §4.1
/// step 5).
fn occurrences(hay: &[char], needle: &[char], from: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = from;
    while let Some(i) = find(hay, needle, at) {
        if word_bounded(hay, i, i + needle.len()) {
            out.push(i);
        }
        at = i + 1;
    }
    out
}

/// Spec §4.1 step 5 on code points `[start, end)` of `text`.
pub fn word_bounded(text: &[char], start: usize, end: usize) -> bool {
    if start >= end || end > text.len() {
        return false;
    }
    let start_ok =
        start == 0 || !text[start - 1].is_alphanumeric() || !text[start].is_alphanumeric();
    let end_ok =
        end == text.len() || !text[end].is_alphanumeric() || !text[end - 1].is_alphanumeric();
    start_ok && end_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(html: bool) -> Draft {
        let mut d = Draft {
            from: "Northwind Bank <alerts@northwlnd-bank.top>".into(),
            to: "dana.ortiz@acme-corp.example".into(),
            date: "Tue, 04 Mar 2025 09:12:44 +0000".into(),
            subject: "Unusual sign-in".into(),
            html,
            ..Draft::default()
        };
        d.mark_header(
            HeaderLine::From,
            "northwlnd-bank.top",
            phish("suspicious_tld"),
        );
        d.mark_header(
            HeaderLine::From,
            "northwlnd-bank.top",
            phish("lookalike_domain"),
        );
        d.para(vec![
            Piece::Text("We saw a new sign-in. ".into()),
            Piece::Marked(
                "Confirm your password".into(),
                vec![phish("credential_request")],
            ),
            Piece::Text(" here: ".into()),
            Piece::Link(LinkPiece {
                visible: "northwindbank.example".into(),
                href: "http://203.0.113.7/login".into(),
                whole: vec![phish("link_text_mismatch")],
                url: vec![phish("ip_url")],
                host: None,
            }),
        ]);
        d
    }

    #[test]
    fn marks_become_spans_at_their_rendered_offsets() {
        for html in [false, true] {
            let b = sample(html).finish();
            let chars: Vec<char> = b.question.chars().collect();
            for s in &b.spans {
                assert_eq!(chars[s.start..s.end].iter().collect::<String>(), s.text);
                assert!(word_bounded(&chars, s.start, s.end));
            }
            let domain = &b.spans[0];
            assert_eq!(domain.category, "lookalike_domain");
            assert_eq!(domain.categories, ["lookalike_domain", "suspicious_tld"]);
            let n = if html { 4 } else { 3 };
            assert_eq!(b.spans.len(), n, "{:?}", b.spans);
        }
        let b = sample(true).finish();
        assert!(b
            .spans
            .iter()
            .any(|s| s.text == "northwindbank.example [link: http://203.0.113.7/login]"));
    }

    #[test]
    fn word_bounds_follow_the_spec() {
        let t: Vec<char> = "a paypal-x @x".chars().collect();
        assert!(word_bounded(&t, 2, 8));
        assert!(!word_bounded(&t, 3, 8));
        assert!(word_bounded(&t, 11, 13));
    }
}
