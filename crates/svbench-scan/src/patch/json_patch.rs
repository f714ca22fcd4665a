//! RFC 6902 JSON Patch on the YAML documents of a Kubernetes file (spec E2
//! §4.2). Documents are read as JSON under the project's YAML 1.1
//! resolution; in a multi-document file every path starts with
//! `/<doc_index>`; in a single-document file paths address the document,
//! and a leading `/0` is read as the selector when the document has no key
//! `"0"`. All six operations; the patch is atomic. The result is re-emitted
//! by [`super::yaml_emit`] (comments and null documents are dropped).
//!
//! **Size bounds.** Every operation is charged, before its result is built,
//! for the bytes the value it places will emit at its place (indentation
//! included) and for its JSON nodes, less what it replaces; the running
//! totals may not pass [`super::max_patched_bytes`] of the original's
//! emitted size (at most twice its text: aliases expanded on emission do not
//! raise the bound), twice its nodes plus [`super::GROWTH_NODES`], nor place
//! values deeper than the YAML reader's depth limit; at most
//! [`super::MAX_OPS`] operations. Past a bound the patch is `too_large` and
//! nothing is applied: a `copy` of a parent into its own child, repeated,
//! stops after a few doublings instead of exhausting memory.

use serde_json::{Map, Value};

use super::{
    budget_failure, max_patched_bytes, yaml_emit, PatchFailure, PatchStatus, PatchStop,
    GROWTH_NODES, MAX_OPS, WORK_FACTOR,
};
use crate::scan::FileType;
use crate::{budget_error, parse_documents_within, Deadline, Limits, NodeBudget};

/// A JSON Patch operation as parsed and validated.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `add` `value` at `path`.
    Add { path: String, value: Value },
    /// `remove` the value at `path`.
    Remove { path: String },
    /// `replace` the value at `path` by `value`.
    Replace { path: String, value: Value },
    /// `move` the value at `from` to `path`.
    Move { from: String, path: String },
    /// `copy` the value at `from` to `path`.
    Copy { from: String, path: String },
    /// `test` that the value at `path` equals `value`.
    Test { path: String, value: Value },
}

impl Op {
    fn describe(&self) -> String {
        match self {
            Op::Add { path, .. } => format!("add {path:?}"),
            Op::Remove { path } => format!("remove {path:?}"),
            Op::Replace { path, .. } => format!("replace {path:?}"),
            Op::Move { from, path } => format!("move {from:?} → {path:?}"),
            Op::Copy { from, path } => format!("copy {from:?} → {path:?}"),
            Op::Test { path, .. } => format!("test {path:?}"),
        }
    }
}

/// The operations if `text` is a JSON Patch: it starts with `[` (after
/// leading whitespace) and parses as a JSON array of objects that all have
/// an `op` member. `None` means the text is to be read as a unified diff.
#[must_use]
pub fn detect(text: &str) -> Option<Vec<Map<String, Value>>> {
    let t = text.trim();
    if !t.starts_with('[') {
        return None;
    }
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(t) else {
        return None;
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::Object(m) if m.contains_key("op") => Some(m),
            _ => None,
        })
        .collect()
}

fn malformed(i: usize, what: impl std::fmt::Display) -> PatchFailure {
    PatchFailure::new(PatchStatus::Malformed, format!("operation {i}: {what}"))
}

