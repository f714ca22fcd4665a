//! Rejects `sprintf` formats whose field widths would allocate huge strings.
//!
//! regorus pads `%<width>v` with `str::repeat`, so `sprintf("%999999999d", [1])`
//! builds a 1 GB string in one builtin call, out of the execution timer's
//! reach (and a width overflowing `u32` panics). Literal formats are checked at
//! load time; a width above [`MAX_SPRINTF_WIDTH`] or written with non-ASCII
//! digits rejects the module. Formats computed at run time are not checked.

use serde_json::Value;

use super::recursion::ref_path;

/// Widest `sprintf` field accepted in a literal format.
pub const MAX_SPRINTF_WIDTH: u64 = 10_000;

/// The first offending literal format in the modules' AST, if any.
pub(super) fn oversized_format(ast: &Value) -> Option<String> {
    match ast {
        Value::Object(map) => {
            if let Some(call) = map.get("Call") {
                let is_sprintf = ref_path(&call["fcn"]).is_some_and(|f| f == "sprintf");
                if let Some(format) = call["params"][0]
                    .get("String")
                    .or_else(|| call["params"][0].get("RawString"))
                    .and_then(|s| s["value"].as_str())
                {
                    if is_sprintf && !widths_ok(format) {
                        return Some(format.to_owned());
                    }
                }
            }
            map.values().find_map(oversized_format)
        }
        Value::Array(items) => items.iter().find_map(oversized_format),
        _ => None,
    }
}

/// Whether every `%` directive's width is ASCII digits ≤ [`MAX_SPRINTF_WIDTH`].
fn widths_ok(format: &str) -> bool {
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        // regorus reads `%.N` like a width too.
        if chars.peek() == Some(&'.') {
            chars.next();
        }
        let mut width: u64 = 0;
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() {
                width = width * 10 + u64::from(d as u8 - b'0');
                if width > MAX_SPRINTF_WIDTH {
                    return false;
                }
                chars.next();
            } else if d.is_numeric() {
                return false;
            } else {
                break;
            }
        }
        // `%%` is a literal percent sign.
        if chars.peek() == Some(&'%') {
            chars.next();
        }
    }
    true
}
