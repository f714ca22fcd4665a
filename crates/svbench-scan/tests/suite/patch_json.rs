//! JSON Patch on YAML documents (spec E2 §4.2) and the YAML emitter's
//! value-exact round trip.

use proptest::prelude::*;
use serde_json::{json, Value};
use svbench_scan::patch::yaml_emit::{documents_len, emit_document, emit_documents};
use svbench_scan::patch::{apply_patch, PatchKind, PatchOutcome, PatchStatus};
use svbench_scan::scan::FileType;
use svbench_scan::{parse_documents, Limits};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx-dummy\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

const TWO: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx:latest\n";

fn docs(text: &str) -> Vec<Value> {
    parse_documents(text, &Limits::default())
        .into_iter()
        .map(|d| d.result.expect("parses").to_json().expect("json"))
        .collect()
}

fn run(orig: &str, patch: &Value) -> PatchOutcome {
    apply_patch("m.yaml", orig, &patch.to_string(), FileType::K8s)
}

#[track_caller]
fn failed(o: &PatchOutcome, status: PatchStatus, has: &str) {
    assert_eq!(o.status, status, "{o:?}");
    let r = o.reason.as_deref().unwrap_or_default();
    assert!(r.contains(has), "reason {r:?} lacks {has:?}");
}

#[test]
fn single_document_addressing_and_read_only_fs() {
    let p = json!([{"op": "add", "path": "/spec/containers/0/securityContext",
                    "value": {"readOnlyRootFilesystem": true}}]);
    let o = run(POD, &p);
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    assert_eq!(o.kind, Some(PatchKind::JsonPatch));
    let after = docs(o.patched.as_deref().unwrap());
    assert_eq!(
        after[0]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"],
        true
    );
    // Key order kept; the quoted driver survives as a string.
    let keys: Vec<&String> = after[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec"]);
    assert_eq!(
        after[0]["spec"]["volumes"][0]["flexVolume"]["driver"],
        "k8s/dummy"
    );
    // The leading /0 selector is accepted in a single-document file.
    let p0 =
        json!([{"op": "replace", "path": "/0/spec/containers/0/image", "value": "nginx:1.27.0"}]);
    let o = run(POD, &p0);
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    assert_eq!(
        docs(o.patched.as_deref().unwrap())[0]["spec"]["containers"][0]["image"],
        "nginx:1.27.0"
    );
}

#[test]
fn leading_zero_is_a_key_when_the_document_has_key_0() {
    let orig = "\"0\": a\nb: c\n";
    let o = run(
        orig,
        &json!([{"op": "replace", "path": "/0", "value": "z"}]),
    );
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    assert_eq!(
        docs(o.patched.as_deref().unwrap())[0],
        json!({"0": "z", "b": "c"})
    );
    let orig = "b: c\n";
    let o = run(orig, &json!([{"op": "add", "path": "/0/d", "value": "e"}]));
    assert_eq!(
        docs(o.patched.as_deref().unwrap())[0],
        json!({"b": "c", "d": "e"})
    );
}

#[test]
fn multi_document_addressing() {
    let p = json!([
        {"op": "replace", "path": "/1/spec/containers/0/image", "value": "nginx:1.27.0"},
        {"op": "test", "path": "/0/data/a", "value": "1"}
    ]);
    let o = run(TWO, &p);
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    let text = o.patched.unwrap();
    assert!(text.contains("\n---\n"), "{text}");
    let after = docs(&text);
    assert_eq!(after.len(), 2);
    assert_eq!(after[1]["spec"]["containers"][0]["image"], "nginx:1.27.0");
    // "1" stays a string, not a number.
    assert_eq!(after[0]["data"]["a"], "1");
    let unselected = json!([{"op": "replace", "path": "/spec/containers/0/image", "value": "x:1"}]);
    failed(
        &run(TWO, &unselected),
        PatchStatus::ApplyFailed,
        "document index",
    );
    let out_of_range = json!([{"op": "test", "path": "/2/kind", "value": "Pod"}]);
    failed(
        &run(TWO, &out_of_range),
        PatchStatus::ApplyFailed,
        "not a document index",
    );
    let across = json!([{"op": "copy", "from": "/0/metadata", "path": "/1/metadata2"}]);
    failed(
        &run(TWO, &across),
        PatchStatus::ApplyFailed,
        "within one document",
    );
}

#[test]
fn all_six_ops() {
    let orig = "a:\n  b: 1\n  c: [1, 2]\nd: x\n";
    let p = json!([
        {"op": "add", "path": "/a/c/1", "value": 9},
        {"op": "add", "path": "/a/c/-", "value": 10},
        {"op": "remove", "path": "/a/b"},
        {"op": "replace", "path": "/d", "value": "yes"},
        {"op": "copy", "from": "/a/c", "path": "/e"},
        {"op": "move", "from": "/e/0", "path": "/f"},
        {"op": "test", "path": "/f", "value": 1.0},
        {"op": "add", "path": "/g~1h~0i", "value": null}
    ]);
    let o = run(orig, &p);
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    assert_eq!(
        docs(o.patched.as_deref().unwrap())[0],
        json!({"a": {"c": [1, 9, 2, 10]}, "d": "yes", "e": [9, 2, 10], "f": 1, "g/h~i": null})
    );
}

#[test]
fn failure_is_atomic_and_explained() {
    let orig = "a: 1\n";
    let p = json!([
        {"op": "replace", "path": "/a", "value": 2},
        {"op": "remove", "path": "/missing"}
    ]);
    let o = run(orig, &p);
    failed(
        &o,
        PatchStatus::ApplyFailed,
        "operation 1 (remove \"/missing\")",
    );
    assert!(o.patched.is_none());
    failed(
        &run(orig, &json!([{"op": "test", "path": "/a", "value": 2}])),
        PatchStatus::ApplyFailed,
        "test failed",
    );
    failed(
        &run(orig, &json!([{"op": "add", "path": "/a/b", "value": 2}])),
        PatchStatus::ApplyFailed,
        "not an object or array",
    );
    failed(
        &run(
            "l: [1]\n",
            &json!([{"op": "add", "path": "/l/5", "value": 2}]),
        ),
        PatchStatus::ApplyFailed,
        "index",
    );
    failed(
        &run(
            "l: [1]\n",
            &json!([{"op": "add", "path": "/l/01", "value": 2}]),
        ),
        PatchStatus::ApplyFailed,
        "index",
    );
    failed(
        &run(orig, &json!([{"op": "move", "from": "", "path": "/a/x"}])),
        PatchStatus::ApplyFailed,
        "own children",
    );
    failed(
        &run(orig, &json!([{"op": "remove", "path": ""}])),
        PatchStatus::ApplyFailed,
        "whole document",
    );
}

#[test]
fn malformed_operations() {
    let orig = "a: 1\n";
    failed(
        &run(orig, &json!([{"op": "frobnicate", "path": "/a"}])),
        PatchStatus::Malformed,
        "unknown op",
    );
    failed(
        &run(orig, &json!([{"op": "add", "path": "/a"}])),
        PatchStatus::Malformed,
        "missing `value`",
    );
    failed(
        &run(orig, &json!([{"op": "move", "path": "/a"}])),
        PatchStatus::Malformed,
        "missing `from`",
    );
    failed(
        &run(orig, &json!([{"op": "remove", "path": "a"}])),
        PatchStatus::Malformed,
        "start with `/`",
    );
    failed(
        &run(orig, &json!([{"op": "remove", "path": "/a~2"}])),
        PatchStatus::Malformed,
        "bad escape",
    );
    failed(
        &run(orig, &json!([{"op": "remove", "path": 3}])),
        PatchStatus::Malformed,
        "not a string",
    );
    // Not every element has `op`: read as a diff, which it is not.
    let o = run(orig, &json!([{"path": "/a"}]));
    assert_eq!(
        (o.status, o.kind),
        (PatchStatus::Malformed, Some(PatchKind::UnifiedDiff))
    );
    // No operations: no patch.
    assert_eq!(run(orig, &json!([])).status, PatchStatus::None);
}

#[test]
fn terraform_is_unsupported() {
    let o = apply_patch(
        "main.tf",
        "resource \"a\" \"b\" {}\n",
        r#"[{"op":"remove","path":"/x"}]"#,
        FileType::Tf,
    );
    failed(&o, PatchStatus::Unsupported, "Kubernetes YAML only");
}

#[test]
fn fenced_json_patch() {
    let text = "```json\n[{\"op\": \"replace\", \"path\": \"/spec/containers/0/image\", \"value\": \"nginx:1.27.0\"}]\n```";
    let o = apply_patch("m.yaml", POD, text, FileType::K8s);
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
}

#[test]
fn ambiguous_strings_are_quoted() {
    let tricky = [
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "~",
        "null",
        "",
        " lead",
        "trail ",
        "1e3",
        "0x1F",
        "012",
        "0o17",
        "1_000",
        ".5",
        "-1",
        "+1",
        ".inf",
        "a: b",
        "a #b",
        "#c",
        "- x",
        "-",
        "...",
        "---",
        "k:",
        "multi\nline",
        "tab\there",
        "é",
        "\u{85}",
        "\u{feff}x",
        "\u{1F600}",
        "<<",
        "*a",
        "&a",
        "!t",
        "%x",
        "@x",
        "`x",
        "{a}",
        "[a]",
        "a,b",
        "'q'",
        "\"q\"",
        "|",
        ">",
        "?",
        "2001-12-14",
        "1:20",
        "true",
        "=",
    ];
    for s in tricky {
        let v = json!({ s: s, "list": [s, {s: [s]}] });
        let text = emit_document(&v);
        assert_eq!(docs(&text), vec![v.clone()], "{s:?} emitted as:\n{text}");
    }
}

#[test]
fn long_keys_use_explicit_form() {
    let key = "k".repeat(2000);
    let v = json!({ key: {"a": 1} });
    assert_eq!(docs(&emit_document(&v)), vec![v]);
}

#[test]
fn null_documents_are_dropped() {
    let text = emit_documents(&[json!({"a": 1}), json!([1, [2, []], {}])]);
    assert_eq!(docs(&text), vec![json!({"a": 1}), json!([1, [2, []], {}])]);
    let o = run(
        "a: 1\n---\nb: 2\n",
        &json!([{"op": "replace", "path": "/0", "value": null}]),
    );
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    assert_eq!(docs(o.patched.as_deref().unwrap()), vec![json!({"b": 2})]);
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC*".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
        prop::sample::select(vec![
            "yes",
            "no",
            "on",
            "off",
            "~",
            "null",
            "",
            " a",
            "a ",
            "1e3",
            "0x1F",
            "007",
            "a: b",
            "a #b",
            "#",
            "-",
            "---",
            "...",
            "1.0",
            ".5",
            "true",
            "Y",
            "2001-12-14",
            "<<",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,12}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn emit_round_trips_value_exactly(docs_in in prop::collection::vec(arb_json(), 1..4)) {
        let kept: Vec<Value> = docs_in.into_iter().filter(|d| !d.is_null()).collect();
        let text = emit_documents(&kept);
        // The size bound of JSON Patch relies on this length being exact.
        prop_assert_eq!(documents_len(&kept), text.len());
        let back: Vec<Value> = parse_documents(&text, &Limits::default())
            .into_iter()
            .map(|d| d.result.map_err(|e| e.to_string()).and_then(|n| n.to_json().map_err(|e| e.to_string())))
            .collect::<Result<_, _>>()
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, kept, "emitted:\n{}", text);
    }
}

/// `copy` of a parent into a new child of its own, `n` times: each copy
/// doubles the document (issue 13, item 1: 20 ops reached 2 GB, 22 aborted
/// the process).
fn copy_doubling(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"op": "copy", "from": "/1/metadata", "path": format!("/1/metadata/k{i}")}))
            .collect(),
    )
}