/// Validates the members of each operation object.
///
/// # Errors
/// `malformed` for an unknown `op`, a missing or non-string `path`/`from`,
/// a missing `value`, or a pointer that is not RFC 6901 syntax.
pub fn parse_ops(raw: &[Map<String, Value>]) -> Result<Vec<Op>, PatchFailure> {
    raw.iter()
        .enumerate()
        .map(|(i, m)| {
            let string = |key: &str| -> Result<String, PatchFailure> {
                match m.get(key) {
                    Some(Value::String(s)) => {
                        parse_pointer(s).map_err(|e| malformed(i, format!("{key} {s:?}: {e}")))?;
                        Ok(s.clone())
                    }
                    Some(_) => Err(malformed(i, format!("`{key}` is not a string"))),
                    None => Err(malformed(i, format!("missing `{key}`"))),
                }
            };
            let value = || -> Result<Value, PatchFailure> {
                m.get("value")
                    .cloned()
                    .ok_or_else(|| malformed(i, "missing `value`"))
            };
            let op = match m.get("op") {
                Some(Value::String(op)) => op.as_str(),
                _ => return Err(malformed(i, "`op` is not a string")),
            };
            Ok(match op {
                "add" => Op::Add {
                    path: string("path")?,
                    value: value()?,
                },
                "remove" => Op::Remove {
                    path: string("path")?,
                },
                "replace" => Op::Replace {
                    path: string("path")?,
                    value: value()?,
                },
                "move" => Op::Move {
                    from: string("from")?,
                    path: string("path")?,
                },
                "copy" => Op::Copy {
                    from: string("from")?,
                    path: string("path")?,
                },
                "test" => Op::Test {
                    path: string("path")?,
                    value: value()?,
                },
                other => {
                    return Err(malformed(
                        i,
                        format!("unknown op {other:?} (add, remove, replace, move, copy, test)"),
                    ))
                }
            })
        })
        .collect()
}

/// Why a text is not an RFC 6901 JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointerError {
    /// Neither empty nor starting with `/`.
    #[error("a JSON Pointer must be empty or start with `/`")]
    NoLeadingSlash,
    /// A token holds a `~` not followed by `0` or `1`.
    #[error("bad escape in token {0:?} (only ~0 and ~1)")]
    BadEscape(String),
}

/// Splits an RFC 6901 pointer into unescaped reference tokens.
///
/// # Errors
/// When the pointer is neither empty nor starts with `/`, or holds a `~`
/// not followed by `0` or `1`.
pub fn parse_pointer(pointer: &str) -> Result<Vec<String>, PointerError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(PointerError::NoLeadingSlash);
    };
    rest.split('/')
        .map(|tok| {
            let mut out = String::with_capacity(tok.len());
            let mut chars = tok.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => return Err(PointerError::BadEscape(tok.to_owned())),
                    }
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .collect()
}

/// Applies the operations to the documents of `original` and re-emits the
/// file.
///
/// # Errors
/// `unsupported` for Terraform, `malformed` for bad operation objects,
/// `apply_failed` when the original cannot be read as JSON documents or an
/// operation fails (nothing is applied then).
pub fn apply(
    original: &str,
    raw: &[Map<String, Value>],
    file_type: FileType,
) -> Result<String, PatchFailure> {
    let nodes = NodeBudget::for_input(&Limits::default(), original.len());
    apply_within(original, raw, file_type, &Deadline::NONE, &nodes).map_err(PatchStop::into_failure)
}

/// [`apply`] that stops by `deadline` (checked before each operation) and
/// reads the original's documents from `nodes` (`too_large` when it runs
/// out).
///
/// # Errors
/// As [`apply`]; [`PatchStop::TimeBudget`] when `deadline` passed.
pub fn apply_within(
    original: &str,
    raw: &[Map<String, Value>],
    file_type: FileType,
    deadline: &Deadline,
    nodes: &NodeBudget,
) -> Result<String, PatchStop> {
    if file_type == FileType::Tf {
        return Err(PatchStop::Failed(PatchFailure::new(
            PatchStatus::Unsupported,
            "JSON Patch applies to Kubernetes YAML only; use a unified diff for Terraform",
        )));
    }
    if raw.len() > MAX_OPS {
        return Err(PatchStop::Failed(PatchFailure::new(
            PatchStatus::TooLarge,
            format!(
                "the patch has {} operations, more than the limit of {MAX_OPS}",
                raw.len()
            ),
        )));
    }
    let ops = parse_ops(raw)?;
    let mut docs = read_documents(original, nodes)?;
    let mut budget = Budget::for_original(&docs, original.len());
    for (i, op) in ops.iter().enumerate() {
        deadline.check()?;
        apply_op(&mut docs, op, &mut budget).map_err(|e| {
            let (status, why) = match e {
                OpError::Failed(why) => (PatchStatus::ApplyFailed, why),
                OpError::TooLarge(why) => (PatchStatus::TooLarge, why),
            };
            PatchFailure::new(
                status,
                format!(
                    "operation {i} ({}): {why}; no operation was applied",
                    op.describe()
                ),
            )
        })?;
    }
    let kept: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
    Ok(yaml_emit::emit_documents(&kept))
}

