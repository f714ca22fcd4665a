//! YAML 1.1 scalar resolution as go-yaml v2 (`resolve.go`) does it.

/// The value a scalar resolves to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    /// `~`, `null`, `Null`, `NULL` or the empty plain scalar.
    Null,
    /// `true/false/yes/no/on/off/y/n` in lower, Capitalised or UPPER case.
    Bool(bool),
    /// An integer that fits `i64` (decimal, `0x` hex, `0o`/leading-zero octal, `0b` binary).
    Int(i64),
    /// A positive integer above `i64::MAX` that fits `u64`.
    Uint(u64),
    /// A float (including `.inf`, `-.inf`, `.nan`).
    Float(f64),
    /// A string: the scalar's text ([`crate::Scalar::text`]).
    String,
}

const BOOLS: &[(&str, bool)] = &[
    ("y", true),
    ("Y", true),
    ("yes", true),
    ("Yes", true),
    ("YES", true),
    ("true", true),
    ("True", true),
    ("TRUE", true),
    ("on", true),
    ("On", true),
    ("ON", true),
    ("n", false),
    ("N", false),
    ("no", false),
    ("No", false),
    ("NO", false),
    ("false", false),
    ("False", false),
    ("FALSE", false),
    ("off", false),
    ("Off", false),
    ("OFF", false),
];

/// Resolves an untagged plain scalar (or one tagged `!!bool`, `!!int`,
/// `!!float`, `!!timestamp`) the way go-yaml v2 does. Timestamps stay strings, as
/// go-yaml v2 leaves them when decoding into generic values.
#[must_use]
pub fn resolve_plain(text: &str) -> ScalarValue {
    let Some(first) = text.bytes().next() else {
        return ScalarValue::Null;
    };
    let hint = match first {
        b'+' | b'-' | b'0'..=b'9' => b'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => b'M',
        b'.' => b'.',
        _ => return ScalarValue::String,
    };
    if let Some((_, b)) = BOOLS.iter().find(|(s, _)| *s == text) {
        return ScalarValue::Bool(*b);
    }
    match text {
        "~" | "null" | "Null" | "NULL" => return ScalarValue::Null,
        ".nan" | ".NaN" | ".NAN" => return ScalarValue::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return ScalarValue::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return ScalarValue::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match hint {
        b'.' => match go_decimal_float(text) {
            Some(f) => ScalarValue::Float(f),
            None => ScalarValue::String,
        },
        b'D' => resolve_number(text),
        _ => ScalarValue::String,
    }
}

fn resolve_number(text: &str) -> ScalarValue {
    // Timestamps (`2001-12-14`, ...) fail every parse below and stay strings,
    // which is what go-yaml v2 gives when decoding into generic values.
    let plain: String = text.chars().filter(|c| *c != '_').collect();
    match go_parse_int(&plain) {
        Some(IntParse::Ok(v)) => return ScalarValue::Int(v),
        Some(IntParse::Range) => {}
        None => {}
    }
    if let Some(v) = go_parse_uint(&plain) {
        return ScalarValue::Uint(v);
    }
    if yaml_style_float(&plain) {
        if let Some(f) = go_decimal_float(&plain) {
            return ScalarValue::Float(f);
        }
    }
    // go-yaml v2's explicit `0b`/`-0b` branches are covered by Go's base-0
    // ParseInt above.
    ScalarValue::String
}

enum IntParse {
    Ok(i64),
    Range,
}

/// Go's `strconv.ParseInt(s, 0, 64)` (the input has no underscores).
fn go_parse_int(s: &str) -> Option<IntParse> {
    let (neg, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let mag = go_parse_uint_magnitude(body)?;
    if neg {
        if mag <= 1u64 << 63 {
            Some(IntParse::Ok((mag as i128).wrapping_neg() as i64))
        } else {
            Some(IntParse::Range)
        }
    } else if mag <= i64::MAX as u64 {
        Some(IntParse::Ok(mag as i64))
    } else {
        Some(IntParse::Range)
    }
}

/// Go's `strconv.ParseUint(s, 0, 64)`: no sign allowed.
fn go_parse_uint(s: &str) -> Option<u64> {
    if s.starts_with(['+', '-']) {
        return None;
    }
    go_parse_uint_magnitude(s)
}

/// Digits with Go's base-0 prefixes; `None` on syntax or range error.
fn go_parse_uint_magnitude(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let b = s.as_bytes();
    let (radix, digits) = if b[0] == b'0' {
        match b.get(1).map(u8::to_ascii_lowercase) {
            Some(b'b') if b.len() >= 3 => (2, &s[2..]),
            Some(b'o') if b.len() >= 3 => (8, &s[2..]),
            Some(b'x') if b.len() >= 3 => (16, &s[2..]),
            _ => (8, &s[1..]),
        }
    } else {
        (10, s)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        n = n.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A decimal float as Go's `ParseFloat` reads it, `None` when the syntax is not
/// a plain decimal float or the value overflows (Go reports a range error).
fn go_decimal_float(s: &str) -> Option<f64> {
    if !yaml_style_float(s) {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}
