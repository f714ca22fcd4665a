//! Builds the [`Node`] tree of one document from saphyr-parser's event stream.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use saphyr_parser::{Event, Parser, Span, Tag};

use crate::split::check_characters;
use crate::{
    resolve_plain, DocumentSource, Node, NodeKind, Scalar, ScalarStyle, ScalarValue, YamlError,
};

/// Resource limits that keep hostile input bounded in time and memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest input accepted by [`crate::decode_input`], in bytes.
    pub max_input_bytes: usize,
    /// Deepest nesting of collections in one document, alias expansion included.
    pub max_depth: usize,
    /// Most nodes one document may expand to (aliases count the full size of
    /// the anchored node each time they are used; a node counts one plus one
    /// per 64 bytes of its scalar text and tag). Also the least node budget of a
    /// whole file ([`Limits::file_nodes`]).
    pub max_nodes: usize,
    /// Nodes a whole file (or request) may expand to per byte of its text,
    /// all documents together ([`Limits::file_nodes`]).
    pub nodes_per_byte: usize,
    /// Most nodes a whole file (or request) may expand to, however large it
    /// is ([`Limits::file_nodes`]): this caps the memory of the model.
    pub max_file_nodes: usize,
}

impl Default for Limits {
    /// 64 MiB of input, 512 levels of nesting, one million nodes per
    /// document, and a file budget of one node per input byte, at least one
    /// million and at most two million nodes in all.
    fn default() -> Self {
        Limits {
            max_input_bytes: 64 << 20,
            max_depth: 512,
            max_nodes: 1_000_000,
            nodes_per_byte: 1,
            max_file_nodes: 2_000_000,
        }
    }
}

impl Limits {
    /// The node budget of a file (or request) of `bytes` bytes, all its
    /// documents together, aliases expanded:
    /// `min(max_file_nodes, max(max_nodes, nodes_per_byte × bytes))`.
    ///
    /// ```
    /// use svbench_scan::Limits;
    ///
    /// let limits = Limits::default();
    /// assert_eq!(limits.file_nodes(300), 1_000_000);
    /// assert_eq!(limits.file_nodes(1_500_000), 1_500_000);
    /// assert_eq!(limits.file_nodes(40_000_000), 2_000_000);
    /// ```
    #[must_use]
    pub fn file_nodes(&self, bytes: usize) -> usize {
        bytes
            .saturating_mul(self.nodes_per_byte)
            .max(self.max_nodes)
            .min(self.max_file_nodes)
    }
}

/// The nodes a piece of work (one file, or everything one request parses)
/// may still build, shared by every document and every parse that draws
/// from it ([`crate::parse_documents_within`]): the per-document limit alone
/// would let a file of N documents cost N times as much.
///
/// The budget counts nodes built, not nodes alive: a document dropped after
/// use still counts.
///
/// ```
/// use svbench_scan::{parse_documents_within, Limits, NodeBudget, YamlError};
///
/// let limits = Limits::default();
/// let budget = NodeBudget::new(5);
/// let docs = parse_documents_within("a: 1\n---\nb: 2\n", &limits, &budget);
/// assert!(docs[0].result.is_ok()); // 3 nodes
/// assert!(matches!(docs[1].result, Err(YamlError::BudgetExceeded { limit: 5, .. })));
/// assert!(budget.exceeded());
/// ```
#[derive(Debug)]
pub struct NodeBudget {
    limit: usize,
    used: AtomicUsize,
    exceeded: AtomicBool,
}

impl NodeBudget {
    /// A budget of `limit` nodes.
    #[must_use]
    pub fn new(limit: usize) -> NodeBudget {
        NodeBudget {
            limit,
            used: AtomicUsize::new(0),
            exceeded: AtomicBool::new(false),
        }
    }

    /// The budget of an input of `bytes` bytes ([`Limits::file_nodes`]).
    #[must_use]
    pub fn for_input(limits: &Limits, bytes: usize) -> NodeBudget {
        NodeBudget::new(limits.file_nodes(bytes))
    }

    /// The budget's size in nodes.
    #[must_use]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Nodes built so far (at most [`NodeBudget::limit`]).
    #[must_use]
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether some parse was refused for want of budget.
    #[must_use]
    pub fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }

    /// Takes `n` nodes; `false` (and nothing taken) when fewer are left.
    fn take(&self, n: usize) -> bool {
        let taken = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(n).filter(|total| *total <= self.limit)
            })
            .is_ok();
        if !taken {
            self.exceeded.store(true, Ordering::Relaxed);
        }
        taken
    }
}

