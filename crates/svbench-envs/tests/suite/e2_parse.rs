//! E2 answer parser tests (spec E2 §3.1–3.3, acceptance 11 and 12): a table
//! of completions per mode with the expected outcome, plus one case per
//! `v1` format reason and per `upstream` invalid reason.

use serde_json::{json, Value};
use svbench_core::extract::ParseMode;
use svbench_core::Completion;
use svbench_envs::e2::parse::{parse_completion, parse_text, severity_synonym};
use svbench_envs::e2::{Answer, E2Parse, PredictedViolation, Severity};

use Severity::{High, Low, Med};

const STRICT: &str = r#"{"violations":[{"id":"kube-linter/latest-tag","severity":"med"}],"patch":"","confidence":0.8}"#;

fn v(id: &str, severity: Severity) -> PredictedViolation {
    PredictedViolation {
        id: id.to_owned(),
        severity,
    }
}

/// What a test expects of a Valid outcome.
struct Expect {
    violations: Vec<PredictedViolation>,
    patch: Option<&'static str>,
    confidence: Option<f64>,
    format_reason: Option<&'static str>,
    skipped: usize,
}

fn expect(violations: Vec<PredictedViolation>) -> Expect {
    Expect {
        violations,
        patch: None,
        confidence: None,
        format_reason: None,
        skipped: 0,
    }
}

impl Expect {
    fn conf(mut self, c: f64) -> Self {
        self.confidence = Some(c);
        self
    }
    fn no_conf(mut self) -> Self {
        self.confidence = None;
        self
    }
    fn patch(mut self, p: &'static str) -> Self {
        self.patch = Some(p);
        self
    }
    fn reason(mut self, r: &'static str) -> Self {
        self.format_reason = Some(r);
        self
    }
    fn skipped(mut self, n: usize) -> Self {
        self.skipped = n;
        self
    }
}

/// Parses `text` in `mode` as a plain string and as the final assistant
/// message of a list, and checks both give `expected`.
fn check(mode: ParseMode, text: &str, expected: &Expect) {
    let got = parse_text(text, mode);
    let as_message = Completion::Messages(vec![
        json!({"role": "user", "content": "audit"}),
        json!({"role": "assistant", "content": text}),
    ]);
    assert_eq!(
        parse_completion(&as_message, mode),
        got,
        "message form of {text:?}"
    );
    let E2Parse::Valid {
        answer,
        format_ok,
        format_reason,
        skipped_items,
    } = got
    else {
        panic!("{mode:?} {text:?}: expected Valid, got {got:?}");
    };
    let want = Answer {
        violations: expected.violations.clone(),
        patch: expected.patch.map(str::to_owned),
        confidence: expected.confidence,
    };
    assert_eq!(answer, want, "{mode:?} answer of {text:?}");
    assert_eq!(
        format_reason, expected.format_reason,
        "{mode:?} format reason of {text:?}"
    );
    assert_eq!(format_ok, expected.format_reason.is_none());
    assert_eq!(skipped_items, expected.skipped, "skipped items of {text:?}");
}

fn check_invalid(mode: ParseMode, text: &str, reason: &str) {
    let got = parse_text(text, mode);
    assert!(
        matches!(got, E2Parse::Invalid { reason: r } if r == reason),
        "{mode:?} {text:?}: expected Invalid({reason}), got {got:?}"
    );
}

// -------------------------------------------------------------------- v1

fn v1(text: &str, expected: Expect) {
    check(ParseMode::V1, text, &expected);
}

fn v1_invalid(text: &str, reason: &str) {
    check_invalid(ParseMode::V1, text, reason);
}

fn latest() -> Vec<PredictedViolation> {
    vec![v("kube-linter/latest-tag", Med)]
}

