//! The YAML object model: input decoding, document splitting, the node tree
//! (anchors, aliases and merge keys under `Limits`), JSON conversion, the
//! Kubernetes object decoder, and the YAML emitter the JSON Patch applier
//! writes with.
//!
//! Invariants: no panic, no allocation past the node limit (the process
//! stays under `-rss_limit_mb`); every node's and error's line lies in the
//! file; document indices increase; and the emitter is value-exact: a
//! document converted to JSON, emitted and parsed again gives the same JSON.

use svbench_scan::k8s::decode_document;
use svbench_scan::patch::yaml_emit;
use svbench_scan::{decode_input, parse_documents, Limits, Node, NodeKind, ParsedDocument};

/// Nodes visited per document by the line check (aliases may expand a
/// document to a million nodes; the check needs no more than this).
const VISIT_LIMIT: usize = 20_000;

/// One input: the bytes of a manifest file.
pub fn run(data: &[u8]) {
    let limits = Limits::default();
    let Ok(text) = decode_input(data, &limits) else {
        return;
    };
    let last_line = crate::max_line(text);
    let docs = parse_documents(text, &limits);
    let mut previous: Option<usize> = None;
    for doc in &docs {
        check_document(doc, last_line, &mut previous);
    }
    for doc in docs {
        let Ok(node) = doc.result else { continue };
        if let Ok(objects) = decode_document(&node, doc.doc_index) {
            for object in &objects {
                assert!(
                    (1..=last_line).contains(&object.line),
                    "object line {} outside the file",
                    object.line
                );
            }
        }
        round_trip(&node, &limits);
    }
}

fn check_document(doc: &ParsedDocument, last_line: usize, previous: &mut Option<usize>) {
    assert!(
        (1..=last_line).contains(&doc.first_line),
        "document first line {} outside the file ({last_line})",
        doc.first_line
    );
    if let Some(i) = doc.doc_index {
        if let Some(p) = *previous {
            assert!(i > p, "document index {i} after {p}");
        }
        *previous = Some(i);
    }
    match &doc.result {
        Ok(node) => {
            let mut budget = VISIT_LIMIT;
            check_lines(node, last_line, &mut budget);
        }
        Err(e) => {
            if let Some(line) = e.line() {
                assert!(
                    (1..=last_line).contains(&line),
                    "error line {line} outside the file ({last_line}): {e}"
                );
            }
        }
    }
}

fn check_lines(node: &Node, last_line: usize, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    assert!(
        (1..=last_line).contains(&node.line) && node.column >= 1,
        "node at {}:{} outside the file ({last_line} lines)",
        node.line,
        node.column
    );
    match &node.kind {
        NodeKind::Mapping(pairs) => {
            for (k, v) in pairs {
                check_lines(k, last_line, budget);
                check_lines(v, last_line, budget);
            }
        }
        NodeKind::Sequence(items) => {
            for item in items {
                check_lines(item, last_line, budget);
            }
        }
        NodeKind::Scalar(_) => {}
    }
}

/// JSON → YAML text → node → JSON gives the JSON back.
fn round_trip(node: &Node, limits: &Limits) {
    let Ok(json) = node.to_json() else {
        return;
    };
    let emitted = yaml_emit::emit_document(&json);
    let reparsed = parse_documents(&emitted, limits);
    let values: Vec<_> = reparsed
        .into_iter()
        .filter_map(|d| d.result.ok())
        .map(|n| n.to_json())
        .collect();
    match values.as_slice() {
        [Ok(back)] => assert!(
            *back == json,
            "emitter is not value-exact:\nJSON {json}\nemitted {emitted:?}\nread back {back}"
        ),
        other => panic!(
            "emitted YAML does not read back as one document:\nJSON {json}\nemitted {emitted:?}\ngot {other:?}"
        ),
    }
}