#[test]
fn copy_doubling_is_refused_as_too_large_before_it_grows() {
    let o = run(TWO, &copy_doubling(22));
    failed(&o, PatchStatus::TooLarge, "more than the limit");
    assert!(o.patched.is_none());
    // A few doublings stay far under the bound and apply as before.
    let o = run(TWO, &copy_doubling(3));
    assert_eq!(o.status, PatchStatus::Applied, "{o:?}");
    // Where it stops: the operation whose result would pass 2 × original
    // + 1 MiB, not a later one (each op is checked before it is built).
    let o = run(TWO, &copy_doubling(40));
    let reason = o.reason.unwrap_or_default();
    let at: usize = reason
        .strip_prefix("operation ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no operation index in {reason:?}"));
    assert!(
        (10..22).contains(&at),
        "stopped at operation {at}: {reason}"
    );
}

#[test]
fn every_growing_op_is_bounded() {
    // `add` and `replace` of large values, `move` deeper, `copy` into an
    // array: each refused once the result would pass the bound.
    // The bound is on the emitted size: each `é` (2 bytes in the patch) is
    // written `\u00E9` (6 bytes), so one 400 KB value emits 1.2 MB.
    let escaped = Value::String("é".repeat(200_000));
    let add = json!([{"op": "add", "path": "/0/data/b", "value": escaped}]);
    failed(&run(TWO, &add), PatchStatus::TooLarge, "bytes");
    let replace = json!([{"op": "replace", "path": "/0/data/a", "value": escaped}]);
    failed(&run(TWO, &replace), PatchStatus::TooLarge, "bytes");
    // Copying onto the same member again and again does not accumulate:
    // what a member held is credited when it is replaced.
    let mut same = vec![json!({"op": "add", "path": "/0/data/a", "value": "y".repeat(100_000)})];
    same.extend((0..20).map(|_| json!({"op": "copy", "from": "/0/data/a", "path": "/0/data/b"})));
    assert_eq!(run(TWO, &Value::Array(same)).status, PatchStatus::Applied);
    // A move is charged at its new indentation.
    let moved = json!([
        {"op": "add", "path": "/0/metadata/labels", "value": {"app": "y"}},
        {"op": "move", "from": "/0/metadata/labels", "path": "/0/metadata/annotations"}
    ]);
    assert_eq!(run(TWO, &moved).status, PatchStatus::Applied);
    // Copies into an array (items, not members) double as well.
    let mut items = vec![json!({"op": "add", "path": "/1/spec/containers/0/args", "value": ["a"]})];
    items.extend((0..30).map(|_| json!({"op": "copy", "from": "/1/spec/containers/0", "path": "/1/spec/containers/0/args/-"})));
    failed(
        &run(TWO, &Value::Array(items)),
        PatchStatus::TooLarge,
        "limit",
    );
}

