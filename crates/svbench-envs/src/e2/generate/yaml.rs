//! A small YAML tree and block-style emitter for generated manifests.
//!
//! Mutation operators edit the tree; the emitter writes it with the item's
//! formatting variant. Strings are quoted whenever YAML 1.1 (go-yaml v2, as
//! kube-linter reads it) could resolve them as anything but a string.

/// A YAML node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Y {
    /// A string (quoted when needed, or always under [`Style::quote_all`]).
    Str(String),
    /// A scalar written as is (integers, booleans).
    Lit(String),
    /// A mapping in insertion order.
    Map(Vec<(String, Y)>),
    /// A sequence.
    Seq(Vec<Y>),
}

/// A string node.
pub fn s(text: impl Into<String>) -> Y {
    Y::Str(text.into())
}

/// An integer node.
pub fn int(n: u64) -> Y {
    Y::Lit(n.to_string())
}

/// A boolean node.
pub fn boolean(b: bool) -> Y {
    Y::Lit(if b { "true" } else { "false" }.to_string())
}

/// A mapping node from pairs.
pub fn map<const N: usize>(pairs: [(&str, Y); N]) -> Y {
    Y::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A sequence node.
pub fn seq(items: Vec<Y>) -> Y {
    Y::Seq(items)
}

impl Y {
    /// The value under `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Y> {
        match self {
            Y::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value under `key` of a mapping, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Y> {
        match self {
            Y::Map(m) => m.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Follows a path of mapping keys.
    pub fn at_mut(&mut self, path: &[&str]) -> Option<&mut Y> {
        let mut node = self;
        for key in path {
            node = node.get_mut(key)?;
        }
        Some(node)
    }

    /// Follows a path of mapping keys.
    pub fn at(&self, path: &[&str]) -> Option<&Y> {
        let mut node = self;
        for key in path {
            node = node.get(key)?;
        }
        Some(node)
    }

    /// Sets `key` (in place when present, else appended); no-op on non-maps.
    pub fn set(&mut self, key: &str, value: Y) {
        if let Y::Map(m) = self {
            match m.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => m.push((key.to_string(), value)),
            }
        }
    }

    /// Removes `key` from a mapping, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Y> {
        match self {
            Y::Map(m) => {
                let i = m.iter().position(|(k, _)| k == key)?;
                Some(m.remove(i).1)
            }
            _ => None,
        }
    }

    /// The text of a string node.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Y::Str(s) | Y::Lit(s) => Some(s),
            _ => None,
        }
    }

    /// The items of a sequence, mutably.
    pub fn items_mut(&mut self) -> Option<&mut Vec<Y>> {
        match self {
            Y::Seq(v) => Some(v),
            _ => None,
        }
    }
}

/// Formatting variant of a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Spaces per nesting level (2 or 4).
    pub indent: usize,
    /// Sequences indented under their key (`key:\n  - a`) or flush (`key:\n- a`).
    pub indent_seqs: bool,
    /// Every string double-quoted.
    pub quote_all: bool,
    /// A `---` before the first document.
    pub leading_separator: bool,
}

/// Renders documents separated by `---`.
pub fn emit_docs(docs: &[Y], style: &Style) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 || style.leading_separator {
            out.push_str("---\n");
        }
        emit_node_block(&mut out, doc, 0, style);
    }
    out
}

fn emit_node_block(out: &mut String, node: &Y, ind: usize, style: &Style) {
    match node {
        Y::Map(m) => emit_map(out, m, ind, style),
        Y::Seq(v) => emit_seq(out, v, ind, style),
        scalar => {
            out.push_str(&" ".repeat(ind));
            out.push_str(&scalar_text(scalar, style));
            out.push('\n');
        }
    }
}

fn emit_map(out: &mut String, m: &[(String, Y)], ind: usize, style: &Style) {
    let pad = " ".repeat(ind);
    for (k, v) in m {
        match v {
            Y::Map(inner) if !inner.is_empty() => {
                out.push_str(&format!("{pad}{k}:\n"));
                emit_map(out, inner, ind + style.indent, style);
            }
            Y::Seq(items) if !items.is_empty() => {
                out.push_str(&format!("{pad}{k}:\n"));
                let extra = if style.indent_seqs { style.indent } else { 0 };
                emit_seq(out, items, ind + extra, style);
            }
            other => out.push_str(&format!("{pad}{k}: {}\n", scalar_text(other, style))),
        }
    }
}

fn emit_seq(out: &mut String, items: &[Y], ind: usize, style: &Style) {
    let pad = " ".repeat(ind);
    for item in items {
        match item {
            Y::Map(inner) if !inner.is_empty() => {
                // The mapping is written two columns in, then its first
                // line's indentation becomes the `- ` marker.
                let mut body = String::new();
                emit_map(&mut body, inner, ind + 2, style);
                out.push_str(&pad);
                out.push_str("- ");
                out.push_str(&body[ind + 2..]);
            }
            other => out.push_str(&format!("{pad}- {}\n", scalar_text(other, style))),
        }
    }
}

fn scalar_text(node: &Y, style: &Style) -> String {
    match node {
        Y::Lit(t) => t.clone(),
        Y::Str(t) if style.quote_all || needs_quotes(t) => quote(t),
        Y::Str(t) => t.clone(),
        Y::Map(_) => "{}".to_string(),
        Y::Seq(_) => "[]".to_string(),
    }
}

fn quote(t: &str) -> String {
    let mut q = String::with_capacity(t.len() + 2);
    q.push('"');
    for c in t.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Whether a plain scalar would not read back as this string.
fn needs_quotes(t: &str) -> bool {
    const WORDS: [&str; 12] = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "nan", "inf",
    ];
    let Some(first) = t.chars().next() else {
        return true;
    };
    let lower = t.to_ascii_lowercase();
    WORDS.contains(&lower.as_str())
        || first.is_ascii_digit()
        || "-+.?:,[]{}#&*!|>'\"%@` ".contains(first)
        || t.ends_with(' ')
        || t.ends_with(':')
        || t.contains(": ")
        || t.contains(" #")
        || t.contains('\n')
}
