//! A small, bounded evaluator for the HCL expressions Terraform evaluates
//! before it talks to a provider: literals, string templates, `local.x`,
//! `var.x` (its default), arguments of other resources in the file, the
//! common pure functions, operators, conditionals and `for` expressions.
//!
//! Every expression evaluates to one of three outcomes ([`Ev`]):
//!
//! - **known**: the value Terraform would compute, as JSON;
//! - **dynamic**: the value depends on something outside this file or only
//!   known after apply — a variable without a default, a computed resource
//!   attribute (`aws_s3_bucket.b.id`), a data source, `count`/`each`/`self`,
//!   an undeclared name (it may live in another file of the module), or an
//!   impure function (`file`, `timestamp`, …). Checks treat it as they always
//!   treated references: not a literal;
//! - **unknown**: the value is fixed by this file, but the evaluator cannot
//!   compute it (a function it does not implement, a template directive, a
//!   splat, a type error Terraform would reject, a reference cycle, a chain
//!   deeper than [`MAX_EVAL_DEPTH`]). Checks treat it as the worst value the
//!   field could hold, so rewriting a flagged literal into something the
//!   evaluator cannot follow never makes a finding disappear.
//!
//! **Bounds.** Evaluation of one file spends at most
//! [`EVAL_UNITS_PER_BYTE`] × (file size) units (at least
//! [`MIN_EVAL_UNITS`]): one per expression node visited, one per byte of
//! every string and one per element of every list or object produced or
//! copied (a memoised `local` is charged again at every use). Results that
//! could multiply (`join`, `replace`, `format`) are charged before they are
//! built. Exceeding the budget is an error for the whole file
//! ([`EvalBudgetExceeded`]), never a silently partial result.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use hcl_edit::expr::{BinaryOperator, Expression, ObjectKey, TraversalOperator, UnaryOperator};
use hcl_edit::structure::{Body, Structure};
use hcl_edit::template::{Element, Strip, Template};
use serde_json::{Map, Value};

use super::expr::number;
use super::jsonencode::terraform_jsonencode;

/// Evaluation units allowed per byte of the file.
pub const EVAL_UNITS_PER_BYTE: u64 = 64;

/// Evaluation units allowed for any file, however small.
pub const MIN_EVAL_UNITS: u64 = 1 << 20;

/// Deepest nesting of evaluation (expressions inside expressions, and
/// references followed through locals, variables and resource arguments);
/// deeper values are unknown.
pub const MAX_EVAL_DEPTH: u32 = 128;

/// Deepest nesting of a value built by evaluation (lists and objects inside
/// each other); deeper values are unknown. Memoised locals can otherwise
/// wrap each other one level at a time into values deep enough to overflow
/// the stack of every recursive walk that follows.
pub const MAX_VALUE_DEPTH: u32 = 64;

/// The evaluation of a file needed more units than its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("evaluating the file's expressions needs more than its budget of {limit} units ({per_byte} per byte)")]
pub struct EvalBudgetExceeded {
    /// The file's budget.
    pub limit: u64,
    /// Units per byte of the file.
    pub per_byte: u64,
}

/// What an expression evaluates to.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ev {
    /// The value Terraform would compute.
    Known(Value),
    /// Depends on inputs, computed attributes or other files.
    Dynamic,
    /// Fixed by the file, but not computed here: checks assume the worst.
    Unknown,
}

type R<T> = Result<T, EvalBudgetExceeded>;

/// A resource's top-level arguments, or `None` when it has `count` or
/// `for_each` (its attributes are then only reachable by index).
type ResourceArgs<'a> = Option<HashMap<&'a str, &'a Expression>>;

/// The evaluation context of one file.
pub(super) struct Evaluator<'a> {
    /// `local.NAME` → expression (`None`: declared twice).
    locals: HashMap<&'a str, Option<&'a Expression>>,
    /// `var.NAME` → its default, if any.
    variables: HashMap<&'a str, Option<&'a Expression>>,
    /// `TYPE.NAME` → arguments.
    resources: HashMap<(&'a str, &'a str), ResourceArgs<'a>>,
    memo: RefCell<HashMap<String, Ev>>,
    active: RefCell<HashSet<String>>,
    /// `for` variables and `dynamic` iterators in scope, innermost last.
    bindings: RefCell<Vec<(String, Ev)>>,
    remaining: Cell<u64>,
    limit: u64,
    depth: Cell<u32>,
}

