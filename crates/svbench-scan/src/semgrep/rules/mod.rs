//! Matching: which rules fire where in one document (spec E2 §1.6 table).
//!
//! Container-item rules live in [`container`], rules about pod-level keys
//! anywhere in the tree in [`pod`]. Both only report raw matches; collapsing,
//! suppression and the finding's object are the scan's business.

mod container;
mod pod;

use super::rule::Rule;
use super::walk::{walk, Context, Visitor};
use crate::Node;

/// One rule matching at one line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Match<'a> {
    /// The rule.
    pub(crate) rule: Rule,
    /// The reported (first) line of the match.
    pub(crate) line: usize,
    /// The container item the match is in, if any.
    pub(crate) container_item: Option<&'a Node>,
}

/// Every match in the document `root`, in walk order (duplicates included).
pub(crate) fn matches(root: &Node) -> Vec<Match<'_>> {
    let mut collector = Collector::default();
    walk(root, &mut collector);
    collector.matches
}

#[derive(Default)]
struct Collector<'a> {
    matches: Vec<Match<'a>>,
}

impl<'a> Collector<'a> {
    fn push(&mut self, rule: Rule, line: usize, ctx: &Context<'a>) {
        self.matches.push(Match {
            rule,
            line,
            container_item: ctx.container_item,
        });
    }
}

impl<'a> Visitor<'a> for Collector<'a> {
    fn pair(&mut self, key: &'a Node, value: &'a Node, ctx: &Context<'a>) {
        if let Some((rule, line)) = pod::check_pair(key, value, ctx) {
            self.push(rule, line, ctx);
        }
    }

    fn container_item(&mut self, item: &'a Node, ctx: &Context<'a>) {
        for (rule, line) in container::check_item(item) {
            self.push(rule, line, ctx);
        }
    }
}

/// Whether `node` is a scalar resolving to boolean true (YAML 1.1, as the
/// shared model resolves it; a quoted `"true"` is a string and does not count).
fn is_true(node: Option<&Node>) -> bool {
    node.and_then(Node::as_bool) == Some(true)
}
