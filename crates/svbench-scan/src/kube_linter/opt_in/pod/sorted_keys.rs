//! `sorted-keys` (after kube-linter 0.7.6): mapping keys must be in
//! alphabetical order, at every depth. It reads the object's YAML tree,
//! not its typed fields, since unknown fields count too.

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::Node;

/// One finding per mapping (the object's own and every nested one, in
/// document order) whose keys are not sorted, at the first key that sorts
/// before its predecessor. Keys compare by their text, byte-wise (Go's
/// string order: upper case before lower case); non-scalar keys are
/// skipped.
pub(crate) fn sorted_keys(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    walk(&object.node, &mut String::new(), &mut out);
    out
}

fn walk(node: &Node, path: &mut String, out: &mut Vec<Diagnostic>) {
    if let Some(pairs) = node.as_mapping() {
        let keys: Vec<(&str, usize)> = pairs
            .iter()
            .filter_map(|(k, _)| k.as_scalar().map(|s| (s.text.as_str(), k.line)))
            .collect();
        if let Some(w) = keys.windows(2).find(|w| w[1].0 < w[0].0) {
            let (prev, (key, line)) = (w[0].0, w[1]);
            let at = if path.is_empty() {
                "the object's top-level keys".to_owned()
            } else {
                format!("the keys of {path}")
            };
            out.push(Diagnostic::object(
                line,
                format!("{at} are not in alphabetical order: {key:?} comes after {prev:?}"),
            ));
        }
        for (k, v) in pairs {
            let Some(key) = k.as_scalar() else {
                continue;
            };
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&key.text);
            walk(v, path, out);
            path.truncate(len);
        }
    } else if let Some(items) = node.as_sequence() {
        for (i, item) in items.iter().enumerate() {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            walk(item, path, out);
            path.truncate(len);
        }
    }
}
