//! The E1 system prompt (E1 §1.4) and the messages of an episode (E1 §1.1).

use svbench_core::Message;

use super::reward::{E1Rewards, Profile};

/// The system prompt for a profile. Cost numbers, when shown, are rendered
/// from the active reward config, never hard-coded.
pub fn system_prompt(rewards: &E1Rewards) -> String {
    let costs = match rewards.profile {
        Profile::V1(p) => format!(
            " With the active scoring, a missed malicious flow costs {}, a false alarm costs {} \
             and abstaining costs {} (a correct answer costs 0).",
            fmt_num(p.costs.cost_fn),
            fmt_num(p.costs.cost_fp),
            fmt_num(p.costs.cost_abstain),
        ),
        Profile::Upstream => String::new(),
    };
    format!(
        "You are a network-security analyst. You will be shown one network flow record \
         and must classify that single flow.\n\
         \n\
         Reply with exactly one JSON object and no text outside it:\n\
         {{\"label\": \"Benign\" | \"Malicious\" | \"Abstain\", \"confidence\": <number between 0 and 1>, \
         \"rationale\": \"<optional short reason>\"}}\n\
         - `label` must be exactly one of Benign, Malicious or Abstain, spelled in that case.\n\
         - `confidence` is a JSON number in [0, 1]: your probability that the label you chose is correct.\n\
         - `rationale` is optional and short.\n\
         \n\
         You may answer Abstain when the record does not support a decision.\n\
         Errors are not equal: missing a malicious flow is the worst error, a false alarm costs less, \
         and abstaining costs a little.{costs}"
    )
}

/// Shortest decimal form of a constant for the prompt.
fn fmt_num(x: f64) -> String {
    format!("{x}")
}

/// System message plus the question verbatim (`answer` and `meta` never reach the prompt).
pub fn initial_messages(system: &str, question: &str) -> Vec<Message> {
    vec![Message::system(system), Message::user(question)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_prompt_renders_costs_from_config() {
        let r = E1Rewards::load("v1", Some(("[v1]\ncost_fp = 0.5\n", "t"))).unwrap();
        let p = system_prompt(&r);
        assert!(p.contains("a false alarm costs 0.5"), "{p}");
        assert!(p.contains("missed malicious flow costs 1"), "{p}");
        assert!(p.contains("Abstain"));
    }

    #[test]
    fn upstream_prompt_shows_no_numbers() {
        let r = E1Rewards::load("upstream", None).unwrap();
        assert!(!system_prompt(&r).contains("costs 0."));
    }
}
