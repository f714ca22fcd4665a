//! HCL expressions → the canonical JSON of spec E2 §1.7.
//!
//! Literals and what `eval.rs` can evaluate become JSON values; array and
//! object constructors are converted element by element (so
//! `["0.0.0.0/0", var.x]` keeps its literal element); anything else becomes
//! `{"expr": "<source text>", "refs": [...]}` (plus `"unknown": true` when
//! the file fixes the value but the evaluator cannot compute it).

use hcl_edit::expr::{Expression, ForExpr, ObjectKey, Traversal, TraversalOperator};
use hcl_edit::visit::{self, Visit};
use hcl_edit::{Number, Span};
use serde_json::{Map, Value};

use super::eval::{Ev, EvalBudgetExceeded, Evaluator};

/// Converts `expr` (parsed from `src`) to its canonical JSON, evaluating
/// what `ev` can evaluate.
///
/// Array and object constructors are converted element by element, so a
/// known element of a partly dynamic list stays a literal. Anything else
/// that does not evaluate to a known value becomes `{"expr", "refs"}`, with
/// `"unknown": true` when the value is fixed by the file but not computed
/// (see `eval.rs`).
pub(super) fn convert(
    expr: &Expression,
    src: &str,
    ev: &Evaluator<'_>,
) -> Result<Value, EvalBudgetExceeded> {
    match expr {
        Expression::Array(array) => {
            let mut items = Vec::with_capacity(array.len());
            for item in array.iter() {
                items.push(convert(item, src, ev)?);
            }
            Ok(Value::Array(items))
        }
        Expression::Object(object) if object.iter().all(|(key, _)| object_key(key).is_some()) => {
            let mut map = Map::new();
            for (key, value) in object.iter() {
                if let Some(k) = object_key(key) {
                    map.insert(k, convert(value.expr(), src, ev)?);
                }
            }
            Ok(Value::Object(map))
        }
        _ => match ev.eval(expr)? {
            Ev::Known(value) => Ok(value),
            Ev::Dynamic => non_literal(expr, src, ev, false),
            Ev::Unknown => non_literal(expr, src, ev, true),
        },
    }
}

/// Records, under `pointer` (the expression's own JSON Pointer), the line of
/// every part that [`convert`] keeps as a JSON element: array elements and
/// object keys of constructors, recursively.
pub(super) fn record_lines(
    expr: &Expression,
    pointer: &str,
    line_of: &dyn Fn(Option<std::ops::Range<usize>>) -> usize,
    out: &mut std::collections::BTreeMap<String, usize>,
) {
    match expr {
        Expression::Array(array) => {
            for (i, item) in array.iter().enumerate() {
                let item_pointer = format!("{pointer}/{i}");
                out.insert(item_pointer.clone(), line_of(item.span()));
                record_lines(item, &item_pointer, line_of, out);
            }
        }
        Expression::Object(object) => {
            // Mirrors `convert`: a computed key makes the object one expression.
            if object.iter().any(|(key, _)| object_key(key).is_none()) {
                return;
            }
            for (key, value) in object.iter() {
                let Some(name) = object_key(key) else {
                    continue;
                };
                let key_pointer = format!("{pointer}/{}", super::pointer_token(&name));
                out.insert(key_pointer.clone(), line_of(key.span()));
                record_lines(value.expr(), &key_pointer, line_of, out);
            }
        }
        _ => {}
    }
}

fn object_key(key: &ObjectKey) -> Option<String> {
    match key {
        ObjectKey::Ident(ident) => Some(ident.as_str().to_owned()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.value().clone()),
        ObjectKey::Expression(_) => None,
    }
}

pub(super) fn number(n: &Number) -> Value {
    if let Some(i) = n.as_i64() {
        Value::from(i)
    } else if let Some(u) = n.as_u64() {
        Value::from(u)
    } else {
        n.as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number)
    }
}

fn non_literal(
    expr: &Expression,
    src: &str,
    ev: &Evaluator<'_>,
    unknown: bool,
) -> Result<Value, EvalBudgetExceeded> {
    let text = expr
        .span()
        .and_then(|range| src.get(range))
        .map_or_else(|| expr.to_string(), str::to_owned);
    // Copied once per expansion of a `dynamic` block: charged.
    ev.charge(2 * text.len() as u64)?;
    let mut collector = RefCollector::default();
    collector.visit_expr(expr);
    let mut map = Map::new();
    map.insert("expr".into(), Value::String(text.trim().to_owned()));
    map.insert(
        "refs".into(),
        Value::Array(collector.refs.into_iter().map(Value::String).collect()),
    );
    if unknown {
        map.insert("unknown".into(), Value::Bool(true));
    }
    Ok(Value::Object(map))
}

/// Collects references (`var.x`, `aws_s3_bucket.b.id`, `count.index`) in
/// source order without duplicates; for-expression variables are local and
/// not references.
#[derive(Debug, Default)]
struct RefCollector {
    refs: Vec<String>,
    /// The refs seen: one expression may hold thousands (a template naming
    /// every bucket), and a scan of `refs` per ref would be quadratic.
    seen: std::collections::HashSet<String>,
    locals: Vec<String>,
}

impl RefCollector {
    fn push(&mut self, r: String) {
        if self.seen.insert(r.clone()) {
            self.refs.push(r);
        }
    }

    fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|l| l == name)
    }
}

impl Visit for RefCollector {
    fn visit_expr(&mut self, expr: &Expression) {
        if let Expression::Variable(var) = expr {
            let name = var.as_str();
            if !self.is_local(name) {
                self.push(name.to_owned());
            }
        } else {
            visit::visit_expr(self, expr);
        }
    }

    fn visit_traversal(&mut self, node: &Traversal) {
        let Expression::Variable(root) = &node.expr else {
            visit::visit_traversal(self, node);
            return;
        };
        let mut path = root.as_str().to_owned();
        let mut complete = true;
        for op in &node.operators {
            if complete {
                match op.value() {
                    TraversalOperator::GetAttr(id) => {
                        path.push('.');
                        path.push_str(id.as_str());
                        continue;
                    }
                    TraversalOperator::LegacyIndex(i) => {
                        path.push_str(&format!("[{}]", i.value()));
                        continue;
                    }
                    TraversalOperator::Index(Expression::Number(n)) => {
                        path.push_str(&format!("[{}]", n.value()));
                        continue;
                    }
                    TraversalOperator::Index(Expression::String(s)) => {
                        path.push_str(&format!("[{}]", Value::String(s.value().clone())));
                        continue;
                    }
                    _ => complete = false,
                }
            }
            // Index expressions after the static prefix may hold references.
            self.visit_traversal_operator(op.value());
        }
        if !self.is_local(root.as_str()) {
            self.push(path);
        }
    }

    fn visit_for_expr(&mut self, node: &ForExpr) {
        self.visit_expr(&node.intro.collection_expr);
        let before = self.locals.len();
        self.locals.push(node.intro.value_var.as_str().to_owned());
        if let Some(k) = &node.intro.key_var {
            self.locals.push(k.as_str().to_owned());
        }
        if let Some(key_expr) = &node.key_expr {
            self.visit_expr(key_expr);
        }
        self.visit_expr(&node.value_expr);
        if let Some(cond) = &node.cond {
            self.visit_expr(&cond.expr);
        }
        self.locals.truncate(before);
    }
}
