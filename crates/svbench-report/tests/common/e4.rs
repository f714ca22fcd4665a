//! Hand-built E4 runs for report tests.
#![allow(dead_code)]

use serde_json::{json, Value};

/// E4 `metadata.json`: E1's with E4's environment and v1 constants.
pub fn e4_metadata() -> Value {
    let mut m = super::metadata("v1");
    let o = m.as_object_mut().expect("object");
    o.insert("environment".into(), json!("sv-env-phishing-detection"));
    o.insert(
        "reward_weights".into(),
        json!({"utility": 1.0, "calibration": 0.25, "evidence": 0.4, "format": 0.05}),
    );
    o.insert(
        "reward_params".into(),
        json!({"cost_fn": 1.0, "cost_fp": 0.5, "cost_abstain": 0.3,
               "cost_amb_phishing": 0.3, "cost_amb_legitimate": 0.6,
               "w_calibration": 0.25, "w_evidence": 0.4, "w_format": 0.05,
               "abstain_calibration": 0.75}),
    );
    o.insert("argv".into(), json!(["svbench", "eval", "e4"]));
    m
}

/// A gold span of `meta.spans`.
pub fn span(start: usize, end: usize, text: &str, category: &str, polarity: &str) -> Value {
    json!({"start": start, "end": end, "text": text, "category": category, "polarity": polarity})
}

/// An evidence item: `valid` with its matched gold indices and interval,
/// or an invalid status.
pub fn item(status: &str, matched: &[usize], at: Option<(usize, usize)>) -> Value {
    json!({"text": "quoted", "status": status, "start": at.map(|a| a.0),
           "end": at.map(|a| a.1), "matched_gold": matched})
}

/// How a test row is answered.
pub struct Row<'a> {
    pub gold: &'a str,
    /// `Phishing`/`Legitimate`/`Abstain`, or `""` for an invalid answer.
    pub label: &'a str,
    /// None makes a labelled answer label-only.
    pub conf: Option<f64>,
    pub gold_source: &'a str,
    pub applicable: bool,
    pub family: &'a str,
    pub difficulty: Option<&'a str>,
    pub spans: Vec<Value>,
    pub items: Vec<Value>,
    /// Recorded evidence F1 (null when not applicable or invalid).
    pub f1: Option<f64>,
    pub question: &'a str,
}

/// An E4 result line.
pub fn e4_record(index: usize, r: &Row<'_>) -> Value {
    let (status, reason) = if r.label.is_empty() {
        ("invalid", json!("no_json_object"))
    } else if r.conf.is_none() {
        ("label_only", json!("confidence_missing"))
    } else {
        ("valid", Value::Null)
    };
    let label = (!r.label.is_empty()).then_some(r.label);
    let reward = if r.label.is_empty() { 0.0 } else { 1.0 };
    json!({
        "index": index,
        "rollout_index": 0,
        "example_id": format!("e4-{index:03}"),
        "split": "test",
        "question": r.question,
        "prompt": [{"role": "user", "content": r.question}],
        "answer": r.gold,
        "info": {"meta": {"spans": r.spans, "family": r.family}},
        "completion": "{}",
        "parsed": {
            "gold": r.gold, "ambiguous": r.gold == "Abstain", "family": r.family,
            "phishing_type": null, "difficulty": r.difficulty, "gold_source": r.gold_source,
            "parse": {"status": status, "reason": reason, "format_ok": status == "valid"},
            "label": label, "confidence": r.conf, "utility": null, "cost": null,
            "evidence": {"items": r.items, "precision": null, "recall": null, "f1": r.f1,
                         "applicable": r.applicable, "recalled_categories": []},
            "render_version": 1
        },
        "parse": {"status": status, "reason": reason, "format_ok": status == "valid"},
        "reward": reward,
        "rewards": {"utility": reward, "calibration": 0.5, "evidence": r.f1, "format": 1.0},
        "reward_profile": "v1",
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "reasoning_tokens": 0,
                  "total_tokens": 15, "requests": 1, "cached_requests": 0},
        "latency_ms": 10.0,
        "turns": 1,
        "truncated": false,
        "error": null,
        "predicted_label": label.unwrap_or(""),
        "confidence": r.conf
    })
}

