//! Reading what mail clients read from malformed MIME: a `Content-Type`
//! missing the `;` before its parameters, a base64 body followed by plain
//! text (a footer added by a list or gateway), and encoded words that
//! `mail-parser` joins with a space inside a quoted display name.
//!
//! `mail-parser` cannot be configured for these, so the parts concerned are
//! decoded again here from the raw bytes it points at, and headers are
//! repaired before it parses them again.

use std::borrow::Cow;

use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::decoders::quoted_printable::quoted_printable_decode;
use mail_parser::{ContentType, MessagePart, MimeHeaders};
use svbench_core::text::cut_at_char;

/// Bytes of an unstructured header value decoded.
const HEADER_DECODE_MAX_BYTES: usize = 16 << 10;

/// A part's `type/subtype` (lower case) and charset, read leniently:
/// `text/html charset=windows-1252` is `text/html` with that charset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PartType {
    pub mime: String,
    pub charset: Option<String>,
}

/// The type of a part, repairing a subtype that swallowed its parameters.
pub(super) fn part_type(ct: Option<&ContentType<'_>>) -> PartType {
    let Some(ct) = ct else {
        return PartType {
            mime: "text/plain".to_string(),
            charset: None,
        };
    };
    let ctype = ct.ctype().trim().to_ascii_lowercase();
    let subtype = ct.subtype().unwrap_or("").trim();
    let (sub, params) = match subtype.find(|c: char| c.is_whitespace() || c == ';') {
        Some(i) => (&subtype[..i], Some(&subtype[i..])),
        None => (subtype, None),
    };
    let charset = ct
        .attribute("charset")
        .map(str::to_string)
        .or_else(|| params.and_then(charset_param));
    let mime = if sub.is_empty() {
        ctype
    } else {
        format!("{ctype}/{}", sub.to_ascii_lowercase())
    };
    PartType { mime, charset }
}

/// The `charset=` parameter of text that should have been parameters
/// (`charset="windows-1252`, quotes possibly unbalanced).
fn charset_param(params: &str) -> Option<String> {
    params
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter_map(|p| p.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches(['"', '\'']).to_string())
        .filter(|v| !v.is_empty())
}

/// The subtype held parameters (a `Content-Type` missing its `;`).
pub(super) fn type_was_repaired(ct: Option<&ContentType<'_>>) -> bool {
    ct.and_then(|c| c.subtype())
        .is_some_and(|s| s.contains(|c: char| c.is_whitespace() || c == '=' || c == ';'))
}

/// `raw` with a `;` put back before the parameters of every `Content-Type`
/// header that lacks it (`multipart/alternative boundary="b"`), in the
/// message's header block and in each part's (lines after a `--` line, up to
/// a blank line); `None` when none lacks it. Without the repair a multipart
/// has no boundary and its parts are lost.
pub(super) fn repair_content_types(raw: &[u8]) -> Option<Vec<u8>> {
    const NAME: &[u8] = b"content-type:";
    let mut inserts: Vec<usize> = Vec::new();
    let mut in_headers = true;
    let mut at = 0usize;
    while at < raw.len() {
        let end = memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |i| at + i + 1);
        let line = raw[at..end].trim_ascii_end();
        if !in_headers {
            in_headers = line.starts_with(b"--");
        } else if line.is_empty() {
            in_headers = false;
        } else if line.len() > NAME.len() && line[..NAME.len()].eq_ignore_ascii_case(NAME) {
            let value_at = at + NAME.len();
            let value = &line[NAME.len()..];
            let lead = value.len() - value.trim_ascii_start().len();
            let token = value[lead..]
                .iter()
                .position(|b| b.is_ascii_whitespace() || *b == b';')
                .unwrap_or(value.len() - lead);
            let rest = value[lead + token..].trim_ascii_start();
            if !rest.is_empty() && rest[0] != b';' && rest.contains(&b'=') {
                inserts.push(value_at + lead + token);
            }
        }
        at = end;
    }
    if inserts.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len() + inserts.len());
    let mut from = 0usize;
    for i in inserts {
        out.extend_from_slice(&raw[from..i]);
        out.push(b';');
        from = i;
    }
    out.extend_from_slice(&raw[from..]);
    Some(out)
}

