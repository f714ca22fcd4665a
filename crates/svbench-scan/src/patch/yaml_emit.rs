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
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&emit_document(doc));
    }
    out
}

/// Emits one document (no separator), ending with a newline.
#[must_use]
pub fn emit_document(value: &Value) -> String {
    let mut out = String::new();
    emit_block(value, 0, &mut out);
    out
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
fn emit_block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(map) if !map.is_empty() => {
            for (k, val) in map {
                let key = scalar_string(k);
                if key.chars().count() > MAX_IMPLICIT_KEY {
                    out.push_str(&format!("{pad}? {key}\n{pad}:"));
                } else {
                    out.push_str(&format!("{pad}{key}:"));
                }
                emit_value_after_indicator(val, indent, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                if is_block(item) {
                    // Compact form: the item's first line shares the dash
                    // line (`- name: x`), the rest stays two spaces deeper.
                    let mut nested = String::new();
                    emit_block(item, indent + 2, &mut nested);
                    out.push_str(&pad);
                    out.push_str("- ");
                    out.push_str(&nested[indent + 2..]);
                } else {
                    out.push_str(&format!("{pad}-"));
                    emit_value_after_indicator(item, indent, out);
                }
            }
        }
        _ => {
            out.push_str(&pad);
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
        emit_block(v, indent + 2, out);
    } else {
        out.push(' ');
        out.push_str(&inline(v));
        out.push('\n');
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
