//! Kubernetes resource quantities (`128Mi`, `500m`, `1e3`), parsed exactly as
//! apimachinery's `resource.ParseQuantity` accepts them, with the rounding of
//! `Quantity.Value()` / `MilliValue()` (away from zero: `1m` is 1 byte and
//! `-1m` is -1 byte, so only an exact zero scales to 0).

use crate::k8s::decode::{Decode, DecodeError, FieldPath};
use crate::{Node, ScalarValue};

/// A parsed quantity: `±digits × 10^exp10 × 2^exp2`, kept exact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    /// Significant decimal digits without leading zeros (empty for zero).
    digits: String,
    exp10: i64,
    exp2: u32,
    /// The text as written (for messages).
    text: String,
}

/// Why a quantity string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantityError {
    /// The number part is malformed (`ErrFormatWrong`).
    Format,
    /// The suffix is not a known unit or exponent (`ErrSuffix`).
    Suffix,
}

impl std::fmt::Display for QuantityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            QuantityError::Format => "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            QuantityError::Suffix => "unable to parse quantity's suffix",
        })
    }
}

impl Quantity {
    /// Parses a quantity string like `resource.ParseQuantity`.
    ///
    /// # Errors
    /// [`QuantityError`] for text apimachinery rejects.
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::Format);
        }
        let bytes = text.as_bytes();
        let mut pos = 0;
        let mut negative = false;
        if let Some(&c) = bytes.first() {
            if c == b'-' || c == b'+' {
                negative = c == b'-';
                pos = 1;
            }
        }
        let digits_end = |from: usize| {
            bytes[from..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(bytes.len(), |n| from + n)
        };
        let int_end = digits_end(pos);
        let int_part = &text[pos..int_end];
        pos = int_end;
        let mut frac_part = "";
        if bytes.get(pos) == Some(&b'.') {
            let frac_end = digits_end(pos + 1);
            frac_part = &text[pos + 1..frac_end];
            pos = frac_end;
        }
        // The suffix: unit letters, then an optional signed exponent.
        let suffix_start = pos;
        while pos < bytes.len() && b"eEinumkKMGTP".contains(&bytes[pos]) {
            pos += 1;
        }
        if pos < bytes.len() && (bytes[pos] == b'-' || bytes[pos] == b'+') {
            pos += 1;
        }
        if digits_end(pos) != bytes.len() {
            return Err(QuantityError::Format);
        }
        let suffix = &text[suffix_start..];
        let (exp10, exp2) = interpret_suffix(suffix).ok_or(QuantityError::Suffix)?;
        let mut all = format!("{int_part}{frac_part}");
        let frac_len = i64::try_from(frac_part.len()).map_err(|_| QuantityError::Format)?;
        let trimmed = all.trim_start_matches('0').len();
        all = all[all.len() - trimmed..].to_owned();
        let digits = all.trim_end_matches('0');
        let trailing =
            i64::try_from(all.len() - digits.len()).map_err(|_| QuantityError::Format)?;
        Ok(Quantity {
            negative: negative && !digits.is_empty(),
            digits: digits.to_owned(),
            exp10: exp10 - frac_len + trailing,
            exp2,
            text: text.to_owned(),
        })
    }

    /// The text as written.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the quantity is exactly zero.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Whether the quantity is below zero.
    #[must_use]
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// `q × 10^-scale` rounded away from zero, saturated to `i64`, as
    /// apimachinery's `ScaledValue` (`negativeScaleInt64`) does:
    /// `scaled_value(0)` is `Value()` (bytes, cores), `scaled_value(-3)` is
    /// `MilliValue()`. Only an exact zero gives 0.
    #[must_use]
    pub fn scaled_value(&self, scale: i64) -> i64 {
        if self.is_zero() {
            return 0;
        }
        let saturated = if self.negative { i64::MIN } else { i64::MAX };
        let Ok(mantissa) = self.digits.parse::<u128>() else {
            return saturated;
        };
        let Some(num) = mantissa.checked_mul(1u128 << self.exp2.min(127)) else {
            return saturated;
        };
        let exp = self.exp10.saturating_sub(scale);
        let magnitude: u128 = if exp >= 0 {
            let Some(value) = u32::try_from(exp)
                .ok()
                .and_then(|e| 10u128.checked_pow(e))
                .and_then(|p| num.checked_mul(p))
            else {
                return saturated;
            };
            value
        } else {
            let Some(den) = u32::try_from(-exp).ok().and_then(|e| 10u128.checked_pow(e)) else {
                // The divisor exceeds any u128 numerator: 0 < |q| < 1 unit,
                // which rounds away from zero to one unit.
                return if self.negative { -1 } else { 1 };
            };
            (num / den) + u128::from(num % den != 0)
        };
        match i64::try_from(magnitude) {
            Ok(m) if self.negative => -m,
            Ok(m) => m,
            Err(_) => saturated,
        }
    }
}

/// The decimal and binary exponents of a suffix (`Mi` → 2^20, `m` → 10^-3,
/// `e3` → 10^3); `None` for unknown suffixes.
fn interpret_suffix(suffix: &str) -> Option<(i64, u32)> {
    let table: &[(&str, i64, u32)] = &[
        ("", 0, 0),
        ("n", -9, 0),
        ("u", -6, 0),
        ("m", -3, 0),
        ("k", 3, 0),
        ("M", 6, 0),
        ("G", 9, 0),
        ("T", 12, 0),
        ("P", 15, 0),
        ("E", 18, 0),
        ("Ki", 0, 10),
        ("Mi", 0, 20),
        ("Gi", 0, 30),
        ("Ti", 0, 40),
        ("Pi", 0, 50),
        ("Ei", 0, 60),
    ];
    if let Some((_, e10, e2)) = table.iter().find(|(s, _, _)| *s == suffix) {
        return Some((*e10, *e2));
    }
    // Decimal exponent: `e<int>` / `E<int>` (apimachinery parses it as an
    // int32-ish decimal; anything else is a bad suffix).
    let rest = suffix.strip_prefix(['e', 'E'])?;
    let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let exp: i32 = rest.parse().ok()?;
    Some((i64::from(exp), 0))
}

impl Decode for Quantity {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        // `Quantity.UnmarshalJSON` accepts a JSON string or a bare number.
        let text = match node.as_scalar().map(|s| (s.value, s.text.as_str())) {
            Some((ScalarValue::String, t)) => t.trim().to_owned(),
            Some((ScalarValue::Int(i), _)) => i.to_string(),
            Some((ScalarValue::Uint(u), _)) => u.to_string(),
            Some((ScalarValue::Float(f), _)) if f.is_finite() => format!("{f}"),
            _ => {
                return Err(DecodeError::at(
                    node,
                    path,
                    format!(
                        "expected a quantity, found {}",
                        crate::k8s::decode::json_type(node)
                    ),
                ))
            }
        };
        Quantity::parse(&text).map_err(|e| {
            DecodeError::at(node, path, format!("cannot parse quantity {text:?}: {e}"))
        })
    }
}