/// A part's text decoded from the raw message: its transfer encoding undone
/// leniently (base64 up to where it stops being base64, the rest kept as
/// text), then its charset (UTF-8, lossily, when none is known).
pub(super) fn decode_part(raw: &[u8], part: &MessagePart<'_>, charset: Option<&str>) -> String {
    let start = part.raw_body_offset() as usize;
    let end = (part.raw_end_offset() as usize).min(raw.len());
    let body = raw.get(start..end).unwrap_or_default();
    let encoding = part
        .content_transfer_encoding()
        .map(|e| e.trim().to_ascii_lowercase());
    let bytes: Cow<'_, [u8]> = match encoding.as_deref() {
        Some("base64") => Cow::Owned(base64_then_text(body)),
        Some("quoted-printable") => {
            quoted_printable_decode(body).map_or(Cow::Borrowed(body), Cow::Owned)
        }
        _ => Cow::Borrowed(body),
    };
    match charset.and_then(|c| charset_decoder(c.as_bytes())) {
        Some(decode) => decode(&bytes),
        None => String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// Base64 lines decoded until a line that is not base64 (or a blank line,
/// or the line after padding); every byte from there on is kept as it is.
fn base64_then_text(body: &[u8]) -> Vec<u8> {
    let mut data: Vec<u8> = Vec::with_capacity(body.len());
    let mut rest_at = body.len();
    let mut at = 0usize;
    let mut line_len: Option<usize> = None;
    while at < body.len() {
        let end = memchr::memchr(b'\n', &body[at..]).map_or(body.len(), |i| at + i + 1);
        let line = body[at..end].trim_ascii();
        let is_base64 = !line.is_empty()
            && line
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
        if line.is_empty() && line_len.is_none() {
            at = end;
            continue;
        }
        if !is_base64 {
            rest_at = at;
            break;
        }
        data.extend_from_slice(line);
        // Padding, or a line shorter than the first, ends the data.
        let first = *line_len.get_or_insert(line.len());
        at = end;
        if line.contains(&b'=') || line.len() < first {
            rest_at = at;
            break;
        }
    }
    let mut out = decode_base64(&data);
    if let Some(rest) = body.get(rest_at..) {
        let rest = rest.trim_ascii_start();
        if !rest.is_empty() {
            if !out.is_empty() && !out.ends_with(b"\n") {
                out.push(b'\n');
            }
            out.extend_from_slice(rest);
        }
    }
    out
}

/// Standard base64 (padding optional, stopping at the first `=`).
fn decode_base64(data: &[u8]) -> Vec<u8> {
    let value = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(data.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for &b in data {
        let Some(v) = value(b) else {
            break;
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// Whether decoded text is mostly not text: replacement characters and
/// control characters make up more than a tenth of it.
pub(super) fn undecodable(text: &str) -> bool {
    // Most text has neither replacement characters nor C0 controls: a
    // substring search and a byte scan settle it.
    let control = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C)) || b == 0x7F;
    if !text.contains('\u{FFFD}') && !text.bytes().any(control) {
        return false;
    }
    let mut total = 0usize;
    let mut bad = 0usize;
    for c in text.chars() {
        total += 1;
        if c == '\u{FFFD}' || (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0C')) {
            bad += 1;
        }
    }
    bad > 0 && bad * 10 > total
}

/// An unstructured header value (a subject) with its RFC 2047 encoded words
/// decoded: whitespace between two adjacent encoded words is dropped, any
/// other text is kept as written (also an encoded word right after a quote,
/// where `mail-parser` adds spaces).
pub(super) fn decode_encoded_words(value: &str) -> String {
    // Rendering shows 300 characters of a header: the rest is not decoded
    // (a megabyte of `=?` must not cost a megabyte of word attempts each).
    let value = cut_at_char(value, HEADER_DECODE_MAX_BYTES);
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut after_word = false;
    let mut from = 0usize;
    while let Some(i) = rest[from..].find("=?").map(|i| from + i) {
        let Some((len, decoded)) = encoded_word(&rest[i..]) else {
            from = i + 2;
            continue;
        };
        let between = &rest[..i];
        if !(after_word && between.chars().all(char::is_whitespace)) {
            out.push_str(between);
        }
        out.push_str(&decoded);
        after_word = true;
        rest = &rest[i + len..];
        from = 0;
    }
    out.push_str(rest);
    out
}

/// The encoded word `=?charset?B|Q?text?=` opening `s`: its length in bytes
/// and its decoded text.
fn encoded_word(s: &str) -> Option<(usize, String)> {
    // Words are short (75 bytes by the RFC; some senders write more):
    // looking no further keeps a header full of `=?` linear.
    const WORD_MAX: usize = 256;
    let body = s.strip_prefix("=?")?;
    let window = &body.as_bytes()[..body.len().min(WORD_MAX)];
    let q1 = memchr::memchr(b'?', window)?;
    let charset = &body[..q1];
    let encoding = body.get(q1 + 1..q1 + 2)?;
    if body.as_bytes().get(q1 + 2) != Some(&b'?') {
        return None;
    }
    let body = &body[q1 + 3..];
    let end = memchr::memmem::find(&window[(q1 + 3).min(window.len())..], b"?=")?;
    let text = body.get(..end)?;
    if charset.is_empty()
        || text.contains(char::is_whitespace)
        || charset.contains(char::is_whitespace)
    {
        return None;
    }
    let bytes = if encoding.eq_ignore_ascii_case("b") {
        decode_base64(text.as_bytes())
    } else if encoding.eq_ignore_ascii_case("q") {
        decode_q(text.as_bytes())
    } else {
        return None;
    };
    // `utf-8*en`: a language tag (RFC 2231) follows the charset.
    let charset = charset.split('*').next().unwrap_or(charset);
    let decoded = match charset_decoder(charset.as_bytes()) {
        Some(decode) => decode(&bytes),
        None => String::from_utf8_lossy(&bytes).into_owned(),
    };
    // What precedes the text, the text, and `?=`.
    let len = s.len() - body.len() + end + 2;
    Some((len, decoded))
}

/// RFC 2047 "Q": `_` is a space, `=XX` a byte.
fn decode_q(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'_' => out.push(b' '),
            b'=' => {
                let hex = text
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    out.push(byte);
                    i += 3;
                    continue;
                }
                out.push(b'=');
            }
            b => out.push(b),
        }
        i += 1;
    }
    out
}

