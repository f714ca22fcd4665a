//! The extractor and the `upstream-e4` text parser on upstream's public
//! mini set (spec E4 §10 item 3). Reads `../shared/data/upstream-sv/`; skips
//! with a notice when it is absent (see `svbench_core::upstream_data`).

use svbench_core::upstream_data;
use svbench_mail::{extract, parse_upstream_text, render, EmailLimits, IndicatorSet};

const MINI: &str = "public_mini/e4.jsonl";

/// Upstream evidence categories → extractor categories, and where in the
/// rendering the finding must sit: `sender` findings on the From line,
/// `url` findings in the body.
const CATEGORY_MAP: &[(&str, &[&str])] = &[
    (
        "sender",
        &[
            "display_name_mismatch",
            "reply_to_mismatch",
            "lookalike_domain",
            "punycode_domain",
            "suspicious_tld",
            "freemail_corporate",
        ],
    ),
    (
        "url",
        &[
            "lookalike_domain",
            "link_text_mismatch",
            "ip_url",
            "url_shortener",
            "suspicious_tld",
            "punycode_domain",
        ],
    ),
    ("urgency", &["urgency_threat"]),
    ("credential_request", &["credential_request"]),
];

fn rows() -> Option<Vec<serde_json::Value>> {
    let text = upstream_data::read(env!("CARGO_MANIFEST_DIR"), MINI)?;
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("upstream row is JSON"))
            .collect(),
    )
}

#[test]
fn the_three_rows_round_trip_through_the_text_parser() {
    let Some(rows) = rows() else { return };
    assert_eq!(rows.len(), 3);
    let limits = EmailLimits::default();
    for row in rows {
        let question = row["question"].as_str().expect("question");
        let rendered = render(&parse_upstream_text(question, &limits), &limits);
        assert_eq!(rendered.text, question, "row {}", row["id"]);
    }
}

#[test]
fn row_e4_001_has_a_span_for_each_listed_evidence_category() {
    let Some(rows) = rows() else { return };
    let row = rows
        .iter()
        .find(|r| r["id"] == "e4-001")
        .expect("row e4-001");
    let question = row["question"].as_str().expect("question");
    let limits = EmailLimits::default();
    let email = parse_upstream_text(question, &limits);
    let rendered = render(&email, &limits);
    let findings = extract(&email, &rendered, IndicatorSet::builtin());
    let from_line_end = question.find('\n').expect("a From line");
    let body_start = question.find("\n\n").expect("a body") + 2;
    let evidence = row["metadata"]["evidence"].as_array().expect("evidence");
    assert_eq!(evidence.len(), 4);
    for wanted in evidence {
        let wanted = wanted.as_str().expect("a category name");
        let (_, categories) = CATEGORY_MAP
            .iter()
            .find(|(name, _)| *name == wanted)
            .unwrap_or_else(|| panic!("no mapping for {wanted}"));
        let hit = findings.iter().any(|f| {
            // The row is ASCII: code points are bytes.
            let placed = match wanted {
                "sender" => f.end <= from_line_end,
                "url" => f.start >= body_start,
                _ => true,
            };
            categories.contains(&f.category) && placed && question[f.start..f.end] == f.text
        });
        assert!(hit, "{wanted}: {findings:#?}");
    }
    // The legitimate row carries no phishing finding.
    let legit = rows.iter().find(|r| r["id"] == "e4-002").expect("e4-002");
    let q = legit["question"].as_str().expect("question");
    let email = parse_upstream_text(q, &limits);
    let findings = extract(&email, &render(&email, &limits), IndicatorSet::builtin());
    assert!(
        findings
            .iter()
            .all(|f| f.polarity == svbench_mail::Polarity::Benign),
        "{findings:#?}"
    );
}