#[test]
fn nodes_and_depth_are_bounded_too() {
    // Many tiny values: few bytes each, but each a JSON node in memory.
    let many = Value::Array(vec![Value::Null; 20_000]);
    let o = run(
        TWO,
        &json!([{"op": "add", "path": "/0/data/b", "value": many}]),
    );
    failed(&o, PatchStatus::TooLarge, "values");
    // Copying a value into its own deepest child nests it ever deeper.
    let deep = (0..60).fold(json!(1), |v, _| json!({"d": v}));
    let mut ops = vec![json!({"op": "add", "path": "/0/data/x", "value": deep})];
    let mut path = "/0/data/x".to_owned();
    for _ in 0..12 {
        let target = format!("{path}{}", "/d".repeat(60));
        ops.push(json!({"op": "copy", "from": "/0/data/x", "path": target}));
        path = target;
    }
    failed(
        &run(TWO, &Value::Array(ops)),
        PatchStatus::TooLarge,
        "levels deep",
    );
}

#[test]
fn too_many_operations() {
    let ops: Vec<Value> = (0..1001)
        .map(|_| json!({"op": "test", "path": "/0/kind", "value": "ConfigMap"}))
        .collect();
    failed(
        &run(TWO, &Value::Array(ops)),
        PatchStatus::TooLarge,
        "1001 operations",
    );
    let ops: Vec<Value> = (0..1000)
        .map(|_| json!({"op": "test", "path": "/0/kind", "value": "ConfigMap"}))
        .collect();
    assert_eq!(run(TWO, &Value::Array(ops)).status, PatchStatus::Applied);
}