impl<'a> Evaluator<'a> {
    /// The context of the file `body` (of `len` bytes).
    pub(super) fn new(body: &'a Body, len: usize) -> Self {
        let mut locals: HashMap<&str, Option<&Expression>> = HashMap::new();
        let mut variables = HashMap::new();
        let mut resources = HashMap::new();
        for block in body.blocks() {
            let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
            match (block.ident.as_str(), &labels[..]) {
                ("locals", []) => {
                    for attr in block.body.attributes() {
                        locals
                            .entry(attr.key.as_str())
                            .and_modify(|e| *e = None)
                            .or_insert(Some(&attr.value));
                    }
                }
                ("variable", [name]) => {
                    let default = block
                        .body
                        .attributes()
                        .find(|a| a.key.as_str() == "default")
                        .map(|a| &a.value);
                    variables.insert(*name, default);
                }
                ("resource", [ty, name]) => {
                    let mut args = HashMap::new();
                    let mut repeated = false;
                    for attr in block.body.attributes() {
                        let key = attr.key.as_str();
                        repeated |= key == "count" || key == "for_each";
                        args.insert(key, &attr.value);
                    }
                    resources.insert((*ty, *name), (!repeated).then_some(args));
                }
                _ => {}
            }
        }
        let limit = (len as u64)
            .saturating_mul(EVAL_UNITS_PER_BYTE)
            .max(MIN_EVAL_UNITS);
        Evaluator {
            locals,
            variables,
            resources,
            memo: RefCell::new(HashMap::new()),
            active: RefCell::new(HashSet::new()),
            bindings: RefCell::new(Vec::new()),
            remaining: Cell::new(limit),
            limit,
            depth: Cell::new(0),
        }
    }

    /// Spends `units` of the budget.
    pub(super) fn charge(&self, units: u64) -> R<()> {
        match self.remaining.get().checked_sub(units) {
            Some(left) => {
                self.remaining.set(left);
                Ok(())
            }
            None => {
                self.remaining.set(0);
                Err(EvalBudgetExceeded {
                    limit: self.limit,
                    per_byte: EVAL_UNITS_PER_BYTE,
                })
            }
        }
    }

    /// Runs `f` with `name` bound to `value` (a `for` variable or a
    /// `dynamic` iterator).
    pub(super) fn with_binding<T>(&self, name: &str, value: Ev, f: impl FnOnce() -> T) -> T {
        self.bindings.borrow_mut().push((name.to_owned(), value));
        let out = f();
        self.bindings.borrow_mut().pop();
        out
    }

    /// Evaluates `expr`.
    pub(super) fn eval(&self, expr: &Expression) -> R<Ev> {
        let depth = self.depth.get();
        if depth >= MAX_EVAL_DEPTH {
            return Ok(Ev::Unknown);
        }
        self.charge(1)?;
        self.depth.set(depth + 1);
        let out = self.eval_inner(expr);
        self.depth.set(depth);
        out
    }

