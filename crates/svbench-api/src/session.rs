//! A multi-turn episode driven from outside (`/episodes`, verifiers'
//! MultiTurnEnv): the caller sends each assistant message, the session runs
//! its tool calls within the budget and scores the transcript once the
//! episode ends — by the rules of the runner's loop (no tool calls → the
//! answer; calls pending at the turn limit → no answer).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
/// A `tool_interactions` entry of a step (as in result records).
pub use svbench_core::record::ToolInteraction;
use svbench_core::{Completion, Example, ParseRecord, ParseStatus};
use svbench_envs::environment::{run_tool_call, Deadline, Episode};

use crate::completion::normalize_message;
use crate::envs::Configured;
use crate::error::{ApiError, ErrorCode};
use crate::score::{score_completion_within, ScoreResponse};

/// The memory an episode may hold, in accounted bytes ([`value_bytes`]).
/// A server sets them; the local user (Python in-process) runs without.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// The largest assistant message one step takes.
    pub max_message_bytes: usize,
    /// The most the episode holds in all: example, prompt, tool
    /// specifications, every message and tool result, the reward.
    pub max_bytes: usize,
}

impl SessionLimits {
    /// No bound.
    pub const NONE: SessionLimits = SessionLimits {
        max_message_bytes: usize::MAX,
        max_bytes: usize::MAX,
    };
}

/// The bytes a JSON value holds in memory, counted as its strings' and
/// keys' bytes plus a fixed size per value and per key: within a small
/// constant factor of the allocator's figure for any shape (deep nesting,
/// many tiny values, long strings).
#[must_use]
pub fn value_bytes(value: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    const KEY: usize = std::mem::size_of::<String>();
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => NODE,
        Value::String(s) => NODE + s.len(),
        Value::Array(items) => NODE + items.iter().map(value_bytes).sum::<usize>(),
        Value::Object(map) => {
            NODE + map
                .iter()
                .map(|(k, v)| KEY + k.len() + value_bytes(v))
                .sum::<usize>()
        }
    }
}

fn example_bytes(example: &Example) -> usize {
    std::mem::size_of::<Example>()
        + example.id.len()
        + example.split.as_ref().map_or(0, String::len)
        + example.question.len()
        + value_bytes(&example.answer)
        + example.info.get().len()
}

fn reward_bytes(reward: &ScoreResponse) -> usize {
    // Serialised length (a lower bound of the struct's heap) plus the
    // struct: the reward is small next to the transcript it scores.
    std::mem::size_of::<ScoreResponse>() + serde_json::to_vec(reward).map_or(0, |v| v.len())
}

/// One live episode.
pub struct Session {
    configured: Arc<Configured>,
    example: Example,
    episode: Box<dyn Episode>,
    prompt: Vec<Value>,
    transcript: Vec<Value>,
    tools: Vec<Value>,
    turn: u32,
    tool_calls_used: u32,
    done: bool,
    truncated: bool,
    reward: Option<ScoreResponse>,
    limits: SessionLimits,
    held: usize,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("example_id", &self.example.id)
            .field("turn", &self.turn)
            .field("done", &self.done)
            .field("held", &self.held)
            .finish_non_exhaustive()
    }
}

/// What one step returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StepOutcome {
    /// New messages for the model (tool results); empty once done.
    pub messages: Vec<Value>,
    /// Whether the episode has ended.
    pub done: bool,
    /// Model turns so far.
    pub turn: u32,
    /// Ended at the turn limit with tool calls pending.
    pub truncated: bool,
    /// The tool calls this step executed, as in result records.
    pub tool_interactions: Vec<ToolInteraction>,
    /// The score, once done.
    pub reward: Option<ScoreResponse>,
}

impl Session {
    /// Starts an episode of an example.
    #[must_use]
    pub fn start(configured: Arc<Configured>, example: Example) -> Self {
        let episode = configured.env.start_episode(&example);
        let prompt: Vec<Value> = configured
            .env
            .initial_messages(&example)
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
            .collect();
        let tools: Vec<Value> = configured.env.tools();
        let held = std::mem::size_of::<Self>()
            + example_bytes(&example)
            + prompt.iter().map(value_bytes).sum::<usize>()
            + tools.iter().map(value_bytes).sum::<usize>();
        Self {
            configured,
            example,
            episode,
            prompt,
            transcript: Vec::new(),
            tools,
            turn: 0,
            tool_calls_used: 0,
            done: false,
            truncated: false,
            reward: None,
            limits: SessionLimits::NONE,
            held,
        }
    }

