//! JSON readers for answer extraction (E1 §2).
//!
//! Two dialects, each with its own value type, because neither can be
//! expressed with `serde_json`:
//!
//! - [`strict`]: RFC 8259 as the `v1` parser needs it (E1 §2.3 step 4). It
//!   records duplicate keys at every depth, keeps whether a number was written
//!   as an integer, and represents overflowing numbers (`1e400`) as infinite
//!   instead of failing.
//! - [`python`]: an emulation of Python's `json.loads` for the `upstream` mode
//!   (E1 §2.2.1): `NaN`/`Infinity` literals, arbitrary-size integers, last
//!   duplicate key wins. The module also provides Python's `float()` and
//!   `str()` where upstream relies on them.
//!
//! Both readers borrow strings from the input when they contain no escapes,
//! never panic, and reject nesting deeper than [`MAX_DEPTH`].

mod lexer;
mod pyfloat;
mod pystr;
pub mod python;
pub mod strict;
mod unicode;

use std::fmt;

/// Deepest array/object nesting either reader accepts; deeper input is a
/// [`JsonErrorKind::TooDeep`] error rather than a stack overflow. (CPython's
/// `json.loads` raises `RecursionError` a little below 1,000 levels.)
pub const MAX_DEPTH: usize = 500;

/// Why a text is not JSON in the requested dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at byte {offset}")]
pub struct JsonError {
    /// Byte offset in the input where the problem was found.
    pub offset: usize,
    /// What went wrong.
    pub kind: JsonErrorKind,
}

/// The kinds of [`JsonError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// The input ended inside a value.
    UnexpectedEnd,
    /// A character that cannot start or continue the expected token.
    UnexpectedChar,
    /// A raw control character (U+0000–U+001F) inside a string.
    ControlCharInString,
    /// An unknown escape, or `\u` not followed by four hex digits.
    InvalidEscape,
    /// A malformed number.
    InvalidNumber,
    /// Non-whitespace after the top-level value.
    TrailingData,
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// An integer with more than 4,300 digits, which CPython's `int()` refuses
    /// (`sys.set_int_max_str_digits` default); Python dialect only.
    IntegerTooLong,
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonErrorKind::UnexpectedEnd => "unexpected end of input",
            JsonErrorKind::UnexpectedChar => "unexpected character",
            JsonErrorKind::ControlCharInString => "control character in string",
            JsonErrorKind::InvalidEscape => "invalid escape",
            JsonErrorKind::InvalidNumber => "invalid number",
            JsonErrorKind::TrailingData => "trailing data",
            JsonErrorKind::TooDeep => "nesting too deep",
            JsonErrorKind::IntegerTooLong => "integer has more than 4300 digits",
        })
    }
}