    fn eval_inner(&self, expr: &Expression) -> R<Ev> {
        Ok(match expr {
            Expression::Null(_) => Ev::Known(Value::Null),
            Expression::Bool(b) => Ev::Known(Value::Bool(*b.value())),
            Expression::Number(n) => Ev::Known(number(n.value())),
            Expression::String(s) => {
                self.charge(s.len() as u64)?;
                Ev::Known(Value::String(s.value().clone()))
            }
            Expression::Array(array) => {
                let mut items = Vec::with_capacity(array.len());
                for item in array.iter() {
                    items.push(self.eval(item)?);
                }
                combine(items).map_known(Value::Array).capped()
            }
            Expression::Object(object) => {
                let mut parts = Vec::new();
                let mut keys = Vec::new();
                for (key, value) in object.iter() {
                    let key = match key {
                        ObjectKey::Ident(ident) => Ev::Known(Value::String(ident.as_str().into())),
                        ObjectKey::Expression(e) => self.eval(e)?,
                    };
                    keys.push(key);
                    parts.push(self.eval(value.expr())?);
                }
                let keys = match combine(keys) {
                    Ev::Known(Value::Array(keys)) => keys,
                    other => return Ok(other.or_worse(&combine(parts))),
                };
                match combine(parts) {
                    Ev::Known(Value::Array(values)) => {
                        let mut map = Map::new();
                        for (key, value) in keys.into_iter().zip(values) {
                            let Some(key) = to_text(&key) else {
                                return Ok(Ev::Unknown);
                            };
                            map.insert(key, value);
                        }
                        Ev::Known(Value::Object(map)).capped()
                    }
                    other => other,
                }
            }
            Expression::StringTemplate(t) => self.template(t)?,
            Expression::HeredocTemplate(h) => self.template(&h.template)?,
            Expression::Parenthesis(p) => self.eval(p.inner())?,
            Expression::Variable(v) => self.reference(v.as_str(), &[])?,
            Expression::Traversal(t) => {
                let ops: Vec<&TraversalOperator> = t.operators.iter().map(|o| o.value()).collect();
                match &t.expr {
                    Expression::Variable(v) => self.reference(v.as_str(), &ops)?,
                    other => {
                        let base = self.eval(other)?;
                        self.apply_ops(base, &ops)?
                    }
                }
            }
            Expression::Conditional(c) => match self.eval(&c.cond_expr)? {
                Ev::Known(cond) => match to_bool(&cond) {
                    Some(true) => self.eval(&c.true_expr)?,
                    Some(false) => self.eval(&c.false_expr)?,
                    None => Ev::Unknown,
                },
                other => other,
            },
            Expression::FuncCall(call) => {
                let mut args = Vec::with_capacity(call.args.len());
                for arg in call.args.iter() {
                    args.push(self.eval(arg)?);
                }
                if call.args.expand_final() {
                    match args.pop() {
                        Some(Ev::Known(Value::Array(rest))) => {
                            args.extend(rest.into_iter().map(Ev::Known));
                        }
                        Some(other) => args.push(other.or_worse(&Ev::Unknown)),
                        None => return Ok(Ev::Unknown),
                    }
                }
                let name = call.name.name.as_str();
                if !call.name.namespace.is_empty() {
                    // Provider-defined functions: not evaluated here.
                    return Ok(worst(&args).unwrap_or(Ev::Unknown));
                }
                if OUTSIDE_THE_FILE.contains(&name) {
                    return Ok(Ev::Dynamic);
                }
                if let Some(bad) = worst(&args) {
                    return Ok(bad);
                }
                let values: Vec<Value> = args
                    .into_iter()
                    .map(|a| match a {
                        Ev::Known(v) => v,
                        _ => Value::Null,
                    })
                    .collect();
                match self.function(name, values)? {
                    Some(v) => {
                        self.charge(size(&v))?;
                        Ev::Known(v).capped()
                    }
                    None => Ev::Unknown,
                }
            }
            Expression::UnaryOp(op) => match (op.operator.value(), self.eval(&op.expr)?) {
                (UnaryOperator::Neg, Ev::Known(v)) => {
                    to_number(&v).map_or(Ev::Unknown, |n| Ev::Known(num(-n)))
                }
                (UnaryOperator::Not, Ev::Known(v)) => {
                    to_bool(&v).map_or(Ev::Unknown, |b| Ev::Known(Value::Bool(!b)))
                }
                (_, other) => other,
            },
            Expression::BinaryOp(op) => {
                let lhs = self.eval(&op.lhs_expr)?;
                let rhs = self.eval(&op.rhs_expr)?;
                match (lhs, rhs) {
                    (Ev::Known(a), Ev::Known(b)) => {
                        binary(*op.operator.value(), &a, &b).map_or(Ev::Unknown, Ev::Known)
                    }
                    (a, b) => a.or_worse(&b),
                }
            }
            Expression::ForExpr(f) => self.for_expr(f)?.capped(),
        })
    }

    fn template(&self, template: &Template) -> R<Ev> {
        let mut out = String::new();
        let mut status = Ev::Known(Value::Null);
        let mut strip_next = false;
        for element in template.iter() {
            match element {
                Element::Literal(text) => {
                    let text = text.value().as_str();
                    let text = if strip_next { text.trim_start() } else { text };
                    self.charge(text.len() as u64)?;
                    out.push_str(text);
                    strip_next = false;
                }
                Element::Interpolation(i) => {
                    if matches!(i.strip, Strip::Start | Strip::Both) {
                        out.truncate(out.trim_end().len());
                    }
                    strip_next = matches!(i.strip, Strip::End | Strip::Both);
                    match self.eval(&i.expr)? {
                        Ev::Known(v) => match to_text(&v) {
                            Some(text) => {
                                self.charge(text.len() as u64)?;
                                out.push_str(&text);
                            }
                            None => status = Ev::Unknown,
                        },
                        other => status = status.or_worse(&other),
                    }
                }
                Element::Directive(_) => status = Ev::Unknown,
            }
        }
        Ok(match status {
            Ev::Known(_) => Ev::Known(Value::String(out)),
            other => other,
        })
    }

