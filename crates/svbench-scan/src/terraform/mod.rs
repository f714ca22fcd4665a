//! Terraform files in the canonical shape the Rego policies read (spec E2 §1.7,
//! "Input, Terraform").
//!
//! A `.tf` file is parsed with `hcl-edit` (the parser behind `hcl-rs`, used
//! directly for its byte spans) into one [`TfBlock`] per `resource` and
//! `variable` block. In a block's `config`:
//!
//! - literals, and what the evaluator of `eval.rs` computes (templates,
//!   locals, variable defaults, other resources' arguments, the common pure
//!   functions), are JSON values; array and object constructors are
//!   converted element by element;
//! - nested blocks are always arrays of objects under the block name; a
//!   labelled nested block nests its body under its labels
//!   (`dynamic "ingress" {…}` → `"dynamic": [{"ingress": {…}}]`);
//! - **project extension:** a `dynamic "NAME"` block whose `for_each`
//!   evaluates is also expanded into the `NAME` blocks Terraform generates
//!   (see `expand_dynamic`);
//! - other expressions become `{"expr": "<source text>", "refs": [...]}`,
//!   with `"unknown": true` when the file fixes the value but the evaluator
//!   cannot compute it (policies judge such a value at its worst).
//!
//! **Project extension: data sources.** `data "TYPE" "NAME" { … }` blocks are
//! parsed the same way into [`TfModule::data_sources`] (address
//! `data.TYPE.NAME`) and appear in the module view under a `"data"` key,
//! `{"data.aws_iam_policy_document.x": config}`, so that a policy evaluating a
//! resource can read the data source it refers to (TF_008 reads
//! `aws_iam_policy_document` statements). Data blocks are not evaluated on
//! their own: policies still run once per `resource` and `variable` block.
//!
//! **Project extension: the index.** The module view's `"index"` holds the
//! cross-block lookups the built-in policies need (which addresses a
//! reference names, which resources name a bucket), computed once per file
//! so that a policy reads them by key instead of walking every block from
//! every block (quadratic; see `index.rs` for the three maps).
//!
//! **Lines.** Every block keeps a map from JSON Pointers into its `config` to
//! 1-based lines ([`TfBlock::lines`]): each argument (the line of its name),
//! each element and key of a literal array/object constructor, and each nested
//! block (the line of its keyword). [`TfBlock::line_of`] turns a deny
//! element's `path` into a line by its longest recorded prefix.
//!
//! Other top-level blocks (`provider`, `locals`, `output`, `module`,
//! `terraform`) are parsed for syntax but not returned.
//!
//! ```
//! use svbench_scan::terraform::parse_module;
//!
//! let module = parse_module("resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"logs\"\n}\n").unwrap();
//! assert_eq!(module.blocks[0].address, "aws_s3_bucket.b");
//! assert_eq!(module.blocks[0].config["bucket"], "logs");
//! ```

mod cidr;
mod eval;
mod expr;
mod index;
mod jsonencode;

pub use eval::{
    EvalBudgetExceeded, EVAL_UNITS_PER_BYTE, MAX_EVAL_DEPTH, MAX_VALUE_DEPTH, MIN_EVAL_UNITS,
};

use std::collections::BTreeMap;

use hcl_edit::structure::{Block, Body, Structure};
use hcl_edit::Span;
use serde_json::{json, Map, Value};

use crate::{Deadline, TimeBudgetExceeded};

/// Largest `.tf` file accepted, in bytes; larger files are an error, not a scan.
pub const MAX_TF_BYTES: usize = 4 * 1024 * 1024;

