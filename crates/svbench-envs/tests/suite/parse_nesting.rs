//! Issue 14 item 9: deeply nested answers. The `upstream` mode parses as
//! deep as CPython's `json` under verifiers (`PYTHON_MAX_DEPTH`, 1,493
//! levels on CPython 3.12) and, one level deeper, scores as upstream's
//! uncaught `RecursionError` does: 0 on every component, whatever a later
//! extraction step would have found. `v1` keeps its bound (`MAX_DEPTH`). No
//! depth overflows the stack.

use svbench_core::extract::ParseMode;
use svbench_core::json::{MAX_DEPTH, PYTHON_MAX_DEPTH};
use svbench_core::ParseOutcome;
use svbench_envs::e1::parse::{parse_text as e1_parse, upstream_fields};
use svbench_envs::e1::Label;
use svbench_envs::e2::parse::parse_text as e2_parse;
use svbench_envs::e2::E2Parse;

/// `[[…]]` nested `depth` levels.
fn list(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// An E1 answer whose extra key makes the object `depth` levels deep.
fn e1_answer(depth: usize) -> String {
    format!(
        r#"{{"label":"Benign","confidence":0.9,"notes":{}}}"#,
        list(depth - 1)
    )
}

/// An E2 answer whose extra key makes the object `depth` levels deep.
fn e2_answer(depth: usize) -> String {
    format!(
        r#"{{"violations":[{{"id":"kube-linter/latest-tag","severity":"med"}}],"confidence":0.8,"notes":{}}}"#,
        list(depth - 1)
    )
}

fn e1_upstream_valid(text: &str) -> bool {
    matches!(
        e1_parse(text, ParseMode::Upstream),
        ParseOutcome::Valid { label: Label::Benign, confidence, format_ok: true, .. }
            if confidence == 0.9
    )
}

fn e1_upstream_zero(text: &str) -> bool {
    let fields = upstream_fields(text);
    fields.label.is_none()
        && fields.confidence == 0.0
        && !fields.format
        && matches!(
            e1_parse(text, ParseMode::Upstream),
            ParseOutcome::Invalid { reason } if reason == "no_label"
        )
}

fn e2_upstream_valid(text: &str) -> bool {
    matches!(
        e2_parse(text, ParseMode::Upstream),
        E2Parse::Valid { answer, format_ok: true, .. }
            if answer.violations.len() == 1 && answer.confidence == Some(0.8)
    )
}

fn e2_not_json(text: &str) -> bool {
    matches!(e2_parse(text, ParseMode::Upstream), E2Parse::Invalid { reason } if reason == "not_json")
}

#[test]
fn upstream_accepts_nesting_cpython_accepts() {
    for depth in [501, 900, PYTHON_MAX_DEPTH] {
        let answer = e1_answer(depth);
        assert!(e1_upstream_valid(&answer), "E1 depth {depth}");
        assert!(
            e1_upstream_valid(&format!("Verdict: {answer}")),
            "E1 braces {depth}"
        );
        assert!(
            e1_upstream_valid(&format!("```json\n{answer}\n```")),
            "E1 fence {depth}"
        );
        let answer = e2_answer(depth);
        assert!(e2_upstream_valid(&answer), "E2 depth {depth}");
        assert!(
            e2_upstream_valid(&format!("```json\n{answer}\n```")),
            "E2 fence {depth}"
        );
    }
}

#[test]
fn upstream_past_the_limit_scores_as_a_recursion_error() {
    let deep = PYTHON_MAX_DEPTH + 1;
    let good = r#"{"label":"Benign","confidence":0.9}"#;
    for text in [
        e1_answer(deep),
        format!("Verdict: {}", e1_answer(deep)),
        // A later step would find `good`, but upstream never gets there.
        format!("```json\n{}\n```\n{good}", list(deep)),
        format!("{good}\n```json\n{}\n```", list(deep)),
    ] {
        assert!(e1_upstream_zero(&text), "E1 {}", &text[..30]);
    }
    // The same texts with a decodable fence do find `good`.
    assert!(e1_upstream_valid(&format!("{good}\n```json\n[1]\n```")));

    let good = r#"{"violations":[],"confidence":0.8}"#;
    for text in [
        e2_answer(deep),
        format!("```json\n{}\n```", e2_answer(deep)),
        // The whole text raises RecursionError: the fence is not tried.
        format!("{} ```json\n{good}\n```", list(deep)),
    ] {
        assert!(e2_not_json(&text), "E2 {}", &text[..30]);
    }
    // A decode error (not a RecursionError) does fall back to the fence.
    let text = format!("x{} ```json\n{good}\n```", list(deep));
    assert!(matches!(
        e2_parse(&text, ParseMode::Upstream),
        E2Parse::Valid { .. }
    ));
}

#[test]
fn v1_keeps_its_bound() {
    let at = format!(
        r#"{{"label":"Benign","confidence":0.9,"notes":{}}}"#,
        list(MAX_DEPTH - 1)
    );
    assert!(matches!(
        e1_parse(&at, ParseMode::V1),
        ParseOutcome::Valid { .. }
    ));
    for text in [e1_answer(MAX_DEPTH + 1), e1_answer(900)] {
        assert!(matches!(
            e1_parse(&text, ParseMode::V1),
            ParseOutcome::Invalid { reason } if reason == "no_json_object"
        ));
    }
    assert!(matches!(
        e2_parse(&e2_answer(900), ParseMode::V1),
        E2Parse::Invalid { reason } if reason == "no_json_object"
    ));
}

#[test]
fn no_depth_overflows_the_stack() {
    // Rust's default stack for spawned threads, where scoring runs.
    const STACK: usize = 2 << 20;
    let run = || {
        let n = 100_000;
        let texts = [
            list(n),
            "[".repeat(n),
            "{\"a\":".repeat(n),
            format!("{}0{}", "{\"label\":".repeat(n), "}".repeat(n)),
            format!("Verdict: {}", "{".repeat(n)),
            format!("```json\n{}\n```", list(n)),
            e1_answer(n),
            e2_answer(n),
        ];
        for text in &texts {
            for mode in [ParseMode::V1, ParseMode::Upstream] {
                assert!(!matches!(e1_parse(text, mode), ParseOutcome::Valid { .. }));
                assert!(!matches!(e2_parse(text, mode), E2Parse::Valid { .. }));
            }
        }
    };
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}