    fn for_expr(&self, f: &hcl_edit::expr::ForExpr) -> R<Ev> {
        if f.grouping {
            return Ok(Ev::Unknown);
        }
        let pairs: Vec<(Value, Value)> = match self.eval(&f.intro.collection_expr)? {
            Ev::Known(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (Value::from(i), v))
                .collect(),
            Ev::Known(Value::Object(map)) => map
                .into_iter()
                .map(|(k, v)| (Value::String(k), v))
                .collect(),
            Ev::Known(_) => return Ok(Ev::Unknown),
            other => return Ok(other),
        };
        let value_var = f.intro.value_var.as_str();
        let key_var = f.intro.key_var.as_ref().map(|k| k.as_str());
        let mut list = Vec::new();
        let mut map = Map::new();
        for (key, value) in pairs {
            self.charge(1)?;
            let step = || -> R<Option<Ev>> {
                if let Some(cond) = &f.cond {
                    match self.eval(&cond.expr)? {
                        Ev::Known(c) => match to_bool(&c) {
                            Some(true) => {}
                            Some(false) => return Ok(None),
                            None => return Ok(Some(Ev::Unknown)),
                        },
                        other => return Ok(Some(other)),
                    }
                }
                let v = self.eval(&f.value_expr)?;
                let Some(key_expr) = &f.key_expr else {
                    return Ok(Some(v));
                };
                Ok(Some(match (self.eval(key_expr)?, v) {
                    (Ev::Known(k), Ev::Known(v)) => Ev::Known(Value::Array(vec![k, v])),
                    (k, v) => k.or_worse(&v).or_worse(&Ev::Unknown),
                }))
            };
            let bound = Ev::Known(value);
            let result = self.with_binding(value_var, bound, || match key_var {
                Some(k) => self.with_binding(k, Ev::Known(key), step),
                None => step(),
            })?;
            match result {
                None => {}
                Some(Ev::Known(v)) if f.key_expr.is_some() => {
                    let Value::Array(mut kv) = v else {
                        return Ok(Ev::Unknown);
                    };
                    let (Some(v), Some(k)) = (kv.pop(), kv.pop()) else {
                        return Ok(Ev::Unknown);
                    };
                    let Some(k) = to_text(&k) else {
                        return Ok(Ev::Unknown);
                    };
                    if map.insert(k, v).is_some() {
                        // Terraform rejects duplicate keys without grouping.
                        return Ok(Ev::Unknown);
                    }
                }
                Some(Ev::Known(v)) => list.push(v),
                Some(other) => return Ok(other),
            }
        }
        Ok(Ev::Known(if f.key_expr.is_some() {
            Value::Object(map)
        } else {
            Value::Array(list)
        }))
    }

    /// The value of the reference `root` followed by `ops`.
    fn reference(&self, root: &str, ops: &[&TraversalOperator]) -> R<Ev> {
        let bound = self
            .bindings
            .borrow()
            .iter()
            .rev()
            .find(|(name, _)| name == root)
            .map(|(_, v)| v.clone());
        if let Some(value) = bound {
            if let Ev::Known(v) = &value {
                self.charge(size(v))?;
            }
            return self.apply_ops(value, ops);
        }
        let attr = |i: usize| match ops.get(i) {
            Some(TraversalOperator::GetAttr(name)) => Some(name.as_str()),
            _ => None,
        };
        match root {
            "local" => {
                let Some(name) = attr(0) else {
                    return Ok(Ev::Unknown);
                };
                let value = match self.locals.get(name) {
                    Some(Some(expr)) => self.memoised(format!("local.{name}"), expr)?,
                    Some(None) => Ev::Unknown,
                    None => Ev::Dynamic,
                };
                self.apply_ops(value, &ops[1..])
            }
            "var" => {
                let Some(name) = attr(0) else {
                    return Ok(Ev::Unknown);
                };
                let value = match self.variables.get(name) {
                    Some(Some(default)) => self.memoised(format!("var.{name}"), default)?,
                    _ => Ev::Dynamic,
                };
                self.apply_ops(value, &ops[1..])
            }
            "data" | "count" | "each" | "self" | "path" | "terraform" | "module" => Ok(Ev::Dynamic),
            ty => {
                let (Some(name), Some(arg)) = (attr(0), attr(1)) else {
                    return Ok(Ev::Dynamic);
                };
                let expr = match self.resources.get(&(ty, name)) {
                    Some(Some(args)) => args.get(arg).copied(),
                    _ => None,
                };
                let Some(expr) = expr else {
                    // A computed attribute, or a resource of another file.
                    return Ok(Ev::Dynamic);
                };
                let value = self.memoised(format!("{ty}.{name}.{arg}"), expr)?;
                self.apply_ops(value, &ops[2..])
            }
        }
    }

