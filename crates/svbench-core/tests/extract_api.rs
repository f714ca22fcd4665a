//! The shared extractor through its public API, as E2/E3/E4 will use it:
//! other required keys, custom predicates, text selection, and the JSON
//! readers against each other and against `serde_json`.

use proptest::prelude::*;
use serde_json::json;
use svbench_core::extract::{
    brace_spans, completion_text, extract_upstream, extract_v1, extract_v1_with, fenced_blocks,
    select_candidate, strip_reasoning, upstream_brace_span, upstream_fence, CandidateSource,
    ExtractFailure, ParseMode, TextFailure, UpstreamSource,
};
use svbench_core::json::python::{self, PyValue};
use svbench_core::json::strict::{self, Value};
use svbench_core::Completion;

#[test]
fn another_required_key() {
    let text = r#"Findings:
```json
{"violations":[{"id":"kube-linter/privileged-container","severity":"high"}],"confidence":0.7}
```
and a summary {"note":"done"}"#;
    let selected = extract_v1(text, "violations").expect("selected");
    assert_eq!(selected.source, CandidateSource::Fence);
    assert!(
        matches!(selected.object.get("violations"), Some(Value::Array(items)) if items.len() == 1)
    );
    assert_eq!(
        extract_v1("{\"label\":\"x\"}", "violations").map(|s| s.span),
        Err(ExtractFailure::MissingKey)
    );
    assert_eq!(
        ExtractFailure::MissingKey.reason("no_violations_object"),
        "no_violations_object"
    );
}

#[test]
fn predicate_over_several_keys() {
    let either = |o: &strict::Object<'_>| o.contains_key("patched_code") || o.contains_key("diff");
    let text = r#"{"patched_code":"x = 1\n","tests_passed":true} later {"explanation":"why"}"#;
    let selected = extract_v1_with(text, either).expect("selected");
    assert!(selected.object.contains_key("patched_code"));
    assert_eq!(
        &selected.stripped[selected.span.clone()],
        r#"{"patched_code":"x = 1\n","tests_passed":true}"#
    );
    let text = r#"{"diff":"--- a\n+++ b\n"}"#;
    assert_eq!(
        extract_v1_with(text, either).map(|s| s.source),
        Ok(CandidateSource::WholeText)
    );
}

#[test]
fn selected_span_points_into_the_stripped_text() {
    let text = "<think>{\"label\":\"no\"}</think>\nSo: {\"label\":\"a\",\"n\":1} and ```\n{\"label\":\"b\"}\n``` end";
    let selected = extract_v1(text, "label").expect("selected");
    assert_eq!(selected.stripped, strip_reasoning(text));
    let span_text = &selected.stripped[selected.span.clone()];
    assert_eq!(span_text, "{\"label\":\"b\"}");
    assert_eq!(
        strict::parse_object(span_text).as_ref(),
        Some(&selected.object)
    );
    let (object, cand) = select_candidate(&selected.stripped, |o| o.contains_key("n")).expect("n");
    assert_eq!(cand.source, CandidateSource::Braces);
    assert!(object.contains_key("label"));
}

#[test]
fn text_selection_for_both_modes() {
    let c = Completion::Messages(vec![
        json!({"role": "assistant", "content": "{\"label\":\"A\"}"}),
        json!({"role": "tool", "content": "tool output"}),
    ]);
    assert_eq!(
        completion_text(&c, ParseMode::V1).as_deref(),
        Ok("{\"label\":\"A\"}")
    );
    assert_eq!(
        completion_text(&c, ParseMode::Upstream).as_deref(),
        Ok("tool output")
    );
    let empty = Completion::Messages(vec![json!({"role": "assistant", "content": "  "})]);
    assert_eq!(
        completion_text(&empty, ParseMode::V1),
        Err(TextFailure::EmptyContent)
    );
    assert_eq!(TextFailure::EmptyContent.reason(), "empty_content");
    assert_eq!(TextFailure::TooLong.reason(), "too_long");
}

#[test]
fn upstream_building_blocks() {
    let text = "```yaml\nkind: Pod\n```\n```json\n{\"violations\":[]}\n```";
    assert_eq!(upstream_fence(text), Some("yaml\nkind: Pod"));
    assert_eq!(upstream_brace_span(text), Some("{\"violations\":[]}"));
    let e = extract_upstream(text);
    assert_eq!(e.source, UpstreamSource::Braces);
    assert!(matches!(e.object.get("violations"), Some(PyValue::List(l)) if l.is_empty()));
}

#[test]
fn fences_and_braces_are_listed_in_order() {
    let text = "a {\"x\":1} ```json\n{\"y\":2}\n``` {z}";
    let fences: Vec<&str> = fenced_blocks(text).into_iter().map(|r| &text[r]).collect();
    assert_eq!(fences, ["{\"y\":2}"]);
    let braces: Vec<&str> = brace_spans(text).into_iter().map(|r| &text[r]).collect();
    assert_eq!(braces, ["{\"x\":1}", "{\"y\":2}", "{z}"]);
}

