//! One row per issue where several namespaces report the same thing.
//!
//! The three namespaces name rules independently (`kube-linter/
//! privileged-container`, `semgrep/yaml.kubernetes.security.
//! privileged-container.privileged-container`, `opa/K8S_002`), and E2's id
//! normalisation deliberately stays inside one namespace. [`SAME_ISSUE`] is
//! the explicit cross-namespace table: only rules that test the same field
//! for the same condition are grouped; every other rule is its own issue.
//!
//! [`dedupe`] groups the findings of one file by (document, object,
//! container, issue). Tools point at different lines of one problem (semgrep
//! reports a container item's first line, as upstream semgrep does; kube-
//! linter and the Rego policies the offending field), so a row carries the
//! latest member line, which is the innermost, i.e. the field's.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{Finding, ObjectRef, Severity, Tool};

/// Rules of different namespaces that report the same issue: the issue's
/// name, then its `(namespace, rule id)` members.
pub const SAME_ISSUE: &[(&str, &[(Tool, &str)])] = &[
    (
        "privileged-container",
        &[
            (Tool::KubeLinter, "privileged-container"),
            (
                Tool::Semgrep,
                "yaml.kubernetes.security.privileged-container.privileged-container",
            ),
            (Tool::Opa, "K8S_002"),
        ],
    ),
    (
        "host-network",
        &[
            (Tool::KubeLinter, "host-network"),
            (
                Tool::Semgrep,
                "yaml.kubernetes.security.hostnetwork-pod.hostnetwork-pod",
            ),
        ],
    ),
    (
        "host-pid",
        &[
            (Tool::KubeLinter, "host-pid"),
            (
                Tool::Semgrep,
                "yaml.kubernetes.security.hostpid-pod.hostpid-pod",
            ),
        ],
    ),
    (
        "host-ipc",
        &[
            (Tool::KubeLinter, "host-ipc"),
            (
                Tool::Semgrep,
                "yaml.kubernetes.security.hostipc-pod.hostipc-pod",
            ),
        ],
    ),
    (
        "writable-root-filesystem",
        &[
            (Tool::KubeLinter, "no-read-only-root-fs"),
            (
                Tool::Semgrep,
                "yaml.kubernetes.security.writable-filesystem-container.writable-filesystem-container",
            ),
        ],
    ),
];

/// The cross-namespace issue a rule belongs to, if [`SAME_ISSUE`] lists it.
#[must_use]
pub fn same_issue(tool: Tool, rule_id: &str) -> Option<&'static str> {
    SAME_ISSUE
        .iter()
        .find(|(_, members)| members.iter().any(|(t, r)| *t == tool && *r == rule_id))
        .map(|(name, _)| *name)
}

/// One issue of a file and every finding that reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IssueRow {
    /// The [`SAME_ISSUE`] name, or the finding's full id `tool/rule`.
    pub issue: String,
    /// The file.
    pub file: String,
    /// The latest member line (the offending field's where one points at it).
    pub line: Option<usize>,
    /// The highest member severity.
    pub severity: Severity,
    /// The message of the member at [`IssueRow::line`].
    pub message: String,
    /// The document.
    pub doc_index: Option<usize>,
    /// The object.
    pub object: Option<ObjectRef>,
    /// The container.
    pub container: Option<String>,
    /// The namespaces that report it, in namespace order, once each.
    pub tools: Vec<Tool>,
    /// The member findings' full ids, sorted, once each.
    pub ids: Vec<String>,
    /// The member findings, in output order.
    pub findings: Vec<Finding>,
}

impl IssueRow {
    /// `file:line` (or `file` when no member has a line).
    #[must_use]
    pub fn location(&self) -> String {
        crate::finding::location(&self.file, self.line)
    }
}