    /// `expr` evaluated once in the module's scope (no `for` variables or
    /// iterators), then copied at every use.
    fn memoised(&self, key: String, expr: &Expression) -> R<Ev> {
        if let Some(value) = self.memo.borrow().get(&key) {
            if let Ev::Known(v) = value {
                self.charge(size(v))?;
            }
            return Ok(value.clone());
        }
        if !self.active.borrow_mut().insert(key.clone()) {
            // A cycle: Terraform rejects it.
            return Ok(Ev::Unknown);
        }
        let outer = std::mem::take(&mut *self.bindings.borrow_mut());
        let value = self.eval(expr);
        *self.bindings.borrow_mut() = outer;
        self.active.borrow_mut().remove(&key);
        let value = value?;
        self.memo.borrow_mut().insert(key, value.clone());
        Ok(value)
    }

    fn apply_ops(&self, mut value: Ev, ops: &[&TraversalOperator]) -> R<Ev> {
        for op in ops {
            let Ev::Known(current) = value else {
                return Ok(value);
            };
            value = match op {
                TraversalOperator::GetAttr(name) => match current {
                    Value::Object(mut map) => {
                        map.remove(name.as_str()).map_or(Ev::Unknown, Ev::Known)
                    }
                    _ => Ev::Unknown,
                },
                TraversalOperator::LegacyIndex(i) => index(current, &Value::from(*i.value())),
                TraversalOperator::Index(e) => match self.eval(e)? {
                    Ev::Known(key) => index(current, &key),
                    other => other,
                },
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => Ev::Unknown,
            };
        }
        Ok(value)
    }

