//! The built-in `heuristic` policy (E1 §5; upstream `run_e1_heuristic.py`).
//!
//! Keyword and port rules applied to the question text, first match wins.
//! Matching is literal substring matching on the Unicode upper-case text, so
//! `HISTORY` and `MONITOR` hit `TOR` exactly as upstream's does.

use super::Label;

/// Markers that make the heuristic answer Malicious (rule 1).
pub const MALICIOUS_MARKERS: &[&str] = &[
    "TOR",
    "C2",
    "SYN_SCAN",
    "BRUTE",
    "AUTH_FAILED",
    "MALWARE",
    "BEACON",
    "PORTS=",
];

/// Markers that make the heuristic answer Benign (rule 2).
pub const BENIGN_MARKERS: &[&str] = &["STATUS=OK", "AUTH_SUCCESS", "DNS", "ICMP"];

/// Destination ports judged risky (rule 3).
pub const RISKY_PORTS: &[u64] = &[22, 23, 445, 3389, 4444, 9001, 5900];

/// Destination ports judged common services (rule 3).
pub const COMMON_PORTS: &[u64] = &[53, 80, 443];

/// The heuristic's decision for a question: label and confidence.
pub fn decide(question: &str) -> (Label, f64) {
    let upper = question.to_uppercase();
    if MALICIOUS_MARKERS.iter().any(|m| upper.contains(m)) {
        return (Label::Malicious, 0.8);
    }
    if BENIGN_MARKERS.iter().any(|m| upper.contains(m)) {
        return (Label::Benign, 0.6);
    }
    if let Some(port) = destination_port(question) {
        if RISKY_PORTS.contains(&port) {
            return (Label::Malicious, 0.7);
        }
        if COMMON_PORTS.contains(&port) {
            return (Label::Benign, 0.55);
        }
    }
    (Label::Abstain, 0.3)
}

/// The answer text the policy emits; it goes through the same parser as a model's.
pub fn answer_text(question: &str) -> String {
    let (label, confidence) = decide(question);
    format!(
        "{{\"label\":\"{}\",\"confidence\":{}}}",
        label.as_str(),
        confidence
    )
}

/// Rule 3's port: the first `→` + optional whitespace + digits; if there is no
/// such match anywhere, the first `->` + whitespace + digits; else the first
/// `PORT=` + digits (case-sensitive).
fn destination_port(q: &str) -> Option<u64> {
    first_number_after(q, "→", true)
        .or_else(|| first_number_after(q, "->", true))
        .or_else(|| first_number_after(q, "PORT=", false))
}

/// Scans every occurrence of `marker` and returns the digits after the first
/// occurrence followed by (optional whitespace and) at least one digit.
fn first_number_after(text: &str, marker: &str, allow_space: bool) -> Option<u64> {
    let mut from = 0;
    while let Some(pos) = text[from..].find(marker) {
        let start = from + pos + marker.len();
        let rest = &text[start..];
        let rest = if allow_space {
            // Python's `\s` also matches Unicode whitespace.
            rest.trim_start_matches(char::is_whitespace)
        } else {
            rest
        };
        let digits: &str = &rest[..rest
            .char_indices()
            .find(|(_, c)| !c.is_ascii_digit())
            .map(|(i, _)| i)
            .unwrap_or(rest.len())];
        if !digits.is_empty() {
            // Very long digit runs cannot be a listed port.
            return Some(digits.parse().unwrap_or(u64::MAX));
        }
        from = start;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        let cases = [
            (
                "Device unknown-device observed tcp 43750→23, duration ?, bytes ?, flags [S].",
                Label::Malicious,
                0.7,
            ),
            (
                "Device unknown-device observed udp 48330→53, duration 0.1, bytes 80, flags [Dd].",
                Label::Benign,
                0.55,
            ),
            (
                "Device unknown-device observed tcp 64218→62336, duration ?, bytes ?, flags [C].",
                Label::Abstain,
                0.3,
            ),
            (
                "Device unknown-device observed udp ?→?, duration 3e-06, bytes 168.",
                Label::Abstain,
                0.3,
            ),
            ("conn PORT=443 STATUS=OK", Label::Benign, 0.6),
            ("tcp 1234→?, PORT=23", Label::Malicious, 0.7),
        ];
        for (q, label, conf) in cases {
            assert_eq!(decide(q), (label, conf), "{q}");
        }
    }

    #[test]
    fn rule_precedence() {
        // Rule 1 beats rule 2 and the ports.
        assert_eq!(decide("dns beacon 1→53"), (Label::Malicious, 0.8));
        // Rule 2 beats the ports.
        assert_eq!(decide("icmp 1→23"), (Label::Benign, 0.6));
        // Substrings are literal: HISTORY contains TOR, a uid may contain C2.
        assert_eq!(decide("history=ShADad 5→53"), (Label::Malicious, 0.8));
        assert_eq!(decide("uid=CaC2xyz 5→53"), (Label::Malicious, 0.8));
        // `→` anywhere with digits wins over `->` and PORT=.
        assert_eq!(decide("a->23 b→ 80"), (Label::Benign, 0.55));
        // `->` only when no `→` match at all.
        assert_eq!(decide("a→x b-> 445"), (Label::Malicious, 0.7));
        // PORT= is case-sensitive.
        assert_eq!(decide("port=23"), (Label::Abstain, 0.3));
        assert_eq!(decide("PORT=3389"), (Label::Malicious, 0.7));
    }

    #[test]
    fn answer_text_is_json() {
        assert_eq!(
            answer_text("x→22"),
            r#"{"label":"Malicious","confidence":0.7}"#
        );
        assert_eq!(answer_text("x"), r#"{"label":"Abstain","confidence":0.3}"#);
    }
}
