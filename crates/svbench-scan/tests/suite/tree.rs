//! Node tree: spans, merges, aliases, duplicate keys, JSON, hostile input.

use std::time::{Duration, Instant};

use serde_json::json;
use svbench_scan::{
    decode_input, parse_document, parse_documents, split_documents, Limits, Node, NodeKind,
    ScalarStyle, YamlError,
};

fn parse(text: &str) -> Result<Node, YamlError> {
    let docs = parse_documents(text, &Limits::default());
    docs.into_iter().next().expect("one document").result
}

fn tree(text: &str) -> Node {
    parse(text).expect("parses")
}

const POD: &str = "\
# leading comment
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
    - name: nginx
      image: nginx:latest
      securityContext:
        privileged: true
    - name: sidecar
      image: 'busybox'
";

#[test]
fn spans_of_nested_keys_and_values() {
    let pod = tree(POD);
    assert_eq!(pod.line, 2);
    let (k, v) = pod.get_pair("kind").expect("kind");
    assert_eq!((k.line, v.line), (3, 3));
    assert_eq!(v.as_str(), Some("Pod"));
    let (k, v) = pod.get_pair("metadata").expect("metadata");
    assert_eq!(k.line, 4);
    assert_eq!(v.line, 5);
    assert_eq!(
        pod.get_path(&["metadata", "labels", "app"]).map(|n| n.line),
        Some(7)
    );
    let containers = pod
        .get_path(&["spec", "containers"])
        .and_then(Node::as_sequence)
        .expect("containers");
    assert_eq!(containers.len(), 2);
    assert_eq!(containers[0].line, 10);
    assert_eq!(
        containers[0]
            .get_pair("image")
            .map(|(k, v)| (k.line, v.line)),
        Some((11, 11))
    );
    let privileged = containers[0]
        .get_path(&["securityContext", "privileged"])
        .expect("privileged");
    assert_eq!((privileged.line, privileged.as_bool()), (13, Some(true)));
    let image = containers[1].get("image").expect("image");
    assert_eq!(image.line, 15);
    assert_eq!(image.column, 14);
    assert_eq!(
        image.as_scalar().map(|s| s.style),
        Some(ScalarStyle::SingleQuoted)
    );
}

#[test]
fn lines_are_file_lines_in_later_documents() {
    let text = "a: 1\n---\n# c\n\nkind: Service\nspec:\n  ports:\n  - port: 80\n";
    let docs = parse_documents(text, &Limits::default());
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[1].doc_index, Some(1));
    let svc = docs[1].result.as_ref().expect("parses");
    assert_eq!(svc.get_pair("kind").map(|(k, _)| k.line), Some(5));
    let port = svc
        .get_path(&["spec", "ports"])
        .and_then(Node::as_sequence)
        .and_then(|p| p[0].get("port"))
        .expect("port");
    assert_eq!((port.line, port.as_i64()), (8, Some(80)));
}

#[test]
fn flow_collections_have_spans() {
    let node = tree("a:\n  b: [1, {c: d}]\n");
    let b = node.get_path(&["a", "b"]).expect("b");
    assert_eq!(b.line, 2);
    assert!(matches!(b.kind, NodeKind::Sequence(_)));
}

#[test]
fn syntax_errors_carry_file_lines() {
    let docs = parse_documents("a: 1\n---\nb: [1, 2\nc: 3\n", &Limits::default());
    assert!(docs[0].result.is_ok());
    match &docs[1].result {
        Err(YamlError::Syntax { line, .. }) => assert!(*line >= 3, "line {line}"),
        other => panic!("expected a syntax error, got {other:?}"),
    }
    let err = parse("a: b: c\n").expect_err("invalid");
    assert_eq!(err.line(), Some(1));
}

#[test]
fn aliases_are_expanded() {
    let node = tree("base: &b\n  x: 1\ncopy: *b\nlist: [*b, *b]\n");
    assert_eq!(
        node.get_path(&["copy", "x"]).and_then(Node::as_i64),
        Some(1)
    );
    // The copy keeps the anchored node's lines.
    assert_eq!(node.get_path(&["copy", "x"]).map(|n| n.line), Some(2));
    assert_eq!(
        node.get("list")
            .and_then(Node::as_sequence)
            .map(<[Node]>::len),
        Some(2)
    );
    let scalar = tree("a: &s hello\nb: *s\n");
    assert_eq!(scalar.get("b").and_then(Node::as_str), Some("hello"));
}

#[test]
fn unknown_alias_is_an_error() {
    assert!(parse("a: *nope\n").is_err());
}