    /// A pure function on known arguments; `None` when it is not implemented
    /// or Terraform would reject the call.
    fn function(&self, name: &str, args: Vec<Value>) -> R<Option<Value>> {
        let str_arg = |i: usize| args.get(i).and_then(to_text);
        Ok(match (name, args.len()) {
            ("lower", 1) => str_arg(0).map(|s| Value::String(s.to_lowercase())),
            ("upper", 1) => str_arg(0).map(|s| Value::String(s.to_uppercase())),
            ("trimspace", 1) => str_arg(0).map(|s| Value::String(s.trim().to_owned())),
            ("chomp", 1) => {
                str_arg(0).map(|s| Value::String(s.trim_end_matches(['\n', '\r']).to_owned()))
            }
            ("trimprefix", 2) => match (str_arg(0), str_arg(1)) {
                (Some(s), Some(p)) => Some(Value::String(
                    s.strip_prefix(p.as_str()).unwrap_or(&s).to_owned(),
                )),
                _ => None,
            },
            ("trimsuffix", 2) => match (str_arg(0), str_arg(1)) {
                (Some(s), Some(p)) => Some(Value::String(
                    s.strip_suffix(p.as_str()).unwrap_or(&s).to_owned(),
                )),
                _ => None,
            },
            ("trim", 2) => match (str_arg(0), str_arg(1)) {
                (Some(s), Some(cut)) => Some(Value::String(
                    s.trim_matches(|c| cut.contains(c)).to_owned(),
                )),
                _ => None,
            },
            ("substr", 3) => match (
                str_arg(0),
                args.get(1).and_then(to_number),
                args.get(2).and_then(to_number),
            ) {
                (Some(s), Some(offset), Some(len)) => substr(&s, offset, len),
                _ => None,
            },
            ("replace", 3) => match (str_arg(0), str_arg(1), str_arg(2)) {
                (Some(s), Some(old), Some(new)) => {
                    let regex = old.len() >= 2 && old.starts_with('/') && old.ends_with('/');
                    if old.is_empty() || regex {
                        None
                    } else {
                        let hits = s.matches(old.as_str()).count() as u64;
                        self.charge(
                            (s.len() as u64).saturating_add(hits.saturating_mul(new.len() as u64)),
                        )?;
                        Some(Value::String(s.replace(old.as_str(), &new)))
                    }
                }
                _ => None,
            },
            ("join", n) if n >= 2 => {
                let Some(sep) = str_arg(0) else {
                    return Ok(None);
                };
                let mut parts = Vec::new();
                for list in &args[1..] {
                    let Value::Array(items) = list else {
                        return Ok(None);
                    };
                    for item in items {
                        let Some(text) = to_text(item) else {
                            return Ok(None);
                        };
                        parts.push(text);
                    }
                }
                let total = parts
                    .iter()
                    .map(|p| p.len() as u64)
                    .sum::<u64>()
                    .saturating_add((sep.len() as u64).saturating_mul(parts.len() as u64));
                self.charge(total)?;
                Some(Value::String(parts.join(&sep)))
            }
            ("split", 2) => match (str_arg(0), str_arg(1)) {
                (Some(sep), Some(s)) if !sep.is_empty() => Some(Value::Array(
                    s.split(sep.as_str())
                        .map(|p| Value::String(p.to_owned()))
                        .collect(),
                )),
                _ => None,
            },
            ("format", n) if n >= 1 => match str_arg(0) {
                Some(fmt) => self.format(&fmt, &args[1..])?,
                None => None,
            },
            ("concat", _) => {
                let mut out = Vec::new();
                for list in args {
                    let Value::Array(items) = list else {
                        return Ok(None);
                    };
                    out.extend(items);
                }
                Some(Value::Array(out))
            }
            ("tolist", 1) | ("tomap", 1) => args.into_iter().next(),
            ("toset", 1) => match args.into_iter().next() {
                Some(Value::Array(items)) => set_of(items),
                _ => None,
            },
            ("distinct", 1) => match args.into_iter().next() {
                Some(Value::Array(items)) => Some(Value::Array(distinct(items))),
                _ => None,
            },
            ("tostring", 1) => match &args[0] {
                Value::Null => Some(Value::Null),
                v => to_text(v).map(Value::String),
            },
            ("tobool", 1) => match &args[0] {
                Value::Null => Some(Value::Null),
                v => to_bool(v).map(Value::Bool),
            },
            ("tonumber", 1) => match &args[0] {
                Value::Null => Some(Value::Null),
                v => to_number(v).map(num),
            },
            ("coalesce", n) if n >= 1 => args
                .into_iter()
                .find(|v| !v.is_null() && v.as_str() != Some("")),
            ("coalescelist", n) if n >= 1 => args
                .into_iter()
                .find(|v| v.as_array().is_some_and(|a| !a.is_empty())),
            ("compact", 1) => match args.into_iter().next() {
                Some(Value::Array(items)) => Some(Value::Array(
                    items
                        .into_iter()
                        .filter(|v| !v.is_null() && v.as_str() != Some(""))
                        .collect(),
                )),
                _ => None,
            },
            ("element", 2) => match (&args[0], args.get(1).and_then(to_number)) {
                (Value::Array(items), Some(i)) if !items.is_empty() && i >= 0.0 => {
                    items.get((i as usize) % items.len()).cloned()
                }
                _ => None,
            },
            ("lookup", 2) | ("lookup", 3) => match (&args[0], str_arg(1)) {
                (Value::Object(map), Some(key)) => map.get(&key).or(args.get(2)).cloned(),
                _ => None,
            },
            ("length", 1) => match &args[0] {
                Value::Array(items) => Some(Value::from(items.len())),
                Value::Object(map) => Some(Value::from(map.len())),
                Value::String(s) => Some(Value::from(s.chars().count())),
                _ => None,
            },
            ("flatten", 1) => match args.into_iter().next() {
                Some(Value::Array(items)) => {
                    let mut out = Vec::new();
                    flatten(items, &mut out, 0).then_some(Value::Array(out))
                }
                _ => None,
            },
            ("reverse", 1) => match args.into_iter().next() {
                Some(Value::Array(mut items)) => {
                    items.reverse();
                    Some(Value::Array(items))
                }
                _ => None,
            },
            ("contains", 2) => match &args[0] {
                Value::Array(items) => Some(Value::Bool(items.iter().any(|v| equal(v, &args[1])))),
                _ => None,
            },
            ("one", 1) => match args.into_iter().next() {
                Some(Value::Array(mut items)) if items.len() <= 1 => {
                    Some(items.pop().unwrap_or(Value::Null))
                }
                _ => None,
            },
            ("keys", 1) => match &args[0] {
                Value::Object(map) => {
                    let mut keys: Vec<&String> = map.keys().collect();
                    keys.sort();
                    Some(Value::Array(
                        keys.into_iter().map(|k| Value::String(k.clone())).collect(),
                    ))
                }
                _ => None,
            },
            ("values", 1) => match args.into_iter().next() {
                Some(Value::Object(map)) => {
                    let mut pairs: Vec<(String, Value)> = map.into_iter().collect();
                    pairs.sort_by(|a, b| a.0.cmp(&b.0));
                    Some(Value::Array(pairs.into_iter().map(|(_, v)| v).collect()))
                }
                _ => None,
            },
            ("merge", _) => {
                let mut out = Map::new();
                for arg in args {
                    match arg {
                        Value::Object(map) => out.extend(map),
                        Value::Null => {}
                        _ => return Ok(None),
                    }
                }
                Some(Value::Object(out))
            }
            ("min", n) | ("max", n) if n >= 1 => {
                let numbers: Option<Vec<f64>> = args.iter().map(to_number).collect();
                numbers.map(|ns| {
                    let pick = if name == "min" { f64::min } else { f64::max };
                    num(ns.into_iter().reduce(pick).unwrap_or(0.0))
                })
            }
            ("abs", 1) => to_number(&args[0]).map(|n| num(n.abs())),
            ("jsonencode", 1) => {
                let text = terraform_jsonencode(&args[0]);
                self.charge(text.len() as u64)?;
                Some(Value::String(text))
            }
            ("jsondecode", 1) => match &args[0] {
                Value::String(text) => {
                    self.charge(text.len() as u64)?;
                    serde_json::from_str(text).ok()
                }
                _ => None,
            },
            _ => None,
        })
    }