/// Why an operation did not apply.
enum OpError {
    /// RFC 6902 failure: missing target, bad index, failed `test`, …
    Failed(String),
    /// A size bound would be passed (module docs).
    TooLarge(String),
}

impl From<String> for OpError {
    fn from(why: String) -> Self {
        OpError::Failed(why)
    }
}

/// The running size of the documents and the bounds on it (module docs).
#[derive(Debug)]
struct Budget {
    /// Emitted bytes of the documents as they stand (an estimate exact up
    /// to a few bytes per operation: an emptied or filled collection
    /// switches between `{}` and block form).
    bytes: usize,
    max_bytes: usize,
    /// JSON values in the documents.
    nodes: usize,
    max_nodes: usize,
    /// Bytes placed by the operations so far.
    work: usize,
    max_work: usize,
}

impl Budget {
    /// The bounds for an original of `text_len` bytes whose documents are
    /// `docs`: the size bound is taken from the text, not from the
    /// documents as emitted, which aliases can make far larger.
    fn for_original(docs: &[Value], text_len: usize) -> Budget {
        let bytes = yaml_emit::documents_len(docs);
        let nodes = docs
            .iter()
            .fold(0usize, |n, d| n.saturating_add(shape(d).nodes));
        let max_bytes = max_patched_bytes(bytes.min(text_len.saturating_mul(2)));
        Budget {
            bytes,
            max_bytes,
            nodes,
            max_nodes: nodes.saturating_mul(2).saturating_add(GROWTH_NODES),
            work: 0,
            max_work: max_bytes.saturating_mul(WORK_FACTOR),
        }
    }

    /// Charges placing a value of `placed` bytes and `added` shape at
    /// `depth` (pointer tokens to it), in place of `freed` bytes and
    /// `freed_nodes` nodes; refuses, changing nothing, past a bound.
    fn charge(
        &mut self,
        placed: usize,
        added: Shape,
        depth: usize,
        freed: usize,
        freed_nodes: usize,
    ) -> Result<(), OpError> {
        let max_depth = Limits::default().max_depth;
        let deepest = depth.saturating_add(added.depth);
        if deepest > max_depth {
            return Err(OpError::TooLarge(format!(
                "the value would nest {deepest} levels deep, more than the limit of {max_depth}"
            )));
        }
        let bytes = self.bytes.saturating_add(placed).saturating_sub(freed);
        if bytes > self.max_bytes {
            return Err(OpError::TooLarge(format!(
                "the patched file would be about {bytes} bytes, more than the limit of {} (twice the original plus 256 KiB)",
                self.max_bytes
            )));
        }
        let nodes = self
            .nodes
            .saturating_add(added.nodes)
            .saturating_sub(freed_nodes);
        if nodes > self.max_nodes {
            return Err(OpError::TooLarge(format!(
                "the patched file would hold {nodes} values, more than the limit of {}",
                self.max_nodes
            )));
        }
        let work = self.work.saturating_add(placed);
        if work > self.max_work {
            return Err(OpError::TooLarge(format!(
                "the operations would place {work} bytes in all, more than the limit of {}",
                self.max_work
            )));
        }
        self.bytes = bytes;
        self.nodes = nodes;
        self.work = work;
        Ok(())
    }

