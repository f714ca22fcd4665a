//! Python's `float(x)` for values from `json.loads`, and pydantic's lax
//! `float` from a string (which differs: it reads ASCII digits only).

use super::pystr::py_isspace;
use super::python::PyValue;
use super::unicode::DECIMAL_ZEROS;

/// Why Python's `float(x)` raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PyFloatError {
    /// `TypeError`: `None`, a list or a dict.
    #[error("TypeError: float() argument must be a string or a real number")]
    Type,
    /// `ValueError`: a string that is not a Python float literal.
    #[error("ValueError: could not convert string to float")]
    Value,
    /// `OverflowError`: an integer too large for a float.
    #[error("OverflowError: int too large to convert to float")]
    Overflow,
}

/// Python's `float(x)`: bools give 1.0/0.0, integers convert with correct
/// rounding (overflow is an error), floats pass through (NaN and ±inf
/// included), strings use [`py_float_str`].
pub fn py_float(value: &PyValue<'_>) -> Result<f64, PyFloatError> {
    match value {
        PyValue::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        PyValue::Int(i) => i.to_f64().ok_or(PyFloatError::Overflow),
        PyValue::Float(f) => Ok(*f),
        PyValue::Str(s) => py_float_str(s).ok_or(PyFloatError::Value),
        PyValue::None | PyValue::List(_) | PyValue::Dict(_) => Err(PyFloatError::Type),
    }
}

/// Python's `float(s)` for a `str`, `None` where it raises `ValueError`.
///
/// As CPython 3.11: Unicode whitespace and decimal digits (any script) are
/// first mapped to ASCII; surrounding whitespace is stripped; an optional
/// sign precedes `inf`, `infinity` or `nan` (any case) or a decimal literal
/// (`1`, `1.`, `.5`, `1e-3`); single underscores may separate digits.
/// Magnitudes beyond f64 give ±inf.
pub fn py_float_str(s: &str) -> Option<f64> {
    let mut ascii = Vec::with_capacity(s.len());
    for c in s.chars() {
        let b = if c.is_ascii() {
            c as u8
        } else if py_isspace(c) {
            b' '
        } else {
            let d = unicode_decimal(c)?;
            b'0' + d
        };
        ascii.push(b);
    }
    // CPython strips ASCII whitespace (space, \t, \n, \v, \f, \r) here; the
    // other Python whitespace (\x1c..\x1f) is not stripped and fails below.
    let trimmed = trim_ascii_space(&ascii);
    let cleaned = remove_underscores(trimmed)?;
    let text = std::str::from_utf8(&cleaned).ok()?;
    if !is_python_float_syntax(text.as_bytes()) {
        return None;
    }
    text.parse::<f64>().ok()
}

/// pydantic's lax `float` from a `str` (pydantic-core's `str_as_float`),
/// `None` where validation fails: Rust's float syntax on the text trimmed
/// of Unicode whitespace; failing that, the untrimmed text with its
/// underscores removed, if it has some, none at either end and none
/// doubled. Digits are ASCII only: `"٠.٥"` fails here, where Python's
/// `float()` ([`py_float_str`]) reads 0.5.
pub fn pydantic_float_str(s: &str) -> Option<f64> {
    if let Ok(f) = s.trim().parse::<f64>() {
        return Some(f);
    }
    if s.starts_with('_') || s.ends_with('_') || !s.contains('_') || s.contains("__") {
        return None;
    }
    s.replace('_', "").parse::<f64>().ok()
}

fn unicode_decimal(c: char) -> Option<u8> {
    let cp = c as u32;
    let idx = DECIMAL_ZEROS.partition_point(|&zero| zero <= cp);
    let zero = *DECIMAL_ZEROS.get(idx.checked_sub(1)?)?;
    let d = cp - zero;
    (d < 10).then_some(d as u8)
}

fn trim_ascii_space(mut b: &[u8]) -> &[u8] {
    let space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    while b.first().is_some_and(space) {
        b = &b[1..];
    }
    while b.last().is_some_and(space) {
        b = &b[..b.len() - 1];
    }
    b
}

/// CPython's `_Py_string_to_number_with_underscores`: an underscore must sit
/// between two ASCII digits.
fn remove_underscores(b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len());
    let mut prev = 0u8;
    for &c in b {
        if c == b'_' {
            if !prev.is_ascii_digit() {
                return None;
            }
        } else {
            if prev == b'_' && !c.is_ascii_digit() {
                return None;
            }
            out.push(c);
        }
        prev = c;
    }
    if prev == b'_' {
        return None;
    }
    Some(out)
}