/// Why a Terraform file could not be turned into blocks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TfError {
    /// The file is not valid HCL.
    #[error("HCL syntax error at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// The file is larger than [`MAX_TF_BYTES`].
    #[error("file is {len} bytes, more than the {max}-byte limit for Terraform files")]
    TooLarge {
        /// Size of the file.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A `resource` or `variable` block has the wrong number of labels.
    #[error("line {line}: {message}")]
    InvalidBlock {
        /// 1-based line of the block.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Evaluating the file's expressions (locals, functions, `dynamic`
    /// blocks…) needed more work than the file's size allows.
    #[error(transparent)]
    EvaluationBudget(#[from] EvalBudgetExceeded),
    /// Two blocks declare the same address, or a body sets an argument twice.
    #[error("line {line}: duplicate {what} `{name}`")]
    Duplicate {
        /// 1-based line of the second declaration.
        line: usize,
        /// `resource`, `variable` or `argument`.
        what: &'static str,
        /// The address or argument name.
        name: String,
    },
}

impl TfError {
    /// The 1-based line the error refers to, when known.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            TfError::Syntax { line, .. }
            | TfError::InvalidBlock { line, .. }
            | TfError::Duplicate { line, .. } => Some(*line),
            TfError::TooLarge { .. } | TfError::EvaluationBudget(_) => None,
        }
    }
}

/// Which kind of top-level block a [`TfBlock`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TfBlockType {
    /// `resource "TYPE" "NAME" { … }`.
    Resource,
    /// `variable "NAME" { … }`.
    Variable,
    /// `data "TYPE" "NAME" { … }` (project extension: read through the module
    /// view, never evaluated on its own).
    Data,
}

impl TfBlockType {
    /// The keyword as written in HCL and in the policy input.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TfBlockType::Resource => "resource",
            TfBlockType::Variable => "variable",
            TfBlockType::Data => "data",
        }
    }
}

/// One `resource`, `variable` or `data` block in canonical form.
#[derive(Debug, Clone, PartialEq)]
pub struct TfBlock {
    /// Resource or variable.
    pub block_type: TfBlockType,
    /// The resource type (`aws_s3_bucket`); `None` for variables.
    pub r#type: Option<String>,
    /// The block's name label.
    pub name: String,
    /// `aws_s3_bucket.b` for resources, `var.x` for variables,
    /// `data.aws_iam_policy_document.d` for data sources.
    pub address: String,
    /// 1-based line of the block keyword.
    pub line: usize,
    /// The block body as canonical JSON (an object).
    pub config: Value,
    /// JSON Pointer into `config` → 1-based line, for every argument, nested
    /// block and literal array element / object key (see the module docs).
    pub lines: BTreeMap<String, usize>,
}

impl TfBlock {
    /// The block as the policy input's `block` (`B` in the spec).
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({
            "block_type": self.block_type.as_str(),
            "type": self.r#type,
            "name": self.name,
            "address": self.address,
            "line": self.line,
            "config": self.config,
        })
    }

    /// The line of the JSON Pointer `pointer` into `config`: the line of its
    /// longest prefix that was recorded, else the block's own line.
    #[must_use]
    pub fn line_of(&self, pointer: &str) -> usize {
        let mut current = pointer;
        loop {
            if let Some(line) = self.lines.get(current) {
                return *line;
            }
            match current.rfind('/') {
                Some(i) => current = &current[..i],
                None => return self.line,
            }
        }
    }
}

/// All `resource` and `variable` blocks of one file, in source order, and
/// its `data` blocks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TfModule {
    /// The resource and variable blocks in source order: one policy
    /// evaluation each.
    pub blocks: Vec<TfBlock>,
    /// The `data` blocks in source order (project extension, see the module
    /// docs): only visible to policies through the module view.
    pub data_sources: Vec<TfBlock>,
}

impl TfModule {
    /// The module view `M = {"resources": {address: config}, "variables":
    /// {name: config}, "data": {address: config}, "index": {…}}` (`data` and
    /// `index` are the project extensions of the module docs).
    #[must_use]
    pub fn module_view(&self) -> Value {
        match self.module_view_within(&Deadline::NONE) {
            Ok(view) => view,
            Err(e) => unreachable!("no deadline, yet {e}"),
        }
    }