    /// `format` with the verbs `%s`, `%d`, `%v`, `%q` and `%%` (no flags,
    /// widths or precisions: those are not evaluated).
    fn format(&self, fmt: &str, args: &[Value]) -> R<Option<Value>> {
        let mut out = String::new();
        let mut next = 0;
        let mut chars = fmt.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let text = match chars.next() {
                Some('%') => "%".to_owned(),
                Some(verb @ ('s' | 'd' | 'v' | 'q')) => {
                    let Some(arg) = args.get(next) else {
                        return Ok(None);
                    };
                    next += 1;
                    let text = match (verb, arg) {
                        ('d', v) => match to_number(v) {
                            Some(n) if n.fract() == 0.0 => to_text(&num(n)),
                            _ => None,
                        },
                        ('q', v) => to_text(v).map(|s| Value::String(s).to_string()),
                        (_, v) => to_text(v),
                    };
                    let Some(text) = text else {
                        return Ok(None);
                    };
                    text
                }
                _ => return Ok(None),
            };
            self.charge(text.len() as u64)?;
            out.push_str(&text);
        }
        self.charge(out.len() as u64)?;
        Ok((next == args.len()).then_some(Value::String(out)))
    }
}

/// Functions whose result comes from outside the file (files, the clock,
/// randomness): dynamic, like a variable without a default.
const OUTSIDE_THE_FILE: &[&str] = &[
    "file",
    "fileexists",
    "fileset",
    "filebase64",
    "filemd5",
    "filesha1",
    "filesha256",
    "filesha512",
    "filebase64sha256",
    "filebase64sha512",
    "templatefile",
    "abspath",
    "pathexpand",
    "timestamp",
    "plantimestamp",
    "uuid",
    "bcrypt",
];

impl Ev {
    /// Unknown when a known value nests deeper than [`MAX_VALUE_DEPTH`].
    fn capped(self) -> Ev {
        match &self {
            Ev::Known(v) if deeper_than(v, MAX_VALUE_DEPTH) => Ev::Unknown,
            _ => self,
        }
    }

    fn map_known(self, f: impl FnOnce(Vec<Value>) -> Value) -> Ev {
        match self {
            Ev::Known(Value::Array(items)) => Ev::Known(f(items)),
            Ev::Known(_) => Ev::Unknown,
            other => other,
        }
    }

    /// The less known of the two: unknown, then dynamic, then `self`.
    fn or_worse(self, other: &Ev) -> Ev {
        match (&self, other) {
            (Ev::Unknown, _) | (_, Ev::Unknown) => Ev::Unknown,
            (Ev::Dynamic, _) | (_, Ev::Dynamic) => Ev::Dynamic,
            _ => self,
        }
    }
}

/// Known values as one known array, else the least known of them.
fn combine(items: Vec<Ev>) -> Ev {
    if let Some(bad) = worst(&items) {
        return bad;
    }
    Ev::Known(Value::Array(
        items
            .into_iter()
            .map(|i| match i {
                Ev::Known(v) => v,
                _ => Value::Null,
            })
            .collect(),
    ))
}

/// Unknown if any is, else dynamic if any is, else `None`.
fn worst(items: &[Ev]) -> Option<Ev> {
    if items.iter().any(|i| matches!(i, Ev::Unknown)) {
        Some(Ev::Unknown)
    } else if items.iter().any(|i| matches!(i, Ev::Dynamic)) {
        Some(Ev::Dynamic)
    } else {
        None
    }
}

/// Whether `value` nests more than `limit` levels (recursion at most
/// `limit` deep).
fn deeper_than(value: &Value, limit: u32) -> bool {
    let children: Box<dyn Iterator<Item = &Value>> = match value {
        Value::Array(items) => Box::new(items.iter()),
        Value::Object(map) => Box::new(map.values()),
        _ => return false,
    };
    if limit == 0 {
        return true;
    }
    children.into_iter().any(|c| deeper_than(c, limit - 1))
}