/// Groups findings into issue rows (see the module docs), sorted by file,
/// line, then issue. Findings of rules outside [`SAME_ISSUE`] group only
/// with findings of the same rule on the same line, object and container.
#[must_use]
pub fn dedupe(findings: &[Finding]) -> Vec<IssueRow> {
    type Key = (
        String,
        Option<usize>,
        Option<ObjectRef>,
        Option<String>,
        String,
        Option<usize>,
    );
    let mut groups: BTreeMap<Key, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        let (issue, line) = match same_issue(f.tool, &f.rule_id) {
            Some(name) => (name.to_owned(), None),
            // Unmapped rules keep their line in the key: two findings of one
            // rule on different lines stay two rows.
            None => (f.full_id(), f.line),
        };
        groups
            .entry((
                f.file.clone(),
                f.doc_index,
                f.object.clone(),
                f.container.clone(),
                issue,
                line,
            ))
            .or_default()
            .push(f);
    }
    let mut rows: Vec<IssueRow> = groups
        .into_iter()
        .filter_map(
            |((file, doc_index, object, container, issue, _), mut members)| {
                members.sort_by(|a, b| a.output_order(b));
                // The first member (output order) at the latest line.
                let lead = *members.iter().rev().max_by_key(|f| f.line)?;
                let mut tools: Vec<Tool> = members.iter().map(|f| f.tool).collect();
                tools.sort();
                tools.dedup();
                let mut ids: Vec<String> = members.iter().map(|f| f.full_id()).collect();
                ids.sort();
                ids.dedup();
                Some(IssueRow {
                    issue,
                    file,
                    line: lead.line,
                    severity: members.iter().map(|f| f.severity).max()?,
                    message: lead.message.clone(),
                    doc_index,
                    object,
                    container,
                    tools,
                    ids,
                    findings: members.into_iter().cloned().collect(),
                })
            },
        )
        .collect();
    rows.sort_by(|a, b| {
        (&a.file, a.line, &a.issue, &a.container).cmp(&(&b.file, b.line, &b.issue, &b.container))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{kube_linter, semgrep};

    /// A `privileged: true` container is one row that all three namespaces
    /// agree on, at the field's line; rules outside the table stay apart.
    #[test]
    fn privileged_is_one_row_of_three_namespaces() {
        let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x:1\n    securityContext:\n      privileged: true\n";
        let mut scanner =
            crate::scan::Scanner::new(&crate::scan::ScanOptions::default()).expect("scanner");
        let report = scanner.scan("pod.yaml", yaml.as_bytes(), crate::scan::FileType::K8s);
        let rows = dedupe(&report.findings);
        let privileged: Vec<&IssueRow> = rows
            .iter()
            .filter(|r| r.issue == "privileged-container")
            .collect();
        assert_eq!(privileged.len(), 1, "{rows:#?}");
        let row = privileged[0];
        assert_eq!(row.tools, [Tool::KubeLinter, Tool::Semgrep, Tool::Opa]);
        assert_eq!(row.line, Some(10));
        assert_eq!(row.container.as_deref(), Some("c"));
        assert_eq!(row.findings.len(), 3);
        assert!(rows
            .iter()
            .any(|r| r.issue == "kube-linter/privilege-escalation-container"));
        let kept: usize = rows.iter().map(|r| r.findings.len()).sum();
        assert_eq!(kept, report.findings.len(), "no finding is lost");
    }

    /// Every table entry names a rule of its namespace's catalogue, so a
    /// renamed rule cannot silently drop out of its issue.
    #[test]
    fn every_member_is_a_catalogued_rule() {
        let opa = crate::opa::Opa::builtin().expect("built-in policies load");
        let opa_rules: Vec<String> = opa.rules().into_iter().map(|r| r.id).collect();
        for (issue, members) in SAME_ISSUE {
            assert!(members.len() >= 2, "{issue} groups one rule");
            for (tool, rule) in *members {
                let known = match tool {
                    Tool::KubeLinter => kube_linter::catalogue().iter().any(|r| r.id == *rule),
                    Tool::Semgrep => semgrep::catalogue().iter().any(|r| r.id == *rule),
                    Tool::Opa => opa_rules.iter().any(|r| r == rule),
                };
                assert!(known, "{issue}: {tool}/{rule} is not a catalogued rule");
                assert_eq!(
                    same_issue(*tool, rule),
                    Some(*issue),
                    "{tool}/{rule} listed twice"
                );
            }
        }
    }
}