#[test]
fn merge_keys() {
    let node = tree("defaults: &d\n  a: 1\n  b: 2\nitem:\n  <<: *d\n  b: 3\n  c: 4\n");
    let item = node.get("item").expect("item");
    let keys: Vec<_> = item
        .as_mapping()
        .expect("mapping")
        .iter()
        .filter_map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(keys, ["a", "b", "c"]);
    assert_eq!(item.get("a").and_then(Node::as_i64), Some(1));
    assert_eq!(item.get("b").and_then(Node::as_i64), Some(3));
    assert_eq!(item.get("c").and_then(Node::as_i64), Some(4));
}

#[test]
fn merge_of_a_sequence_earlier_mappings_win() {
    let node = tree("x: &x {a: 1, b: 1}\ny: &y {b: 2, c: 2}\nm:\n  <<: [*x, *y]\n");
    let m = node.get("m").expect("m");
    assert_eq!(m.get("a").and_then(Node::as_i64), Some(1));
    assert_eq!(m.get("b").and_then(Node::as_i64), Some(1));
    assert_eq!(m.get("c").and_then(Node::as_i64), Some(2));
}

#[test]
fn merge_placed_after_a_key_overrides_it_as_go_yaml_v2_does() {
    let node = tree("d: &d {a: 1}\nm:\n  a: 0\n  <<: *d\n");
    assert_eq!(node.get_path(&["m", "a"]).and_then(Node::as_i64), Some(1));
}

#[test]
fn quoted_merge_key_is_an_ordinary_key() {
    let node = tree("m:\n  '<<': {a: 1}\n");
    assert!(node.get_path(&["m", "<<", "a"]).is_some());
}

#[test]
fn merge_of_a_scalar_is_an_error() {
    assert_eq!(
        parse("a: &s x\nm:\n  <<: *s\n"),
        Err(YamlError::MergeNotMapping { line: 1 })
    );
    assert!(matches!(
        parse("m:\n  <<: [1]\n"),
        Err(YamlError::MergeNotMapping { line: 2 })
    ));
}

#[test]
fn duplicate_keys_last_wins() {
    let node = tree("a: 1\nb: 2\na: 3\n");
    let pairs = node.as_mapping().expect("mapping");
    assert_eq!(pairs.len(), 2);
    let (k, v) = node.get_pair("a").expect("a");
    assert_eq!((k.line, v.as_i64()), (3, Some(3)));
    // Keys compare by resolved value: `yes` and `true` are the same boolean key.
    let node = tree("yes: 1\ntrue: 2\n");
    assert_eq!(node.as_mapping().map(<[_]>::len), Some(1));
    // ... but the string "1" and the integer 1 differ.
    let node = tree("1: a\n'1': b\n");
    assert_eq!(node.as_mapping().map(<[_]>::len), Some(2));
}

#[test]
fn collection_keys_are_errors() {
    assert!(matches!(
        parse("? [a]\n: b\n"),
        Err(YamlError::InvalidKey { line: 1 })
    ));
}

#[test]
fn json_conversion() {
    let pod = tree(POD);
    let json = pod.to_json().expect("json");
    assert_eq!(json["kind"], json!("Pod"));
    assert_eq!(
        json["spec"]["containers"][0]["securityContext"]["privileged"],
        json!(true)
    );
    let node = tree("a: 0x10\nb: 1.5\nc: ~\nd: 'x'\ntrue: on\n1: 18446744073709551615\n");
    assert_eq!(
        node.to_json().expect("json"),
        json!({"a": 16, "b": 1.5, "c": null, "d": "x", "true": true, "1": 18446744073709551615u64})
    );
    let keys = tree("1.5: a\n1e7: b\n").to_json().expect("json");
    assert_eq!(keys, json!({"1.5": "a", "1e+07": "b"}));
    assert!(matches!(
        tree("a: .nan\n").to_json(),
        Err(YamlError::NotJson { line: 1, .. })
    ));
    assert!(matches!(
        tree("~: a\n").to_json(),
        Err(YamlError::NotJson { .. })
    ));
}

#[test]
fn only_the_first_yaml_document_of_a_chunk_is_read() {
    let node = tree("a: 1\n...\nb: 2\n");
    assert!(node.get("a").is_some());
    assert!(node.get("b").is_none());
}

#[test]
fn empty_document_is_null() {
    let src = svbench_scan::DocumentSource {
        doc_index: 0,
        first_line: 4,
        text: "# only\n",
    };
    let node = parse_document(&src, &Limits::default()).expect("parses");
    assert!(node.is_null());
    assert_eq!(node.line, 4);
}