/// `[+-]? (inf | infinity | nan | digits [. digits?] | . digits) ([eE] [+-]? digits)?`,
/// letters in any case (CPython's `_Py_dg_strtod` plus `_Py_parse_inf_or_nan`).
fn is_python_float_syntax(b: &[u8]) -> bool {
    let mut i = 0;
    if let Some(b'+' | b'-') = b.first() {
        i = 1;
    }
    let rest = &b[i..];
    if ["inf", "infinity", "nan"]
        .iter()
        .any(|w| rest.eq_ignore_ascii_case(w.as_bytes()))
    {
        return true;
    }
    let digits = |from: usize| {
        rest[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut j = digits(0);
    let mut mantissa_digits = j;
    if rest.get(j) == Some(&b'.') {
        j += 1;
        let frac = digits(j);
        j += frac;
        mantissa_digits += frac;
    }
    if mantissa_digits == 0 {
        return false;
    }
    if let Some(b'e' | b'E') = rest.get(j) {
        j += 1;
        if let Some(b'+' | b'-') = rest.get(j) {
            j += 1;
        }
        let exp = digits(j);
        if exp == 0 {
            return false;
        }
        j += exp;
    }
    j == rest.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pydantic_float_strings_match_pydantic() {
        // Expectations produced by pydantic 2.13's lax `float` field.
        let cases: &[(&str, Option<f64>)] = &[
            ("0.9", Some(0.9)),
            (" 0.9 ", Some(0.9)),
            ("\t\n 1\u{b}\u{c}\r", Some(1.0)),
            ("1\u{85}", Some(1.0)),
            ("\u{a0}1\u{3000}", Some(1.0)),
            ("1\u{1c}", None),
            ("1_0", Some(10.0)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            (" 1_0", None),
            ("1e1_0", Some(1e10)),
            ("1_.5", Some(1.5)),
            ("1._5", Some(1.5)),
            ("1_000.5", Some(1000.5)),
            ("+inf", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("iNfInItY", Some(f64::INFINITY)),
            ("infinit", None),
            ("١٢", None),
            ("٠.٥", None),
            ("０.５", None),
            ("1\u{0}", None),
            ("0x10", None),
            (".5", Some(0.5)),
            ("1.", Some(1.0)),
            ("+.5", Some(0.5)),
            (".", None),
            ("e5", None),
            ("1e", None),
            ("1E+5", Some(1e5)),
            (" 1 2", None),
            ("+-1", None),
            ("1e400", Some(f64::INFINITY)),
        ];
        for (s, want) in cases {
            assert_eq!(pydantic_float_str(s), *want, "{s:?}");
        }
        assert!(pydantic_float_str("-NaN").is_some_and(f64::is_nan));
    }

    #[test]
    fn float_strings_match_cpython() {
        // Expectations produced by CPython 3.11's float().
        let cases: &[(&str, Option<f64>)] = &[
            ("0.9", Some(0.9)),
            (" 0.9 ", Some(0.9)),
            ("\t\n 1\u{b}\u{c}\r", Some(1.0)),
            ("1\u{85}", Some(1.0)),
            ("\u{a0}1\u{3000}", Some(1.0)),
            ("1\u{1c}", None),
            ("\u{1c}1", None),
            ("1_0", Some(10.0)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            ("1e1_0", Some(1e10)),
            ("1_.5", None),
            ("1._5", None),
            ("+inf", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("iNfInItY", Some(f64::INFINITY)),
            ("infinit", None),
            ("infinityy", None),
            ("١٢", Some(12.0)),
            ("０.５", Some(0.5)),
            ("1\u{0}", None),
            ("0x10", None),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            (".", None),
            ("1e", None),
            ("e5", None),
            ("- 1", None),
            ("  -1.5e-3\t\n", Some(-0.0015)),
            ("1e400", Some(f64::INFINITY)),
            ("-1e400", Some(f64::NEG_INFINITY)),
            ("high", None),
            ("", None),
            ("   ", None),
            ("1.5.5", None),
            ("++1", None),
            ("1é", None),
            ("0009", Some(9.0)),
            ("1E+2", Some(100.0)),
        ];
        for &(s, want) in cases {
            let got = py_float_str(s);
            assert_eq!(got, want, "float({s:?})");
        }
        for nan in ["nan", "-NaN", " +nAn "] {
            assert!(py_float_str(nan).is_some_and(f64::is_nan), "{nan}");
        }
    }

    #[test]
    fn float_of_values() {
        use crate::json::python::loads;
        let f = |t: &str| py_float(&loads(t).unwrap());
        assert_eq!(f("true"), Ok(1.0));
        assert_eq!(f("false"), Ok(0.0));
        assert_eq!(f("1"), Ok(1.0));
        assert_eq!(f("0.25"), Ok(0.25));
        assert_eq!(f(r#"" 0.9 ""#), Ok(0.9));
        assert_eq!(f(r#""high""#), Err(PyFloatError::Value));
        assert_eq!(f("null"), Err(PyFloatError::Type));
        assert_eq!(f("[0.9]"), Err(PyFloatError::Type));
        assert_eq!(f("{}"), Err(PyFloatError::Type));
        assert_eq!(f(&"9".repeat(400)), Err(PyFloatError::Overflow));
        assert!(f("NaN").is_ok_and(f64::is_nan));
    }

    #[test]
    fn unicode_digits() {
        assert_eq!(unicode_decimal('٠'), Some(0));
        assert_eq!(unicode_decimal('٩'), Some(9));
        assert_eq!(unicode_decimal('\u{1FBF9}'), Some(9));
        assert_eq!(unicode_decimal('\u{65F}'), None);
        assert_eq!(unicode_decimal('é'), None);
    }
}
