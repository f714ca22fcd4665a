//! Per-file differences between native and external findings
//! (`svbench scan --backend crosscheck`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{Finding, Tool};

/// How the native and external findings of one file compare.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CrossCheck {
    /// The file.
    pub file: String,
    /// Native findings with no external counterpart, in output order.
    pub only_native: Vec<Finding>,
    /// External findings with no native counterpart, in output order.
    pub only_external: Vec<Finding>,
    /// Number of native findings matched by an external one.
    pub agreed: usize,
}

impl CrossCheck {
    /// Whether both sides found the same things.
    #[must_use]
    pub fn agrees(&self) -> bool {
        self.only_native.is_empty() && self.only_external.is_empty()
    }
}

/// What two findings must share to count as the same (beyond tool and rule
/// id), per namespace — only what both backends can know:
/// - kube-linter: the container (the binary reports no lines);
/// - semgrep: the line (the binary reports no containers);
/// - opa: the document and the container (the external line is the object's
///   first line, the native one may come from the element's `path`).
type Key = (Tool, String, Option<String>, Option<usize>);

fn key(f: &Finding) -> Key {
    let (container, position) = match f.tool {
        Tool::KubeLinter => (f.container.clone(), None),
        Tool::Semgrep => (None, f.line),
        Tool::Opa => (f.container.clone(), f.doc_index),
    };
    (f.tool, f.rule_id.clone(), container, position)
}

/// Compares the findings of `file` in the namespaces `tools` (those run by
/// both backends; findings of other namespaces are ignored) as multisets
/// over the key above: each external finding matches at most one native
/// finding with the same key.
#[must_use]
pub fn crosscheck(
    file: &str,
    tools: &[Tool],
    native: &[Finding],
    external: &[Finding],
) -> CrossCheck {
    let mut pending: BTreeMap<Key, Vec<&Finding>> = BTreeMap::new();
    for f in native.iter().filter(|f| tools.contains(&f.tool)) {
        pending.entry(key(f)).or_default().push(f);
    }
    let mut only_external = Vec::new();
    let mut agreed = 0;
    for f in external.iter().filter(|f| tools.contains(&f.tool)) {
        match pending.get_mut(&key(f)).and_then(Vec::pop) {
            Some(_) => agreed += 1,
            None => only_external.push(f.clone()),
        }
    }
    let mut only_native: Vec<Finding> = pending.into_values().flatten().cloned().collect();
    only_native.sort_by(Finding::output_order);
    only_external.sort_by(Finding::output_order);
    CrossCheck {
        file: file.to_owned(),
        only_native,
        only_external,
        agreed,
    }
}
