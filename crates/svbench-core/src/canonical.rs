//! Canonical JSON (RFC 8785, JCS) and the SHA-256 helpers built on it.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Serialises `value` as RFC 8785 canonical JSON: object keys sorted by UTF-16
/// code units, no whitespace, numbers in ECMAScript shortest form.
pub fn to_canonical_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                write_f64_or_int(i as f64, Some(i.to_string()), out);
            } else if let Some(u) = n.as_u64() {
                write_f64_or_int(u as f64, Some(u.to_string()), out);
            } else {
                write_f64_or_int(n.as_f64().unwrap_or(0.0), None, out);
            }
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_value(v, out);
            }
            out.push('}');
        }
    }
}

/// JCS numbers are IEEE doubles printed the ECMAScript way. Integers that a
/// double represents exactly print as integers.
fn write_f64_or_int(x: f64, exact_int: Option<String>, out: &mut String) {
    if let Some(s) = exact_int {
        if x.abs() < 1e21 && (x as i128).to_string() == s {
            out.push_str(&s);
            return;
        }
    }
    out.push_str(&ecmascript_number(x));
}

/// `Number.prototype.toString()` for a finite double.
pub fn ecmascript_number(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    if !x.is_finite() {
        // JCS forbids these; serde_json never produces them.
        return "null".to_string();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // Shortest round-trip digits and exponent from Rust's `{:e}` formatting.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n = exp + 1; // position of the decimal point relative to the digits
    let body = if k <= n && n <= 21 {
        format!("{}{}", digits, "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{}", "0".repeat((-n) as usize), digits)
    } else {
        let e = n - 1;
        let e_str = if e >= 0 {
            format!("+{e}")
        } else {
            e.to_string()
        };
        if k == 1 {
            format!("{digits}e{e_str}")
        } else {
            format!("{}.{}e{}", &digits[..1], &digits[1..], e_str)
        }
    };
    format!("{sign}{body}")
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    hex(&digest)
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// SHA-256 of the canonical JSON of `value`.
pub fn canonical_sha256(value: &Value) -> String {
    sha256_hex(to_canonical_string(value).as_bytes())
}

/// Incremental hash over rows: canonical JSON of each row followed by `\n`
/// (harness §9.2, `dataset_sha256` and `selected_sha256`).
#[derive(Debug, Default, Clone)]
pub struct RowHasher {
    hasher: Sha256,
}

impl RowHasher {
    /// A hasher over no rows yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one row.
    pub fn push(&mut self, row: &Value) {
        self.hasher.update(to_canonical_string(row).as_bytes());
        self.hasher.update(b"\n");
    }

    /// Lowercase hex digest.
    pub fn finish(self) -> String {
        hex(&self.hasher.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_and_strips_whitespace() {
        let v = json!({"b": 1, "a": [true, null, "x\ny"], "c": {"z": 0.5, "y": -2}});
        assert_eq!(
            to_canonical_string(&v),
            r#"{"a":[true,null,"x\ny"],"b":1,"c":{"y":-2,"z":0.5}}"#
        );
    }

    #[test]
    fn ecmascript_numbers() {
        assert_eq!(ecmascript_number(1e21), "1e+21");
        assert_eq!(ecmascript_number(1e20), "100000000000000000000");
        assert_eq!(ecmascript_number(0.000001), "0.000001");
        assert_eq!(ecmascript_number(1e-7), "1e-7");
        assert_eq!(ecmascript_number(-1.5), "-1.5");
        assert_eq!(ecmascript_number(123.456), "123.456");
        assert_eq!(ecmascript_number(4.5e-10), "4.5e-10");
    }

    #[test]
    fn key_order_does_not_change_hash() {
        let a: Value = serde_json::from_str(r#"{"x":1,"y":{"b":2,"a":3}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{ "y" : {"a":3,"b":2}, "x":1 }"#).unwrap();
        assert_eq!(canonical_sha256(&a), canonical_sha256(&b));
    }
}
