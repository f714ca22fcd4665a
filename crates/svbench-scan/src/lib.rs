//! The config analyzers of environment E2 (and of `svbench scan`) as a
//! library: the Kubernetes YAML and object models ([`k8s`]), native
//! kube-linter checks ([`kube_linter`]), semgrep's Kubernetes rules
//! ([`semgrep`]), the project's Rego policies through regorus ([`rego`],
//! [`opa`]), Terraform HCL as policy input ([`terraform`]), the patch
//! appliers ([`patch`]), one scan of a file over all of them ([`scan`]) and
//! the real tools as optional cross-checks ([`external`]). E4's emails are
//! not here: they are `svbench-mail`.
//!
//! At the root is the YAML model shared by every Kubernetes analyzer
//! (spec E2 §1.3): files are split into documents exactly as kube-linter's
//! reader does ([`split_documents`]), each document becomes a [`Node`] tree
//! with file line numbers, tags and quoting style ([`parse_document`]), with
//! anchors, aliases and `<<` merge keys expanded under [`Limits`], and plain
//! scalars resolved by YAML 1.1 rules as go-yaml v2 does ([`resolve_plain`]).
//! Nothing here panics on input; every failure is a [`YamlError`] with a line.
//!
//! Known differences from go-yaml v2 (the parser behind kube-linter): the
//! syntax is saphyr-parser's (YAML 1.2), which accepts a tab as separation
//! after `- ` / `: ` in some block contexts where libyaml reports "found
//! character that cannot start any token" (`a: \tb`, `-\tb`); `!!timestamp`
//! scalars are kept as text without checking their form; and the bounds on
//! alias expansion are the project's [`Limits`], not go-yaml v2's alias-ratio
//! heuristic.
//!
//! ```
//! use svbench_scan::{decode_input, parse_document, split_documents, Limits};
//!
//! let limits = Limits::default();
//! let text = decode_input(b"kind: Pod\nspec:\n  hostNetwork: yes\n", &limits).unwrap();
//! let first = split_documents(text).next().unwrap().unwrap();
//! let pod = parse_document(&first, &limits).unwrap();
//! let host_network = pod.get_path(&["spec", "hostNetwork"]).unwrap();
//! assert_eq!(host_network.as_bool(), Some(true));
//! assert_eq!(host_network.line, 3);
//! ```

mod build;
mod catalogue;
mod error;
mod finding;
mod node;
mod resolve;
mod severity;
mod split;

pub mod dedupe;
pub mod external;
pub mod k8s;
pub mod kube_linter;
pub mod opa;
pub mod patch;
pub mod rego;
pub mod scan;
pub mod semgrep;
pub mod terraform;

pub use build::{parse_document, parse_document_within, Limits, NodeBudget};
pub use catalogue::{Enabled, RuleInfo, Tier};
pub use error::YamlError;
pub use finding::{Analysis, Finding, ObjectRef, ScanError, TerraformKind, Tool};
pub use node::{Node, NodeKind, Scalar, ScalarStyle};
pub use resolve::{resolve_plain, ScalarValue};
pub use severity::Severity;
pub use split::{decode_input, split_documents, DocumentSource, SplitDocuments};
pub use svbench_core::deadline::{Deadline, TimeBudgetExceeded};

/// One document of a file after splitting and parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDocument {
    /// The document's index (see [`DocumentSource::doc_index`]); `None` for the
    /// separator error that ends reading.
    pub doc_index: Option<usize>,
    /// 1-based line where the document (or the bad separator) begins.
    pub first_line: usize,
    /// The tree, or why the document could not be read.
    pub result: Result<Node, YamlError>,
}

/// Splits `text` and parses every document: one entry per document, then one
/// for a bad separator if reading stopped at one.
///
/// All documents draw from one node budget, the file's
/// ([`Limits::file_nodes`] of `text`'s length): a file of many documents,
/// each under [`Limits::max_nodes`], costs no more than the file's budget.
/// The document that exhausts it is a [`YamlError::BudgetExceeded`] entry,
/// and reading stops there.
#[must_use]
pub fn parse_documents(text: &str, limits: &Limits) -> Vec<ParsedDocument> {
    parse_documents_within(text, limits, &NodeBudget::for_input(limits, text.len()))
}

/// [`parse_documents`] drawing from `budget`, which may be shared with other
/// parses (everything one request reads); reading stops at the document
/// that exhausts it.
#[must_use]
pub fn parse_documents_within(
    text: &str,
    limits: &Limits,
    budget: &NodeBudget,
) -> Vec<ParsedDocument> {
    let mut out = Vec::new();
    for doc in split_documents(text) {
        let parsed = match doc {
            Ok(src) => ParsedDocument {
                doc_index: Some(src.doc_index),
                first_line: src.first_line,
                result: parse_document_within(&src, limits, budget),
            },
            Err(e) => ParsedDocument {
                doc_index: None,
                first_line: e.line().unwrap_or(1),
                result: Err(e),
            },
        };
        let stop = matches!(parsed.result, Err(YamlError::BudgetExceeded { .. }));
        out.push(parsed);
        if stop {
            break;
        }
    }
    out
}

/// The budget error among `docs`, if reading stopped at one
/// ([`parse_documents_within`]).
#[must_use]
pub fn budget_error(docs: &[ParsedDocument]) -> Option<&YamlError> {
    docs.iter()
        .rev()
        .find_map(|d| d.result.as_ref().err())
        .filter(|e| matches!(e, YamlError::BudgetExceeded { .. }))
}
