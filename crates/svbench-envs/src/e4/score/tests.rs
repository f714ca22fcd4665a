//! Worked cases of E4 §5.4 and §7.4 and the reward properties of §10
//! items 6 and 8.

use svbench_core::Completion;

use super::*;
use crate::e4::grounding::ItemStatus;
use crate::e4::reward::{decision_thresholds, V1Params};
use crate::e4::Polarity;
use crate::kit::reward::V1Constants;

const EPS: f64 = 1e-12;

/// The email of §2.3, exactly as printed.
pub(crate) const PHISH: &str = "From: Northwind Bank <alerts@northwlnd-bank.top>
Reply-To: recovery.desk@freemail.example
To: dana.ortiz@acme-corp.example
Date: Tue, 04 Mar 2025 09:12:44 +0000
Subject: Unusual sign-in: verify within 24 hours
Attachments: statement.pdf.html (text/html, 2 KB)

Dear customer,
We detected an unusual sign-in. Confirm your password within 24 hours or your account will be suspended.
Verify now [link: http://203.0.113.7/northwind/login]";

/// The six phish spans of §5.4: (text, category).
const PHISH_SPANS: [(&str, &str); 6] = [
    ("northwlnd-bank.top", "lookalike_domain"),
    ("recovery.desk@freemail.example", "reply_to_mismatch"),
    ("statement.pdf.html", "risky_attachment"),
    ("Confirm your password", "credential_request"),
    (
        "within 24 hours or your account will be suspended",
        "urgency_threat",
    ),
    ("http://203.0.113.7/northwind/login", "ip_url"),
];

const LEGIT_RESET: &str = "From: Northwind Bank <no-reply@northwindbank.example>
To: dana.ortiz@acme-corp.example
Date: Tue, 04 Mar 2025 09:12:44 +0000
Subject: Password reset requested

Hello Dana,
You asked to reset your password. Use the link below within 2 hours.
Reset password [link: https://northwindbank.example/reset?token=4f2a]";

const MEMO: &str = "From: Dana Ortiz <dana.ortiz@acme-corp.example>
To: team@acme-corp.example
Subject: Friday lunch

Hi all,
Lunch is at noon in the small meeting room.";

/// A gold span on the first occurrence of `text` at or after byte `from`.
pub(crate) fn span_at(q: &str, text: &str, from: usize, category: &str, p: Polarity) -> GoldSpan {
    let byte = from + q[from..].find(text).expect("span text in question");
    let start = q[..byte].chars().count();
    GoldSpan {
        start,
        end: start + text.chars().count(),
        text: text.to_string(),
        category: category.to_string(),
        polarity: p,
    }
}

pub(crate) fn phish_spans() -> Vec<GoldSpan> {
    // The domain's first occurrence is in the From line; the urgency and
    // credential spans are in the body, not the subject.
    let body = PHISH.find("Dear customer").unwrap();
    PHISH_SPANS
        .iter()
        .map(|(t, c)| {
            let from = if c.ends_with("_request") || c.starts_with("urgency") {
                body
            } else {
                0
            };
            span_at(PHISH, t, from, c, Polarity::Phish)
        })
        .collect()
}

fn legit_spans() -> Vec<GoldSpan> {
    vec![
        span_at(
            LEGIT_RESET,
            "northwindbank.example",
            0,
            "sender_brand_match",
            Polarity::Benign,
        ),
        span_at(
            LEGIT_RESET,
            "https://northwindbank.example/reset?token=4f2a",
            0,
            "aligned_links",
            Polarity::Benign,
        ),
    ]
}

fn v1() -> E4Rewards {
    E4Rewards::v1_default()
}

fn run(rewards: &E4Rewards, answer: &str, q: &str, gold: Label, spans: &[GoldSpan]) -> E4Score {
    run_with(rewards, answer, q, gold, spans, GoldSource::Annotated, &[])
}

fn run_with(
    rewards: &E4Rewards,
    answer: &str,
    q: &str,
    gold: Label,
    spans: &[GoldSpan],
    source: GoldSource,
    indicators: &[String],
) -> E4Score {
    let input = ScoreInput {
        question: q,
        gold,
        spans,
        gold_source: source,
        upstream_indicators: indicators,
    };
    score(
        rewards,
        &EvidenceLimits::default(),
        &Completion::Text(answer.to_string()),
        &input,
        Deadline::NONE,
    )
    .unwrap()
}

fn answer(label: &str, confidence: f64, evidence: &[&str]) -> String {
    serde_json::json!({"label": label, "confidence": confidence, "evidence": evidence}).to_string()
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() < EPS
}

fn assert_total(s: &E4Score, want: f64) {
    assert!(
        close(s.reward.total, want),
        "total {} != {want}: {:?}",
        s.reward.total,
        s.reward
    );
}

#[test]
fn phish_spans_are_where_the_spec_puts_them() {
    let q: Vec<char> = PHISH.chars().collect();
    for s in phish_spans() {
        assert_eq!(q[s.start..s.end].iter().collect::<String>(), s.text);
    }
}

#[test]
fn worked_cases_of_5_4() {
    let r = v1();
    let g = phish_spans();
    let p = Label::Phishing;
    let base = 1.0 + 0.25 * 0.99 + 0.05;
    // 1: three spans quoted.
    let s = run(
        &r,
        &answer(
            "Phishing",
            0.9,
            &[
                "northwlnd-bank.top",
                "Confirm your password",
                "http://203.0.113.7/northwind/login",
            ],
        ),
        PHISH,
        p,
        &g,
    );
    assert!(close(s.grounding.f1.unwrap(), 2.0 / 3.0));
    assert_total(&s, base + 0.4 * 2.0 / 3.0);
    assert!((s.reward.total - 1.5642).abs() < 5e-5);
    // 2: all six.
    let all: Vec<&str> = PHISH_SPANS.iter().map(|(t, _)| *t).collect();
    let s = run(&r, &answer("Phishing", 0.9, &all), PHISH, p, &g);
    assert_total(&s, 1.6975);
    // 3, 4, 6: one letter, the whole email, a paraphrase.
    for (item, status) in [
        ("a", ItemStatus::TooShort),
        (PHISH, ItemStatus::TooLong),
        ("Spoofed sender domain", ItemStatus::NotFound),
    ] {
        let s = run(&r, &answer("Phishing", 0.9, &[item]), PHISH, p, &g);
        assert_eq!(s.grounding.items[0].status, status);
        assert_total(&s, 1.2975);
    }
    // 5: ten lines and sentences.
    let lines: Vec<&str> = PHISH.lines().take(6).collect();
    let mut items = lines.clone();
    items.extend([
        "Dear customer,",
        "We detected an unusual sign-in.",
        "Confirm your password within 24 hours or your account will be suspended.",
        "Verify now [link: http://203.0.113.7/northwind/login]",
    ]);
    let s = run(&r, &answer("Phishing", 0.9, &items), PHISH, p, &g);
    let matched: Vec<usize> = s
        .grounding
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| !i.matched_gold.is_empty())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(matched, vec![1, 8, 9]);
    assert!(close(s.grounding.f1.unwrap(), 0.375));
    assert_total(&s, 1.4475);
    // 7: a missed phish.
    let s = run(&r, &answer("Legitimate", 0.8, &[]), PHISH, p, &g);
    assert_total(&s, 0.14);
    // 8: abstain with one quote.
    let s = run(
        &r,
        &answer("Abstain", 0.5, &["Confirm your password"]),
        PHISH,
        p,
        &g,
    );
    assert!(close(s.grounding.f1.unwrap(), 2.0 / 7.0));
    assert_total(&s, 0.7 + 0.1875 + 0.4 * 2.0 / 7.0 + 0.05);
    // 9: label only.
    let s = run(&r, r#"{"label":"Phishing"}"#, PHISH, p, &g);
    assert_eq!(
        s.parse_record().status,
        svbench_core::ParseStatus::LabelOnly
    );
    assert_total(&s, 1.0);
    // 10: no JSON.
    let s = run(&r, "it is phishing", PHISH, p, &g);
    assert_total(&s, 0.0);
}

#[test]
fn legitimate_and_memo_cases_of_5_4() {
    let r = v1();
    let g = legit_spans();
    let l = Label::Legitimate;
    let s = run(&r, &answer("Legitimate", 0.85, &[]), LEGIT_RESET, l, &g);
    assert_total(&s, 1.0 + 0.25 * (1.0 - 0.15 * 0.15) + 0.05);
    let s = run(
        &r,
        &answer("Legitimate", 0.85, &["northwindbank.example"]),
        LEGIT_RESET,
        l,
        &g,
    );
    assert!(close(s.grounding.f1.unwrap(), 2.0 / 3.0));
    assert_total(&s, 1.0 + 0.25 * 0.9775 + 0.4 * 2.0 / 3.0 + 0.05);
    assert!((s.reward.total - 1.5610).abs() < 5e-5);
    let s = run(&r, &answer("Legitimate", 0.9, &[]), MEMO, l, &[]);
    assert!(close(s.grounding.f1.unwrap(), 1.0));
    assert_total(&s, 1.6975);
    // Citing anything where G is empty scores 0.
    let s = run(
        &r,
        &answer("Legitimate", 0.9, &["Friday lunch"]),
        MEMO,
        l,
        &[],
    );
    assert_eq!(s.grounding.f1, Some(0.0));
}

#[test]
fn evidence_not_applicable_drops_its_weight() {
    let r = v1();
    let a = answer("Phishing", 0.9, &["Confirm your password"]);
    // gold_source none.
    let s = run_with(&r, &a, PHISH, Label::Phishing, &[], GoldSource::None, &[]);
    assert!(!s.grounding.applicable && s.grounding.f1.is_none());
    assert!(s.reward.is_not_applicable("evidence"));
    assert_total(&s, 1.2975);
    // Extractor gold, phishing, no phish span.
    let benign = legit_spans();
    let s = run_with(
        &r,
        &a,
        LEGIT_RESET,
        Label::Phishing,
        &benign,
        GoldSource::Extractor,
        &[],
    );
    assert!(!s.grounding.applicable);
    assert_total(&s, 1.2975);
    // Extractor gold on a legitimate row with empty G still counts.
    let s = run_with(
        &r,
        &answer("Legitimate", 0.9, &[]),
        MEMO,
        Label::Legitimate,
        &[],
        GoldSource::Extractor,
        &[],
    );
    assert!(s.grounding.applicable);
    assert_total(&s, 1.6975);
    let parsed = s.parsed(&RowFacts::default());
    assert_eq!(parsed.evidence.f1, Some(1.0));
}

#[test]
fn total_is_the_weighted_sum_with_na_dropped() {
    let r = v1();
    let g = phish_spans();
    for source in [GoldSource::Annotated, GoldSource::None] {
        for a in [
            answer(
                "Phishing",
                0.7,
                &["Confirm your password", "Dear customer,"],
            ),
            answer("Abstain", 0.2, &[]),
            r#"{"label":"legitimate","confidence":0.3}"#.to_string(),
            r#"{"label":"Phishing","evidence":["statement.pdf.html"]}"#.to_string(),
            "junk".to_string(),
        ] {
            let s = run_with(&r, &a, PHISH, Label::Phishing, &g, source, &[]);
            let sum: f64 = s.reward.components.iter().map(|c| c.weight * c.value).sum();
            assert!(close(s.reward.total, sum));
            let has_evidence = s.reward.component("evidence").is_some();
            assert_eq!(has_evidence, source == GoldSource::Annotated);
            assert_eq!(s.reward.is_not_applicable("evidence"), !has_evidence);
        }
    }
}

#[test]
fn brier_is_proper() {
    for i in 0..=100 {
        let p = f64::from(i) / 100.0;
        let expected = |c: f64| {
            p * svbench_core::cost::brier_calibration(c, true)
                + (1.0 - p) * svbench_core::cost::brier_calibration(c, false)
        };
        let at_p = expected(p);
        for j in 0..=100 {
            let c = f64::from(j) / 100.0;
            if j != i {
                assert!(expected(c) < at_p, "p {p} c {c}");
            }
        }
    }
}

/// Expected utility + calibration of each action with honest confidence on
/// a clear-cut email (evidence and format do not depend on the label).
fn expected(p: &V1Params, belief: f64) -> [f64; 3] {
    use svbench_core::cost::{brier_calibration as b, TriageCall as C, TriageGold as G};
    let m = p.matrix();
    let w = p.w_calibration;
    let ph = belief * m.utility(C::Positive, G::Positive)
        + (1.0 - belief) * m.utility(C::Positive, G::Negative)
        + w * (belief * b(belief, true) + (1.0 - belief) * b(belief, false));
    let c = 1.0 - belief;
    let lg = belief * m.utility(C::Negative, G::Positive)
        + (1.0 - belief) * m.utility(C::Negative, G::Negative)
        + w * ((1.0 - belief) * b(c, true) + belief * b(c, false));
    let ab = m.utility(C::Abstain, G::Positive) + w * p.abstain_calibration;
    [ph, lg, ab]
}

fn check_thresholds(p: &V1Params) {
    let (lo, hi) = decision_thresholds(p);
    assert!(lo <= hi);
    for i in 1..2000 {
        let q = f64::from(i) / 2000.0;
        if (q - lo).abs() < 1e-9 || (q - hi).abs() < 1e-9 {
            continue;
        }
        let [ph, lg, ab] = expected(p, q);
        if q < lo {
            assert!(lg > ab && lg > ph, "{p:?} q {q}: legitimate should win");
        } else if q > hi {
            assert!(ph > ab && ph > lg, "{p:?} q {q}: phishing should win");
        } else {
            assert!(ab > ph && ab > lg, "{p:?} q {q}: abstain should win");
        }
    }
}

#[test]
fn decision_thresholds_of_5_3() {
    let p = V1Params::default();
    let (lo, hi) = decision_thresholds(&p);
    assert!(close(lo, (5.0 - 19.2f64.sqrt()) / 2.0), "{lo}");
    assert!(close(hi, (3.2f64.sqrt() - 1.0) / 2.0), "{hi}");
    assert!((lo - 0.3091).abs() < 1e-4 && (hi - 0.3944).abs() < 1e-4);
    check_thresholds(&p);
    // Other valid configs: the closed form still splits the grid right.
    for (fp, ab, w, k) in [
        (0.25, 0.15, 0.25, 0.75),
        (0.5, 0.2, 0.5, 0.75),
        (0.8, 0.3, 0.1, 0.5),
        (0.5, 0.3, 0.0, 0.75),
        (0.3, 0.05, 0.25, 1.0),
    ] {
        let mut q = p;
        q.costs.cost_fp = fp;
        q.costs.cost_abstain = ab;
        q.w_calibration = w;
        q.abstain_calibration = k;
        q.validate().expect("valid config");
        check_thresholds(&q);
    }
}

#[test]
fn invalid_scores_below_every_answer_with_format_credit() {
    let r = v1();
    let g = phish_spans();
    for gold in Label::ALL {
        let invalid = run(&r, "nothing", PHISH, gold, &g).reward.total;
        assert_eq!(invalid, 0.0);
        for label in ["Phishing", "Legitimate", "Abstain"] {
            for c in [0.0, 0.3, 1.0] {
                for ev in [&[][..], &["a"][..], &["Confirm your password"][..]] {
                    let s = run(&r, &answer(label, c, ev), PHISH, gold, &g);
                    assert!(s.outcome.format_ok());
                    assert!(s.reward.total > invalid, "{label} {c} {ev:?} on {gold}");
                    assert!(s.reward.total >= 0.05 - EPS);
                }
            }
        }
    }
}

#[test]
fn the_predicted_label_never_changes_the_evidence() {
    let r = v1();
    let g = phish_spans();
    let items = [
        "northwlnd-bank.top",
        "Dear customer,",
        "a",
        "Confirm your password",
    ];
    for gold in Label::ALL {
        let first = run(&r, &answer("Phishing", 0.8, &items), PHISH, gold, &g).grounding;
        for label in ["Legitimate", "Abstain", "phishing"] {
            let s = run(&r, &answer(label, 0.8, &items), PHISH, gold, &g);
            assert_eq!(s.grounding, first);
        }
        let lo = run(
            &r,
            r#"{"label":"Abstain","evidence":["northwlnd-bank.top", "Dear customer,", "a", "Confirm your password"]}"#,
            PHISH,
            gold,
            &g,
        );
        assert_eq!(lo.grounding, first);
    }
}

#[test]
fn adding_invalid_or_unmatched_items_never_raises_evidence() {
    let r = v1();
    let g = phish_spans();
    let bases: [&[&str]; 3] = [
        &[],
        &["Confirm your password"],
        &["northwlnd-bank.top", "statement.pdf.html", "Dear customer,"],
    ];
    let extras = [
        "a",
        "sword",
        "Spoofed sender",
        "Dear customer,",
        "We detected an unusual sign-in.",
        "Confirm your password",
    ];
    for base in bases {
        let before = run(
            &r,
            &answer("Phishing", 0.9, base),
            PHISH,
            Label::Phishing,
            &g,
        );
        for extra in extras {
            let mut items = base.to_vec();
            items.push(extra);
            let after = run(
                &r,
                &answer("Phishing", 0.9, &items),
                PHISH,
                Label::Phishing,
                &g,
            );
            let added = after.grounding.items.last().unwrap();
            if added.matched_gold.is_empty() {
                assert!(
                    after.grounding.f1 <= before.grounding.f1,
                    "{base:?} + {extra}"
                );
            }
        }
    }
}

#[test]
fn exploits_of_5_5() {
    let r = v1();
    let g = phish_spans();
    let p = Label::Phishing;
    let honest = run(
        &r,
        &answer("Phishing", 0.9, &["Confirm your password"]),
        PHISH,
        p,
        &g,
    );
    let ev = |items: &[&str]| {
        run(&r, &answer("Phishing", 0.9, items), PHISH, p, &g)
            .grounding
            .f1
            .unwrap()
    };
    // One letter, very short, fragments inside words.
    assert_eq!(ev(&["a"]), 0.0);
    assert_eq!(ev(&["ver"]), 0.0);
    assert_eq!(ev(&["sword"]), 0.0);
    assert_eq!(ev(&["orthwlnd-bank.top"]), 0.0);
    // The whole email; a long paragraph mostly outside any span.
    assert_eq!(ev(&[PHISH]), 0.0);
    let paragraph = "Dear customer,\nWe detected an unusual sign-in. Confirm your password";
    assert_eq!(ev(&[paragraph]), 0.0);
    // Spraying: precision falls with every unmatched item; beyond ten, too_many.
    let spray = [
        "Confirm your password",
        "Dear customer,",
        "We detected an unusual sign-in.",
        "Verify now",
        "Northwind Bank",
    ];
    assert!(ev(&spray) < ev(&spray[..1]));
    let many: Vec<&str> = std::iter::repeat_n("Northwind Bank", 12).collect();
    let s = run(&r, &answer("Phishing", 0.9, &many), PHISH, p, &g);
    assert_eq!(s.grounding.items[10].status, ItemStatus::TooMany);
    assert_eq!(
        s.outcome.record().reason.as_deref(),
        Some("evidence_too_many")
    );
    // Repeating one quote: duplicate, recall unchanged.
    let s = run(
        &r,
        &answer(
            "Phishing",
            0.9,
            &["Confirm your password", "Confirm your password"],
        ),
        PHISH,
        p,
        &g,
    );
    assert_eq!(s.grounding.items[1].status, ItemStatus::Duplicate);
    assert_eq!(s.grounding.recalled, honest.grounding.recalled);
    assert!(s.grounding.f1 < honest.grounding.f1);
    // Paraphrase.
    assert_eq!(ev(&["password request from a fake bank"]), 0.0);
    // Missing confidence: calibration 0.
    let s = run(&r, r#"{"label":"Phishing","evidence":[]}"#, PHISH, p, &g);
    assert_eq!(s.reward.component("calibration"), Some(0.0));
    // Garbage: below every answer with format credit.
    assert_eq!(run(&r, "{{{{", PHISH, p, &g).reward.total, 0.0);
    // Always-Phishing quoting phish spans gets no evidence on a legitimate row.
    let s = run(
        &r,
        &answer("Phishing", 0.9, &["within 2 hours"]),
        LEGIT_RESET,
        Label::Legitimate,
        &legit_spans(),
    );
    assert_eq!(s.grounding.f1, Some(0.0));
}

fn upstream(mode: &str) -> E4Rewards {
    let text = format!("[upstream]\nevidence_mode = \"{mode}\"\n");
    E4Rewards::load("upstream", Some((&text, "t.toml"))).unwrap()
}

#[test]
fn worked_cases_of_7_4() {
    let r = E4Rewards::load("upstream", None).unwrap();
    let (p, l, a) = (Label::Phishing, Label::Legitimate, Label::Abstain);
    let cases: [(&str, Label, [f64; 4], f64); 15] = [
        (
            r#"{"label":"Phishing","confidence":0.9}"#,
            p,
            [1.0, 1.0, 0.9, 1.0],
            1.78,
        ),
        (
            r#"{"label":"Legitimate","confidence":0.8}"#,
            p,
            [0.0, 1.0, 0.2, -1.0],
            -0.16,
        ),
        (
            r#"{"label":"Abstain","confidence":0.0}"#,
            l,
            [0.0, 1.0, 1.0, 0.5],
            0.60,
        ),
        (
            r#"{"label":"Abstain","confidence":0.0}"#,
            p,
            [0.0, 1.0, 1.0, 0.3],
            0.52,
        ),
        (
            r#"{"label":" PHISHING ","confidence":0.8}"#,
            p,
            [1.0, 1.0, 0.8, 1.0],
            1.76,
        ),
        (
            r#"{"label":"Phishing","confidence":"0.7"}"#,
            p,
            [1.0, 1.0, 0.7, 1.0],
            1.74,
        ),
        (
            r#"{"label":"Phishing","confidence":true}"#,
            p,
            [1.0, 1.0, 1.0, 1.0],
            1.80,
        ),
        (
            r#"{"label":"Phishing","confidence":2}"#,
            p,
            [1.0, 0.0, 0.0, 1.0],
            1.40,
        ),
        (r#"{"label":"Phishing"}"#, l, [0.0, 0.0, 1.0, -0.2], 0.12),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":"bad link"}"#,
            p,
            [1.0, 0.0, 0.9, 1.0],
            1.58,
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":{"urgent":1}}"#,
            p,
            [1.0, 1.0, 0.9, 1.0],
            1.78,
        ),
        (
            r#"Sure! {"label": "Legitimate", "confidence": 0.6} hope this helps"#,
            l,
            [1.0, 1.0, 0.6, 1.0],
            1.72,
        ),
        (
            r#"{"label":"Phishing","confidence":0.5}"#,
            a,
            [0.0, 1.0, 0.5, 0.3],
            0.42,
        ),
        (
            r#"{"label":"Abstain","confidence":0.9}"#,
            a,
            [1.0, 1.0, 0.9, 1.0],
            1.78,
        ),
        ("not json", p, [0.0, 0.0, 0.0, 0.0], 0.0),
    ];
    let names = [
        "reward_accuracy",
        "format_reward",
        "reward_calibration",
        "reward_phishing_asymmetric_cost",
    ];
    for (text, gold, comps, total) in cases {
        let s = run(&r, text, PHISH, gold, &phish_spans());
        for (name, want) in names.iter().zip(comps) {
            let got = s.reward.component(name).unwrap();
            assert!(close(got, want), "{text} ({gold}): {name} {got} != {want}");
        }
        assert_eq!(s.reward.component("reward_evidence_alignment"), Some(0.0));
        assert!(close(s.reward.total, total), "{text}: {}", s.reward.total);
    }
    // "not json" on every gold.
    for gold in Label::ALL {
        assert_eq!(run(&r, "not json", PHISH, gold, &[]).reward.total, 0.0);
    }
}

#[test]
fn evidence_as_written_cases() {
    let r = upstream("rollout");
    let ind = vec!["security@amaz0n-account.com".to_string()];
    let prompt = "Please Verify your password at once.";
    let cases: [(&str, Label, &[String], f64); 4] = [
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":["a"]}"#,
            Label::Phishing,
            &ind,
            1.0,
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":["Verify your password"]}"#,
            Label::Phishing,
            &[],
            0.5,
        ),
        (
            r#"{"label":"Legitimate","confidence":0.9,"evidence":["a", "Verify your password"]}"#,
            Label::Legitimate,
            &ind,
            0.0,
        ),
        (
            r#"{"label":"Phishing","confidence":0.9,"evidence":[]}"#,
            Label::Phishing,
            &ind,
            0.0,
        ),
    ];
    for (text, gold, indicators, want) in cases {
        let s = run_with(&r, text, prompt, gold, &[], GoldSource::None, indicators);
        let got = s.reward.component("evidence_as_written").unwrap();
        assert!(close(got, want), "{text}: {got}");
        // Weight 0 and, in rollout mode, no weighted evidence.
        assert_eq!(s.reward.component("reward_evidence_alignment"), Some(0.0));
        assert_eq!(
            s.parsed(&RowFacts::default()).evidence_as_written,
            Some(got)
        );
        // The as-written switch weights it.
        let w = run_with(
            &upstream("as_written"),
            text,
            prompt,
            gold,
            &[],
            GoldSource::None,
            indicators,
        );
        assert!(close(w.reward.total - s.reward.total, 0.2 * want));
    }
}

#[test]
fn evidence_mode_is_validated_and_hashed() {
    let rollout = upstream("rollout");
    let written = upstream("as_written");
    assert_ne!(rollout.config_hash(), written.config_hash());
    assert_eq!(
        rollout.config_hash(),
        E4Rewards::load("upstream", None).unwrap().config_hash()
    );
    let bad = E4Rewards::load(
        "upstream",
        Some(("[upstream]\nevidence_mode = \"x\"\n", "t")),
    );
    assert!(bad.unwrap_err().to_string().contains("evidence_mode"));
    let bad = E4Rewards::load("v1", Some(("[v1]\ncost_amb_phishing = 0.7\n", "t")));
    assert!(bad.unwrap_err().to_string().contains("cost_amb_phishing"));
    let bad = E4Rewards::load("v1", Some(("[v1]\nw_evidence = -1.0\n", "t")));
    assert!(bad.is_err());
}

#[test]
fn record_parts() {
    let r = v1();
    let s = run(
        &r,
        &answer("Phishing", 0.9, &["Confirm your password", "a"]),
        PHISH,
        Label::Phishing,
        &phish_spans(),
    );
    let row = RowFacts {
        family: Some("account_alert".into()),
        render_version: 1,
        ..RowFacts::default()
    };
    let p = s.parsed(&row);
    assert_eq!(p.label.as_deref(), Some("Phishing"));
    assert_eq!(p.utility, Some(1.0));
    assert_eq!(p.cost, Some(0.0));
    assert_eq!(p.evidence.items[0].matched_gold, vec![3]);
    assert_eq!(p.evidence.items[1].status, "too_short");
    assert_eq!(p.evidence.recalled_categories, vec!["credential_request"]);
    assert!(p.upstream_parse.is_none());
    let q: Vec<char> = PHISH.chars().collect();
    let (a, b) = (
        p.evidence.items[0].start.unwrap(),
        p.evidence.items[0].end.unwrap(),
    );
    assert_eq!(q[a..b].iter().collect::<String>(), "Confirm your password");
    let back: E4Parsed = svbench_core::record::EnvPart::of(p.clone()).read().unwrap();
    assert_eq!(back, p);
    let compat: E4Compat = s.compat().read().unwrap();
    assert_eq!(compat.predicted_label, "Phishing");
    let inv = run(&r, "x", PHISH, Label::Phishing, &[]);
    let compat: E4Compat = inv.compat().read().unwrap();
    assert!(compat.predicted_label.is_empty());
    let up = run(&upstream("rollout"), "x", PHISH, Label::Phishing, &[]);
    let p = up.parsed(&row);
    assert_eq!(p.upstream_parse.unwrap().status, "invalid");
    assert_eq!(p.utility, None);
}

/// A row of 1 MB with 10,000 gold spans, as an inline score request can
/// send, and an answer quoting ten phrases found 125,000 times each.
fn large_example() -> (svbench_core::Example, Completion) {
    let question = "pay now ".repeat(125_000);
    let spans: Vec<serde_json::Value> = (0..10_000)
        .map(|i| {
            serde_json::json!({"start": i * 96, "end": i * 96 + 7, "text": "pay now",
                "category": "payment_request", "polarity": "phish"})
        })
        .collect();
    let info = serde_json::json!({"meta": {"gold_source": "annotated", "spans": spans}});
    let example = svbench_core::Example {
        index: 0,
        id: "large".into(),
        split: None,
        question,
        answer: serde_json::json!("Phishing"),
        info: serde_json::value::to_raw_value(&info).unwrap(),
    };
    let evidence: Vec<&str> = (0..10).map(|i| ["pay now", "now pay"][i % 2]).collect();
    let answer = serde_json::json!({"label": "Phishing", "confidence": 0.9, "evidence": evidence});
    (example, Completion::Text(answer.to_string()))
}

#[test]
fn a_large_inline_row_scores_in_bounded_work_and_honours_a_deadline() {
    use crate::environment::{Environment, ScoreErrorKind};
    use std::time::{Duration, Instant};
    let env = crate::e4::env::E4Env::new("v1", None, crate::e4::args::E4Args::default()).unwrap();
    let (example, completion) = large_example();
    // One sweep per quote instead of 125,000 occurrences × 10,000 spans.
    let scored = env.score(&example, &completion).unwrap();
    let Some(parsed) = scored.parsed.map(|p| p.read::<E4Parsed>().unwrap()) else {
        panic!("no E4 record");
    };
    let matched = parsed
        .evidence
        .items
        .iter()
        .filter(|i| !i.matched_gold.is_empty())
        .count();
    assert_eq!(matched, 5, "each `pay now` recalls a new span");
    let passed = Deadline::at(Instant::now(), Duration::from_millis(1));
    for profile in ["v1", "upstream"] {
        let env =
            crate::e4::env::E4Env::new(profile, None, crate::e4::args::E4Args::default()).unwrap();
        let err = env.score_within(&example, &completion, passed).unwrap_err();
        assert_eq!(err.kind, ScoreErrorKind::TimeBudgetExceeded, "{profile}");
        assert!(err.message.contains("time budget"), "{}", err.message);
    }
}
