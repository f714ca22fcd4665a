//! The YAML model's node budget across the documents of one file and the
//! parses of one request: a file is the input's document repeated, so that
//! the fuzzer multiplies units (documents per file, parses per request)
//! instead of finding only what one document can do.
//!
//! Input: a first byte `n` (the file holds `1 + n % 32` copies of the
//! document, separated by `---` lines), then the document's bytes.
//!
//! Invariants beyond "no panic", with small limits (10,000 nodes per
//! document, a file budget of one node per input byte between 10,000 and
//! 40,000): the nodes built for the whole file — every document together,
//! aliases expanded — stay within `Limits::file_nodes` of the file's
//! length, and the scalar text and tags they hold within 64 bytes per
//! budgeted node
//! (so memory is bounded per input byte, not per document); two parses
//! drawing from one shared budget stay within it together; a budget error
//! is the last entry (reading stops), and it comes only once the budget is
//! nearly spent.

use svbench_scan::{
    decode_input, parse_documents, parse_documents_within, Limits, Node, NodeBudget, NodeKind,
    ParsedDocument, YamlError,
};

/// Copies of the document per file, at most.
const MAX_COPIES: usize = 32;

/// Bytes of scalar text and tag one budgeted node may stand for (the
/// builder counts a node as one plus one per 64 bytes of its text and tag).
const TEXT_PER_NODE: usize = 64;

fn limits() -> Limits {
    Limits {
        max_input_bytes: 1 << 20,
        max_nodes: 10_000,
        nodes_per_byte: 1,
        max_file_nodes: 40_000,
        ..Limits::default()
    }
}

/// One input: a copy count and a document.
pub fn run(data: &[u8]) {
    let Some((&n, doc)) = data.split_first() else {
        return;
    };
    let limits = limits();
    let Ok(doc) = decode_input(doc, &limits) else {
        return;
    };
    let copies = 1 + usize::from(n) % MAX_COPIES;
    let text = vec![doc; copies].join("\n---\n");
    if text.len() > limits.max_input_bytes {
        return;
    }
    let budget = limits.file_nodes(text.len());

    // One file: all documents together within the file's budget.
    let docs = parse_documents(&text, &limits);
    let (nodes, text_bytes) = held(&docs);
    assert!(
        nodes <= budget,
        "{copies} documents hold {nodes} nodes, over the file's budget of {budget} ({} bytes)",
        text.len()
    );
    assert!(
        text_bytes <= budget * TEXT_PER_NODE,
        "{copies} documents hold {text_bytes} bytes of scalar text and tags, over {TEXT_PER_NODE} per budgeted node ({budget})"
    );
    check_stop(&docs);

    // One request: the same file read twice from one shared budget (a
    // scorer reads its config several times) costs one budget, not two.
    let shared = NodeBudget::for_input(&limits, text.len());
    let first = parse_documents_within(&text, &limits, &shared);
    let second = parse_documents_within(&text, &limits, &shared);
    let (a, _) = held(&first);
    let (b, _) = held(&second);
    assert!(
        a + b <= shared.limit(),
        "two parses of one request hold {} nodes, over its budget of {}",
        a + b,
        shared.limit()
    );
    assert!(shared.used() <= shared.limit());
    check_stop(&first);
    check_stop(&second);
}

/// Nodes, and bytes of scalar text and tags, held by the parsed documents.
fn held(docs: &[ParsedDocument]) -> (usize, usize) {
    let mut nodes = 0usize;
    let mut text = 0usize;
    for doc in docs {
        if let Ok(node) = &doc.result {
            walk(node, &mut nodes, &mut text);
        }
    }
    (nodes, text)
}

fn walk(node: &Node, nodes: &mut usize, text: &mut usize) {
    *nodes += 1;
    if let Some(tag) = &node.tag {
        *text += tag.len();
    }
    match &node.kind {
        NodeKind::Scalar(s) => *text += s.text.len(),
        NodeKind::Sequence(items) => {
            for item in items {
                walk(item, nodes, text);
            }
        }
        NodeKind::Mapping(pairs) => {
            for (k, v) in pairs {
                walk(k, nodes, text);
                walk(v, nodes, text);
            }
        }
    }
}

/// A budget error ends the list: nothing after it was read.
fn check_stop(docs: &[ParsedDocument]) {
    if let Some(i) = docs
        .iter()
        .position(|d| matches!(d.result, Err(YamlError::BudgetExceeded { .. })))
    {
        assert_eq!(
            i + 1,
            docs.len(),
            "documents were read after the budget ran out"
        );
    }
}
