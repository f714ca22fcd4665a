//! `t-echo`, the test-only environment (feature `test-env`, never in a
//! shipped build): the answer must repeat the row's word. It exists to
//! prove that an environment gets the whole harness (eval, report,
//! scoreboard, compare, bench, serve, the Python taskset) by registering
//! itself: everything it has is in this folder, plus its registry line.

pub mod entry;
pub mod report;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use svbench_core::env_record::{CompatFields, EnvPart};
use svbench_core::identity::EnvIdentity;
use svbench_core::record::SampleError;
use svbench_core::{
    Completion, Example, Message, ParseRecord, ParseStatus, RewardBreakdown, RewardComponent,
};

use crate::environment::{Budgets, EnvKind, Environment, ScoreError, ScoredAnswer};
use crate::kit::policy::SingleShot;

/// Its names (not in the benchmark's identity table: it is no benchmark).
pub static IDENTITY: EnvIdentity = EnvIdentity {
    name: "sv-env-test-echo",
    short: "t-echo",
    alias: "test-echo",
    executable_reward: true,
};

/// Its version.
pub const VERSION: &str = "0.0.1";

/// The words its rows ask to repeat.
pub const WORDS: [&str; 8] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];

/// The `parsed` object of a record: the text answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct EchoParsed {
    /// The answer's text, trimmed; null without one.
    pub text: Option<String>,
}

/// The compatibility field of a record: whether the word was repeated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct EchoCompat {
    /// The answer repeated the word.
    pub echoed: bool,
}

/// The environment: reward 1 when the answer is the row's word, else 0.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoEnv;

fn final_text(completion: &Completion) -> Option<String> {
    match completion {
        Completion::Text(t) => Some(t.trim().to_string()),
        Completion::Messages(m) => m
            .last()
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .map(|t| t.trim().to_string()),
    }
}

impl Environment for EchoEnv {
    fn name(&self) -> &'static str {
        IDENTITY.name
    }
    fn version(&self) -> &'static str {
        VERSION
    }
    fn kind(&self) -> EnvKind {
        EnvKind::SingleTurn
    }
    fn default_budgets(&self) -> Budgets {
        entry::ENTRY.budgets
    }
    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        vec![
            Message::system("Repeat the word, and nothing else."),
            Message::user(example.question.clone()),
        ]
    }
    fn score(
        &self,
        example: &Example,
        completion: &Completion,
    ) -> Result<ScoredAnswer, ScoreError> {
        let text = final_text(completion).filter(|t| !t.is_empty());
        let echoed = text.is_some() && text.as_deref() == example.answer.as_str();
        Ok(ScoredAnswer {
            parse: ParseRecord {
                status: if text.is_some() {
                    ParseStatus::Valid
                } else {
                    ParseStatus::NoAnswer
                },
                reason: None,
                format_ok: None,
            },
            parsed: Some(EnvPart::of(EchoParsed { text })),
            reward: RewardBreakdown::weighted(
                "v1",
                vec![RewardComponent {
                    name: "exact",
                    weight: 1.0,
                    value: f64::from(u8::from(echoed)),
                }],
            ),
            compat: CompatFields::of(EchoCompat { echoed }),
        })
    }
}

/// `builtin:oracle`: the word itself.
#[derive(Debug, Clone, Copy)]
pub struct Oracle;

impl SingleShot for Oracle {
    const NAME: &'static str = "oracle";
    const ORACLE: bool = true;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        example.answer.as_str().map(str::to_string).ok_or_else(|| {
            crate::policy::internal(format!("example {}: the answer is not a word", example.id))
        })
    }
}

/// `builtin:shout`: the word in capitals (always wrong).
#[derive(Debug, Clone, Copy)]
pub struct Shout;

impl SingleShot for Shout {
    const NAME: &'static str = "shout";
    const ORACLE: bool = false;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        Ok(example.question.to_uppercase())
    }
}

/// Row `i` of the corpus generated from `seed`: a word to repeat.
#[must_use]
pub fn row(seed: u64, i: usize) -> Value {
    let word = WORDS[(i + seed as usize) % WORDS.len()];
    json!({"id": format!("echo-{i}"), "question": word, "answer": word, "info": {"meta": {}}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_word_itself_scores() {
        let example = Example {
            index: 0,
            id: "echo-0".into(),
            split: Some("test".into()),
            question: "alpha".into(),
            answer: json!("alpha"),
            info: serde_json::value::to_raw_value(&json!({})).expect("an object"),
        };
        let right = EchoEnv
            .score(&example, &Completion::assistant_text(" alpha\n"))
            .expect("scores");
        assert_eq!(right.reward.total, 1.0);
        let wrong = EchoEnv
            .score(&example, &Completion::assistant_text("ALPHA"))
            .expect("scores");
        assert_eq!(wrong.reward.total, 0.0);
        let none = EchoEnv
            .score(&example, &Completion::assistant_text("  "))
            .expect("scores");
        assert_eq!(none.parse.status, ParseStatus::NoAnswer);
        assert_eq!(
            right
                .parsed
                .expect("parsed")
                .read::<EchoParsed>()
                .expect("reads"),
            EchoParsed {
                text: Some("alpha".into())
            }
        );
    }
}