/// The hand-computed vector of E4 §10 item 9: all nine confusion cells,
/// an invalid answer, a label-only answer and two rows where evidence is
/// not applicable.
pub fn metrics_vector() -> Vec<Value> {
    let phish_spans = || {
        vec![
            span(0, 4, "http", "url", "phish"),
            span(5, 9, "urge", "urgency", "phish"),
            span(10, 14, "sign", "signature", "benign"),
        ]
    };
    let other_spans = || {
        vec![
            span(0, 4, "http", "url", "phish"),
            span(10, 14, "sign", "signature", "benign"),
        ]
    };
    let v = |m: &[usize]| item("valid", m, Some((0, 4)));
    #[allow(clippy::type_complexity)]
    let rows: Vec<(
        &str,
        &str,
        Option<f64>,
        &str,
        bool,
        Vec<Value>,
        Vec<Value>,
        Option<f64>,
    )> = vec![
        (
            "Phishing",
            "Phishing",
            Some(0.9),
            "annotated",
            true,
            phish_spans(),
            vec![v(&[0]), v(&[]), item("not_found", &[], None)],
            Some(0.4),
        ),
        (
            "Phishing",
            "Legitimate",
            Some(0.6),
            "annotated",
            true,
            phish_spans(),
            vec![v(&[0, 1])],
            Some(1.0),
        ),
        (
            "Phishing",
            "Abstain",
            Some(0.5),
            "annotated",
            true,
            phish_spans(),
            vec![],
            Some(0.0),
        ),
        (
            "Legitimate",
            "Phishing",
            Some(0.8),
            "extractor",
            true,
            other_spans(),
            vec![v(&[0])],
            Some(0.0),
        ),
        (
            "Legitimate",
            "Legitimate",
            Some(0.7),
            "extractor",
            true,
            other_spans(),
            vec![v(&[1]), item("too_short", &[], None)],
            Some(2.0 / 3.0),
        ),
        (
            "Legitimate",
            "Abstain",
            Some(0.5),
            "none",
            false,
            other_spans(),
            vec![v(&[])],
            None,
        ),
        (
            "Abstain",
            "Phishing",
            Some(0.6),
            "annotated",
            true,
            other_spans(),
            vec![v(&[0]), v(&[1])],
            Some(1.0),
        ),
        (
            "Abstain",
            "Legitimate",
            Some(0.4),
            "annotated",
            true,
            other_spans(),
            vec![item("duplicate", &[], None)],
            Some(0.0),
        ),
        (
            "Abstain",
            "Abstain",
            Some(0.5),
            "none",
            false,
            other_spans(),
            vec![],
            None,
        ),
        (
            "Phishing",
            "",
            None,
            "annotated",
            true,
            phish_spans(),
            vec![],
            None,
        ),
        (
            "Legitimate",
            "Legitimate",
            None,
            "extractor",
            true,
            other_spans(),
            vec![],
            Some(0.0),
        ),
    ];
    rows.into_iter()
        .enumerate()
        .map(
            |(i, (gold, label, conf, src, applicable, spans, items, f1))| {
                e4_record(
                    i,
                    &Row {
                        gold,
                        label,
                        conf,
                        gold_source: src,
                        applicable,
                        family: if i % 2 == 0 { "f_even" } else { "f_odd" },
                        difficulty: (i < 6).then_some("easy"),
                        spans,
                        items,
                        f1,
                        question: "http urge sign and more text",
                    },
                )
            },
        )
        .collect()
}

/// An errored E4 record of an email whose gold label is `gold`: no answer,
/// no parse, no reward (as the runner writes a failed sample).
pub fn e4_errored(index: usize, gold: &str) -> Value {
    let mut v = e4_record(
        index,
        &Row {
            gold,
            label: "",
            conf: None,
            gold_source: "annotated",
            applicable: true,
            family: "f_err",
            difficulty: None,
            spans: vec![],
            items: vec![],
            f1: None,
            question: "an email",
        },
    );
    let m = v.as_object_mut().expect("object");
    for k in ["parse", "parsed", "reward", "completion", "confidence"] {
        m.insert(k.into(), Value::Null);
    }
    m.insert("rewards".into(), json!({}));
    m.insert("predicted_label".into(), json!(""));
    m.insert(
        "error".into(),
        json!({"kind": "timeout", "message": "boom", "http_status": null, "attempts": 3, "retryable": true}),
    );
    v
}
