//! E1 parser acceptance tests (E1 §8.1.1, 8.1.2, 8.1.5): every row of the
//! `upstream` table (2.2.2) and of the `v1` table (2.3.1), the upstream
//! dialect checks, and one test per `v1` reason code.

use serde_json::{json, Value};
use svbench_core::extract::{extract_upstream, ParseMode, UpstreamSource};
use svbench_core::{Completion, ParseOutcome};
use svbench_envs::e1::parse::{parse_completion, parse_text, upstream_fields};
use svbench_envs::e1::Label;

const B: Option<Label> = Some(Label::Benign);
const M: Option<Label> = Some(Label::Malicious);

fn messages(v: Value) -> Completion {
    match v {
        Value::Array(items) => Completion::Messages(items),
        other => panic!("not a list: {other}"),
    }
}

// ---------------------------------------------------------------- upstream

/// Checks upstream's fields and the recorded outcome, for the text as a
/// plain completion and as the last message of a list.
fn upstream(text: &str, label: Option<Label>, confidence: f64, format: bool) {
    let fields = upstream_fields(text);
    assert_eq!(fields.label, label, "label of {text:?}");
    assert_eq!(
        fields.confidence.to_bits(),
        confidence.to_bits(),
        "confidence of {text:?}: {}",
        fields.confidence
    );
    assert_eq!(fields.format, format, "format of {text:?}");

    let expected = match label {
        None => ParseOutcome::Invalid {
            reason: "no_label".into(),
        },
        Some(label) => ParseOutcome::Valid {
            label,
            confidence,
            format_ok: format,
            format_reason: fields.confidence_issue.map(Into::into),
            rationale: None,
        },
    };
    assert_eq!(
        parse_text(text, ParseMode::Upstream),
        expected,
        "outcome of {text:?}"
    );
    assert!(!matches!(expected, ParseOutcome::LabelOnly { .. }));
    let as_text = Completion::Text(text.to_owned());
    assert_eq!(parse_completion(&as_text, ParseMode::Upstream), expected);
    let as_message = messages(json!([
        {"role": "user", "content": "ignored"},
        {"role": "assistant", "content": text}
    ]));
    assert_eq!(parse_completion(&as_message, ParseMode::Upstream), expected);
}