    /// [`TfModule::module_view`], stopping when `deadline` passes.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] once `deadline` has passed.
    pub fn module_view_within(&self, deadline: &Deadline) -> Result<Value, TimeBudgetExceeded> {
        let mut resources = Map::new();
        let mut variables = Map::new();
        let mut data = Map::new();
        for block in self.blocks.iter().chain(&self.data_sources) {
            let (map, key) = match block.block_type {
                TfBlockType::Resource => (&mut resources, &block.address),
                TfBlockType::Variable => (&mut variables, &block.name),
                TfBlockType::Data => (&mut data, &block.address),
            };
            map.insert(key.clone(), block.config.clone());
        }
        let index = index::build(self.blocks.iter().chain(&self.data_sources), deadline)?;
        Ok(json!({"resources": resources, "variables": variables, "data": data, "index": index}))
    }

    /// One policy input per block: `{"block": B, "file": file, "module": M}`.
    #[must_use]
    pub fn policy_inputs(&self, file: &str) -> Vec<Value> {
        let module = self.module_view();
        self.blocks
            .iter()
            .map(|b| json!({"block": b.to_json(), "file": file, "module": module}))
            .collect()
    }
}

/// Parses the text of a `.tf` file into its resource, variable and data blocks.
///
/// # Errors
///
/// [`TfError`] for invalid HCL, an oversized file, a malformed block header,
/// duplicate addresses or arguments, or expressions whose evaluation needs
/// more than the file's budget ([`EVAL_UNITS_PER_BYTE`] per byte). Never
/// panics on input: the parser bounds nesting depth itself.
pub fn parse_module(text: &str) -> Result<TfModule, TfError> {
    if text.len() > MAX_TF_BYTES {
        return Err(TfError::TooLarge {
            len: text.len(),
            max: MAX_TF_BYTES,
        });
    }
    let body = hcl_edit::parser::parse_body(text).map_err(|e| TfError::Syntax {
        line: e.location().line(),
        column: e.location().column(),
        message: e.message().to_owned(),
    })?;
    let lines = LineIndex::new(text);
    let ev = eval::Evaluator::new(&body, text.len());
    let cx = Cx {
        src: text,
        lines: &lines,
        ev: &ev,
    };
    let mut module = TfModule::default();
    for block in body.blocks() {
        let line = lines.line_of(block.ident.span());
        let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
        let (block_type, r#type, name, address) = match block.ident.as_str() {
            "resource" => {
                let [ty, name] = labels[..] else {
                    return Err(invalid(
                        line,
                        "resource",
                        "two labels (type and name)",
                        labels.len(),
                    ));
                };
                (
                    TfBlockType::Resource,
                    Some(ty.to_owned()),
                    name.to_owned(),
                    format!("{ty}.{name}"),
                )
            }
            "variable" => {
                let [name] = labels[..] else {
                    return Err(invalid(
                        line,
                        "variable",
                        "one label (the name)",
                        labels.len(),
                    ));
                };
                (
                    TfBlockType::Variable,
                    None,
                    name.to_owned(),
                    format!("var.{name}"),
                )
            }
            "data" => {
                let [ty, name] = labels[..] else {
                    return Err(invalid(
                        line,
                        "data",
                        "two labels (type and name)",
                        labels.len(),
                    ));
                };
                (
                    TfBlockType::Data,
                    Some(ty.to_owned()),
                    name.to_owned(),
                    format!("data.{ty}.{name}"),
                )
            }
            _ => continue,
        };
        let known = module.blocks.iter().chain(&module.data_sources);
        if known.clone().any(|b| b.address == address) {
            return Err(TfError::Duplicate {
                line,
                what: block_type.as_str(),
                name: address,
            });
        }
        let mut block_lines = BTreeMap::new();
        let config = Value::Object(body_json(&block.body, &cx, "", &mut block_lines)?);
        let parsed = TfBlock {
            block_type,
            r#type,
            name,
            address,
            line,
            config,
            lines: block_lines,
        };
        match block_type {
            TfBlockType::Data => module.data_sources.push(parsed),
            _ => module.blocks.push(parsed),
        }
    }
    Ok(module)
}

