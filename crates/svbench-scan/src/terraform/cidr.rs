//! Which "whole internet" ranges a CIDR argument covers, as a set.
//!
//! TF_006 asks whether a rule is open to `0.0.0.0/0` or `::/0`. Terraform
//! (and AWS) accept any list of ranges, so `["0.0.0.0/1", "128.0.0.0/1"]`
//! opens the same rule as `["0.0.0.0/0"]`; a string-equality test would
//! call the split form closed. Here a value covers a world when the union of
//! its ranges is the whole address space; an element (or a whole value) the
//! evaluator could not compute is assumed to cover both.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::Value;

/// The IPv4 world.
pub(super) const WORLD_V4: &str = "0.0.0.0/0";
/// The IPv6 world.
pub(super) const WORLD_V6: &str = "::/0";

/// The worlds (`0.0.0.0/0`, `::/0`) that `value` — one CIDR string or a
/// list of them — covers. `n` strings cost O(n log n).
pub(super) fn worlds(value: &Value) -> Vec<&'static str> {
    let mut v4: Vec<(u128, u128)> = Vec::new();
    let mut v6: Vec<(u128, u128)> = Vec::new();
    let mut add = |item: &Value| -> bool {
        match item {
            Value::String(s) => {
                match parse(s) {
                    Some((false, range)) => v4.push(range),
                    Some((true, range)) => v6.push(range),
                    None => {}
                }
                false
            }
            other => is_unknown(other),
        }
    };
    let unknown = match value {
        Value::Array(items) => items.iter().fold(false, |u, item| add(item) | u),
        other => add(other),
    };
    if unknown {
        return vec![WORLD_V4, WORLD_V6];
    }
    let mut out = Vec::new();
    if covers(v4, u128::from(u32::MAX)) {
        out.push(WORLD_V4);
    }
    if covers(v6, u128::MAX) {
        out.push(WORLD_V6);
    }
    out
}

/// A value the evaluator marked as fixed by the file but not computed.
fn is_unknown(value: &Value) -> bool {
    value.get("unknown") == Some(&Value::Bool(true)) && value.get("expr").is_some()
}

/// `addr/prefix` → (is IPv6, first and last address). Host bits set below
/// the prefix are ignored, as the range is what a rule opens.
fn parse(text: &str) -> Option<(bool, (u128, u128))> {
    let (addr, prefix) = text.split_once('/')?;
    if prefix.is_empty() || prefix.len() > 3 || !prefix.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let prefix: u32 = prefix.parse().ok()?;
    let (v6, bits, start) = if let Ok(a) = addr.parse::<Ipv4Addr>() {
        (false, 32, u128::from(u32::from(a)))
    } else {
        (true, 128, u128::from(addr.parse::<Ipv6Addr>().ok()?))
    };
    if prefix > bits {
        return None;
    }
    let host = bits - prefix;
    let mask = if host == 128 {
        u128::MAX
    } else {
        (1u128 << host) - 1
    };
    let first = start & !mask;
    Some((v6, (first, first | mask)))
}

/// Whether the union of `ranges` is `0..=max`.
fn covers(mut ranges: Vec<(u128, u128)>, max: u128) -> bool {
    ranges.sort_unstable();
    let mut next: u128 = 0;
    for (first, last) in ranges {
        if first > next {
            return false;
        }
        if last >= next {
            if last == max {
                return true;
            }
            next = last + 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn split_ranges_cover_the_world_and_gaps_do_not() {
        assert_eq!(worlds(&json!("0.0.0.0/0")), [WORLD_V4]);
        assert_eq!(worlds(&json!(["0.0.0.0/1", "128.0.0.0/1"])), [WORLD_V4]);
        assert_eq!(
            worlds(&json!(["128.0.0.0/1", "0.0.0.0/2", "64.0.0.0/2"])),
            [WORLD_V4]
        );
        assert!(worlds(&json!(["0.0.0.0/1", "128.0.0.0/2"])).is_empty());
        assert!(worlds(&json!(["10.0.0.0/8"])).is_empty());
        assert_eq!(worlds(&json!(["::/1", "8000::/1"])), [WORLD_V6]);
        assert_eq!(worlds(&json!("::0/0")), [WORLD_V6]);
        assert_eq!(worlds(&json!("1.2.3.4/0")), [WORLD_V4]);
        assert!(worlds(&json!("not a cidr")).is_empty());
        assert!(worlds(&json!({"expr": "var.x", "refs": ["var.x"]})).is_empty());
        assert_eq!(
            worlds(&json!(["10.0.0.0/8", {"expr": "f()", "refs": [], "unknown": true}])),
            [WORLD_V4, WORLD_V6]
        );
    }
}