fn obj(label: &str, confidence: &str) -> String {
    format!(r#"{{"label":{label},"confidence":{confidence}}}"#)
}

#[test]
fn upstream_row_plain_object_and_surrounding_whitespace() {
    upstream(r#"{"label":"Malicious","confidence":0.9}"#, M, 0.9, true);
    upstream(
        " \n\t{\"label\":\"Malicious\",\"confidence\":0.9}\r\n ",
        M,
        0.9,
        true,
    );
}

#[test]
fn upstream_row_fenced_object() {
    let inner = r#"{"label":"Benign","confidence":0.7}"#;
    for text in [
        format!("```json\n{inner}\n```"),
        format!("```json{inner}```"),
        format!("Answer:\n```JSON\n{inner}\n```\nbye"),
        format!("```\n{inner}\n```"),
        format!("```python\n{inner}\n```"),
        format!("```python {inner}```"),
    ] {
        upstream(&text, B, 0.7, true);
    }
    assert_eq!(
        extract_upstream(&format!("```json\n{inner}\n```")).source,
        UpstreamSource::Fence
    );
    // The python fence is not JSON; step 3 finds the object.
    assert_eq!(
        extract_upstream(&format!("```python\n{inner}\n```")).source,
        UpstreamSource::Braces
    );
}

#[test]
fn upstream_row_object_in_prose() {
    upstream(
        r#"Verdict: {"label":"Benign","confidence":0.8} done"#,
        B,
        0.8,
        true,
    );
}

#[test]
fn upstream_row_think_with_braces_defeats_the_scan() {
    upstream(
        r#"<think>maybe {x}</think>{"label":"Benign","confidence":0.8}"#,
        None,
        0.0,
        false,
    );
}

#[test]
fn upstream_row_think_without_braces() {
    upstream(
        r#"<think>hmm</think>{"label":"Benign","confidence":0.8}"#,
        B,
        0.8,
        true,
    );
}

#[test]
fn upstream_row_first_of_two_objects() {
    let text = format!(
        "{} then {}",
        obj(r#""Benign""#, "0.2"),
        obj(r#""Malicious""#, "0.9")
    );
    upstream(&text, B, 0.2, true);
}

#[test]
fn upstream_row_second_fence() {
    let text = format!(
        "```bash\ncat conn.log | wc -l\n```\nSo:\n```json\n{}\n```",
        obj(r#""Malicious""#, "0.9")
    );
    upstream(&text, M, 0.9, true);
}

#[test]
fn upstream_row_quoted_brace_defeats_the_scan() {
    upstream(
        r#"I saw "{" here. {"label":"Benign","confidence":0.9}"#,
        None,
        0.0,
        false,
    );
}

#[test]
fn upstream_row_unbalanced_first_brace() {
    upstream(
        r#"{oops {"label":"Benign","confidence":0.9}"#,
        None,
        0.0,
        false,
    );
}

#[test]
fn upstream_row_object_in_array() {
    upstream(r#"[{"label":"Benign","confidence":0.9}]"#, B, 0.9, true);
}

#[test]
fn upstream_row_nested_object() {
    upstream(
        r#"{"result":{"label":"Benign","confidence":0.9}}"#,
        None,
        0.0,
        false,
    );
}

#[test]
fn upstream_row_non_exact_labels() {
    for label in [r#""malicious""#, r#""BENIGN""#, r#""Benign ""#, "1"] {
        // The confidence is read although the label is empty.
        upstream(&obj(label, "0.9"), None, 0.9, false);
    }
}

#[test]
fn upstream_row_string_confidence() {
    upstream(&obj(r#""Benign""#, r#""0.9""#), B, 0.9, false);
    upstream(&obj(r#""Benign""#, r#"" 0.9 ""#), B, 0.9, false);
}

#[test]
fn upstream_row_bool_confidence() {
    upstream(&obj(r#""Benign""#, "true"), B, 1.0, true);
    upstream(&obj(r#""Benign""#, "false"), B, 0.0, true);
}

#[test]
fn upstream_row_integer_confidence() {
    upstream(&obj(r#""Benign""#, "1"), B, 1.0, true);
    upstream(&obj(r#""Benign""#, "0"), B, 0.0, true);
}

#[test]
fn upstream_row_non_finite_confidence() {
    upstream(&obj(r#""Benign""#, "NaN"), B, 0.0, false);
    upstream(&obj(r#""Benign""#, "Infinity"), B, 0.0, false);
    upstream(&obj(r#""Benign""#, r#""nan""#), B, 0.0, false);
}

#[test]
fn upstream_row_out_of_range_confidence() {
    upstream(&obj(r#""Benign""#, "1.5"), B, 0.0, false);
    upstream(&obj(r#""Benign""#, "-0.1"), B, 0.0, false);
    upstream(&obj(r#""Benign""#, "90"), B, 0.0, false);
}

#[test]
fn upstream_row_unusable_confidence() {
    upstream(&obj(r#""Benign""#, r#""high""#), B, 0.0, false);
    upstream(&obj(r#""Benign""#, "null"), B, 0.0, false);
    upstream(r#"{"label":"Benign"}"#, B, 0.0, false);
    upstream(&obj(r#""Benign""#, "[0.9]"), B, 0.0, false);
}

#[test]
fn upstream_row_duplicate_label_keeps_last() {
    upstream(
        r#"{"label":"Benign","label":"Malicious","confidence":0.9}"#,
        M,
        0.9,
        true,
    );
}

#[test]
fn upstream_row_not_json() {
    for text in [
        r#"{"label":"Benign","confidence":0.9,}"#,
        "{'label':'Benign','confidence':0.9}",
        "Benign, fairly sure",
        r#""Benign""#,
        "",
    ] {
        upstream(text, None, 0.0, false);
    }
}

#[test]
fn upstream_row_last_message_null_or_not_json() {
    let good = r#"{"label":"Benign","confidence":0.9}"#;
    let null_last = messages(json!([
        {"role": "assistant", "content": good},
        {"role": "assistant", "content": null}
    ]));
    let prose_last = messages(json!([
        {"role": "assistant", "content": good},
        {"role": "assistant", "content": "I am done."}
    ]));
    for c in [null_last, prose_last] {
        assert_eq!(
            parse_completion(&c, ParseMode::Upstream),
            ParseOutcome::Invalid {
                reason: "no_label".into()
            }
        );
    }
}

// ----------------------------------------------------- upstream, §8.1.2

#[test]
fn upstream_accepts_nan_and_infinity_literals() {
    // The object parses (the label is read); only the confidence is rejected.
    for lit in ["NaN", "Infinity", "-Infinity"] {
        let text = obj(r#""Malicious""#, lit);
        let fields = upstream_fields(&text);
        assert_eq!(
            (fields.label, fields.confidence, fields.format),
            (M, 0.0, false),
            "{text}"
        );
        assert_eq!(extract_upstream(&text).source, UpstreamSource::WholeText);
        // v1 rejects the same text as JSON.
        assert_eq!(parse_text(&text, ParseMode::V1), invalid("no_json_object"));
    }
    let text = r#"{"label":"Benign","confidence":0.5,"extra":[NaN,-Infinity,1e999]}"#;
    assert_eq!(upstream_fields(text).confidence, 0.5);
}

#[test]
fn upstream_keeps_the_last_duplicate_key() {
    let text = r#"{"label":"Malicious","confidence":0.9,"label":"Benign","confidence":0.3}"#;
    let fields = upstream_fields(text);
    assert_eq!(
        (fields.label, fields.confidence, fields.format),
        (B, 0.3, true)
    );
    let text = r#"{"label":"Benign","confidence":0.4,"confidence":"x"}"#;
    let fields = upstream_fields(text);
    assert_eq!(
        (fields.label, fields.confidence, fields.format),
        (B, 0.0, false)
    );
}

#[test]
fn upstream_uses_only_the_last_message() {
    let good = r#"{"label":"Malicious","confidence":0.9}"#;
    let earlier_good = messages(json!([
        {"role": "assistant", "content": good},
        {"role": "user", "content": "thanks"}
    ]));
    assert_eq!(
        parse_completion(&earlier_good, ParseMode::Upstream),
        invalid("no_label")
    );
    let last_good = messages(json!([
        {"role": "assistant", "content": "draft {"},
        {"role": "tool", "content": good}
    ]));
    assert!(matches!(
        parse_completion(&last_good, ParseMode::Upstream),
        ParseOutcome::Valid {
            label: Label::Malicious,
            format_ok: true,
            ..
        }
    ));
    // v1 reads the final assistant message instead.
    assert_eq!(
        parse_completion(&last_good, ParseMode::V1),
        invalid("no_json_object")
    );
    assert!(matches!(
        parse_completion(&earlier_good, ParseMode::V1),
        ParseOutcome::Valid {
            label: Label::Malicious,
            ..
        }
    ));
    // Non-string content is read in Python `str()` form.
    let parts =
        messages(json!([{"role": "assistant", "content": [{"type": "text", "text": good}]}]));
    assert_eq!(
        parse_completion(&parts, ParseMode::Upstream),
        invalid("no_label")
    );
    assert!(matches!(
        parse_completion(&parts, ParseMode::V1),
        ParseOutcome::Valid { .. }
    ));
    assert_eq!(
        parse_completion(&messages(json!([])), ParseMode::Upstream),
        invalid("no_label")
    );
}

#[test]
fn upstream_huge_integer_confidence_is_zero_without_format() {
    let huge = format!("1{}", "0".repeat(400));
    let fields = upstream_fields(&obj(r#""Benign""#, &huge));
    assert_eq!(
        (fields.label, fields.confidence, fields.format),
        (B, 0.0, false)
    );
    assert_eq!(
        parse_text(&obj(r#""Benign""#, &huge), ParseMode::Upstream),
        ParseOutcome::Valid {
            label: Label::Benign,
            confidence: 0.0,
            format_ok: false,
            format_reason: Some("confidence_out_of_range".into()),
            rationale: None,
        }
    );
    // Large but convertible integers follow the range rule.
    let fields = upstream_fields(&obj(r#""Benign""#, "100000000000000000000000000000"));
    assert_eq!((fields.confidence, fields.format), (0.0, false));
    // Zero written with many digits is not possible in JSON; -0 is the int 0.
    let fields = upstream_fields(&obj(r#""Benign""#, "-0"));
    assert_eq!((fields.confidence, fields.format), (0.0, true));
}

#[test]
fn upstream_python_float_strings() {
    for (conf, want) in [
        (r#""1_0e-1""#, 1.0),
        (r#"" .5""#, 0.5),
        (r#""5e-1\n""#, 0.5),
        (r#""\u0660.\u0665""#, 0.5),
        (r#""INF""#, 0.0),
        (r#""0x1""#, 0.0),
        (r#""""#, 0.0),
    ] {
        let fields = upstream_fields(&obj(r#""Abstain""#, conf));
        assert_eq!(fields.confidence, want, "{conf}");
        assert!(!fields.format);
    }
}

// ---------------------------------------------------------------------- v1

fn invalid(reason: &str) -> ParseOutcome<Label> {
    ParseOutcome::Invalid {
        reason: reason.to_owned().into(),
    }
}

fn label_only(label: Label, reason: &str) -> ParseOutcome<Label> {
    ParseOutcome::LabelOnly {
        label,
        reason: reason.to_owned().into(),
    }
}

fn valid(label: Label, confidence: f64, format_reason: Option<&str>) -> ParseOutcome<Label> {
    ParseOutcome::Valid {
        label,
        confidence,
        format_ok: format_reason.is_none(),
        format_reason: format_reason.map(|r| r.to_owned().into()),
        rationale: None,
    }
}

/// Checks the `v1` outcome for the text as a plain completion, as an
/// assistant message and through `parse_text`.
fn v1(text: &str, expected: ParseOutcome<Label>) {
    assert_eq!(parse_text(text, ParseMode::V1), expected, "text {text:?}");
    assert_eq!(
        parse_completion(&Completion::Text(text.to_owned()), ParseMode::V1),
        expected
    );
    let c = messages(json!([
        {"role": "user", "content": "{\"label\":\"Benign\",\"confidence\":0.1}"},
        {"role": "assistant", "content": text, "reasoning_content": "{\"label\":\"Abstain\"}"}
    ]));
    assert_eq!(
        parse_completion(&c, ParseMode::V1),
        expected,
        "message {text:?}"
    );
}

#[test]
fn v1_row_canonical_object() {
    v1(
        r#"{"label":"Malicious","confidence":0.9}"#,
        valid(Label::Malicious, 0.9, None),
    );
}

#[test]
fn v1_row_lowercase_label() {
    v1(
        r#"{"label":"malicious","confidence":0.9}"#,
        valid(Label::Malicious, 0.9, Some("non_canonical_label_case")),
    );
}

#[test]
fn v1_row_think_with_braces() {
    v1(
        r#"<think>maybe {x}</think>{"label":"Benign","confidence":0.8}"#,
        valid(Label::Benign, 0.8, None),
    );
}

#[test]
fn v1_row_stray_closer() {
    v1(
        r#"so {x} it goes... {x} </think> {"label":"Benign","confidence":0.8}"#,
        valid(Label::Benign, 0.8, None),
    );
}

#[test]
fn v1_row_unclosed_think() {
    v1(
        r#"<think>{"label":"Benign","confidence":0.8}"#,
        invalid("no_json_object"),
    );
}

#[test]
fn v1_row_last_of_two_objects() {
    let text = format!(
        "{} wait, correction: {}",
        obj(r#""Benign""#, "0.2"),
        obj(r#""Malicious""#, "0.9")
    );
    v1(&text, valid(Label::Malicious, 0.9, None));
}

#[test]
fn v1_row_label_object_then_note() {
    let text = format!(r#"{} {{"note":"x"}}"#, obj(r#""Benign""#, "0.6"));
    v1(&text, valid(Label::Benign, 0.6, None));
}

#[test]
fn v1_row_quoted_brace_in_prose() {
    v1(
        r#"I saw "{" here. {"label":"Benign","confidence":0.9}"#,
        valid(Label::Benign, 0.9, None),
    );
}

#[test]
fn v1_row_python_fence() {
    v1(
        "```python\n{\"label\":\"Abstain\",\"confidence\":0.3}\n```",
        valid(Label::Abstain, 0.3, None),
    );
}

#[test]
fn v1_row_object_in_array() {
    v1(
        r#"[{"label":"Benign","confidence":0.9}]"#,
        valid(Label::Benign, 0.9, None),
    );
}

#[test]
fn v1_row_nested_object() {
    v1(
        r#"{"result":{"label":"Benign","confidence":0.9}}"#,
        invalid("no_label_key"),
    );
}

#[test]
fn v1_row_confidence_problems() {
    let m = Label::Malicious;
    v1(
        &obj(r#""Malicious""#, r#""0.9""#),
        label_only(m, "confidence_not_number"),
    );
    v1(
        &obj(r#""Malicious""#, "true"),
        label_only(m, "confidence_not_number"),
    );
    v1(
        &obj(r#""Malicious""#, "1e400"),
        label_only(m, "confidence_non_finite"),
    );
    v1(
        &obj(r#""Malicious""#, "1.5"),
        label_only(m, "confidence_out_of_range"),
    );
    v1(
        r#"{"label":"Malicious"}"#,
        label_only(m, "confidence_missing"),
    );
    v1(
        &obj(r#""Malicious""#, "null"),
        label_only(m, "confidence_missing"),
    );
}

#[test]
fn v1_row_nan_literal() {
    v1(&obj(r#""Benign""#, "NaN"), invalid("no_json_object"));
}

#[test]
fn v1_row_duplicate_label() {
    v1(
        r#"{"label":"Benign","label":"Malicious","confidence":0.9}"#,
        invalid("duplicate_key"),
    );
}

#[test]
fn v1_row_unknown_label() {
    v1(&obj(r#""Suspicious""#, "0.9"), invalid("unknown_label"));
    v1(&obj(r#""Benign ""#, "0.9"), invalid("unknown_label"));
}

#[test]
fn v1_row_label_not_string() {
    v1(&obj("1", "0.9"), invalid("label_not_string"));
}

#[test]
fn v1_row_abstain() {
    v1(
        r#"{"label":"Abstain","confidence":0.4}"#,
        valid(Label::Abstain, 0.4, None),
    );
}

#[test]
fn v1_row_rationale_not_string() {
    v1(
        r#"{"label":"Benign","confidence":0.7,"rationale":5}"#,
        valid(Label::Benign, 0.7, Some("rationale_not_string")),
    );
}

#[test]
fn v1_row_not_json() {
    v1(
        r#"{"label":"Benign","confidence":0.9,}"#,
        invalid("no_json_object"),
    );
    v1(
        "{'label':'Benign','confidence':0.9}",
        invalid("no_json_object"),
    );
    v1("Benign, fairly sure", invalid("no_json_object"));
}

#[test]
fn v1_row_empty_content() {
    for text in ["", " ", "\n\t \r\n"] {
        v1(text, invalid("empty_content"));
    }
}

// ------------------------------------------------ v1 reason codes, §8.1.5

#[test]
fn reason_empty_content_for_tool_call_only_message() {
    let c = messages(json!([
        {"role": "assistant", "content": "{\"label\":\"Benign\",\"confidence\":0.9}"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        ]}
    ]));
    assert_eq!(
        parse_completion(&c, ParseMode::V1),
        invalid("empty_content")
    );
    let no_content_key = messages(json!([{"role": "assistant", "tool_calls": []}]));
    assert_eq!(
        parse_completion(&no_content_key, ParseMode::V1),
        invalid("empty_content")
    );
    let no_assistant = messages(json!([{"role": "user", "content": "hi"}]));
    assert_eq!(
        parse_completion(&no_assistant, ParseMode::V1),
        invalid("empty_content")
    );
}

#[test]
fn reason_too_long() {
    let pad = " ".repeat(1 << 20);
    let text = format!("{}{pad}", obj(r#""Benign""#, "0.9"));
    assert_eq!(parse_text(&text, ParseMode::V1), invalid("too_long"));
    let c = messages(json!([{"role": "assistant", "content": text}]));
    assert_eq!(parse_completion(&c, ParseMode::V1), invalid("too_long"));
    // Upstream has no length limit.
    assert!(matches!(
        parse_completion(&c, ParseMode::Upstream),
        ParseOutcome::Valid { .. }
    ));
}

#[test]
fn reason_content_not_text() {
    let c =
        messages(json!([{"role": "assistant", "content": {"label": "Benign", "confidence": 0.9}}]));
    assert_eq!(
        parse_completion(&c, ParseMode::V1),
        invalid("content_not_text")
    );
}

#[test]
fn reason_no_json_object() {
    assert_eq!(
        parse_text("Malicious (0.9)", ParseMode::V1),
        invalid("no_json_object")
    );
}

#[test]
fn reason_no_label_key() {
    assert_eq!(
        parse_text(r#"{"verdict":"Benign"} {"x":{}}"#, ParseMode::V1),
        invalid("no_label_key")
    );
}

#[test]
fn reason_duplicate_key() {
    // Any duplicate in the selected object counts, at any depth.
    let text = r#"{"label":"Benign","confidence":0.9,"meta":{"a":1,"a":2}}"#;
    assert_eq!(parse_text(text, ParseMode::V1), invalid("duplicate_key"));
    let text = r#"{"label":"Benign","confidence":0.9,"confidence":0.8}"#;
    assert_eq!(parse_text(text, ParseMode::V1), invalid("duplicate_key"));
}

#[test]
fn reason_label_not_string() {
    assert_eq!(
        parse_text(&obj("null", "0.9"), ParseMode::V1),
        invalid("label_not_string")
    );
    assert_eq!(
        parse_text(&obj(r#"["Benign"]"#, "0.9"), ParseMode::V1),
        invalid("label_not_string")
    );
}

#[test]
fn reason_unknown_label() {
    assert_eq!(
        parse_text(&obj(r#""benign.""#, "0.9"), ParseMode::V1),
        invalid("unknown_label")
    );
    assert_eq!(
        parse_text(&obj(r#""""#, "0.9"), ParseMode::V1),
        invalid("unknown_label")
    );
}

#[test]
fn reason_confidence_missing() {
    assert_eq!(
        parse_text(r#"{"label":"ABSTAIN"}"#, ParseMode::V1),
        label_only(Label::Abstain, "confidence_missing")
    );
}

#[test]
fn reason_confidence_not_number() {
    for conf in [r#""0.5""#, "false", "[0.5]", r#"{"p":0.5}"#] {
        assert_eq!(
            parse_text(&obj(r#""Benign""#, conf), ParseMode::V1),
            label_only(Label::Benign, "confidence_not_number"),
            "{conf}"
        );
    }
}

#[test]
fn reason_confidence_non_finite() {
    assert_eq!(
        parse_text(&obj(r#""Benign""#, "-1e999"), ParseMode::V1),
        label_only(Label::Benign, "confidence_non_finite")
    );
    let huge = "9".repeat(400);
    assert_eq!(
        parse_text(&obj(r#""Benign""#, &huge), ParseMode::V1),
        label_only(Label::Benign, "confidence_non_finite")
    );
}

#[test]
fn reason_confidence_out_of_range() {
    for conf in ["-0.0001", "1.0000001", "2", "-1e-300"] {
        assert_eq!(
            parse_text(&obj(r#""Benign""#, conf), ParseMode::V1),
            label_only(Label::Benign, "confidence_out_of_range"),
            "{conf}"
        );
    }
}

#[test]
fn confidence_bounds_are_inclusive_and_negative_zero_is_zero() {
    for (conf, want) in [
        ("0", 0.0),
        ("1", 1.0),
        ("0.0", 0.0),
        ("1e0", 1.0),
        ("1E-1", 0.1),
    ] {
        assert_eq!(
            parse_text(&obj(r#""Benign""#, conf), ParseMode::V1),
            valid(Label::Benign, want, None)
        );
    }
    match parse_text(&obj(r#""Benign""#, "-0.0"), ParseMode::V1) {
        ParseOutcome::Valid { confidence, .. } => {
            assert!(confidence == 0.0 && confidence.is_sign_positive());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn reason_non_canonical_label_case() {
    assert_eq!(
        parse_text(&obj(r#""bEnIgN""#, "0.5"), ParseMode::V1),
        valid(Label::Benign, 0.5, Some("non_canonical_label_case"))
    );
}

#[test]
fn reason_rationale_not_string() {
    for rationale in ["null", "[\"x\"]", "{}", "true"] {
        let text = format!(r#"{{"label":"Benign","confidence":0.5,"rationale":{rationale}}}"#);
        assert_eq!(
            parse_text(&text, ParseMode::V1),
            valid(Label::Benign, 0.5, Some("rationale_not_string")),
            "{rationale}"
        );
    }
    // Label case is reported first when both fail.
    let text = r#"{"label":"benign","confidence":0.5,"rationale":1}"#;
    assert_eq!(
        parse_text(text, ParseMode::V1),
        valid(Label::Benign, 0.5, Some("non_canonical_label_case"))
    );
}

#[test]
fn rationale_and_extra_keys_are_kept_in_valid_outcomes() {
    let text = r#"{"label":"Malicious","confidence":0.75,"rationale":"SYN to {23} \"telnet\"\n","port":23}"#;
    assert_eq!(
        parse_text(text, ParseMode::V1),
        ParseOutcome::Valid {
            label: Label::Malicious,
            confidence: 0.75,
            format_ok: true,
            format_reason: None,
            rationale: Some("SYN to {23} \"telnet\"\n".into()),
        }
    );
}

#[test]
fn array_of_parts_content_is_concatenated() {
    let c = messages(json!([{"role": "assistant", "content": [
        {"type": "text", "text": "{\"label\":\"Benign\","},
        {"type": "reasoning", "text": "{\"label\":\"Malicious\"}"},
        {"type": "text", "text": "\"confidence\":0.35}"}
    ]}]));
    assert_eq!(
        parse_completion(&c, ParseMode::V1),
        valid(Label::Benign, 0.35, None)
    );
}
