//! A YAML emitter for JSON values whose output reads back, under the
//! project's YAML 1.1 resolution (spec E2 §1.3), as exactly the value it was
//! given: key order is kept, and every string that a plain scalar would turn
//! into something else (`yes`, `on`, `~`, `1e3`, `0x1F`, `012`, empty,
//! leading/trailing spaces, `: ` and ` #`, indicators, line breaks, non-ASCII)
//! is double-quoted with escapes. Block style throughout; empty collections
//! are `{}` / `[]`.

use serde_json::Value;

use crate::{resolve_plain, ScalarValue};

/// Longest key written as an implicit key; YAML caps implicit keys at 1024
/// characters, longer ones use the explicit `? key` form.
const MAX_IMPLICIT_KEY: usize = 1000;

/// Emits documents joined with `---` lines. Each document ends with a
/// newline; an empty slice gives the empty string.
#[must_use]
pub fn emit_documents(docs: &[Value]) -> String {
    let mut out = String::with_capacity(documents_len(docs));
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str(SEPARATOR);
        }
        emit_block(doc, 0, false, &mut out);
    }
    out
}

/// Emits one document (no separator), ending with a newline.
#[must_use]
pub fn emit_document(value: &Value) -> String {
    let mut out = String::with_capacity(block_len(value, 0));
    emit_block(value, 0, false, &mut out);
    out
}

/// The line between two documents.
const SEPARATOR: &str = "---\n";

/// The exact length in bytes of [`emit_documents`]`(docs)`, computed
/// without building it (the JSON Patch size bound, spec E2 §4.2, uses it to
/// refuse an operation before its result exists).
#[must_use]
pub fn documents_len(docs: &[Value]) -> usize {
    let separators = docs.len().saturating_sub(1) * SEPARATOR.len();
    docs.iter()
        .fold(separators, |n, d| n.saturating_add(block_len(d, 0)))
}

/// Whether `v` is written on its own line(s) after its key or dash, as
/// opposed to inline (scalars and empty collections).
fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// Writes `v` at `indent` spaces; inline values get a line of their own.
/// With `after_dash`, the first line's indentation was already written
/// (the compact `- key: value` form of a sequence item), so it is skipped:
/// writing in place instead of into a temporary string keeps emission
/// linear in the output, whatever the nesting.
fn emit_block(v: &Value, indent: usize, after_dash: bool, out: &mut String) {
    let pad = |first: bool, out: &mut String| {
        if !(first && after_dash) {
            out.extend(std::iter::repeat_n(' ', indent));
        }
    };
    match v {
        Value::Object(map) if !map.is_empty() => {
            for (i, (k, val)) in map.iter().enumerate() {
                pad(i == 0, out);
                let key = scalar_string(k);
                if key.chars().count() > MAX_IMPLICIT_KEY {
                    out.push_str("? ");
                    out.push_str(&key);
                    out.push('\n');
                    out.extend(std::iter::repeat_n(' ', indent));
                    out.push(':');
                } else {
                    out.push_str(&key);
                    out.push(':');
                }
                emit_value_after_indicator(val, indent, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                pad(i == 0, out);
                if is_block(item) {
                    // Compact form: the item's first line shares the dash
                    // line (`- name: x`), the rest stays two spaces deeper.
                    out.push_str("- ");
                    emit_block(item, indent + 2, true, out);
                } else {
                    out.push('-');
                    emit_value_after_indicator(item, indent, out);
                }
            }
        }
        _ => {
            pad(true, out);
            out.push_str(&inline(v));
            out.push('\n');
        }
    }
}

/// Writes a value following `key:` or `-` at `indent`: inline on the same
/// line, or nested two spaces deeper.
fn emit_value_after_indicator(v: &Value, indent: usize, out: &mut String) {
    if is_block(v) {
        out.push('\n');
        emit_block(v, indent + 2, false, out);
    } else {
        out.push(' ');
        out.push_str(&inline(v));
        out.push('\n');
    }
}

/// The length of [`emit_block`]`(v, indent, false)`. Saturating: a value
/// too large to count is `usize::MAX`, which every bound refuses.
#[must_use]
pub fn block_len(v: &Value, indent: usize) -> usize {
    match v {
        Value::Object(map) if !map.is_empty() => map.iter().fold(0usize, |n, (k, val)| {
            n.saturating_add(entry_len(k, val, indent))
        }),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .fold(0usize, |n, item| n.saturating_add(item_len(item, indent))),
        _ => indent + inline_len(v) + 1,
    }
}

/// The length of one mapping entry `key: value` written at `indent`.
#[must_use]
pub fn entry_len(key: &str, v: &Value, indent: usize) -> usize {
    let key_len = scalar_len(key);
    // The written key is ASCII (plain scalars are, escapes are), so its
    // length in bytes is its length in characters.
    let head = if key_len > MAX_IMPLICIT_KEY {
        // `{pad}? {key}\n{pad}:`
        indent + 2 + key_len + 1 + indent + 1
    } else {
        indent + key_len + 1
    };
    head.saturating_add(after_indicator_len(v, indent))
}

/// The length of one sequence item written at `indent` (dash included).
#[must_use]
pub fn item_len(v: &Value, indent: usize) -> usize {
    if is_block(v) {
        // `{pad}- ` replaces the first line's own `indent + 2` spaces.
        block_len(v, indent + 2)
    } else {
        indent + 1 + after_indicator_len(v, indent)
    }
}

fn after_indicator_len(v: &Value, indent: usize) -> usize {
    if is_block(v) {
        block_len(v, indent + 2).saturating_add(1)
    } else {
        1 + inline_len(v) + 1
    }
}

fn inline_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number(n).len(),
        Value::String(s) => scalar_len(s),
        Value::Array(_) | Value::Object(_) => 2,
    }
}

/// The length of [`scalar_string`]`(s)`.
fn scalar_len(s: &str) -> usize {
    if plain_safe(s) {
        s.len()
    } else {
        2 + s.chars().map(escaped_len).sum::<usize>()
    }
}

/// A scalar or empty collection on one line.
fn inline(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => scalar_string(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    // Debug keeps a `.0` or an exponent, so the text resolves as a float,
    // never as an integer, and it is the shortest text that round-trips.
    let f = n.as_f64().unwrap_or(0.0);
    format!("{f:?}")
}

/// A string as a plain scalar when that reads back as the same string,
/// otherwise double-quoted.
#[must_use]
pub fn scalar_string(s: &str) -> String {
    if plain_safe(s) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// Conservative: only a simple alphabet, no indicator first, no `: `, no
/// trailing `:`, no surrounding space, and YAML 1.1 resolution must give a
/// string.
fn plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !(first.is_ascii_alphanumeric() || first == '/' || first == '_') {
        return false;
    }
    if s.ends_with([' ', ':']) || s.contains(": ") || s.contains(" #") {
        return false;
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || " ._/-+=@,():".contains(c);
    if !s.chars().all(allowed) || s.contains("  ") {
        return false;
    }
    resolve_plain(s) == ScalarValue::String
}

/// The length of `c` inside [`double_quoted`].
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\t' | '\r' => 2,
        ' '..='~' => 1,
        c if u32::from(c) <= 0xFFFF => 6,
        _ => 10,
    }
}

/// A double-quoted scalar with every character outside printable ASCII
/// escaped.
#[must_use]
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}
