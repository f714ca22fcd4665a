//! E4 emails with the quoted evidence laid over the gold spans, for the
//! transcript browser.
//!
//! The email is cut into segments of plain text, each with the classes of
//! what covers it: a valid evidence item that matched a relevant gold span
//! (`ev-m`) or did not (`ev-u`), and a relevant gold span that some item
//! recalled (`gold-r`), that none did (`gold-x`), or a span that does not
//! count for this gold label (`gold-o`). Offsets are code points into
//! `question`. The page builds the segments with `textContent`, so the
//! email's text never becomes markup.

use crate::e4::report::record::E4Parsed;
use serde::Serialize;
use serde_json::Value;

/// A run of the email with the same highlighting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// The text, as in `question`.
    pub text: String,
    /// Space-separated classes (empty for plain text).
    pub class: String,
}

/// Evidence cover of a code point, strongest last.
const EV_NONE: u8 = 0;
const EV_UNMATCHED: u8 = 1;
const EV_MATCHED: u8 = 2;
/// Gold cover of a code point, strongest last.
const GOLD_NONE: u8 = 0;
const GOLD_OTHER: u8 = 1;
const GOLD_MISSED: u8 = 2;
const GOLD_RECALLED: u8 = 3;

/// Whether a gold span of `polarity` counts for `gold` (E4 §4.2).
fn relevant(gold: &str, polarity: Option<&str>) -> bool {
    match gold {
        "Phishing" => polarity == Some("phish"),
        "Legitimate" => polarity == Some("benign"),
        _ => true,
    }
}

fn range(v: &Value, n: usize) -> Option<(usize, usize)> {
    let start = usize::try_from(v.get("start")?.as_u64()?).ok()?;
    let end = usize::try_from(v.get("end")?.as_u64()?).ok()?;
    (start < end).then_some((start.min(n), end.min(n)))
}

/// The segments of `question` for an E4 answer with gold `spans`
/// (`info.meta.spans`).
pub fn segments(question: &str, parsed: &E4Parsed, spans: &[Value]) -> Vec<Segment> {
    let chars: Vec<char> = question.chars().collect();
    let n = chars.len();
    let counts: Vec<bool> = spans
        .iter()
        .map(|s| relevant(&parsed.gold, s.get("polarity").and_then(Value::as_str)))
        .collect();
    let mut ev = vec![EV_NONE; n];
    let mut recalled = vec![false; spans.len()];
    for item in parsed.evidence.items.iter().filter(|i| i.status == "valid") {
        let mut matched = false;
        for &g in &item.matched_gold {
            if counts.get(g) == Some(&true) {
                recalled[g] = true;
                matched = true;
            }
        }
        let (Some(s), Some(e)) = (item.start, item.end) else {
            continue;
        };
        let level = if matched { EV_MATCHED } else { EV_UNMATCHED };
        for c in ev.iter_mut().take(e.min(n)).skip(s) {
            *c = (*c).max(level);
        }
    }
    let mut gold = vec![GOLD_NONE; n];
    for (k, span) in spans.iter().enumerate() {
        let Some((s, e)) = range(span, n) else {
            continue;
        };
        let level = match (counts[k], recalled[k]) {
            (false, _) => GOLD_OTHER,
            (true, false) => GOLD_MISSED,
            (true, true) => GOLD_RECALLED,
        };
        for c in &mut gold[s..e] {
            *c = (*c).max(level);
        }
    }
    let mut out: Vec<Segment> = Vec::new();
    let mut start = 0;
    for i in 1..=n {
        if i == n || ev[i] != ev[start] || gold[i] != gold[start] {
            out.push(Segment {
                text: chars[start..i].iter().collect(),
                class: class_of(ev[start], gold[start]),
            });
            start = i;
        }
    }
    out
}

fn class_of(ev: u8, gold: u8) -> String {
    let e = match ev {
        EV_MATCHED => Some("ev-m"),
        EV_UNMATCHED => Some("ev-u"),
        _ => None,
    };
    let g = match gold {
        GOLD_RECALLED => Some("gold-r"),
        GOLD_MISSED => Some("gold-x"),
        GOLD_OTHER => Some("gold-o"),
        _ => None,
    };
    [e, g].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::e4::report::record::{E4EvidenceItem, E4EvidenceRecord};
    use serde_json::json;

    fn valid(start: usize, end: usize, matched: Vec<usize>) -> E4EvidenceItem {
        E4EvidenceItem {
            text: None,
            status: "valid".to_string(),
            start: Some(start),
            end: Some(end),
            matched_gold: matched,
        }
    }

    #[test]
    fn code_points_after_non_ascii_text() {
        // "Grüße – " is 8 code points but 11 bytes.
        let q = "Grüße – verify at evil.example now";
        let v = q.chars().take_while(|&c| c != 'v').count();
        assert_eq!(v, 8);
        let parsed = E4Parsed {
            gold: "Phishing".to_string(),
            evidence: E4EvidenceRecord {
                items: vec![valid(8, 14, vec![0]), valid(28, 31, vec![])],
                ..E4EvidenceRecord::default()
            },
            ..E4Parsed::default()
        };
        let spans = [
            json!({"start": 8, "end": 14, "polarity": "phish"}),
            json!({"start": 18, "end": 30, "polarity": "phish"}),
            json!({"start": 0, "end": 5, "polarity": "benign"}),
        ];
        let got: Vec<(String, String)> = segments(q, &parsed, &spans)
            .into_iter()
            .map(|s| (s.text, s.class))
            .collect();
        let want: Vec<(String, String)> = [
            ("Grüße", "gold-o"),
            (" – ", ""),
            ("verify", "ev-m gold-r"),
            (" at ", ""),
            ("evil.examp", "gold-x"),
            ("le", "ev-u gold-x"),
            (" ", "ev-u"),
            ("now", ""),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn out_of_range_offsets_are_clamped() {
        let parsed = E4Parsed {
            gold: "Legitimate".to_string(),
            evidence: E4EvidenceRecord {
                items: vec![valid(2, 99, vec![])],
                ..E4EvidenceRecord::default()
            },
            ..E4Parsed::default()
        };
        let got = segments("abcd", &parsed, &[json!({"start": 3, "end": 1})]);
        let texts: Vec<&str> = got.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["ab", "cd"]);
        assert_eq!(got[1].class, "ev-u");
    }
}
