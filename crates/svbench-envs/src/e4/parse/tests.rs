//! E4 parsing (§5.1, §7.2): format reasons, evidence items, upstream quirks.

use proptest::prelude::*;
use svbench_core::ParseStatus;

use super::*;

fn v1(text: &str) -> E4Parse {
    parse_text(text, ParseMode::V1, &EvidenceLimits::default())
}

fn up(text: &str) -> E4Parse {
    parse_text(text, ParseMode::Upstream, &EvidenceLimits::default())
}

fn reason(p: &E4Parse) -> Option<String> {
    p.outcome.record().reason
}

#[test]
fn v1_format_rules_and_reasons() {
    let ok = v1(r#"{"label":"Phishing","confidence":0.9,"evidence":["abcd"]}"#);
    assert!(ok.outcome.format_ok());
    assert_eq!(ok.evidence, vec![RawEvidence::Text("abcd".into())]);
    let cases = [
        (
            r#"{"label":"Phishing","confidence":0.9}"#,
            "evidence_missing",
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":null}"#,
            "evidence_missing",
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":"abcd"}"#,
            "evidence_not_array",
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":["abcd",3]}"#,
            "evidence_item_not_string",
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":["a","b","c","d","e","f","g","h","i","j","k"]}"#,
            "evidence_too_many",
        ),
        (
            r#"{"label":"phishing","confidence":0.9,"evidence":[]}"#,
            "non_canonical_label_case",
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":[],"rationale":5}"#,
            "rationale_not_string",
        ),
    ];
    for (text, want) in cases {
        let p = v1(text);
        assert_eq!(p.outcome.status(), ParseStatus::Valid, "{text}");
        assert!(!p.outcome.format_ok(), "{text}");
        assert_eq!(reason(&p).as_deref(), Some(want), "{text}");
    }
    let long = format!(
        r#"{{"label":"Phishing","confidence":0.9,"evidence":[],"rationale":"{}"}}"#,
        "r".repeat(1001)
    );
    assert_eq!(reason(&v1(&long)).as_deref(), Some("rationale_too_long"));
    let fits = long.replacen(&"r".repeat(1001), &"r".repeat(1000), 1);
    assert!(v1(&fits).outcome.format_ok());
    // Non-string items are kept as markers for grounding.
    let p = v1(r#"{"label":"Phishing","confidence":0.9,"evidence":[1,"abcd",{}]}"#);
    assert_eq!(
        p.evidence,
        vec![
            RawEvidence::NotString,
            RawEvidence::Text("abcd".into()),
            RawEvidence::NotString
        ]
    );
}

#[test]
fn v1_outcomes_follow_e1() {
    let p = v1(r#"{"label":"Abstain","evidence":["abcd"]}"#);
    assert_eq!(p.outcome.status(), ParseStatus::LabelOnly);
    assert_eq!(reason(&p).as_deref(), Some("confidence_missing"));
    assert_eq!(p.evidence.len(), 1, "LabelOnly keeps its evidence");
    for (text, want) in [
        ("", "empty_content"),
        ("no json", "no_json_object"),
        (r#"{"verdict":"x"}"#, "no_label_key"),
        (
            r#"{"label":"Suspicious","confidence":0.5}"#,
            "unknown_label",
        ),
        (r#"{"label":1}"#, "label_not_string"),
        (r#"{"label":"Phishing","label":"Abstain"}"#, "duplicate_key"),
    ] {
        let p = v1(text);
        assert_eq!(p.outcome.status(), ParseStatus::Invalid, "{text}");
        assert_eq!(reason(&p).as_deref(), Some(want));
        assert!(p.evidence.is_empty());
    }
    let p = v1(
        r#"<think>{"label":"Legitimate"}</think> {"label":"LEGITIMATE","confidence":0.4,"evidence":[]}"#,
    );
    assert_eq!(p.outcome.label(), Some(&Label::Legitimate));
}

#[test]
fn upstream_label_is_stripped_and_lower_cased() {
    for (raw, want) in [
        ("\" PHISHING \"", Some(Label::Phishing)),
        ("\"\\u00a0legitimate\\n\"", Some(Label::Legitimate)),
        ("\"aBsTaIn\"", Some(Label::Abstain)),
        ("\"Phish\"", None),
        ("\"Phishing!\"", None),
        ("1", None),
    ] {
        let p = up(&format!(r#"{{"label":{raw},"confidence":0.5}}"#));
        assert_eq!(p.upstream.unwrap().label, want, "{raw}");
    }
}

#[test]
fn upstream_evidence_quirks_and_format() {
    let f = |evidence: &str| {
        up(&format!(
            r#"{{"label":"Phishing","confidence":0.9,"evidence":{evidence}}}"#
        ))
        .upstream
        .unwrap()
    };
    let keys = f(r#"{"urgent":1," click here ":2,"  ":3}"#);
    assert_eq!(keys.evidence, vec!["urgent", "click here"]);
    assert!(keys.format);
    let list = f(r#"[" a ", 3, "  ", "bad link"]"#);
    assert_eq!(list.evidence, vec!["a", "bad link"]);
    assert!(list.format);
    for bad in [r#""text""#, r#"["  "]"#, "0", "{}", "true", "[1]"] {
        let u = f(bad);
        assert!(!u.format, "{bad}");
        assert!(u.evidence.is_empty(), "{bad}");
        assert_eq!(u.format_reason, Some("evidence_unusable"));
    }
    for fine in ["[]", "null"] {
        assert!(f(fine).format, "{fine}");
    }
    // Confidence: float() semantics, range, presence.
    let c = |conf: &str| {
        up(&format!(r#"{{"label":"Phishing","confidence":{conf}}}"#))
            .upstream
            .unwrap()
    };
    assert!(c(r#""0.7""#).format && (c(r#""0.7""#).confidence - 0.7).abs() < 1e-15);
    assert!(c("true").format && c("true").confidence == 1.0);
    // Python's `float()` reads decimal digits of any script (E2's upstream,
    // validated by pydantic, does not).
    for arabic_indic in [r#""٠.٥""#, r#""\u0660.\u0665""#] {
        assert!(c(arabic_indic).format, "{arabic_indic}");
        assert_eq!(c(arabic_indic).confidence, 0.5, "{arabic_indic}");
    }
    for bad in ["2", "null", "[0.5]", "NaN", r#""high""#, "-0.1"] {
        assert!(!c(bad).format, "{bad}");
        assert_eq!(c(bad).confidence, 0.0, "{bad}");
    }
    let missing = up(r#"{"label":"Phishing"}"#);
    assert_eq!(
        missing.upstream.as_ref().unwrap().format_reason,
        Some("confidence_missing")
    );
    assert_eq!(missing.outcome.status(), ParseStatus::Valid);
    assert_eq!(up("nope").outcome.status(), ParseStatus::Invalid);
}

proptest! {
    #[test]
    fn parsing_never_panics(text in "\\PC{0,200}", evidence in "\\PC{0,40}") {
        let limits = EvidenceLimits::default();
        let wrapped = format!(r#"{{"label":"Phishing","confidence":0.5,"evidence":[{evidence}]}}"#);
        for t in [&text, &wrapped] {
            for mode in [ParseMode::V1, ParseMode::Upstream] {
                let _ = parse_text(t, mode, &limits);
            }
        }
    }
}