/// Whitespace between two adjacent encoded words removed (RFC 2047 §6.2:
/// it is not displayed), also inside quoted strings, where `mail-parser`
/// keeps it (`"=?utf-8?B?TWljcm8=?= =?utf-8?B?c29mdA==?="` → `Microsoft`).
pub(super) fn join_encoded_words(value: &str) -> Cow<'_, str> {
    if !value.contains("?=") {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut changed = false;
    while let Some(i) = rest.find("?=") {
        let (head, tail) = rest.split_at(i + 2);
        out.push_str(head);
        let after = tail.trim_start_matches([' ', '\t', '\r', '\n']);
        if after.len() < tail.len() && after.starts_with("=?") {
            changed = true;
            rest = after;
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_then_a_footer() {
        let body = b"SGVsbG8gd29ybGQsIHRoaXMgaXMgdGhl\r\nIGJvZHku\r\n\r\n-- \r\nList footer: visit example.com\r\n";
        let out = String::from_utf8(base64_then_text(body)).unwrap();
        assert_eq!(
            out,
            "Hello world, this is the body.\n-- \r\nList footer: visit example.com\r\n"
        );
        // All base64: nothing left over.
        assert_eq!(base64_then_text(b"aGk=\r\n"), b"hi");
        // Not base64 at all: kept as written.
        assert_eq!(
            base64_then_text(b"plain words here\n"),
            b"plain words here\n"
        );
    }

    #[test]
    fn content_types_get_their_semicolon_back() {
        let raw = b"Subject: x\r\nContent-Type: multipart/alternative boundary=\"b\"\r\n\r\n\
                    -- a signature\r\nContent-Type: text/html charset=utf-8\r\n\r\n\
                    Content-Type: text/plain charset=utf-8\r\n";
        let fixed = String::from_utf8(repair_content_types(raw).unwrap()).unwrap();
        assert_eq!(
            fixed,
            "Subject: x\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
             -- a signature\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
             Content-Type: text/plain charset=utf-8\r\n",
            "a body line is left alone"
        );
        assert_eq!(
            repair_content_types(b"Content-Type: text/html; charset=x\r\n\r\nx"),
            None
        );
        assert_eq!(
            repair_content_types(b"Content-Type: text/html\r\n\r\nx"),
            None
        );
    }

    #[test]
    fn adjacent_encoded_words_are_joined() {
        assert_eq!(
            join_encoded_words("\"=?utf-8?B?TWljcm8=?= =?utf-8?B?c29mdA==?=\" <a@b.test>"),
            "\"=?utf-8?B?TWljcm8=?==?utf-8?B?c29mdA==?=\" <a@b.test>"
        );
        assert_eq!(join_encoded_words("=?x?Q?a?= b"), "=?x?Q?a?= b");
        assert!(matches!(join_encoded_words("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn encoded_words_in_unstructured_text() {
        for (input, expected) in [
            (
                "=?utf-8?B?TWljcm8=?= =?utf-8?B?c29mdA==?= notice",
                "Microsoft notice",
            ),
            (
                "\"=?utf-8?B?TWljcm8=?=\r\n =?utf-8?B?c29mdA==?=\" notice",
                "\"Microsoft\" notice",
            ),
            (
                "=?iso-8859-1?q?Andr=E9_x?= and =?utf-8*en?Q?y?=",
                "Andr\u{e9} x and y",
            ),
            ("not =? a word ?= here", "not =? a word ?= here"),
            ("=?utf-8?X?abc?= =?bad", "=?utf-8?X?abc?= =?bad"),
        ] {
            assert_eq!(decode_encoded_words(input), expected, "{input:?}");
        }
        // A header of nothing but openings stays cheap, and is cut.
        let hostile = "=?a?b?c".repeat(1 << 20);
        let started = std::time::Instant::now();
        assert_eq!(
            decode_encoded_words(&hostile).len(),
            HEADER_DECODE_MAX_BYTES
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn undecodable_text() {
        assert!(undecodable("\u{FFFD}\u{FFFD}\u{1}ab"));
        assert!(!undecodable(
            "caf\u{e9} ok, one \u{FFFD} in a long line of text"
        ));
        assert!(!undecodable(""));
    }
}