#[test]
fn v1_strict_answers_get_format_credit() {
    v1(STRICT, expect(latest()).conf(0.8));
    v1(&format!("  \n{STRICT}\n "), expect(latest()).conf(0.8));
    v1(
        &format!("```json\n{STRICT}\n```"),
        expect(latest()).conf(0.8),
    );
    v1(&format!("```\n{STRICT}\n```"), expect(latest()).conf(0.8));
    v1(&format!("```{STRICT}```"), expect(latest()).conf(0.8));
    // Reasoning is stripped before the strictness check.
    v1(
        &format!("<think>maybe {{\"violations\":[]}}</think>\n{STRICT}"),
        expect(latest()).conf(0.8),
    );
    v1(
        &format!("stray reasoning {{x}} </think> {STRICT}"),
        expect(latest()).conf(0.8),
    );
    // Empty list, absent patch, null patch, extra keys, bounds.
    v1(
        r#"{"violations":[],"confidence":1}"#,
        expect(vec![]).conf(1.0),
    );
    v1(
        r#"{"violations":[],"patch":null,"confidence":0,"notes":"clean"}"#,
        expect(vec![]).conf(0.0),
    );
    v1(
        r#"{"violations":[{"id":"opa/K8S_001","severity":"high","msg":"x"}],"patch":"--- a\n+++ b\n","confidence":0.5}"#,
        expect(vec![v("opa/K8S_001", High)])
            .conf(0.5)
            .patch("--- a\n+++ b\n"),
    );
}

#[test]
fn v1_candidates() {
    let first = r#"{"violations":["kube-linter/latest-tag"],"confidence":0.2}"#;
    let second =
        r#"{"violations":[{"id":"semgrep/hostpid-pod","severity":"high"}],"confidence":0.9}"#;
    // Prose around the object: read, no format credit.
    v1(
        &format!("Findings below.\n{STRICT}\nDone."),
        expect(latest()).conf(0.8).reason("not_single_object"),
    );
    // Several candidates: the last with `violations` wins.
    v1(
        &format!("{first} then {second}"),
        expect(vec![v("semgrep/hostpid-pod", High)])
            .conf(0.9)
            .reason("not_single_object"),
    );
    v1(
        &format!("{second} and {{\"note\":\"x\"}}"),
        expect(vec![v("semgrep/hostpid-pod", High)])
            .conf(0.9)
            .reason("not_single_object"),
    );
    // A yaml fence before the JSON fence is no obstacle in v1.
    v1(
        &format!("```yaml\nkind: Pod\n```\n```json\n{STRICT}\n```"),
        expect(latest()).conf(0.8).reason("not_single_object"),
    );
    // An object nested in an array is found by the brace scan.
    v1(
        &format!("[{STRICT}]"),
        expect(latest()).conf(0.8).reason("not_single_object"),
    );
    // Never-closed reasoning hides the object.
    v1_invalid(&format!("<think>{STRICT}"), "no_json_object");
    v1_invalid("no findings", "no_json_object");
    v1_invalid("{'violations': []}", "no_json_object");
    v1_invalid(r#"{"violations":[],}"#, "no_json_object");
    v1_invalid(r#"{"findings":[]}"#, "no_violations_object");
    v1_invalid(r#"{"result":{"violations":[]}}"#, "no_violations_object");
    v1_invalid(r#"{"violations":"latest-tag"}"#, "violations_not_array");
    v1_invalid(
        r#"{"violations":null,"confidence":1}"#,
        "violations_not_array",
    );
    v1_invalid("", "empty_content");
    v1_invalid(" \n\t", "empty_content");
}

#[test]
fn v1_reads_the_final_assistant_message() {
    let completion = Completion::Messages(vec![
        json!({"role": "assistant", "content": STRICT}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "{\"violations\":[\"a\"],"}, {"type": "text", "text": "\"confidence\":0.4}"}]}),
        json!({"role": "user", "content": "not me"}),
    ]);
    let E2Parse::Valid { answer, .. } = parse_completion(&completion, ParseMode::V1) else {
        panic!("not valid");
    };
    assert_eq!(answer.violations, vec![v("a", Med)]);
    assert_eq!(answer.confidence, Some(0.4));
    let tool_only = Completion::Messages(vec![
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "1"}]}),
    ]);
    assert_eq!(
        parse_completion(&tool_only, ParseMode::V1),
        E2Parse::Invalid {
            reason: "empty_content"
        }
    );
}