/// Parses one document (as cut by [`crate::split_documents`]) into a node tree
/// with file line numbers. Only the first YAML document of `src.text` is read,
/// as go-yaml v2's `Unmarshal` does; an empty document is a null scalar.
///
/// The document has the node budget of its own text
/// ([`NodeBudget::for_input`]); [`parse_document_within`] draws from a
/// budget shared with other documents.
///
/// # Errors
/// Any [`YamlError`] but the input-level ones: syntax errors, limits, bad
/// merge keys, non-scalar keys, tag mismatches.
pub fn parse_document(src: &DocumentSource<'_>, limits: &Limits) -> Result<Node, YamlError> {
    parse_document_within(src, limits, &NodeBudget::for_input(limits, src.text.len()))
}

/// [`parse_document`] whose nodes are taken from `budget`.
///
/// # Errors
/// As [`parse_document`]; [`YamlError::BudgetExceeded`] when `budget` runs
/// out.
pub fn parse_document_within(
    src: &DocumentSource<'_>,
    limits: &Limits,
    budget: &NodeBudget,
) -> Result<Node, YamlError> {
    check_characters(src.text, src.first_line)?;
    Builder::new(src.first_line, limits, budget).run(src.text)
}

struct Start {
    line: usize,
    column: usize,
    tag: Option<String>,
    anchor: usize,
    nodes_at_start: usize,
    height: usize,
}

enum Frame {
    Sequence(Start, Vec<Node>),
    Mapping(Start, Vec<(Node, Node)>, Option<Node>),
}

struct Anchored {
    node: Node,
    size: usize,
    height: usize,
}

struct Builder<'l> {
    line_offset: usize,
    limits: &'l Limits,
    budget: &'l NodeBudget,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    nodes: usize,
    stored: usize,
    root: Option<Node>,
}

impl<'l> Builder<'l> {
    fn new(first_line: usize, limits: &'l Limits, budget: &'l NodeBudget) -> Self {
        Builder {
            line_offset: first_line.saturating_sub(1),
            limits,
            budget,
            stack: Vec::new(),
            anchors: HashMap::new(),
            nodes: 0,
            stored: 0,
            root: None,
        }
    }

    fn run(mut self, text: &str) -> Result<Node, YamlError> {
        let mut parser = Parser::new_from_str(text);
        while let Some(event) = parser.next_event() {
            let (event, span) = event.map_err(|e| YamlError::Syntax {
                line: self.line_offset + e.marker().line(),
                column: e.marker().col() + 1,
                message: e.info().to_owned(),
            })?;
            let line = self.line_offset + span.start.line();
            match event {
                Event::DocumentEnd | Event::StreamEnd => {
                    if self.root.is_some() || matches!(event, Event::StreamEnd) {
                        break;
                    }
                }
                Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => {}
                Event::Alias(id) => self.alias(id, line)?,
                Event::Scalar(text, style, anchor, tag) => {
                    // Taken before counting: an anchor's size includes itself.
                    let start = self.start(&span, tag.as_deref(), anchor);
                    self.count(line, weight(&text, start.tag.as_deref()))?;
                    let scalar = scalar(&text, style, start.tag.as_deref(), line)?;
                    let node = Node {
                        kind: NodeKind::Scalar(scalar),
                        line: start.line,
                        column: start.column,
                        tag: start.tag.clone(),
                    };
                    self.finish(node, &start, 0)?;
                }
                Event::SequenceStart(anchor, tag) => {
                    let start = self.start(&span, tag.as_deref(), anchor);
                    self.open(line, weight("", start.tag.as_deref()))?;
                    self.stack.push(Frame::Sequence(start, Vec::new()));
                }
                Event::MappingStart(anchor, tag) => {
                    let start = self.start(&span, tag.as_deref(), anchor);
                    self.open(line, weight("", start.tag.as_deref()))?;
                    self.stack.push(Frame::Mapping(start, Vec::new(), None));
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let (start, kind) = match self.stack.pop() {
                        Some(Frame::Sequence(start, items)) => (start, NodeKind::Sequence(items)),
                        Some(Frame::Mapping(start, pairs, _)) => {
                            (start, NodeKind::Mapping(finish_mapping(pairs)?))
                        }
                        None => {
                            return Err(YamlError::Syntax {
                                line,
                                column: span.start.col() + 1,
                                message: "unbalanced collection end".to_owned(),
                            })
                        }
                    };
                    let node = Node {
                        kind,
                        line: start.line,
                        column: start.column,
                        tag: start.tag.clone(),
                    };
                    let height = start.height + 1;
                    self.finish(node, &start, height)?;
                }
            }
        }
        Ok(self.root.unwrap_or(Node {
            kind: NodeKind::Scalar(Scalar {
                text: String::new(),
                style: ScalarStyle::Plain,
                value: ScalarValue::Null,
            }),
            line: self.line_offset + 1,
            column: 1,
            tag: None,
        }))
    }

