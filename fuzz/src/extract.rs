//! The answer extractors, both modes: the shared extractor of
//! `svbench_core::extract`, its two JSON dialects, and the E1 and E2 answer
//! parsers built on them.
//!
//! Invariants: no panic; parsing is deterministic; every span the extractor
//! reports is a char-aligned slice of its text and the v1 selection is an
//! object holding the required key; E1's confidence is finite and in [0, 1];
//! E2's confidence, when usable, is finite; and the dialects agree with each
//! other and with serde_json: whatever serde_json accepts, the strict reader
//! accepts, and whatever the strict reader accepts, the Python-dialect reader
//! accepts (except integers over CPython's 4,300-digit limit).

use svbench_core::extract::{
    brace_spans, extract_upstream, extract_v1, fenced_blocks, strip_reasoning, ParseMode,
};
use svbench_core::json::{python, strict, JsonErrorKind};
use svbench_core::ParseOutcome;
use svbench_envs::e1;
use svbench_envs::e2::{self, E2Parse};

/// One input: the bytes as a completion text.
pub fn run(data: &[u8]) {
    let Some(text) = crate::utf8(data) else {
        return;
    };
    for mode in [ParseMode::V1, ParseMode::Upstream] {
        let outcome = e1::parse::parse_text(text, mode);
        check_e1(&outcome);
        assert_eq!(
            format!("{outcome:?}"),
            format!("{:?}", e1::parse::parse_text(text, mode)),
            "E1 {mode:?} parse is not deterministic"
        );
        let parsed = e2::parse::parse_text(text, mode);
        check_e2(&parsed);
    }
    let upstream = e1::parse::upstream_fields(text);
    assert!(
        upstream.confidence.is_finite() && (0.0..=1.0).contains(&upstream.confidence),
        "upstream confidence {} outside [0, 1]",
        upstream.confidence
    );

    // The shared extractor's pieces.
    let stripped = strip_reasoning(text);
    for span in fenced_blocks(&stripped) {
        crate::assert_span(&stripped, &span, "fenced block");
    }
    for span in brace_spans(&stripped) {
        crate::assert_span(&stripped, &span, "brace span");
        let s = &stripped[span];
        assert!(
            s.starts_with('{') && s.ends_with('}'),
            "brace span {s:?} is not {{…}}"
        );
    }
    for key in ["label", "violations"] {
        if let Ok(sel) = extract_v1(text, key) {
            crate::assert_span(&sel.stripped, &sel.span, "v1 selection");
            assert!(
                sel.object.contains_key(key),
                "v1 selected an object without `{key}`"
            );
        }
    }
    let _ = extract_upstream(text);

    // The JSON dialects against each other and serde_json.
    let strict_result = strict::parse(text);
    let python_result = python::loads(text);
    if strict_result.is_ok() {
        if let Err(e) = &python_result {
            assert!(
                e.kind == JsonErrorKind::IntegerTooLong,
                "strict JSON accepted but the Python dialect rejected it: {e}"
            );
        }
    }
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        if let Err(e) = &strict_result {
            panic!("serde_json accepted the text but the strict reader rejected it: {e}");
        }
    }
}

fn check_e1(outcome: &ParseOutcome<e1::Label>) {
    if let ParseOutcome::Valid { confidence, .. } = outcome {
        assert!(
            confidence.is_finite() && (0.0..=1.0).contains(confidence),
            "E1 Valid with confidence {confidence}"
        );
    }
}

fn check_e2(parsed: &E2Parse) {
    if let E2Parse::Valid {
        answer,
        format_ok,
        format_reason,
        ..
    } = parsed
    {
        if let Some(c) = answer.confidence {
            assert!(c.is_finite(), "E2 usable confidence {c}");
        }
        assert!(
            !(*format_ok && format_reason.is_some()),
            "E2 format credit given with a format reason {format_reason:?}"
        );
    }
}
