//! `svbench bench e1`: scoring a mix of answer shapes, valid and not, in
//! both reward profiles on one core. Prints figures; asserts nothing. E1
//! also offers the whole-stack benchmarks ([`WholeStack`]): its answer for
//! the fake endpoint and the synthetic run the report benchmark reads.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde_json::json;
use svbench_core::record::{CompatFields, EnvPart, ResultRecord};
use svbench_core::Completion;

use super::env::E1Env;
use super::Gold;
use crate::kit::bench::{
    run_metadata, setup, BenchEntry, BenchError, BenchOut, BenchRequest, WholeStack,
};

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
    large: None,
    corpus: None,
    whole_stack: Some(WholeStack {
        answer: ANSWERS[0],
        write_run,
    }),
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

/// Writes metadata.json and `n` E1 records scored by the real environment,
/// each as large as a real one (the full prompt is stored per sample).
fn write_run(dir: &Path, n: usize) -> Result<(), BenchError> {
    let env = E1Env::new("v1", None).map_err(setup)?;
    let mut meta = run_metadata(super::NAME, super::VERSION, n)?;
    meta.reward_weights = env
        .rewards
        .weights()
        .into_iter()
        .map(|(name, w)| (name.to_string(), w))
        .collect();
    meta.reward_params = env.rewards.params.clone();
    meta.reward_config_hash = env.rewards.config_hash();
    std::fs::write(
        dir.join("metadata.json"),
        serde_json::to_vec_pretty(&meta).map_err(setup)?,
    )?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("results.jsonl"))?);
    for i in 0..n {
        let gold = if i % 3 == 0 {
            Gold::Malicious
        } else {
            Gold::Benign
        };
        let text = ANSWERS[i % ANSWERS.len()];
        let s = env.score(&Completion::assistant_text(text), gold);
        let source = ["sv-synth-e1", "iot23"][i % 2];
        let question = format!(
            "Zeek conn 2024-03-07T14:05:{:02}Z device=ip-camera proto=tcp service=? {}→23 duration=? \
             orig_bytes=? resp_bytes=? orig_pkts=1 resp_pkts=0 conn_state=S0 flags=S",
            i % 60,
            1024 + i % 60000
        );
        let rec = ResultRecord {
            index: i,
            example_id: format!("ex{i:07}"),
            split: "test".into(),
            prompt: env.initial_messages(&question),
            question,
            answer: json!(gold.as_str()),
            info: json!({"meta": {"source": source, "scenario": format!("s{}", i % 7)}}),
            completion: Some(text.to_string()),
            completion_messages: vec![json!({"role": "assistant", "content": text})],
            parsed: s.parsed().map(EnvPart::of),
            parse: Some(s.parse_record()),
            reward: Some(s.reward.total),
            rewards: s.reward.values(),
            reward_profile: "v1".into(),
            latency_ms: (i % 100) as f64 * 0.5,
            turns: 1,
            compat: CompatFields::of(s.compat()),
            ..Default::default()
        };
        serde_json::to_writer(&mut out, &rec).map_err(setup)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