/// Budget units of a value: one per node, one per byte of text.
pub(super) fn size(value: &Value) -> u64 {
    match value {
        Value::String(s) => 1 + s.len() as u64,
        Value::Array(items) => 1 + items.iter().map(size).sum::<u64>(),
        Value::Object(map) => {
            1 + map
                .iter()
                .map(|(k, v)| k.len() as u64 + size(v))
                .sum::<u64>()
        }
        _ => 1,
    }
}

/// A number as Terraform keeps it: whole numbers without a fraction.
fn num(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        // Exact: |n| < 2^53.
        #[allow(clippy::cast_possible_truncation)]
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// Terraform's automatic conversion to string.
fn to_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if !(n.is_i64() || n.is_u64()) && f.fract() == 0.0 && f.abs() < 1e21 => {
                format!("{f:.0}")
            }
            _ => n.to_string(),
        }),
        _ => None,
    }
}

/// Terraform's automatic conversion to bool.
pub(super) fn to_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        _ => None,
    }
}

/// Terraform's automatic conversion to number.
fn to_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn index(value: Value, key: &Value) -> Ev {
    match value {
        Value::Array(mut items) => match to_number(key) {
            Some(i) if i >= 0.0 && i.fract() == 0.0 && (i as usize) < items.len() => {
                Ev::Known(items.swap_remove(i as usize))
            }
            _ => Ev::Unknown,
        },
        Value::Object(mut map) => match to_text(key) {
            Some(k) => map.remove(&k).map_or(Ev::Unknown, Ev::Known),
            None => Ev::Unknown,
        },
        _ => Ev::Unknown,
    }
}

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

fn binary(op: BinaryOperator, a: &Value, b: &Value) -> Option<Value> {
    use BinaryOperator as B;
    Some(match op {
        B::Eq => Value::Bool(equal(a, b)),
        B::NotEq => Value::Bool(!equal(a, b)),
        B::And => Value::Bool(to_bool(a)? && to_bool(b)?),
        B::Or => Value::Bool(to_bool(a)? || to_bool(b)?),
        _ => {
            let (x, y) = (to_number(a)?, to_number(b)?);
            match op {
                B::Less => Value::Bool(x < y),
                B::LessEq => Value::Bool(x <= y),
                B::Greater => Value::Bool(x > y),
                B::GreaterEq => Value::Bool(x >= y),
                B::Plus => num(x + y),
                B::Minus => num(x - y),
                B::Mul => num(x * y),
                B::Div if y != 0.0 => num(x / y),
                B::Mod if y != 0.0 => num(x % y),
                _ => return None,
            }
        }
    })
}

fn substr(s: &str, offset: f64, len: f64) -> Option<Value> {
    if offset.fract() != 0.0 || len.fract() != 0.0 {
        return None;
    }
    let chars: Vec<char> = s.chars().collect();
    let count = chars.len() as f64;
    let start = if offset < 0.0 { count + offset } else { offset };
    if start < 0.0 || start > count {
        return None;
    }
    let end = if len < 0.0 {
        count
    } else {
        (start + len).min(count)
    };
    Some(Value::String(
        chars[start as usize..end as usize].iter().collect(),
    ))
}

/// The distinct values of `items`, first occurrence kept.
fn distinct(items: Vec<Value>) -> Vec<Value> {
    let mut seen = HashSet::new();
    items
        .into_iter()
        .filter(|v| seen.insert(v.to_string()))
        .collect()
}

/// `toset`: distinct values; a set of strings is ordered as Terraform orders
/// it (lexically). Mixed element types are not evaluated.
fn set_of(items: Vec<Value>) -> Option<Value> {
    let mut items = distinct(items);
    if items.iter().all(Value::is_string) {
        items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    } else if items.iter().any(Value::is_string) {
        return None;
    }
    Some(Value::Array(items))
}

/// Flattens nested lists into `out`; `false` past [`MAX_EVAL_DEPTH`].
fn flatten(items: Vec<Value>, out: &mut Vec<Value>, depth: u32) -> bool {
    if depth > MAX_EVAL_DEPTH {
        return false;
    }
    for item in items {
        match item {
            Value::Array(inner) => {
                if !flatten(inner, out, depth + 1) {
                    return false;
                }
            }
            other => out.push(other),
        }
    }
    true
}

/// The value of the argument `key` of `body`, if set.
pub(super) fn attribute<'b>(body: &'b Body, key: &str) -> Option<&'b Expression> {
    body.iter().find_map(|s| match s {
        Structure::Attribute(a) if a.key.as_str() == key => Some(&a.value),
        _ => None,
    })
}