#[test]
fn v1_item_forms() {
    v1(
        r#"{"violations":[
            {"id":"kube-linter/latest-tag","severity":"med"},
            {"tool":"semgrep","rule_id":"run-as-non-root","severity":"INFO"},
            "opa/GEN_001",
            {"id":5,"tool":"opa","rule_id":"K8S_001"},
            {"id":""},
            {"id":7},
            {"tool":"semgrep"},
            {"rule_id":"x","tool":1},
            42, null, ["nested"]
        ],"confidence":0.5}"#,
        expect(vec![
            v("kube-linter/latest-tag", Med),
            v("semgrep/run-as-non-root", Low),
            v("opa/GEN_001", Med),
            v("opa/K8S_001", Med),
            v("", Med),
        ])
        .conf(0.5)
        .skipped(6)
        .reason("violation_id_missing"),
    );
    // Duplicates are kept in order.
    v1(
        r#"{"violations":["a","a",{"id":"a","severity":"low"}],"confidence":0.5}"#,
        expect(vec![v("a", Med), v("a", Med), v("a", Low)])
            .conf(0.5)
            .reason("violation_not_object"),
    );
}

#[test]
fn v1_severity_synonyms() {
    let cases = [
        ("low", Low),
        ("LOW", Low),
        ("info", Low),
        ("Informational", Low),
        ("NOTE", Low),
        ("med", Med),
        ("medium", Med),
        ("Moderate", Med),
        ("WARNING", Med),
        ("high", High),
        ("critical", High),
        ("ERROR", High),
        ("Severe", High),
        (" high ", High),
    ];
    for (text, want) in cases {
        assert_eq!(severity_synonym(text), Some(want), "{text}");
        let answer =
            format!(r#"{{"violations":[{{"id":"x","severity":"{text}"}}],"confidence":0.5}}"#);
        let strict = matches!(text, "low" | "med" | "high");
        let mut e = expect(vec![v("x", want)]).conf(0.5);
        if !strict {
            e = e.reason("severity_not_canonical");
        }
        v1(&answer, e);
    }
    for unknown in ["urgent", "", "hi gh"] {
        assert_eq!(severity_synonym(unknown), None);
    }
    // Missing, unknown and non-string severities read as med.
    v1(
        r#"{"violations":[{"id":"x"},{"id":"y","severity":"urgent"},{"id":"z","severity":3}],"confidence":0.5}"#,
        expect(vec![v("x", Med), v("y", Med), v("z", Med)])
            .conf(0.5)
            .reason("severity_missing"),
    );
}

#[test]
fn v1_patch_forms() {
    // A JSON Patch given as JSON is serialised, member order kept.
    v1(
        r#"{"violations":[],"patch":[{"op":"replace","path":"/0/spec/containers/0/image","value":"nginx:1.27.0"},{"op":"add","path":"/x","value":{"b":1,"a":[true,null,2.5,1.0]}}],"confidence":0.5}"#,
        expect(vec![])
            .conf(0.5)
            .patch(r#"[{"op":"replace","path":"/0/spec/containers/0/image","value":"nginx:1.27.0"},{"op":"add","path":"/x","value":{"b":1,"a":[true,null,2.5,1.0]}}]"#)
            .reason("patch_not_string"),
    );
    v1(
        r#"{"violations":[],"patch":{"op":"remove","path":"/a\"b"},"confidence":0.5}"#,
        expect(vec![])
            .conf(0.5)
            .patch(r#"{"op":"remove","path":"/a\"b"}"#)
            .reason("patch_not_string"),
    );
    // Other types: no patch.
    v1(
        r#"{"violations":[],"patch":5,"confidence":0.5}"#,
        expect(vec![]).conf(0.5).reason("patch_not_string"),
    );
    v1(
        r#"{"violations":[],"patch":true,"confidence":0.5}"#,
        expect(vec![]).conf(0.5).reason("patch_not_string"),
    );
    // A string patch is kept as is, escapes decoded.
    v1(
        r#"{"violations":[],"patch":"line\n\ttab","confidence":0.5}"#,
        expect(vec![]).conf(0.5).patch("line\n\ttab"),
    );
}

#[test]
fn v1_confidence_forms() {
    let cases: [(&str, Option<f64>, Option<&str>); 14] = [
        ("0.7", Some(0.7), None),
        ("-0.0", Some(0.0), None),
        ("1.5", Some(1.0), Some("confidence_out_of_range")),
        ("90", Some(1.0), Some("confidence_out_of_range")),
        ("-0.2", Some(0.0), Some("confidence_out_of_range")),
        ("1e400", Some(1.0), Some("confidence_non_finite")),
        ("-1e400", Some(0.0), Some("confidence_non_finite")),
        (r#""0.7""#, Some(0.7), Some("confidence_not_number")),
        (r#"" 0.7 ""#, Some(0.7), Some("confidence_not_number")),
        (r#""80""#, Some(1.0), Some("confidence_not_number")),
        (r#""high""#, None, Some("confidence_not_number")),
        (r#""nan""#, None, Some("confidence_not_number")),
        ("true", None, Some("confidence_not_number")),
        ("null", None, Some("confidence_missing")),
    ];
    for (raw, conf, reason) in cases {
        let text = format!(r#"{{"violations":[],"confidence":{raw}}}"#);
        let mut e = expect(vec![]);
        e.confidence = conf;
        e.format_reason = reason;
        v1(&text, e);
    }
    v1(
        r#"{"violations":[]}"#,
        expect(vec![]).no_conf().reason("confidence_missing"),
    );
    v1(
        r#"{"violations":[],"confidence":[0.5]}"#,
        expect(vec![]).reason("confidence_not_number"),
    );
}

#[test]
fn v1_strict_reasons_first_deviation_wins() {
    let cases = [
        (
            r#"{"violations":["a"],"confidence":0.5}"#,
            "violation_not_object",
        ),
        (
            r#"{"violations":[{"tool":"opa","rule_id":"K8S_001","severity":"high"}],"confidence":0.5}"#,
            "violation_id_missing",
        ),
        (
            r#"{"violations":[{"id":"","severity":"high"}],"confidence":0.5}"#,
            "violation_id_empty",
        ),
        (
            r#"{"violations":[{"id":3,"severity":"high"}],"confidence":0.5}"#,
            "violation_id_not_string",
        ),
        (
            r#"{"violations":[{"id":"a"}],"confidence":0.5}"#,
            "severity_missing",
        ),
        (
            r#"{"violations":[{"id":"a","severity":null}],"confidence":0.5}"#,
            "severity_not_string",
        ),
        (
            r#"{"violations":[{"id":"a","severity":"MED"}],"confidence":0.5}"#,
            "severity_not_canonical",
        ),
        (
            r#"{"violations":[],"patch":[],"confidence":0.5}"#,
            "patch_not_string",
        ),
        (
            r#"{"violations":[],"confidence":0.5,"confidence":0.6}"#,
            "duplicate_key",
        ),
        (
            r#"{"violations":[{"id":"a","severity":"low","severity":"high"}],"confidence":0.5}"#,
            "duplicate_key",
        ),
        // Order: items before patch before confidence before duplicates.
        (
            r#"{"violations":[{"id":"a","severity":"ok"}],"patch":1,"x":1,"x":2}"#,
            "severity_not_canonical",
        ),
        (
            r#"{"violations":[{"id":"a","severity":"low"},"b"],"patch":1}"#,
            "violation_not_object",
        ),
        (
            r#"{"violations":[],"patch":1,"x":1,"x":2}"#,
            "patch_not_string",
        ),
        (r#"{"violations":[],"x":1,"x":2}"#, "confidence_missing"),
        (
            r#"x {"violations":[],"confidence":"no"}"#,
            "not_single_object",
        ),
    ];
    for (text, reason) in cases {
        match parse_text(text, ParseMode::V1) {
            E2Parse::Valid {
                format_ok: false,
                format_reason: Some(r),
                ..
            } => assert_eq!(r, reason, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // Duplicate keys are repaired: the first value is read.
    let E2Parse::Valid { answer, .. } = parse_text(
        r#"{"violations":[],"confidence":0.5,"confidence":0.6}"#,
        ParseMode::V1,
    ) else {
        panic!("not valid");
    };
    assert_eq!(answer.confidence, Some(0.5));
}

#[test]
fn v1_never_panics_on_odd_text() {
    for text in [
        "{",
        "}",
        "```",
        "``````",
        "```json\n```",
        "{\"violations\":[",
        "\u{0}{\"violations\":[]}",
        "```json\n{\"violations\":[]}",
        "{\"violations\":[]}```",
    ] {
        let _ = parse_text(text, ParseMode::V1);
        let _ = parse_text(text, ParseMode::Upstream);
    }
    // An unclosed trailing fence is not one fenced block.
    assert!(matches!(
        parse_text("{\"violations\":[],\"confidence\":1}```", ParseMode::V1),
        E2Parse::Valid {
            format_reason: Some("not_single_object"),
            ..
        }
    ));
}

// -------------------------------------------------------------- upstream

fn up(text: &str, expected: Expect) {
    check(ParseMode::Upstream, text, &expected);
}

fn up_invalid(text: &str, reason: &str) {
    check_invalid(ParseMode::Upstream, text, reason);
}

#[test]
fn upstream_valid_answers() {
    up(STRICT, expect(latest()).conf(0.8));
    up(&format!(" \n{STRICT}\n"), expect(latest()).conf(0.8));
    // Only when the whole text raises: the first fence.
    up(
        &format!("Here is my audit:\n```json\n{STRICT}\n```\nThanks."),
        expect(latest()).conf(0.8),
    );
    up(&format!("```JSON{STRICT}```"), expect(latest()).conf(0.8));
    up(
        r#"{"violations":[],"confidence":0.5}"#,
        expect(vec![]).conf(0.5),
    );
    // Extra keys ignored, patch null or a string, ids verbatim.
    up(
        r#"{"violations":[{"id":"latest-tag","severity":"low","why":"x"}],"patch":null,"confidence":0.1,"note":1}"#,
        expect(vec![v("latest-tag", Low)]).conf(0.1),
    );
    up(
        r#"{"violations":[{"id":"","severity":"high"}],"patch":"--- a","confidence":0.1}"#,
        expect(vec![v("", High)]).conf(0.1).patch("--- a"),
    );
    // Confidence: lax float coercion, no range check.
    let coerced = [
        ("true", 1.0),
        ("false", 0.0),
        ("1", 1.0),
        ("5", 5.0),
        ("-2.5", -2.5),
        (r#""0.9""#, 0.9),
        (r#"" 0.9 ""#, 0.9),
        ("Infinity", f64::INFINITY),
        (r#""-inf""#, f64::NEG_INFINITY),
    ];
    for (raw, c) in coerced {
        up(
            &format!(r#"{{"violations":[],"confidence":{raw}}}"#),
            expect(vec![]).conf(c),
        );
    }
    // NaN is allowed (checked by hand: NaN != NaN).
    for raw in ["NaN", r#""nan""#] {
        let text = format!(r#"{{"violations":[],"confidence":{raw}}}"#);
        match parse_text(&text, ParseMode::Upstream) {
            E2Parse::Valid {
                answer,
                format_ok: true,
                ..
            } => assert!(answer.confidence.is_some_and(f64::is_nan), "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // Duplicate keys: the last value wins, as in Python.
    up(
        r#"{"violations":[],"confidence":"x","confidence":0.5}"#,
        expect(vec![]).conf(0.5),
    );
}

#[test]
fn upstream_invalid_answers() {
    // A fenced yaml block before the JSON: the first fence is read.
    up_invalid(
        &format!("```yaml\nkind: Pod\n```\n```json\n{STRICT}\n```"),
        "not_json",
    );
    up_invalid(&format!("Audit: {STRICT}"), "not_json");
    up_invalid(&format!("<think>hmm</think>{STRICT}"), "not_json");
    up_invalid("", "not_json");
    up_invalid("no findings", "not_json");
    up_invalid(&format!("[{STRICT}]"), "not_an_object");
    up_invalid("\"text\"", "not_an_object");
    up_invalid(r#"{"confidence":0.5}"#, "violations_missing");
    up_invalid(
        r#"{"violations":{},"confidence":0.5}"#,
        "violations_not_list",
    );
    up_invalid(
        r#"{"violations":null,"confidence":0.5}"#,
        "violations_not_list",
    );
    up_invalid(
        r#"{"violations":["kube-linter/latest-tag"],"confidence":0.5}"#,
        "violation_not_object",
    );
    up_invalid(
        r#"{"violations":[{"tool":"kube-linter","rule_id":"latest-tag","severity":"med"}],"confidence":0.5}"#,
        "violation_id_missing",
    );
    up_invalid(
        r#"{"violations":[{"id":7,"severity":"med"}],"confidence":0.5}"#,
        "violation_id_not_string",
    );
    up_invalid(
        r#"{"violations":[{"id":"a"}],"confidence":0.5}"#,
        "severity_missing",
    );
    for sev in ["medium", "MED", "critical", "med ", "med\n", "", "1"] {
        let text = format!(
            r#"{{"violations":[{{"id":"a","severity":{}}}],"confidence":0.5}}"#,
            serde_json::to_string(sev).expect("a string serialises")
        );
        up_invalid(&text, "severity_invalid");
    }
    up_invalid(
        r#"{"violations":[{"id":"a","severity":2}],"confidence":0.5}"#,
        "severity_invalid",
    );
    up_invalid(
        r#"{"violations":[],"patch":[{"op":"remove","path":"/a"}],"confidence":0.5}"#,
        "patch_not_string",
    );
    up_invalid(
        r#"{"violations":[],"patch":5,"confidence":0.5}"#,
        "patch_not_string",
    );
    up_invalid(r#"{"violations":[]}"#, "confidence_missing");
    for raw in [
        "null",
        r#""high""#,
        "[0.5]",
        "{}",
        &format!("1{}", "0".repeat(400)),
        // pydantic reads ASCII digits only (Python's `float()` would read
        // these as 0.5, 5 and 10).
        r#""٠.٥""#,
        r#""٥""#,
        r#"" 1_0""#,
    ] {
        up_invalid(
            &format!(r#"{{"violations":[],"confidence":{raw}}}"#),
            "confidence_not_float",
        );
    }
}

#[test]
fn upstream_reads_only_the_last_element() {
    let last_is_user = Completion::Messages(vec![
        json!({"role": "assistant", "content": STRICT}),
        json!({"role": "user", "content": "thanks"}),
    ]);
    assert_eq!(
        parse_completion(&last_is_user, ParseMode::Upstream),
        E2Parse::Invalid { reason: "not_json" }
    );
    let null_content =
        Completion::Messages(vec![json!({"role": "assistant", "content": Value::Null})]);
    assert_eq!(
        parse_completion(&null_content, ParseMode::Upstream),
        E2Parse::Invalid { reason: "not_json" }
    );
    let plain = Completion::Text(STRICT.to_owned());
    assert!(matches!(
        parse_completion(&plain, ParseMode::Upstream),
        E2Parse::Valid {
            format_ok: true,
            ..
        }
    ));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
    /// Arbitrary text never panics either mode, and v1 never yields
    /// `NoAnswer` (that is the environment's outcome, not the parser's).
    #[test]
    fn never_panics(text in r#"[{}\[\]":,` a-z0-9\\\n.<>/-]{0,120}"#) {
        for mode in [ParseMode::V1, ParseMode::Upstream] {
            proptest::prop_assert_ne!(parse_text(&text, mode), E2Parse::NoAnswer);
        }
    }
}