    /// Credits a removal of `bytes` and `nodes` (never refused).
    fn free(&mut self, bytes: usize, nodes: usize) {
        self.bytes = self.bytes.saturating_sub(bytes);
        self.nodes = self.nodes.saturating_sub(nodes);
    }
}

/// A value's node count and nesting depth (a scalar is 1 node, depth 0).
#[derive(Debug, Clone, Copy, Default)]
struct Shape {
    nodes: usize,
    depth: usize,
}

fn shape(v: &Value) -> Shape {
    fn fold<'a>(children: impl Iterator<Item = &'a Value>) -> Shape {
        children.fold(Shape { nodes: 1, depth: 1 }, |acc, c| {
            let s = shape(c);
            Shape {
                nodes: acc.nodes.saturating_add(s.nodes),
                depth: acc.depth.max(s.depth + 1),
            }
        })
    }
    match v {
        Value::Array(a) => fold(a.iter()),
        Value::Object(m) => fold(m.values()),
        _ => Shape { nodes: 1, depth: 0 },
    }
}

/// The bytes `value` emits when placed at `tokens` in `doc`: a document,
/// an object member or an array item, indented two spaces per level.
/// `None` when the parent does not exist (the operation fails anyway).
fn placed_len(doc: &Value, tokens: &[String], value: &Value) -> Option<usize> {
    let Some((last, parent_path)) = tokens.split_last() else {
        return Some(yaml_emit::block_len(value, 0));
    };
    let indent = 2 * parent_path.len();
    match get(doc, parent_path).ok()? {
        Value::Object(_) => Some(yaml_emit::entry_len(last, value, indent)),
        Value::Array(_) => Some(yaml_emit::item_len(value, indent)),
        _ => None,
    }
}

/// What an `add` (or `move`/`copy`) at `tokens` replaces: the document,
/// or an existing object member, with its emitted bytes there and nodes.
fn displaced(doc: &Value, tokens: &[String]) -> (usize, usize) {
    let existing = match tokens.split_last() {
        None => Some(doc),
        Some((last, parent_path)) => match get(doc, parent_path) {
            Ok(Value::Object(m)) => m.get(last),
            _ => None,
        },
    };
    existing.map_or((0, 0), |v| {
        (placed_len(doc, tokens, v).unwrap_or(0), shape(v).nodes)
    })
}

/// Charges placing `value` at `tokens` of `doc` (module docs).
fn charge_place(
    budget: &mut Budget,
    doc: &Value,
    tokens: &[String],
    value: &Value,
) -> Result<(), OpError> {
    let placed = placed_len(doc, tokens, value).unwrap_or(0);
    let (freed, freed_nodes) = displaced(doc, tokens);
    budget.charge(placed, shape(value), tokens.len(), freed, freed_nodes)
}

/// The file's documents as JSON values, in `doc_index` order, read from
/// `nodes`.
fn read_documents(original: &str, nodes: &NodeBudget) -> Result<Vec<Value>, PatchFailure> {
    let limits = Limits::default();
    let docs = parse_documents_within(original, &limits, nodes);
    if budget_error(&docs).is_some() {
        return Err(budget_failure("original", nodes));
    }
    docs.into_iter()
        .map(|d| {
            let which = d
                .doc_index
                .map_or_else(|| "the file".to_owned(), |i| format!("document {i}"));
            let node = d.result.map_err(|e| {
                PatchFailure::new(
                    PatchStatus::ApplyFailed,
                    format!("{which} of the original is not valid YAML ({e}); a JSON Patch needs every document"),
                )
            })?;
            node.to_json().map_err(|e| {
                PatchFailure::new(
                    PatchStatus::ApplyFailed,
                    format!("{which} of the original cannot be read as JSON ({e})"),
                )
            })
        })
        .collect()
}

