//! The E4 system prompt (spec §1.3) and the messages of an episode (§1.1).

use svbench_core::Message;

/// The decision costs the prompt may show, read from the active reward config.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostTable {
    /// Legitimate on a phishing email.
    pub missed_phishing: f64,
    /// Phishing on a legitimate email.
    pub false_alarm: f64,
    /// Abstain on a clear-cut email.
    pub abstain: f64,
    /// Phishing on an email that cannot be settled.
    pub ambiguous_phishing: f64,
    /// Legitimate on an email that cannot be settled.
    pub ambiguous_legitimate: f64,
}

/// Evidence rules the prompt states, from the environment's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvidenceRules {
    /// Most items.
    pub max_items: usize,
    /// Fewest characters per item.
    pub min_chars: usize,
    /// Most characters per item.
    pub max_chars: usize,
}

/// The system prompt. Cost numbers appear only when `costs` is given, and
/// they come from the reward config, never from literals here.
pub fn system_prompt(rules: &EvidenceRules, costs: Option<&CostTable>) -> String {
    let costs = costs.map_or(String::new(), |c| {
        format!(
            "\nWith the active scoring, the cost of each wrong call (a correct call costs 0): \
             calling a phishing email Legitimate costs {}; calling a legitimate email Phishing \
             costs {}; Abstain on an email the text settles costs {}; on an email the text cannot \
             settle, Phishing costs {} and Legitimate costs {}.",
            c.missed_phishing,
            c.false_alarm,
            c.abstain,
            c.ambiguous_phishing,
            c.ambiguous_legitimate
        )
    });
    format!(
        "You are an email-security analyst triaging one reported email. The email is shown \
         between <email> and </email>, headers first.\n\
         \n\
         Reply with exactly one JSON object and no text outside it:\n\
         {{\"label\": \"Phishing\" | \"Legitimate\" | \"Abstain\", \"confidence\": <number between 0 and 1>, \
         \"evidence\": [\"<exact quote>\", ...], \"rationale\": \"<optional, short>\"}}\n\
         - `label` is exactly Phishing, Legitimate or Abstain, in that case.\n\
         - `confidence` is a JSON number in [0, 1]: your probability that the label you chose is correct.\n\
         - `evidence` lists at most {max} quotations copied character for character from the email \
         (headers included), each at least {min} and at most {max_chars} characters and each a whole \
         word or phrase. Quote what decides the case, such as a sender address, a link or a sentence; \
         never describe it in your own words (\"spoofed sender\" is not a quotation). Quoting a lot of \
         text lowers the score. The list may be empty when nothing stands out, as in a plain \
         legitimate email.\n\
         - `rationale` is optional and at most 1000 characters; it is not scored.\n\
         \n\
         Answer Abstain when the email alone cannot settle the question, so that a human analyst \
         looks at it. Errors are not equal: missing a phishing email is the worst error, a false \
         alarm costs less, and abstaining on a clear-cut email costs a little.{costs}",
        max = rules.max_items,
        min = rules.min_chars,
        max_chars = rules.max_chars,
    )
}

/// System message plus the rendered email between `<email>` lines.
pub fn initial_messages(system: &str, question: &str) -> Vec<Message> {
    vec![
        Message::system(system),
        Message::user(format!("<email>\n{question}\n</email>")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: EvidenceRules = EvidenceRules {
        max_items: 10,
        min_chars: 4,
        max_chars: 200,
    };

    #[test]
    fn costs_appear_only_when_given_and_as_given() {
        let costs = CostTable {
            missed_phishing: 1.0,
            false_alarm: 0.25,
            abstain: 0.3,
            ambiguous_phishing: 0.3,
            ambiguous_legitimate: 0.6,
        };
        let p = system_prompt(&RULES, Some(&costs));
        assert!(p.contains("Phishing costs 0.25"), "{p}");
        assert!(p.contains("Legitimate costs 1;"), "{p}");
        assert!(!system_prompt(&RULES, None).contains("costs 0."));
    }

    #[test]
    fn the_email_sits_between_markers() {
        let m = initial_messages("s", "From: a@b.test\n\nhi");
        assert_eq!(m.len(), 2);
        assert_eq!(
            m[1].content.as_deref(),
            Some("<email>\nFrom: a@b.test\n\nhi\n</email>")
        );
    }
}