/// JSON-ish text: short enough to stay under serde_json's depth limit.
fn jsonish() -> impl Strategy<Value = String> {
    prop_oneof![
        r#"[{}\[\]",:0-9.eE+\- \ntrufalsn\\/abu]{0,40}"#,
        json_text(),
    ]
}

/// Valid JSON built from a value, sometimes with duplicate keys.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<i32>().prop_map(|i| i.to_string()),
        (-1e6f64..1e6).prop_map(|f| format!("{f:e}")),
        "[a-z\"\\\\]{0,6}".prop_map(|s| serde_json::Value::String(s).to_string()),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(("[ab]", inner), 0..4).prop_map(|kv| {
                let members: Vec<String> = kv
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\" : {v}"))
                    .collect();
                format!("{{{}}}", members.join(", "))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The strict reader accepts exactly what serde_json accepts, except
    /// where the spec wants more (overflowing numbers, lone surrogates), and
    /// agrees on the values when there are no duplicate keys.
    #[test]
    fn strict_agrees_with_serde_json(text in jsonish()) {
        let ours = strict::parse(&text);
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        match (&ours, &theirs) {
            (Ok(v), Ok(t)) => {
                if !v.has_duplicate_keys() {
                    prop_assert!(same_value(v, t), "{text:?}: {v:?} vs {t:?}");
                }
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => {
                let msg = e.to_string();
                prop_assert!(msg.contains("out of range") || msg.contains("surrogate"), "{text:?}: {msg}");
            }
            (Err(e), Ok(_)) => prop_assert!(false, "{text:?}: we reject ({e}), serde_json accepts"),
        }
    }

    /// The Python dialect accepts a superset of strict JSON, with the same
    /// values except for the last-wins duplicate rule.
    #[test]
    fn python_dialect_extends_strict(text in jsonish()) {
        if let Ok(v) = strict::parse(&text) {
            let py = python::loads(&text);
            prop_assert!(py.is_ok(), "{text:?}");
            if !v.has_duplicate_keys() {
                if let Ok(py) = py {
                    prop_assert!(same_py(&v, &py), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn extraction_never_panics_and_is_deterministic(text in any::<String>()) {
        let a = extract_v1(&text, "label").map(|s| (s.span, s.source));
        let b = extract_v1(&text, "label").map(|s| (s.span, s.source));
        prop_assert_eq!(a, b);
        let u = extract_upstream(&text);
        prop_assert_eq!(&u, &extract_upstream(&text));
    }

    #[test]
    fn selected_objects_have_the_key_and_reparse(text in r#"[{}"\\:,a-z0-9 `<>/\n]{0,120}"#) {
        let labelled = format!("{text}{{\"label\":1}}{text}");
        for t in [&text, &labelled] {
            if let Ok(s) = extract_v1(t, "label") {
                prop_assert!(s.object.contains_key("label"));
                let span_text = &s.stripped[s.span.clone()];
                let reparsed = strict::parse_object(span_text);
                prop_assert_eq!(reparsed.as_ref(), Some(&s.object));
            }
        }
    }
}

fn same_value(v: &Value<'_>, t: &serde_json::Value) -> bool {
    match (v, t) {
        (Value::Null, serde_json::Value::Null) => true,
        (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
        (Value::Number(n), serde_json::Value::Number(m)) => {
            let x = m.as_f64().unwrap_or(f64::NAN);
            // serde_json stores integers beyond u64 as floats.
            (n.integer != m.is_f64() || n.value.abs() >= 1.8e19)
                && (n.value == x || ((n.value - x) / x).abs() < 1e-15)
        }
        (Value::String(a), serde_json::Value::String(b)) => a == b,
        (Value::Array(a), serde_json::Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(a), serde_json::Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| same_value(x, y)))
        }
        _ => false,
    }
}

fn same_py(v: &Value<'_>, p: &PyValue<'_>) -> bool {
    match (v, p) {
        (Value::Null, PyValue::None) => true,
        (Value::Bool(a), PyValue::Bool(b)) => a == b,
        (Value::Number(n), PyValue::Int(i)) => {
            n.integer && i.as_text().parse::<f64>().ok() == Some(n.value)
        }
        (Value::Number(n), PyValue::Float(f)) => !n.integer && n.value.to_bits() == f.to_bits(),
        (Value::String(a), PyValue::Str(b)) => a == b,
        (Value::Array(a), PyValue::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_py(x, y))
        }
        (Value::Object(a), PyValue::Dict(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| same_py(x, y)))
        }
        _ => false,
    }
}
