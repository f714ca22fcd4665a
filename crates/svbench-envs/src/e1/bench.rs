//! `svbench bench e1`: scoring a mix of answer shapes, valid and not, in
//! both reward profiles on one core. Prints figures; asserts nothing. (The
//! rollout and report benchmarks that `bench e1` also runs are the whole
//! stack's: see [`BenchEntry::whole_stack`].)

use std::time::Instant;

use svbench_core::Completion;

use super::env::E1Env;
use super::Gold;
use crate::kit::bench::{setup, BenchEntry, BenchError, BenchOut, BenchRequest};

/// A mix of answer shapes seen in practice, valid and not.
pub const ANSWERS: [&str; 8] = [
    r#"{"label":"Malicious","confidence":0.8}"#,
    r#"{"label":"Benign","confidence":0.6,"rationale":"DNS lookup to a resolver"}"#,
    "```json\n{\"label\": \"Abstain\", \"confidence\": 0.3}\n```",
    "<think>port 23 with {S0} state looks like a scan</think>{\"label\":\"Malicious\",\"confidence\":0.9}",
    "Verdict: {\"label\":\"Benign\",\"confidence\":0.55} done",
    r#"{"label":"malicious","confidence":"0.9"}"#,
    "I cannot decide.",
    r#"{"label":"Benign","confidence":0.7} then {"label":"Malicious","confidence":0.9}"#,
];

/// E1's benchmark in the registry.
pub static BENCH: BenchEntry = BenchEntry {
    summary: "scoring, report, rollouts",
    max_items: None,
    whole_stack: true,
    run,
};

/// Times `req.items` scores per reward profile.
fn run(req: &BenchRequest, out: BenchOut<'_>) -> Result<(), BenchError> {
    let n = req.items;
    for profile in ["v1", "upstream"] {
        let env = E1Env::new(profile, None).map_err(setup)?;
        let completions: Vec<Completion> = ANSWERS
            .iter()
            .map(|a| Completion::assistant_text(*a))
            .collect();
        // Warm up, then measure on one core.
        let mut checksum = 0.0;
        for c in &completions {
            checksum += env.score(c, Gold::Malicious).reward.total;
        }
        let start = Instant::now();
        for i in 0..n {
            let gold = if i % 2 == 0 {
                Gold::Malicious
            } else {
                Gold::Benign
            };
            checksum += env
                .score(&completions[i % completions.len()], gold)
                .reward
                .total;
        }
        let secs = start.elapsed().as_secs_f64();
        out(&format!(
            "e1 scoring ({profile}): {n} completions in {secs:.3} s = {:.0} completions/s on one core (checksum {checksum:.1})",
            n as f64 / secs
        ))?;
    }
    Ok(())
}