fn invalid(line: usize, keyword: &str, wanted: &str, got: usize) -> TfError {
    TfError::InvalidBlock {
        line,
        message: format!("a {keyword} block needs {wanted}, found {got} label(s)"),
    }
}

/// What converting a body needs: the file's text, its lines and the
/// evaluator of its expressions.
struct Cx<'a> {
    src: &'a str,
    lines: &'a LineIndex,
    ev: &'a eval::Evaluator<'a>,
}

/// `body` as a JSON object; the lines of its parts are recorded in `out`
/// under `prefix` (the body's JSON Pointer).
///
/// A `dynamic "NAME"` block is kept as written under `"dynamic"` and also
/// expanded into the `NAME` blocks Terraform would generate when its
/// `for_each` evaluates (see [`expand_dynamic`]).
fn body_json(
    body: &Body,
    cx: &Cx<'_>,
    prefix: &str,
    out: &mut BTreeMap<String, usize>,
) -> Result<Map<String, Value>, TfError> {
    let mut map = Map::new();
    let mut block_names: Vec<&str> = Vec::new();
    for structure in body.iter() {
        match structure {
            Structure::Attribute(attr) => {
                let key = attr.key.as_str();
                let line = cx.lines.line_of(attr.key.span());
                if map.contains_key(key) {
                    return Err(TfError::Duplicate {
                        line,
                        what: "argument",
                        name: key.to_owned(),
                    });
                }
                let pointer = format!("{prefix}/{}", pointer_token(key));
                cx.ev.charge(pointer.len() as u64)?;
                out.insert(pointer.clone(), line);
                expr::record_lines(&attr.value, &pointer, &|span| cx.lines.line_of(span), out);
                map.insert(key.to_owned(), expr::convert(&attr.value, cx.src, cx.ev)?);
            }
            Structure::Block(block) => {
                let key = block.ident.as_str();
                let line = cx.lines.line_of(block.ident.span());
                let pointer =
                    next_block_pointer(&mut map, &mut block_names, key, prefix, line, out)?;
                let value = nested_block_json(block, cx, &pointer, out)?;
                push_block(&mut map, key, value);
                if key == "dynamic" {
                    expand_dynamic(block, cx, prefix, &mut map, &mut block_names, out)?;
                }
            }
        }
    }
    Ok(map)
}

/// Makes `map[key]` a list of blocks (an error if `key` is an argument) and
/// returns the JSON Pointer of its next block, recording the list's line.
fn next_block_pointer<'k>(
    map: &mut Map<String, Value>,
    block_names: &mut Vec<&'k str>,
    key: &'k str,
    prefix: &str,
    line: usize,
    out: &mut BTreeMap<String, usize>,
) -> Result<String, TfError> {
    if !block_names.contains(&key) {
        if map.contains_key(key) {
            // An argument and a block of the same name.
            return Err(TfError::Duplicate {
                line,
                what: "argument",
                name: key.to_owned(),
            });
        }
        block_names.push(key);
        map.insert(key.to_owned(), Value::Array(Vec::new()));
    }
    let index = match map.get(key) {
        Some(Value::Array(items)) => items.len(),
        _ => 0,
    };
    let list_pointer = format!("{prefix}/{}", pointer_token(key));
    // The list of blocks is where its first block is.
    out.entry(list_pointer.clone()).or_insert(line);
    Ok(format!("{list_pointer}/{index}"))
}

fn push_block(map: &mut Map<String, Value>, key: &str, value: Value) {
    if let Some(Value::Array(items)) = map.get_mut(key) {
        items.push(value);
    }
}

