//! The Kubernetes object a document describes, as written in it.
//!
//! Semgrep's rules never decode Kubernetes objects, but findings still name
//! the enclosing document's object (spec E2 §1.1) so that reports and
//! rewards can group them with the other analyzers' findings. Values are
//! taken as written: nothing is defaulted (no `default` namespace).

use crate::{Node, ObjectRef};

/// The object of the document `root`, if it is a mapping with a `kind`.
pub(crate) fn document_object(root: &Node) -> Option<ObjectRef> {
    Some(ObjectRef::K8s {
        api_version: root.get("apiVersion").and_then(written),
        kind: root.get("kind").and_then(written)?,
        name: root.get_path(&["metadata", "name"]).and_then(written),
        namespace: root.get_path(&["metadata", "namespace"]).and_then(written),
    })
}

/// A scalar's text as written, unless it is null (`~`, `null`, empty);
/// collections have no written text.
pub(crate) fn written(node: &Node) -> Option<String> {
    let scalar = node.as_scalar()?;
    (!node.is_null()).then(|| scalar.text.clone())
}