    fn start(&self, span: &Span, tag: Option<&Tag>, anchor: usize) -> Start {
        Start {
            line: self.line_offset + span.start.line(),
            column: span.start.col() + 1,
            tag: tag.map(short_tag),
            anchor,
            nodes_at_start: self.nodes,
            height: 0,
        }
    }

    fn count(&mut self, line: usize, n: usize) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > self.limits.max_nodes {
            return Err(YamlError::TooManyNodes {
                line,
                limit: self.limits.max_nodes,
            });
        }
        if !self.budget.take(n) {
            return Err(YamlError::BudgetExceeded {
                line,
                limit: self.budget.limit(),
            });
        }
        Ok(())
    }

    fn open(&mut self, line: usize, weight: usize) -> Result<(), YamlError> {
        if self.stack.len() + 1 > self.limits.max_depth {
            return Err(YamlError::TooDeep {
                line,
                limit: self.limits.max_depth,
            });
        }
        self.count(line, weight)
    }

    fn alias(&mut self, id: usize, line: usize) -> Result<(), YamlError> {
        let Some(anchored) = self.anchors.get(&id) else {
            return Err(YamlError::Syntax {
                line,
                column: 1,
                message: "unknown anchor".to_owned(),
            });
        };
        let (size, height) = (anchored.size, anchored.height);
        if self.stack.len() + height > self.limits.max_depth {
            return Err(YamlError::TooDeep {
                line,
                limit: self.limits.max_depth,
            });
        }
        self.count(line, size)?;
        let node = self.anchors.get(&id).map(|a| a.node.clone());
        if let Some(node) = node {
            self.attach(node, height);
        }
        Ok(())
    }

    /// Records an anchor if the node has one, then attaches it to its parent.
    fn finish(&mut self, node: Node, start: &Start, height: usize) -> Result<(), YamlError> {
        if start.anchor != 0 {
            let size = self.nodes - start.nodes_at_start;
            // The stored copy costs memory too: bound the sum of copies.
            self.stored = self.stored.saturating_add(size);
            if self.stored > self.limits.max_nodes {
                return Err(YamlError::TooManyNodes {
                    line: start.line,
                    limit: self.limits.max_nodes,
                });
            }
            self.anchors.insert(
                start.anchor,
                Anchored {
                    node: node.clone(),
                    size,
                    height,
                },
            );
        }
        self.attach(node, height);
        Ok(())
    }

    fn attach(&mut self, node: Node, height: usize) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Sequence(start, items)) => {
                start.height = start.height.max(height);
                items.push(node);
            }
            Some(Frame::Mapping(start, pairs, key)) => {
                start.height = start.height.max(height);
                match key.take() {
                    None => *key = Some(node),
                    Some(k) => pairs.push((k, node)),
                }
            }
        }
    }
}

/// Bytes of scalar text or tag that count as one more node: a long scalar
/// (or tag) repeated by aliases costs its text each time, not only its node.
const TEXT_BYTES_PER_NODE: usize = 64;

/// What a node counts against the node limits: one, plus one per
/// [`TEXT_BYTES_PER_NODE`] bytes of its scalar text and tag.
fn weight(text: &str, tag: Option<&str>) -> usize {
    1 + (text.len() + tag.map_or(0, str::len)) / TEXT_BYTES_PER_NODE
}

/// `!!str` for the core schema, `!name` for local tags, the full form otherwise.
fn short_tag(tag: &Tag) -> String {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    }
}

fn scalar(
    text: &str,
    style: saphyr_parser::ScalarStyle,
    tag: Option<&str>,
    line: usize,
) -> Result<Scalar, YamlError> {
    use saphyr_parser::ScalarStyle as S;
    let style = match style {
        S::Plain => ScalarStyle::Plain,
        S::SingleQuoted => ScalarStyle::SingleQuoted,
        S::DoubleQuoted => ScalarStyle::DoubleQuoted,
        S::Literal => ScalarStyle::Literal,
        S::Folded => ScalarStyle::Folded,
    };
    let mut text = text.to_owned();
    let value = match tag {
        // Quoted and block scalars without a tag are strings.
        None if style == ScalarStyle::Plain => resolve_plain(&text),
        None => ScalarValue::String,
        Some("!!binary") => {
            let bytes = decode_base64(&text).ok_or(YamlError::InvalidBinary { line })?;
            text = String::from_utf8_lossy(&bytes).into_owned();
            ScalarValue::String
        }
        Some(t @ ("!!bool" | "!!int" | "!!float")) => {
            let resolved = resolve_plain(&text);
            match (t, resolved) {
                ("!!bool", ScalarValue::Bool(_))
                | ("!!int", ScalarValue::Int(_) | ScalarValue::Uint(_))
                | ("!!float", ScalarValue::Float(_)) => resolved,
                #[allow(clippy::cast_precision_loss)]
                ("!!float", ScalarValue::Int(i)) => ScalarValue::Float(i as f64),
                _ => {
                    return Err(YamlError::TagMismatch {
                        line,
                        tag: t.to_owned(),
                        found: tag_name(resolved).to_owned(),
                        text: text.chars().take(80).collect(),
                    })
                }
            }
        }
        // `!!str`, `!!timestamp` (kept as text, as go-yaml v2 does for generic
        // values) and every tag go-yaml v2 does not resolve (`!`, `!!null`,
        // local tags) give strings.
        Some(_) => ScalarValue::String,
    };
    Ok(Scalar { text, style, value })
}

