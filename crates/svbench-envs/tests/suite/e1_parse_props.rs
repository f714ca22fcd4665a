//! E1 parser properties (E1 §8.1.3, 8.1.4): a valid answer is found wherever
//! `v1` promises to find it, and no input panics or parses
//! nondeterministically.

use proptest::prelude::*;
use serde_json::{json, Value};
use svbench_core::extract::ParseMode;
use svbench_core::{Completion, ParseOutcome};
use svbench_envs::e1::parse::{parse_completion, parse_text};
use svbench_envs::e1::Label;

/// A valid answer: its JSON text and what `v1` must read from it.
#[derive(Debug, Clone)]
struct Answer {
    json: String,
    label: Label,
    canonical: bool,
    confidence: f64,
    rationale: Option<String>,
}

fn label_spelling() -> impl Strategy<Value = (Label, String)> {
    let label = prop_oneof![
        Just(Label::Benign),
        Just(Label::Malicious),
        Just(Label::Abstain)
    ];
    (label, prop::collection::vec(any::<bool>(), 9)).prop_map(|(label, upper)| {
        let spelled: String = label
            .as_str()
            .chars()
            .zip(upper)
            .map(|(c, up)| {
                if up {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        (label, spelled)
    })
}

fn confidence() -> impl Strategy<Value = (f64, String)> {
    prop_oneof![
        (0.0f64..=1.0).prop_map(|c| (c, format!("{c}"))),
        (0.0f64..=1.0).prop_map(|c| (c, format!("{c:e}"))),
        Just((0.0, "0".to_owned())),
        Just((1.0, "1".to_owned())),
        Just((0.5, "5E-1".to_owned())),
    ]
}

/// A rationale with braces, quotes, escapes and fences (but no think tags,
/// which would legitimately cut the answer).
fn rationale() -> impl Strategy<Value = Option<String>> {
    let text = prop_oneof![r#"[a-z {}\[\]"\\:,<>`/\n]{0,40}"#, any::<String>()]
        .prop_filter("no think tags", |r| {
            !r.to_ascii_lowercase().contains("think>")
        });
    prop::option::of(text)
}

prop_compose! {
    fn answer()(
        (label, spelled) in label_spelling(),
        (confidence, conf_text) in confidence(),
        rationale in rationale(),
        order in 0usize..6,
        pretty in any::<bool>(),
    ) -> Answer {
        let mut members = vec![
            format!("\"label\":{}", Value::String(spelled.clone())),
            format!("\"confidence\":{conf_text}"),
        ];
        if let Some(r) = &rationale {
            members.push(format!("\"rationale\":{}", Value::String(r.clone())));
        }
        let n = members.len();
        members.rotate_left(order % n);
        if order >= 3 {
            members.reverse();
        }
        let sep = if pretty { ",\n  " } else { "," };
        let json = format!("{{{}}}", members.join(sep));
        Answer {
            json,
            label,
            canonical: spelled == label.as_str(),
            confidence,
            rationale,
        }
    }
}

/// Prose without braces, backticks or angle brackets (quotes and
/// backslashes allowed).
fn prose() -> impl Strategy<Value = String> {
    r#"[a-zA-Z0-9 .,:;!?'"\\\n\t=()\[\]-]{0,60}"#
}

/// Text inside a `<think>` block: braces welcome, no tags.
fn thoughts() -> impl Strategy<Value = String> {
    r#"[a-z {}\[\]"\\:,\n]{0,80}"#
}

fn fence_lang() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "json", "JSON", "python", "js", "text", "jsonc"])
}

fn assert_reads(text: &str, a: &Answer) -> Result<(), TestCaseError> {
    let expected = ParseOutcome::Valid {
        label: a.label,
        confidence: a.confidence,
        format_ok: a.canonical,
        format_reason: (!a.canonical).then(|| "non_canonical_label_case".into()),
        rationale: a.rationale.clone(),
    };
    prop_assert_eq!(
        parse_text(text, ParseMode::V1),
        expected.clone(),
        "text {:?}",
        text
    );
    let as_message = Completion::Messages(vec![json!({"role": "assistant", "content": text})]);
    prop_assert_eq!(parse_completion(&as_message, ParseMode::V1), expected);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn found_in_brace_free_prose(a in answer(), before in prose(), after in prose()) {
        assert_reads(&format!("{before}{}{after}", a.json), &a)?;
    }

    #[test]
    fn found_in_any_fence(
        a in answer(),
        lang in fence_lang(),
        nl_open in any::<bool>(),
        nl_close in any::<bool>(),
        before in prose(),
        after in prose(),
    ) {
        let open = if nl_open { "\n" } else { " " };
        let close = if nl_close { "\n" } else { "" };
        let text = format!("{before}\n```{lang}{open}{}{close}```\n{after}", a.json);
        assert_reads(&text, &a)?;
    }

    #[test]
    fn found_after_a_think_block_with_braces(
        a in answer(),
        thought in thoughts(),
        tag in prop::sample::select(vec![("<think>", "</think>"), ("<THINK>", "</Think>")]),
        after in prose(),
    ) {
        let text = format!("{}{thought}{}\n{}{after}", tag.0, tag.1, a.json);
        assert_reads(&text, &a)?;
        // Also when the template opened the block in the prompt.
        let text = format!("{thought}{}{}", tag.1, a.json);
        assert_reads(&text, &a)?;
    }

    #[test]
    fn found_before_a_label_less_object(
        a in answer(),
        between in prose(),
        note in r#"[a-z {}"\\]{0,30}"#,
    ) {
        let trailer = json!({"note": note, "nested": {"label": "Malicious"}});
        let text = format!("{}{between}{trailer}", a.json);
        assert_reads(&text, &a)?;
    }

    #[test]
    fn arbitrary_strings_never_panic_and_are_deterministic(text in any::<String>()) {
        for mode in [ParseMode::V1, ParseMode::Upstream] {
            let first = parse_text(&text, mode);
            prop_assert_eq!(&first, &parse_text(&text, mode));
            prop_assert_eq!(&first, &parse_completion(&Completion::Text(text.clone()), mode));
        }
    }

    #[test]
    fn json_like_strings_never_panic_and_are_deterministic(
        text in r#"[{}\[\]"\\:,.0-9eEaNIlfinty \n<>/`]{0,300}"#,
    ) {
        for mode in [ParseMode::V1, ParseMode::Upstream] {
            prop_assert_eq!(parse_text(&text, mode), parse_text(&text, mode));
        }
        let labelled = format!("{text}{{\"label\":\"Benign\",\"confidence\":0.5}}{text}");
        for mode in [ParseMode::V1, ParseMode::Upstream] {
            prop_assert_eq!(parse_text(&labelled, mode), parse_text(&labelled, mode));
        }
    }

    #[test]
    fn arbitrary_message_lists_never_panic(messages in prop::collection::vec(json_value(), 0..4)) {
        let c = Completion::Messages(messages);
        for mode in [ParseMode::V1, ParseMode::Upstream] {
            prop_assert_eq!(parse_completion(&c, mode), parse_completion(&c, mode));
        }
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        Just(json!("assistant")),
        Just(json!("{\"label\":\"Benign\",\"confidence\":0.5}")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec!["role", "content", "type", "text", "tool_calls"]),
                    inner
                ),
                0..4
            )
            .prop_map(|pairs| Value::Object(
                pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

#[test]
fn one_mebibyte_of_open_braces_finishes() {
    let text = "{".repeat(1 << 20);
    assert_eq!(
        parse_text(&text, ParseMode::V1),
        ParseOutcome::Invalid {
            reason: "no_json_object".into()
        }
    );
    assert_eq!(
        parse_text(&text, ParseMode::Upstream),
        ParseOutcome::Invalid {
            reason: "no_label".into()
        }
    );
}

#[test]
fn hostile_brace_patterns_finish() {
    let half = 1 << 19;
    let cases = [
        "{\"".repeat(half / 2),
        "{\"\\".repeat(half / 3),
        format!("{}{}", "{".repeat(half), "}".repeat(half / 2)),
        "{\"a\":".repeat(half / 5),
        "[".repeat(half),
        format!(
            "{}{{\"label\":\"Benign\",\"confidence\":0.5}}",
            "{ ".repeat(half / 2)
        ),
    ];
    for text in &cases {
        for mode in [ParseMode::V1, ParseMode::Upstream] {
            let _ = parse_text(text, mode);
        }
    }
}