fn billion_laughs(levels: usize) -> String {
    let mut s = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..levels {
        let p = i - 1;
        s.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    s
}

#[test]
fn billion_laughs_errors_quickly() {
    let start = Instant::now();
    let err = parse(&billion_laughs(10)).expect_err("bomb");
    assert!(matches!(err, YamlError::TooManyNodes { .. }), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn small_alias_use_is_within_limits() {
    assert!(parse(&billion_laughs(3)).is_ok());
}

#[test]
fn deep_nesting_errors_without_stack_overflow() {
    for text in [
        "[".repeat(100_000),
        "{a: ".repeat(100_000),
        "- ".repeat(100_000),
    ] {
        let err = parse(&text).expect_err("too deep");
        assert!(
            matches!(err, YamlError::TooDeep { .. } | YamlError::Syntax { .. }),
            "{err:?}"
        );
    }
    let deep_block: String = (0..2000)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .collect();
    assert!(matches!(parse(&deep_block), Err(YamlError::TooDeep { .. })));
}

#[test]
fn depth_through_aliases_is_bounded() {
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let text = "a: &a [[[1]]]\nb: [[*a]]\n";
    let docs = parse_documents(text, &limits);
    assert!(matches!(
        docs[0].result,
        Err(YamlError::TooDeep { line: 2, .. })
    ));
}

#[test]
fn invalid_utf8_and_binary_input_are_errors() {
    let limits = Limits::default();
    assert_eq!(
        decode_input(b"a: 1\nb: \xff\xfe\n", &limits),
        Err(YamlError::InvalidUtf8 { line: 2, offset: 8 })
    );
    assert_eq!(
        decode_input(b"a: 1\n\x00\x01\x02binary", &limits),
        Err(YamlError::ControlCharacter { line: 2, code: 0 })
    );
    let elf = [0x7fu8, b'E', b'L', b'F', 2, 1, 1, 0];
    assert!(matches!(
        decode_input(&elf, &limits),
        Err(YamlError::ControlCharacter { line: 1, .. })
    ));
    assert_eq!(
        decode_input("\u{feff}a: 1\n".as_bytes(), &limits),
        Ok("a: 1\n")
    );
    // Control characters reaching the parser directly are caught too.
    assert!(matches!(
        parse("a: \u{1}\n"),
        Err(YamlError::ControlCharacter { line: 1, code: 1 })
    ));
}

#[test]
fn input_size_limit() {
    let limits = Limits {
        max_input_bytes: 10,
        ..Limits::default()
    };
    assert_eq!(
        decode_input(&[b'a'; 11], &limits),
        Err(YamlError::InputTooLarge {
            size: 11,
            limit: 10
        })
    );
}

#[test]
fn fifty_megabytes_stay_bounded() {
    // One huge document: the node limit stops it long before memory grows.
    let item = "- x\n";
    let big = item.repeat(50_000_000 / item.len());
    let limits = Limits::default();
    let text = decode_input(big.as_bytes(), &limits).expect("valid text");
    let docs: Vec<_> = split_documents(text).collect();
    assert_eq!(docs.len(), 1);
    let src = docs[0].as_ref().expect("document");
    assert!(matches!(
        parse_document(src, &limits),
        Err(YamlError::TooManyNodes { .. })
    ));
    // Many documents: the split borrows the input, no copy is made.
    let doc = "a: 1\n---\n";
    let many = doc.repeat(50_000_000 / doc.len());
    assert_eq!(split_documents(&many).count(), 50_000_000 / doc.len());
    let last = split_documents(&many)
        .last()
        .and_then(Result::ok)
        .expect("last");
    assert_eq!(
        parse_document(&last, &limits)
            .ok()
            .and_then(|n| n.get("a").and_then(Node::as_i64)),
        Some(1)
    );
}

#[test]
fn crlf_documents_keep_their_lines() {
    let node = tree("a: 1\r\nb:\r\n  c: 2\r\n");
    assert_eq!(
        node.get_pair("b").map(|(k, v)| (k.line, v.line)),
        Some((2, 3))
    );
    assert_eq!(node.get_path(&["b", "c"]).and_then(Node::as_i64), Some(2));
}

#[test]
fn node_limit_applies_without_aliases_too() {
    let limits = Limits {
        max_nodes: 100,
        ..Limits::default()
    };
    let text: String = (0..100).map(|i| format!("k{i}: v\n")).collect();
    let docs = parse_documents(&text, &limits);
    assert!(matches!(
        docs[0].result,
        Err(YamlError::TooManyNodes { limit: 100, .. })
    ));
}
