//! Tokens shared by both JSON dialects: whitespace, strings and numbers.
//!
//! Strings and number grammar are identical in RFC 8259 and in CPython's
//! `json` scanner; the dialects differ only in literals, integer handling and
//! duplicate keys, which live in the readers.

use std::borrow::Cow;

use super::{JsonError, JsonErrorKind};

/// The replacement for a lone surrogate escape, which a Rust `String` cannot
/// hold (Python keeps the surrogate; comparisons against labels fail either way).
const REPLACEMENT: char = '\u{FFFD}';

/// A cursor over the input text.
#[derive(Debug)]
pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pub(crate) pos: usize,
}

/// A number token: its text and whether it had no fraction and no exponent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberToken<'a> {
    pub(crate) text: &'a str,
    pub(crate) integer: bool,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
        }
    }

    pub(crate) fn error(&self, kind: JsonErrorKind) -> JsonError {
        self.error_at(self.pos, kind)
    }

    pub(crate) fn error_at(&self, offset: usize, kind: JsonErrorKind) -> JsonError {
        JsonError { offset, kind }
    }

    /// The error for an unexpected byte at the cursor (or the end of input).
    pub(crate) fn unexpected(&self) -> JsonError {
        if self.pos >= self.bytes.len() {
            self.error(JsonErrorKind::UnexpectedEnd)
        } else {
            self.error(JsonErrorKind::UnexpectedChar)
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips JSON whitespace: space, tab, LF and CR only (both dialects).
    pub(crate) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Consumes `lit` if the input continues with it.
    pub(crate) fn eat(&mut self, lit: &[u8]) -> bool {
        if self
            .bytes
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(lit))
        {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Skips whitespace and requires the end of input.
    pub(crate) fn finish(&mut self) -> Result<(), JsonError> {
        self.skip_ws();
        if self.pos == self.bytes.len() {
            Ok(())
        } else {
            Err(self.error(JsonErrorKind::TrailingData))
        }
    }

    /// Reads a string; the cursor is on the opening quote.
    pub(crate) fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        let start = self.pos + 1;
        let mut i = start;
        // Fast path: no escapes, borrow the slice.
        loop {
            match self.bytes.get(i) {
                None => return Err(self.error_at(i, JsonErrorKind::UnexpectedEnd)),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(&self.src[start..i]));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => {
                    return Err(self.error_at(i, JsonErrorKind::ControlCharInString))
                }
                Some(_) => i += 1,
            }
        }
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(&self.src[start..i]);
        loop {
            // `i` is on a backslash here.
            let Some(&esc) = self.bytes.get(i + 1) else {
                return Err(self.error_at(i + 1, JsonErrorKind::UnexpectedEnd));
            };
            let simple = match esc {
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                b'/' => Some('/'),
                b'b' => Some('\u{8}'),
                b'f' => Some('\u{c}'),
                b'n' => Some('\n'),
                b'r' => Some('\r'),
                b't' => Some('\t'),
                b'u' => None,
                _ => return Err(self.error_at(i, JsonErrorKind::InvalidEscape)),
            };
            if let Some(c) = simple {
                out.push(c);
                i += 2;
            } else {
                let Some(unit) = hex4(self.bytes, i + 2) else {
                    return Err(self.error_at(i, JsonErrorKind::InvalidEscape));
                };
                i += 6;
                let c = match unit {
                    0xD800..=0xDBFF => {
                        let low = match (self.bytes.get(i), self.bytes.get(i + 1)) {
                            (Some(b'\\'), Some(b'u')) => hex4(self.bytes, i + 2),
                            _ => None,
                        };
                        match low {
                            Some(low @ 0xDC00..=0xDFFF) => {
                                i += 6;
                                let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                char::from_u32(cp).unwrap_or(REPLACEMENT)
                            }
                            _ => REPLACEMENT,
                        }
                    }
                    _ => char::from_u32(unit).unwrap_or(REPLACEMENT),
                };
                out.push(c);
            }
            // Copy the plain run up to the next quote or backslash.
            let run = i;
            loop {
                match self.bytes.get(i) {
                    None => return Err(self.error_at(i, JsonErrorKind::UnexpectedEnd)),
                    Some(b'"') => {
                        out.push_str(&self.src[run..i]);
                        self.pos = i + 1;
                        return Ok(Cow::Owned(out));
                    }
                    Some(b'\\') => break,
                    Some(&b) if b < 0x20 => {
                        return Err(self.error_at(i, JsonErrorKind::ControlCharInString))
                    }
                    Some(_) => i += 1,
                }
            }
            out.push_str(&self.src[run..i]);
        }
    }

    /// Reads a number `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`; the
    /// cursor is on `-` or a digit. A fraction or exponent that is not
    /// followed by digits is left unread, so the caller reports the stray
    /// character, as both RFC 8259 and CPython do.
    pub(crate) fn number(&mut self) -> Result<NumberToken<'a>, JsonError> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                i += 1;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return Err(self.error_at(i, JsonErrorKind::InvalidNumber)),
        }
        let mut integer = true;
        if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            integer = false;
            i += 2;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            let mut j = i + 1;
            if let Some(b'+' | b'-') = b.get(j) {
                j += 1;
            }
            if b.get(j).is_some_and(u8::is_ascii_digit) {
                integer = false;
                i = j + 1;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
        }
        self.pos = i;
        Ok(NumberToken {
            text: &self.src[start..i],
            integer,
        })
    }
}

/// Four hex digits at `at`, as a code unit.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |acc, &d| {
        let v = (d as char).to_digit(16)?;
        Some(acc * 16 + v)
    })
}

/// Parses a number token's text as f64 (correctly rounded; out-of-range
/// magnitudes become ±inf, as in CPython's `float()`).
pub(crate) fn token_f64(text: &str) -> f64 {
    // The token grammar is a subset of Rust's float syntax, so this cannot
    // fail; NaN marks the impossible case without panicking.
    text.parse::<f64>().unwrap_or(f64::NAN)
}