/// A path resolved to a document and a pointer inside it.
struct Target {
    doc: usize,
    tokens: Vec<String>,
}

fn resolve(docs: &[Value], path: &str) -> Result<Target, String> {
    let tokens = parse_pointer(path).map_err(|e| e.to_string())?;
    match docs.len() {
        0 => Err("the file has no documents".to_owned()),
        1 => {
            let has_zero_key = docs[0].as_object().is_some_and(|m| m.contains_key("0"));
            if tokens.first().map(String::as_str) == Some("0") && !has_zero_key {
                Ok(Target {
                    doc: 0,
                    tokens: tokens[1..].to_vec(),
                })
            } else {
                Ok(Target { doc: 0, tokens })
            }
        }
        n => {
            let Some(first) = tokens.first() else {
                return Err(format!(
                    "the file has {n} documents: the path must start with /<doc_index>"
                ));
            };
            let Some(doc) = array_index(first).filter(|d| *d < n) else {
                return Err(format!(
                    "the file has {n} documents: {first:?} is not a document index 0..{}",
                    n - 1
                ));
            };
            Ok(Target {
                doc,
                tokens: tokens[1..].to_vec(),
            })
        }
    }
}

/// An RFC 6901 array index: `0` or digits without a leading zero.
fn array_index(tok: &str) -> Option<usize> {
    if tok.is_empty()
        || tok.len() > 18
        || !tok.bytes().all(|b| b.is_ascii_digit())
        || (tok.len() > 1 && tok.starts_with('0'))
    {
        return None;
    }
    tok.parse().ok()
}

fn display(tokens: &[String]) -> String {
    if tokens.is_empty() {
        return "the document root".to_owned();
    }
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

fn get<'v>(value: &'v Value, tokens: &[String]) -> Result<&'v Value, String> {
    let mut cur = value;
    for (i, tok) in tokens.iter().enumerate() {
        let next = match cur {
            Value::Object(m) => m.get(tok),
            Value::Array(a) => array_index(tok).and_then(|k| a.get(k)),
            _ => None,
        };
        cur = next.ok_or_else(|| format!("{} does not exist", display(&tokens[..=i])))?;
    }
    Ok(cur)
}

fn get_mut<'v>(value: &'v mut Value, tokens: &[String]) -> Result<&'v mut Value, String> {
    let mut cur = value;
    for (i, tok) in tokens.iter().enumerate() {
        let next = match cur {
            Value::Object(m) => m.get_mut(tok),
            Value::Array(a) => array_index(tok).and_then(|k| a.get_mut(k)),
            _ => None,
        };
        cur = next.ok_or_else(|| format!("{} does not exist", display(&tokens[..=i])))?;
    }
    Ok(cur)
}

fn add(doc: &mut Value, tokens: &[String], value: Value) -> Result<(), String> {
    let Some((last, parent_path)) = tokens.split_last() else {
        *doc = value;
        return Ok(());
    };
    let parent = get_mut(doc, parent_path)?;
    match parent {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" {
                a.push(value);
                return Ok(());
            }
            match array_index(last) {
                Some(k) if k <= a.len() => {
                    a.insert(k, value);
                    Ok(())
                }
                _ => Err(format!(
                    "{} is not an index 0..={} or `-` of the array",
                    display(tokens),
                    a.len()
                )),
            }
        }
        _ => Err(format!(
            "{} is not an object or array",
            display(parent_path)
        )),
    }
}

fn remove(doc: &mut Value, tokens: &[String]) -> Result<Value, String> {
    let Some((last, parent_path)) = tokens.split_last() else {
        return Err("cannot remove a whole document".to_owned());
    };
    let parent = get_mut(doc, parent_path)?;
    let removed = match parent {
        Value::Object(m) => m.shift_remove(last),
        Value::Array(a) => match array_index(last) {
            Some(k) if k < a.len() => Some(a.remove(k)),
            _ => None,
        },
        _ => None,
    };
    removed.ok_or_else(|| format!("{} does not exist", display(tokens)))
}

