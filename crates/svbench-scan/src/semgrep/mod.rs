//! Native equivalents of the semgrep registry rules for Kubernetes YAML
//! (spec E2 §1.6): the eight `yaml.kubernetes.security.*` rules seen in the
//! upstream labels.
//!
//! The rules are syntax-level, like semgrep's YAML patterns: they match key
//! names and nesting in every document of the file and never decode
//! Kubernetes objects, so kinds, API versions and undecodable-but-valid YAML
//! make no difference. The pieces: [`walk`] visits the tree with ancestor
//! facts, [`rules`] decides which rule fires at which line, [`suppress`]
//! honours `nosemgrep` comments, and [`object`] names the document's object.

mod object;
mod rule;
mod rules;
mod suppress;
mod walk;

use std::collections::HashSet;

use crate::{Analysis, Enabled, Finding, ParsedDocument, RuleInfo, ScanError, Tool};

use object::{document_object, written};
use rule::{Rule, CATALOGUE};
use suppress::Comments;

/// Version string recorded for the native backend.
pub const VERSION: &str = concat!(
    "svbench-scan ",
    env!("CARGO_PKG_VERSION"),
    " (semgrep yaml.kubernetes.security rules)"
);

/// Every rule, sorted by id.
#[must_use]
pub fn catalogue() -> &'static [RuleInfo] {
    &CATALOGUE
}

/// Runs the enabled rules over one YAML file (`text` is the whole file, for
/// `nosemgrep` comments; `docs` its parsed documents).
///
/// Semgrep parses a file as a whole, so one document it cannot read costs
/// the whole file: any document error yields no findings and one error.
/// Matches of one rule at one line are reported once (semgrep reports a
/// location once per rule, and alias copies share their anchor's lines).
#[must_use]
pub fn scan(file: &str, text: &str, docs: &[ParsedDocument], enabled: &Enabled) -> Analysis {
    let mut analysis = Analysis::default();
    if !CATALOGUE.iter().any(|r| enabled.contains(r.id)) {
        return analysis;
    }
    if let Some(error) = file_error(file, docs) {
        analysis.errors.push(error);
        return analysis;
    }
    let comments = Comments::new(text);
    let mut reported: HashSet<(Rule, usize)> = HashSet::new();
    for doc in docs {
        let Ok(root) = &doc.result else { continue };
        let object = document_object(root);
        for m in rules::matches(root) {
            if !enabled.contains(m.rule.id())
                || !reported.insert((m.rule, m.line))
                || comments.suppresses(m.rule, m.line)
            {
                continue;
            }
            let container = m
                .container_item
                .and_then(|item| item.get("name"))
                .and_then(written);
            analysis.findings.push(Finding {
                tool: Tool::Semgrep,
                rule_id: m.rule.id().to_owned(),
                severity: m.rule.severity(),
                message: m.rule.message(container.as_deref()),
                file: file.to_owned(),
                line: Some(m.line),
                doc_index: doc.doc_index,
                object: object.clone(),
                container,
            });
        }
    }
    analysis
}

/// The error that stops the semgrep rules for the whole file, if a document
/// could not be read; it names the document only when exactly one failed.
fn file_error(file: &str, docs: &[ParsedDocument]) -> Option<ScanError> {
    let mut failed = docs.iter().filter_map(|d| match &d.result {
        Err(e) => Some((d.doc_index, e)),
        Ok(_) => None,
    });
    let (doc_index, first) = failed.next()?;
    let others = failed.count();
    let more = match others {
        0 => String::new(),
        n => format!(" (and {n} more unreadable document(s))"),
    };
    Some(ScanError {
        file: file.to_owned(),
        doc_index: if others == 0 { doc_index } else { None },
        tool: Some(Tool::Semgrep),
        message: format!("YAML error, no semgrep rules applied to the file: {first}{more}"),
    })
}
