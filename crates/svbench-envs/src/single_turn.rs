//! The contract a single-turn environment offers the runner and the server.

use serde_json::{Map, Value};
use svbench_core::{Completion, Example, Message, ParseRecord, RewardBreakdown};

/// One scored answer, ready to be recorded.
#[derive(Debug, Clone)]
pub struct ScoredAnswer {
    /// The `parse` object.
    pub parse: ParseRecord,
    /// The environment's structured record of the prediction (null when invalid).
    pub parsed: Value,
    /// The reward with every component.
    pub reward: RewardBreakdown,
    /// Upstream compatibility fields written at the top level of the record.
    pub compat: Map<String, Value>,
}

/// A single-turn environment: prompt in, one answer out, scored.
pub trait SingleTurnEnv: Send + Sync {
    /// Canonical name.
    fn name(&self) -> &'static str;
    /// Environment version.
    fn version(&self) -> &'static str;
    /// Messages of the first call.
    fn initial_messages(&self, example: &Example) -> Vec<Message>;
    /// Parses and scores an answer. Fails only when the example's reference
    /// answer is unusable (never because of the completion).
    fn score(&self, example: &Example, completion: &Completion)
        -> Result<ScoredAnswer, ScoreError>;
}

/// The reference answer of an example cannot be scored against.
#[derive(Debug, Clone, thiserror::Error)]
#[error("example {example_id}: {message}")]
pub struct ScoreError {
    /// Example id.
    pub example_id: String,
    /// What is wrong with the reference.
    pub message: String,
}
