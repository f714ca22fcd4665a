//! Native kube-linter 0.7.6 checks (spec E2 §1.4–1.5).
//!
//! [`lint`] decodes every document of a file with the object model of
//! [`crate::k8s`] (undecodable documents become [`ScanError`]s and are
//! otherwise ignored), then runs the enabled checks on every object, in file
//! order and check-name order, skipping checks the object's own annotations
//! switch off.
//!
//! # Adding a check
//! 1. Its catalogue row is already in `catalogue.rs` (severity, tier,
//!    remediation); fix it there if needed.
//! 2. Write `fn(&Context, &K8sObject) -> Vec<Diagnostic>` in `must/`,
//!    `next/`, `opt_in/cross/` or `opt_in/pod/`, reading typed fields of [`crate::k8s`]
//!    (add missing fields there first — see that module's docs — so they are
//!    type-checked), using the helpers of `util.rs` for per-container
//!    iteration.
//! 3. Add a [`registry::Check`] entry to that file's `CHECKS`; the
//!    registry test checks every entry names a catalogue row.

mod catalogue;
mod must;
mod next;
mod opt_in;
pub mod registry;
mod util;

use crate::k8s::decode_document;
use crate::{Analysis, Enabled, Finding, ParsedDocument, RuleInfo, ScanError, Severity, Tool};

/// Version string recorded for the native backend.
pub const VERSION: &str = concat!(
    "svbench-scan ",
    env!("CARGO_PKG_VERSION"),
    " (kube-linter 0.7.6 semantics, findings at the offending field)"
);

/// Every check, must + next + opt-in, sorted by name.
#[must_use]
pub fn catalogue() -> &'static [RuleInfo] {
    catalogue::CATALOGUE
}

/// Names of the checks that have an implementation (sorted).
#[must_use]
pub fn implemented_checks() -> Vec<&'static str> {
    registry::implemented().iter().map(|c| c.name).collect()
}

/// Runs the enabled checks over the documents of one file.
#[must_use]
pub fn lint(file: &str, docs: &[ParsedDocument], enabled: &Enabled) -> Analysis {
    let mut analysis = Analysis::default();
    let error = |doc_index: Option<usize>, message: String| ScanError {
        file: file.to_owned(),
        doc_index,
        tool: Some(Tool::KubeLinter),
        message,
    };
    let mut objects = Vec::new();
    for doc in docs {
        match &doc.result {
            Err(e) => analysis
                .errors
                .push(error(doc.doc_index, format!("cannot read YAML: {e}"))),
            Ok(node) => match decode_document(node, doc.doc_index) {
                Ok(objs) => objects.extend(objs),
                Err(e) => analysis.errors.push(error(
                    doc.doc_index,
                    format!("cannot decode Kubernetes object: {e}"),
                )),
            },
        }
    }
    let checks: Vec<_> = registry::implemented()
        .into_iter()
        .filter(|c| enabled.contains(c.name))
        .collect();
    let ctx = registry::Context { objects: &objects };
    for object in &objects {
        for check in &checks {
            if object.ignores(check.name) {
                continue;
            }
            let severity = severity_of(check.name);
            for d in (check.run)(&ctx, object) {
                analysis.findings.push(Finding {
                    tool: Tool::KubeLinter,
                    rule_id: check.name.to_owned(),
                    severity,
                    message: d.message,
                    file: file.to_owned(),
                    line: Some(d.line),
                    doc_index: object.doc_index,
                    object: Some(object.object_ref()),
                    container: d.container,
                });
            }
        }
    }
    analysis
}

/// How many Kubernetes objects kube-linter loads from the documents of one
/// file (a core `v1` `List` counts its items); undecodable documents count
/// nothing. 0 is kube-linter's "no valid objects" case (spec E2 §1.4), where
/// the real binary prints no report at all.
#[must_use]
pub fn decoded_objects(docs: &[ParsedDocument]) -> usize {
    docs.iter()
        .filter_map(|doc| doc.result.as_ref().ok().map(|node| (node, doc.doc_index)))
        .filter_map(|(node, doc_index)| decode_document(node, doc_index).ok())
        .map(|objects| objects.len())
        .sum()
}

/// The project severity of a check (low for an id missing from the
/// catalogue, which the registry test rules out).
fn severity_of(name: &str) -> Severity {
    catalogue::CATALOGUE
        .iter()
        .find(|r| r.id == name)
        .map_or(Severity::Low, |r| r.severity)
}