/// JSON equality with numbers compared by value (RFC 6902 `test`).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn apply_op(docs: &mut [Value], op: &Op, budget: &mut Budget) -> Result<(), OpError> {
    match op {
        Op::Add { path, value } => {
            let t = resolve(docs, path)?;
            charge_place(budget, &docs[t.doc], &t.tokens, value)?;
            Ok(add(&mut docs[t.doc], &t.tokens, value.clone())?)
        }
        Op::Remove { path } => {
            let t = resolve(docs, path)?;
            let doc = &mut docs[t.doc];
            let (bytes, nodes) = displaced_any(doc, &t.tokens);
            remove(doc, &t.tokens)?;
            budget.free(bytes, nodes);
            Ok(())
        }
        Op::Replace { path, value } => {
            let t = resolve(docs, path)?;
            get(&docs[t.doc], &t.tokens)?;
            let (freed, freed_nodes) = displaced_any(&docs[t.doc], &t.tokens);
            let placed = placed_len(&docs[t.doc], &t.tokens, value).unwrap_or(0);
            budget.charge(placed, shape(value), t.tokens.len(), freed, freed_nodes)?;
            let target = get_mut(&mut docs[t.doc], &t.tokens)?;
            *target = value.clone();
            Ok(())
        }
        Op::Move { from, path } => {
            let f = resolve(docs, from)?;
            let t = resolve(docs, path)?;
            same_document(&f, &t)?;
            if f.tokens == t.tokens {
                return Ok(get(&docs[f.doc], &f.tokens).map(drop)?);
            }
            if t.tokens.len() > f.tokens.len() && t.tokens.starts_with(&f.tokens) {
                return Err(OpError::Failed(
                    "cannot move a value into one of its own children".to_owned(),
                ));
            }
            // Moving changes the value's indentation, so it is charged at
            // its new place and credited at its old one.
            let doc = &mut docs[f.doc];
            let (old_bytes, nodes) = displaced_any(doc, &f.tokens);
            let value = remove(doc, &f.tokens)?;
            budget.free(old_bytes, nodes);
            charge_place(budget, doc, &t.tokens, &value)?;
            Ok(add(doc, &t.tokens, value)?)
        }
        Op::Copy { from, path } => {
            let f = resolve(docs, from)?;
            let t = resolve(docs, path)?;
            same_document(&f, &t)?;
            let doc = &mut docs[f.doc];
            let source = get(doc, &f.tokens)?;
            // Charged before the clone: the copy is the one operation that
            // can double a document.
            charge_place(budget, doc, &t.tokens, source)?;
            let value = source.clone();
            Ok(add(doc, &t.tokens, value)?)
        }
        Op::Test { path, value } => {
            let t = resolve(docs, path)?;
            let actual = get(&docs[t.doc], &t.tokens)?;
            if json_equal(actual, value) {
                Ok(())
            } else {
                Err(OpError::Failed(format!(
                    "test failed: {} is {}, not {}",
                    display(&t.tokens),
                    short_json(actual),
                    short_json(value)
                )))
            }
        }
    }
}

/// The emitted bytes and nodes of the value at `tokens` (an object member,
/// an array item or the document), `(0, 0)` when there is none.
fn displaced_any(doc: &Value, tokens: &[String]) -> (usize, usize) {
    match get(doc, tokens) {
        Ok(v) => (placed_len(doc, tokens, v).unwrap_or(0), shape(v).nodes),
        Err(_) => (0, 0),
    }
}

fn same_document(from: &Target, to: &Target) -> Result<(), String> {
    if from.doc == to.doc {
        Ok(())
    } else {
        Err(format!(
            "`from` is in document {} and `path` in document {}: move/copy must stay within one document",
            from.doc, to.doc
        ))
    }
}

fn short_json(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(80).collect();
        format!("{cut}…")
    } else {
        s
    }
}