    /// The episode under memory limits.
    ///
    /// # Errors
    /// `episode_too_large` when the example, prompt and tools alone are
    /// over `limits.max_bytes`.
    pub fn with_limits(mut self, limits: SessionLimits) -> Result<Self, ApiError> {
        if self.held > limits.max_bytes {
            return Err(over_budget(self.held, limits.max_bytes));
        }
        self.limits = limits;
        Ok(self)
    }

    /// The memory limits.
    #[must_use]
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// The bytes the episode holds now, as [`value_bytes`] counts them
    /// (example, prompt, tools, transcript, reward). Never over
    /// [`SessionLimits::max_bytes`].
    #[must_use]
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// The first messages the model sees.
    #[must_use]
    pub fn prompt(&self) -> &[Value] {
        &self.prompt
    }

    /// Tool specifications offered to the model.
    #[must_use]
    pub fn tools(&self) -> &[Value] {
        &self.tools
    }

    /// The example.
    #[must_use]
    pub fn example(&self) -> &Example {
        &self.example
    }

    /// The configured environment.
    #[must_use]
    pub fn configured(&self) -> &Arc<Configured> {
        &self.configured
    }

    /// Model turns so far.
    #[must_use]
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// Whether the episode has ended.
    #[must_use]
    pub fn done(&self) -> bool {
        self.done
    }

    /// The score, once done.
    #[must_use]
    pub fn reward(&self) -> Option<&ScoreResponse> {
        self.reward.as_ref()
    }

    /// Every message after the prompt: assistant turns and tool results.
    #[must_use]
    pub fn transcript(&self) -> &[Value] {
        &self.transcript
    }

    /// Takes the model's next message.
    ///
    /// # Errors
    /// `episode_done` after the end; `bad_request` for a message that is not
    /// an assistant message; `internal` when scoring fails; as
    /// [`Session::step_within`] for the memory limits.
    pub fn step(&mut self, message: &Value) -> Result<StepOutcome, ApiError> {
        self.step_within(message, Deadline::NONE, usize::MAX)
    }

    /// [`Session::step`] whose tool calls and scoring end by `deadline`, and
    /// after which the episode holds at most `limit` bytes (and at most its
    /// own [`SessionLimits::max_bytes`]). A step that fails for any reason
    /// leaves the episode as it was: its transcript, turn and tool calls.
    ///
    /// # Errors
    /// As [`Session::step`]; `payload_too_large` for a message over
    /// [`SessionLimits::max_message_bytes`]; `episode_too_large` (details:
    /// `held`, `needed`, `limit`) when the step would take the episode over
    /// its byte limit; `timeout` past `deadline`.
    pub fn step_within(
        &mut self,
        message: &Value,
        deadline: Deadline,
        limit: usize,
    ) -> Result<StepOutcome, ApiError> {
        if self.done {
            return Err(ApiError::new(
                ErrorCode::EpisodeDone,
                format!("the episode of {} has ended", self.example.id),
            ));
        }
        let message = normalize_message(message)
            .map_err(|e| ApiError::bad_request(format!("message: {e}")))?;
        if message.get("role").and_then(Value::as_str) != Some("assistant") {
            return Err(ApiError::bad_request(
                "message: a step takes an assistant message",
            ));
        }
        let message_bytes = value_bytes(&message);
        if message_bytes > self.limits.max_message_bytes {
            return Err(ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "message: {message_bytes} bytes, over the limit of {} bytes per step",
                    self.limits.max_message_bytes
                ),
            )
            .with_details(serde_json::json!({
                "message_bytes": message_bytes,
                "limit": self.limits.max_message_bytes,
            })));
        }
        let limit = limit.min(self.limits.max_bytes);
        let needed = self.held.saturating_add(message_bytes);
        if needed > limit {
            return Err(over_budget_step(self.held, needed, limit));
        }
        let before = (
            self.transcript.len(),
            self.turn,
            self.tool_calls_used,
            self.held,
        );
        let result = self.run_step(message, message_bytes, deadline, limit);
        if result.is_err() {
            // Nothing of a refused step stays (tool calls are read-only
            // queries of the example, so the episode itself is unchanged).
            self.transcript.truncate(before.0);
            self.turn = before.1;
            self.tool_calls_used = before.2;
            self.held = before.3;
            self.done = false;
            self.truncated = false;
            self.reward = None;
        }
        result
    }

    fn run_step(
        &mut self,
        message: Value,
        message_bytes: usize,
        deadline: Deadline,
        limit: usize,
    ) -> Result<StepOutcome, ApiError> {
        let before = self.held;
        let calls: Vec<Value> = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        self.turn += 1;
        self.transcript.push(message);
        self.held += message_bytes;
        let mut out = StepOutcome {
            messages: Vec::new(),
            done: false,
            turn: self.turn,
            truncated: false,
            tool_interactions: Vec::new(),
            reward: None,
        };
        if calls.is_empty() {
            self.finish(false, deadline)?;
        } else if self.turn >= self.configured.budgets.max_turns {
            // Turn limit with calls pending: the sample ends with no answer.
            self.finish(true, deadline)?;
        } else {
            for call in &calls {
                deadline.check().map_err(|e| {
                    ApiError::new(ErrorCode::Timeout, format!("tool calls stopped: {e}"))
                })?;
                let run = run_tool_call(
                    self.episode.as_mut(),
                    call,
                    self.turn - 1,
                    &mut self.tool_calls_used,
                    self.configured.budgets.tool_budget,
                );
                let message = serde_json::to_value(&run.message).unwrap_or(Value::Null);
                self.held += value_bytes(&message);
                if self.held > limit {
                    return Err(over_budget_step(before, self.held, limit));
                }
                self.transcript.push(message.clone());
                out.messages.push(message);
                out.tool_interactions.push(run.interaction);
            }
        }
        if self.held > limit {
            return Err(over_budget_step(before, self.held, limit));
        }
        out.done = self.done;
        out.truncated = self.truncated;
        out.reward = self.reward.clone();
        Ok(out)
    }

    /// Ends the episode and scores it. With calls pending the answer
    /// components see the last assistant message without its content (tool
    /// calls kept) and the parse is `no_answer`/`turn_limit`, as in `eval`.
    fn finish(&mut self, pending: bool, deadline: Deadline) -> Result<(), ApiError> {
        self.done = true;
        self.truncated = pending;
        let mut messages = self.transcript.clone();
        if pending {
            if let Some(last) = messages
                .iter_mut()
                .rev()
                .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            {
                if let Some(obj) = last.as_object_mut() {
                    obj.insert("content".into(), Value::Null);
                }
            }
        }
        let mut reward = score_completion_within(
            &self.configured,
            &self.example,
            Some(&self.example.id),
            &Completion::Messages(messages),
            deadline,
        )?;
        if pending {
            reward.parse = ParseRecord {
                status: ParseStatus::NoAnswer,
                reason: Some("turn_limit".into()),
                format_ok: Some(false),
            };
        }
        self.held += reward_bytes(&reward);
        self.reward = Some(reward);
        Ok(())
    }
}

