//! `eval --few-shot K`: K worked examples from the train split, answered by
//! the environment's oracle, shown before every prompt of a run. The model
//! sees them as earlier turns of the conversation (after the system
//! prompt), so the rewards, parsing and records are those of any run; only
//! the prompt grows.

use std::sync::Arc;

use serde_json::Value;
use svbench_core::canonical::canonical_sha256;
use svbench_core::extract::v1_text;
use svbench_core::record::FewShotRecord;
use svbench_core::{Completion, Example, Message, Role};
use svbench_envs::environment::{
    Budgets, Deadline, EnvKind, Environment, Episode, ScoreError, ScoredAnswer,
};
use svbench_envs::registry::{Configured, DataRequest};

use super::{dataset_error, PrepareError, RunSpec};

/// The split worked examples come from.
pub const FEW_SHOT_SPLIT: &str = "train";
/// The builtin that answers them.
pub const FEW_SHOT_ANSWERS: &str = "oracle";
/// The most worked examples a run may show (each one lengthens every prompt).
pub const MAX_FEW_SHOT: usize = 16;

/// The messages inserted and what metadata records about them.
#[derive(Debug, Clone)]
pub struct FewShot {
    /// User and assistant turns, in order.
    pub messages: Vec<Message>,
    /// What `metadata.json` records.
    pub record: FewShotRecord,
}

/// The worked examples of `spec` (`None` for zero-shot), checked against
/// the split the run evaluates.
///
/// # Errors
/// Usage errors for a split that would overlap the worked examples or an
/// environment without a train split or an oracle; data errors for rows or
/// oracle answers that cannot be used.
pub fn few_shot(
    spec: &RunSpec,
    configured: &Configured,
    evaluated_split: &str,
) -> Result<Option<FewShot>, PrepareError> {
    let k = spec.few_shot;
    if k == 0 {
        return Ok(None);
    }
    let entry = spec.entry;
    if k > MAX_FEW_SHOT {
        return Err(PrepareError::usage(format!(
            "--few-shot {k}: at most {MAX_FEW_SHOT} worked examples"
        )));
    }
    if evaluated_split == FEW_SHOT_SPLIT || evaluated_split == "all" {
        return Err(PrepareError::usage(format!(
            "--few-shot draws its worked examples from the {FEW_SHOT_SPLIT} split, so it cannot \
             evaluate split `{evaluated_split}` (the model would be shown answers it is scored on)"
        ))
        .with_hint("evaluate a held-out split: --split test (or dev, ood)"));
    }
    if !entry.splits.contains(&FEW_SHOT_SPLIT) {
        return Err(PrepareError::usage(format!(
            "--few-shot: {} has no {FEW_SHOT_SPLIT} split to draw worked examples from",
            entry.name()
        )));
    }
    let oracle = (entry.builtin)(FEW_SHOT_ANSWERS, configured).map_err(|e| {
        PrepareError::usage(format!(
            "--few-shot needs builtin:{FEW_SHOT_ANSWERS} to answer the worked examples: {e}"
        ))
    })?;
    let shots = (entry.open)(
        configured,
        &DataRequest {
            dataset: spec.dataset.clone(),
            split: Some(FEW_SHOT_SPLIT.to_string()),
            max_examples: Some(k),
            shuffle: true,
            seed: spec.seed,
        },
    )
    .map_err(|e| {
        let e = dataset_error(e);
        PrepareError::data(format!("--few-shot: {e}"))
    })?;
    let examples = shots.examples;
    if examples.len() < k {
        return Err(PrepareError::data(format!(
            "--few-shot {k}: the {FEW_SHOT_SPLIT} split of {} has only {} row(s)",
            spec.dataset,
            examples.len()
        )));
    }
    let mut messages = Vec::with_capacity(2 * k);
    let mut ids = Vec::with_capacity(k);
    for i in 0..k {
        let example = examples
            .example(i)
            .map_err(|e| PrepareError::data(format!("--few-shot: {e}")))?;
        let prompt = configured.env.initial_messages(&example);
        let answer = oracle.respond(&example, 0, &prompt).map_err(|e| {
            PrepareError::data(format!(
                "--few-shot: builtin:{FEW_SHOT_ANSWERS} could not answer {}: {}",
                example.id, e.message
            ))
        })?;
        let text = answer_text(&answer).ok_or_else(|| {
            PrepareError::data(format!(
                "--few-shot: builtin:{FEW_SHOT_ANSWERS} gave no text answer for {}",
                example.id
            ))
        })?;
        messages.extend(prompt.into_iter().filter(|m| m.role != Role::System));
        messages.push(Message::assistant(text));
        ids.push(example.id.clone());
    }
    let sha256 = canonical_sha256(&serde_json::to_value(&messages).unwrap_or(Value::Null));
    Ok(Some(FewShot {
        messages,
        record: FewShotRecord {
            k,
            split: FEW_SHOT_SPLIT.to_string(),
            answers: format!("builtin:{FEW_SHOT_ANSWERS}"),
            example_ids: ids,
            sha256,
        },
    }))
}

/// The final answer's text: what a model is shown it should write.
fn answer_text(completion: &Completion) -> Option<String> {
    v1_text(completion).ok().map(|t| t.into_owned())
}

/// `env` with `shots` inserted after the system prompt of every sample.
#[must_use]
pub fn with_shots(env: Arc<dyn Environment>, shots: &FewShot) -> Arc<dyn Environment> {
    Arc::new(WithShots {
        inner: env,
        shots: shots.messages.clone(),
    })
}

/// An environment whose first call carries worked examples; everything
/// else is the wrapped environment's.
struct WithShots {
    inner: Arc<dyn Environment>,
    shots: Vec<Message>,
}

impl Environment for WithShots {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn version(&self) -> &'static str {
        self.inner.version()
    }
    fn kind(&self) -> EnvKind {
        self.inner.kind()
    }
    fn default_budgets(&self) -> Budgets {
        self.inner.default_budgets()
    }
    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        let mut messages = self.inner.initial_messages(example);
        let at = messages
            .iter()
            .take_while(|m| m.role == Role::System)
            .count();
        messages.splice(at..at, self.shots.iter().cloned());
        messages
    }
    fn tools(&self) -> Vec<Value> {
        self.inner.tools()
    }
    fn start_episode(&self, example: &Example) -> Box<dyn Episode> {
        self.inner.start_episode(example)
    }
    fn score(
        &self,
        example: &Example,
        completion: &Completion,
    ) -> Result<ScoredAnswer, ScoreError> {
        self.inner.score(example, completion)
    }
    fn score_within(
        &self,
        example: &Example,
        completion: &Completion,
        deadline: Deadline,
    ) -> Result<ScoredAnswer, ScoreError> {
        self.inner.score_within(example, completion, deadline)
    }
}
