//! Depth-first walk of one document's node tree, handing each mapping pair
//! and each container item to a visitor together with the ancestor facts the
//! rules of spec E2 §1.6 depend on.
//!
//! The rules are syntax-level, like semgrep's YAML patterns: they look at key
//! names and nesting, never at Kubernetes kinds. Everything a rule asks about
//! its surroundings ("below a `spec` key", "no enclosing mapping has
//! `image`", "inside a container item") is inherited top-down, so the walk
//! carries it in a small `Copy` context instead of handing out parent
//! pointers.
//!
//! The walk uses an explicit stack rather than recursion: the tree's depth is
//! bounded only by the caller's [`crate::Limits`], and a deep document must
//! not overflow the thread's stack. Mapping keys are not descended into
//! (complex keys are not Kubernetes content).

use crate::{Node, NodeKind};

/// Facts about the ancestors of the pair or item being visited.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Context<'a> {
    /// Some ancestor pair has the key `spec`.
    pub(crate) under_spec: bool,
    /// Some ancestor pair has the key `volumes`.
    pub(crate) under_volumes: bool,
    /// Some enclosing mapping — the one holding the visited pair included —
    /// has an `image` key.
    pub(crate) image_in_enclosing_mapping: bool,
    /// The nearest enclosing container item (the visited item itself, for
    /// [`Visitor::container_item`]).
    pub(crate) container_item: Option<&'a Node>,
}

/// Receives what the walk finds.
pub(crate) trait Visitor<'a> {
    /// A key/value pair of some mapping, with the facts of its surroundings.
    fn pair(&mut self, key: &'a Node, value: &'a Node, ctx: &Context<'a>);

    /// A container item: a mapping in a sequence that is the value of a key
    /// exactly `containers` (never `initContainers`/`ephemeralContainers`).
    fn container_item(&mut self, item: &'a Node, ctx: &Context<'a>);
}

/// A node waiting on the stack, with what its ancestors established.
struct Pending<'a> {
    node: &'a Node,
    ctx: Context<'a>,
    is_container_item: bool,
}

/// Visits every pair and container item under `root`, in document order.
pub(crate) fn walk<'a>(root: &'a Node, visitor: &mut impl Visitor<'a>) {
    let mut stack = vec![Pending {
        node: root,
        ctx: Context::default(),
        is_container_item: false,
    }];
    while let Some(Pending {
        node,
        ctx,
        is_container_item,
    }) = stack.pop()
    {
        if is_container_item {
            visitor.container_item(node, &ctx);
        }
        match &node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Sequence(items) => {
                stack.extend(items.iter().rev().map(|item| Pending {
                    node: item,
                    ctx,
                    is_container_item: false,
                }));
            }
            NodeKind::Mapping(pairs) => {
                let ctx = Context {
                    image_in_enclosing_mapping: ctx.image_in_enclosing_mapping
                        || node.get("image").is_some(),
                    ..ctx
                };
                for (key, value) in pairs {
                    visitor.pair(key, value, &ctx);
                }
                for (key, value) in pairs.iter().rev() {
                    push_value(&mut stack, key.as_str(), value, ctx);
                }
            }
        }
    }
}

/// Schedules the value of the pair `key: value`, marking container items.
fn push_value<'a>(
    stack: &mut Vec<Pending<'a>>,
    key: Option<&str>,
    value: &'a Node,
    ctx: Context<'a>,
) {
    let ctx = Context {
        under_spec: ctx.under_spec || key == Some("spec"),
        under_volumes: ctx.under_volumes || key == Some("volumes"),
        ..ctx
    };
    match (key, value.as_sequence()) {
        (Some("containers"), Some(items)) => {
            stack.extend(items.iter().rev().map(|item| {
                let is_container_item = item.as_mapping().is_some();
                Pending {
                    node: item,
                    ctx: Context {
                        container_item: if is_container_item {
                            Some(item)
                        } else {
                            ctx.container_item
                        },
                        ..ctx
                    },
                    is_container_item,
                }
            }));
        }
        _ => stack.push(Pending {
            node: value,
            ctx,
            is_container_item: false,
        }),
    }
}
