//! Python's `str()` of JSON-shaped values, `str.isspace()` and `str.strip()`.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

use super::unicode::NON_PRINTABLE;

/// Python's `str.isspace()` for one character (also what `\s` matches in a
/// Python `re` pattern): Unicode `White_Space` plus U+001C–U+001F.
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// Python's `str(v)` for a value as Python's `json` module would have decoded
/// it: a string is itself; `None`, `True`, `False`; integers in decimal;
/// floats in `repr` form (`0.5`, `1e-05`, `1e+16`); lists and dicts in their
/// `repr` form (`[{'type': 'text', 'text': 'hi'}]`).
pub fn py_str(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => {
            let mut out = String::new();
            push_repr(other, &mut out);
            Cow::Owned(out)
        }
    }
}

fn push_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => {
            if n.is_f64() {
                push_float_repr(n.as_f64().unwrap_or(f64::NAN), out);
            } else {
                let _ = write!(out, "{n}");
            }
        }
        Value::String(s) => push_str_repr(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_str_repr(k, out);
                out.push_str(": ");
                push_repr(v, out);
            }
            out.push('}');
        }
    }
}

/// Python's `repr(float)`: the shortest round-tripping digits, in exponent
/// form when the decimal exponent is below -4 or at least 16.
pub(crate) fn push_float_repr(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x < 0.0 { "-inf" } else { "inf" });
        return;
    }
    // `{:e}` yields the shortest round-tripping digits: `-1.2345e17`, `0e0`.
    let sci = format!("{x:e}");
    let (negative, sci) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, sci.as_str()),
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = digits.len() as i32;
    let decpt = exp + 1;
    if negative {
        out.push('-');
    }
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(&digits);
    } else if decpt < n {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    } else {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        out.push_str(".0");
    }
}

/// Python's `repr(str)`.
fn push_str_repr(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c < ' ' || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() || is_printable(c) => out.push(c),
            c => {
                let cp = c as u32;
                let _ = if cp <= 0xff {
                    write!(out, "\\x{cp:02x}")
                } else if cp <= 0xffff {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one non-ASCII character.
fn is_printable(c: char) -> bool {
    let cp = c as u32;
    let idx = NON_PRINTABLE.partition_point(|&(lo, _)| lo <= cp);
    match idx.checked_sub(1).and_then(|i| NON_PRINTABLE.get(i)) {
        Some(&(_, hi)) => cp > hi,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn float_repr(x: f64) -> String {
        let mut s = String::new();
        push_float_repr(x, &mut s);
        s
    }

    #[test]
    fn float_repr_matches_python() {
        // Expectations produced by CPython 3.11's repr().
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e300, "1.5e+300"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (f64::INFINITY, "inf"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "repr({x:e})");
        }
    }

    #[test]
    fn str_of_json_values() {
        assert_eq!(py_str(&json!("plain {x}")), "plain {x}");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(7)), "7");
        assert_eq!(py_str(&json!(-7)), "-7");
        assert_eq!(py_str(&json!(0.9)), "0.9");
        assert_eq!(
            py_str(&json!([{"type": "text", "text": "{\"label\": \"Benign\"}"}])),
            r#"[{'type': 'text', 'text': '{"label": "Benign"}'}]"#
        );
        // Matches CPython: str([1.0, True, None, "it's", 'a"b', 'both\'"', ...]).
        let v = json!([1.0, true, null, "it's", "a\"b", "both'\"", "\u{0}\u{7f}\u{85}\u{200b}😀", {"k": "v"}, "\\", "tab\there\nnl\r", "é\u{a0}\u{ad}"]);
        assert_eq!(
            py_str(&v),
            r#"[1.0, True, None, "it's", 'a"b', 'both\'"', '\x00\x7f\x85\u200b😀', {'k': 'v'}, '\\', 'tab\there\nnl\r', 'é\xa0\xad']"#
        );
        assert_eq!(py_str(&json!({})), "{}");
        assert_eq!(py_str(&json!([])), "[]");
    }

    #[test]
    fn whitespace_and_strip() {
        assert!(py_isspace('\u{1c}') && py_isspace('\u{85}') && py_isspace('\u{3000}'));
        assert!(!py_isspace('\u{200b}') && !py_isspace('x'));
        assert_eq!(py_strip("\u{1f} \u{a0}x y\u{2028}\n"), "x y");
    }

    #[test]
    fn printable_table() {
        assert!(is_printable('é'));
        assert!(is_printable('😀'));
        assert!(!is_printable('\u{85}'));
        assert!(!is_printable('\u{a0}'));
        assert!(!is_printable('\u{200b}'));
        assert!(!is_printable('\u{e000}'));
        assert!(!is_printable('\u{10ffff}'));
    }
}
