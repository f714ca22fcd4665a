//! JSON Pointer (RFC 6901) of a deny element → line in the YAML tree.

use crate::Node;

/// The line of the deepest node `pointer` reaches in `root`: for a mapping
/// entry the line of its key, for a sequence item the item's first line. A
/// pointer that leaves the tree stops at the last node it reached; the empty
/// pointer is the object's own first line.
pub(crate) fn yaml_line(root: &Node, pointer: &str) -> usize {
    let mut node = root;
    let mut line = root.line;
    for token in tokens(pointer) {
        let next = if let Some(pairs) = node.as_mapping() {
            pairs
                .iter()
                .find(|(key, _)| key.as_scalar().is_some_and(|s| s.text == token))
                .map(|(key, value)| (key.line, value))
        } else if let Some(items) = node.as_sequence() {
            token
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i))
                .map(|item| (item.line, item))
        } else {
            None
        };
        match next {
            Some((l, child)) => {
                line = l;
                node = child;
            }
            None => break,
        }
    }
    line
}

/// The unescaped reference tokens of a JSON Pointer (`""` has none).
fn tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
}