fn over_budget(held: usize, limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::EpisodeTooLarge,
        format!("the episode would hold {held} bytes, over its limit of {limit} bytes"),
    )
    .with_details(serde_json::json!({"held": 0, "needed": held, "limit": limit}))
}

fn over_budget_step(held: usize, needed: usize, limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::EpisodeTooLarge,
        format!(
            "this step would take the episode from {held} to at least {needed} bytes, over \
             its limit of {limit} bytes; the step was not taken (finish with a shorter \
             message, or delete the episode)"
        ),
    )
    .with_details(serde_json::json!({"held": held, "needed": needed, "limit": limit}))
}

/// One rollout's tool calls driven call by call, with no transcript (an MCP
/// tool server, a trainer's tool hook). Each call goes through the runner's
/// `run_tool_call`, so the budget, the refusals and every answer are
/// `eval`'s.
pub struct ToolCalls {
    episode: Box<dyn Episode>,
    used: u32,
    budget: u32,
}

/// What one call returned: the text the model sees, and whether it worked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallOutcome {
    /// The tool message's content.
    pub content: String,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Why it failed (`budget_exhausted`, `invalid_arguments: ...`).
    pub error: Option<String>,
}

impl std::fmt::Debug for ToolCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCalls")
            .field("used", &self.used)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl ToolCalls {
    /// Starts the tool calls of a rollout of `example`, under the
    /// configured tool budget.
    pub fn start(configured: &Configured, example: &Example) -> Self {
        Self {
            episode: configured.env.start_episode(example),
            used: 0,
            budget: configured.budgets.tool_budget,
        }
    }

    /// Runs one call (`arguments` as the model's JSON text); past the
    /// budget it is refused with `budget_exhausted`. Every call counts.
    pub fn call(&mut self, name: &str, arguments: &str) -> ToolCallOutcome {
        let call = serde_json::json!({
            "id": "",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        });
        let run = run_tool_call(self.episode.as_mut(), &call, 0, &mut self.used, self.budget);
        ToolCallOutcome {
            content: run.message.content.unwrap_or_default(),
            ok: run.interaction.ok,
            error: run.interaction.error,
        }
    }

    /// Calls made so far, refused ones included.
    pub fn used(&self) -> u32 {
        self.used
    }

    /// The tool budget.
    pub fn budget(&self) -> u32 {
        self.budget
    }
}
