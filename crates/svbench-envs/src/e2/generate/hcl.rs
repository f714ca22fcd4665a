//! A small Terraform (HCL) tree and emitter for generated modules.

/// One body item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum H {
    /// `name = <expression source>` (the expression is written as is; a
    /// multi-line expression is indented by the attribute's indentation).
    Attr(String, String),
    /// A nested block.
    Block(Block),
}

/// A block: `type "label" … { body }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// `resource`, `variable`, `ingress`, …
    pub ty: String,
    /// Labels (`"aws_s3_bucket"`, `"logs"`).
    pub labels: Vec<String>,
    /// Attributes and nested blocks in order.
    pub body: Vec<H>,
}

/// A string literal expression.
pub fn lit(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// An attribute.
pub fn attr(name: &str, expr: impl Into<String>) -> H {
    H::Attr(name.to_string(), expr.into())
}

/// A block.
pub fn block(ty: &str, labels: &[&str], body: Vec<H>) -> Block {
    Block {
        ty: ty.to_string(),
        labels: labels.iter().map(|l| (*l).to_string()).collect(),
        body,
    }
}

impl Block {
    /// The expression of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.body.iter().find_map(|h| match h {
            H::Attr(n, e) if n == name => Some(e.as_str()),
            _ => None,
        })
    }

    /// Sets attribute `name` (in place, or appended after the last attribute).
    pub fn set(&mut self, name: &str, expr: impl Into<String>) {
        let expr = expr.into();
        if let Some(H::Attr(_, e)) = self
            .body
            .iter_mut()
            .find(|h| matches!(h, H::Attr(n, _) if n == name))
        {
            *e = expr;
            return;
        }
        let at = self
            .body
            .iter()
            .rposition(|h| matches!(h, H::Attr(..)))
            .map_or(0, |i| i + 1);
        self.body.insert(at, attr(name, expr));
    }

    /// Removes attribute `name`; true if it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.body.len();
        self.body
            .retain(|h| !matches!(h, H::Attr(n, _) if n == name));
        before != self.body.len()
    }

    /// Nested blocks of type `ty`, mutably.
    pub fn blocks_mut(&mut self, ty: &str) -> Vec<&mut Block> {
        self.body
            .iter_mut()
            .filter_map(|h| match h {
                H::Block(b) if b.ty == ty => Some(b),
                _ => None,
            })
            .collect()
    }

    /// Removes nested blocks of type `ty`; true if one was there.
    pub fn remove_blocks(&mut self, ty: &str) -> bool {
        let before = self.body.len();
        self.body
            .retain(|h| !matches!(h, H::Block(b) if b.ty == ty));
        before != self.body.len()
    }
}

/// Formatting variant of a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HclStyle {
    /// Align the `=` of consecutive attributes, as `terraform fmt` does.
    pub align: bool,
    /// Spaces per nesting level.
    pub indent: usize,
}

/// Renders top-level blocks separated by blank lines.
pub fn emit(blocks: &[Block], style: &HclStyle) -> String {
    let mut out = String::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        emit_block(&mut out, b, 0, style);
    }
    out
}

fn emit_block(out: &mut String, b: &Block, ind: usize, style: &HclStyle) {
    let pad = " ".repeat(ind);
    out.push_str(&pad);
    out.push_str(&b.ty);
    for l in &b.labels {
        out.push_str(&format!(" \"{l}\""));
    }
    out.push_str(" {\n");
    let inner = ind + style.indent;
    let inner_pad = " ".repeat(inner);
    let mut i = 0;
    while i < b.body.len() {
        match &b.body[i] {
            H::Attr(..) => {
                // A run of consecutive attributes shares one `=` column.
                let mut j = i;
                while j < b.body.len() && matches!(&b.body[j], H::Attr(..)) {
                    j += 1;
                }
                let width = b.body[i..j]
                    .iter()
                    .map(|h| match h {
                        H::Attr(n, _) => n.len(),
                        H::Block(_) => 0,
                    })
                    .max()
                    .unwrap_or(0);
                for h in &b.body[i..j] {
                    if let H::Attr(n, e) = h {
                        let gap = if style.align { width - n.len() } else { 0 };
                        let e = e.replace('\n', &format!("\n{inner_pad}"));
                        out.push_str(&format!("{inner_pad}{n}{} = {e}\n", " ".repeat(gap)));
                    }
                }
                i = j;
            }
            H::Block(nested) => {
                if i > 0 {
                    out.push('\n');
                }
                emit_block(out, nested, inner, style);
                i += 1;
            }
        }
    }
    out.push_str(&pad);
    out.push_str("}\n");
}
