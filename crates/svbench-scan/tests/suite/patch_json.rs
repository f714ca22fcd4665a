//! JSON Patch on YAML documents (spec E2 §4.2) and the YAML emitter's
//! value-exact round trip.

use proptest::prelude::*;
use serde_json::{json, Value};
use svbench_scan::patch::yaml_emit::{emit_document, emit_documents};
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
        let back: Vec<Value> = parse_documents(&text, &Limits::default())
            .into_iter()
            .map(|d| d.result.map_err(|e| e.to_string()).and_then(|n| n.to_json().map_err(|e| e.to_string())))
            .collect::<Result<_, _>>()
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, kept, "emitted:\n{}", text);
    }
}