/// Expands `dynamic "NAME" { for_each = …, iterator = …, content { … } }`
/// into the `NAME` blocks Terraform generates, appended to `map[NAME]`:
///
/// - a known `for_each` (list, set or map) generates one block per element,
///   with `NAME.key` / `NAME.value` (or the `iterator`'s name) bound;
/// - an unknown one (fixed by the file, not computed) generates one block
///   whose iterator is unknown, so a check sees the content at its worst;
/// - a dynamic one (an input or computed value) generates nothing, as
///   before the evaluator existed: how many blocks there are is not known;
/// - a malformed one (extra labels, a non-name `iterator`, no `for_each`)
///   generates one block whose iterator is unknown.
///
/// Expanded blocks take the line of the `dynamic` keyword; their arguments
/// keep their own lines.
fn expand_dynamic<'k>(
    block: &'k Block,
    cx: &Cx<'_>,
    prefix: &str,
    map: &mut Map<String, Value>,
    block_names: &mut Vec<&'k str>,
    out: &mut BTreeMap<String, usize>,
) -> Result<(), TfError> {
    let Some(name) = block.labels.first().map(|l| l.as_str()) else {
        return Ok(());
    };
    let line = cx.lines.line_of(block.ident.span());
    let Some(content) = block
        .body
        .iter()
        .find_map(|s| s.as_block().filter(|b| b.ident.as_str() == "content"))
    else {
        return Ok(());
    };
    // A malformed header (extra labels, an `iterator` that is not a bare
    // name, no `for_each`) is rejected by Terraform; it is expanded once,
    // its iterator unknown, so that it cannot hide what its content says.
    let iterator = match eval::attribute(&block.body, "iterator") {
        None => Some(name),
        Some(hcl_edit::expr::Expression::Variable(v)) => Some(v.as_str()),
        Some(_) => None,
    };
    let for_each = eval::attribute(&block.body, "for_each");
    let (iterator, elements): (&str, Vec<eval::Ev>) = match (iterator, for_each) {
        (Some(iterator), Some(for_each)) if block.labels.len() == 1 => {
            let elements = match cx.ev.eval(for_each)? {
                eval::Ev::Known(Value::Array(items)) => items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| eval::Ev::Known(serde_json::json!({"key": i, "value": v})))
                    .collect(),
                eval::Ev::Known(Value::Object(entries)) => entries
                    .into_iter()
                    .map(|(k, v)| eval::Ev::Known(serde_json::json!({"key": k, "value": v})))
                    .collect(),
                eval::Ev::Known(_) | eval::Ev::Unknown => vec![eval::Ev::Unknown],
                eval::Ev::Dynamic => Vec::new(),
            };
            (iterator, elements)
        }
        (iterator, _) => (iterator.unwrap_or(name), vec![eval::Ev::Unknown]),
    };
    for element in elements {
        cx.ev.charge(1)?;
        let pointer = next_block_pointer(map, block_names, name, prefix, line, out)?;
        out.insert(pointer.clone(), line);
        let value = cx.ev.with_binding(iterator, element, || {
            body_json(&content.body, cx, &pointer, out)
        })?;
        push_block(map, name, Value::Object(value));
    }
    Ok(())
}

/// A nested block's body, wrapped in one object level per label; `pointer`
/// is the block's own JSON Pointer (`/ingress/0`).
fn nested_block_json(
    block: &Block,
    cx: &Cx<'_>,
    pointer: &str,
    out: &mut BTreeMap<String, usize>,
) -> Result<Value, TfError> {
    let line = cx.lines.line_of(block.ident.span());
    let mut body_pointer = pointer.to_owned();
    out.insert(body_pointer.clone(), line);
    for label in block.labels.iter() {
        body_pointer.push('/');
        body_pointer.push_str(&pointer_token(label.as_str()));
        out.insert(body_pointer.clone(), line);
    }
    let mut value = Value::Object(body_json(&block.body, cx, &body_pointer, out)?);
    for label in block.labels.iter().rev() {
        let mut wrapper = Map::new();
        wrapper.insert(label.as_str().to_owned(), value);
        value = Value::Object(wrapper);
    }
    Ok(value)
}

/// One JSON Pointer reference token: `~` → `~0`, `/` → `~1` (RFC 6901).
pub(crate) fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Byte offset → 1-based line.
#[derive(Debug)]
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn line_of(&self, span: Option<std::ops::Range<usize>>) -> usize {
        let offset = span.map_or(0, |r| r.start);
        self.starts.partition_point(|&s| s <= offset)
    }
}