fn tag_name(v: ScalarValue) -> &'static str {
    match v {
        ScalarValue::Null => "!!null",
        ScalarValue::Bool(_) => "!!bool",
        ScalarValue::Int(_) | ScalarValue::Uint(_) => "!!int",
        ScalarValue::Float(_) => "!!float",
        ScalarValue::String => "!!str",
    }
}

/// Standard base64 with padding; line breaks are ignored (Go's decoder drops
/// `\r` and `\n`).
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let symbols: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    if !symbols.len().is_multiple_of(4) {
        return None;
    }
    let value = |b: u8| -> Option<u32> {
        Some(u32::from(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::with_capacity(symbols.len() / 4 * 3);
    let chunks = symbols.chunks(4).count();
    for (i, chunk) in symbols.chunks(4).enumerate() {
        let pad = chunk.iter().rev().take_while(|b| **b == b'=').count();
        if pad > 2 || (pad > 0 && i + 1 != chunks) {
            return None;
        }
        let mut n = 0u32;
        for b in &chunk[..4 - pad] {
            n = (n << 6) | value(*b)?;
        }
        n <<= 6 * pad as u32;
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

#[derive(Hash, PartialEq, Eq)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    Str(String),
}

fn key_id(key: &Node) -> Result<Option<KeyId>, YamlError> {
    let Some(s) = key.as_scalar() else {
        return Err(YamlError::InvalidKey { line: key.line });
    };
    Ok(Some(match s.value {
        ScalarValue::Null => KeyId::Null,
        ScalarValue::Bool(b) => KeyId::Bool(b),
        ScalarValue::Int(i) => KeyId::Int(i128::from(i)),
        ScalarValue::Uint(u) => KeyId::Int(i128::from(u)),
        // NaN never equals itself: every NaN key is distinct, as in a Go map.
        ScalarValue::Float(f) if f.is_nan() => return Ok(None),
        ScalarValue::Float(f) => KeyId::Float(if f == 0.0 { 0 } else { f.to_bits() }),
        ScalarValue::String => KeyId::Str(s.text.clone()),
    }))
}

fn is_merge_key(key: &Node) -> bool {
    match (&key.kind, key.tag.as_deref()) {
        (NodeKind::Scalar(s), None) => s.style == ScalarStyle::Plain && s.text == "<<",
        (NodeKind::Scalar(s), Some("!!merge")) => s.text == "<<",
        _ => false,
    }
}

/// Applies merge keys and duplicate keys as go-yaml v2 decodes into a map:
/// pairs are set in document order, a `<<` merge sets the merged pairs at its
/// place (for a sequence of mappings, the last first so that earlier ones
/// win), and a later key replaces an earlier equal one.
fn finish_mapping(raw: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, YamlError> {
    let mut out: Vec<(Node, Node)> = Vec::with_capacity(raw.len());
    let mut index: HashMap<KeyId, usize> = HashMap::with_capacity(raw.len());
    let mut insert = |k: Node, v: Node| -> Result<(), YamlError> {
        match key_id(&k)? {
            None => out.push((k, v)),
            Some(id) => match index.get(&id) {
                Some(&i) => out[i] = (k, v),
                None => {
                    index.insert(id, out.len());
                    out.push((k, v));
                }
            },
        }
        Ok(())
    };
    for (k, v) in raw {
        if !is_merge_key(&k) {
            insert(k, v)?;
            continue;
        }
        match v.kind {
            NodeKind::Mapping(pairs) => {
                for (k2, v2) in pairs {
                    insert(k2, v2)?;
                }
            }
            NodeKind::Sequence(items) => {
                for item in items.into_iter().rev() {
                    match item.kind {
                        NodeKind::Mapping(pairs) => {
                            for (k2, v2) in pairs {
                                insert(k2, v2)?;
                            }
                        }
                        _ => return Err(YamlError::MergeNotMapping { line: item.line }),
                    }
                }
            }
            NodeKind::Scalar(_) => return Err(YamlError::MergeNotMapping { line: v.line }),
        }
    }
    Ok(out)
}
