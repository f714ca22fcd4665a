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
use svbench_envs::environment::{run_tool_call, Episode};

use crate::completion::normalize_message;
use crate::envs::Configured;
use crate::error::{ApiError, ErrorCode};
use crate::score::{score_completion, ScoreResponse};

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
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("example_id", &self.example.id)
            .field("turn", &self.turn)
            .field("done", &self.done)
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
        let prompt = configured
            .env
            .initial_messages(&example)
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
            .collect();
        let tools = configured.env.tools();
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
        }
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
    /// an assistant message; `internal` when scoring fails.
    pub fn step(&mut self, message: &Value) -> Result<StepOutcome, ApiError> {
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
        let calls: Vec<Value> = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        self.turn += 1;
        self.transcript.push(message);
        let mut out = StepOutcome {
            messages: Vec::new(),
            done: false,
            turn: self.turn,
            truncated: false,
            tool_interactions: Vec::new(),
            reward: None,
        };
        if calls.is_empty() {
            self.finish(false)?;
        } else if self.turn >= self.configured.budgets.max_turns {
            // Turn limit with calls pending: the sample ends with no answer.
            self.finish(true)?;
        } else {
            for call in &calls {
                let run = run_tool_call(
                    self.episode.as_mut(),
                    call,
                    self.turn - 1,
                    &mut self.tool_calls_used,
                    self.configured.budgets.tool_budget,
                );
                let message = serde_json::to_value(&run.message).unwrap_or(Value::Null);
                self.transcript.push(message.clone());
                out.messages.push(message);
                out.tool_interactions.push(run.interaction);
            }
        }
        out.done = self.done;
        out.truncated = self.truncated;
        out.reward = self.reward.clone();
        Ok(out)
    }

    /// Ends the episode and scores it. With calls pending the answer
    /// components see the last assistant message without its content (tool
    /// calls kept) and the parse is `no_answer`/`turn_limit`, as in `eval`.
    fn finish(&mut self, pending: bool) -> Result<(), ApiError> {
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
        let mut reward = score_completion(
            &self.configured,
            &self.example,
            Some(&self.example.id),
            &Completion::Messages(messages),
        )?;
        if pending {
            reward.parse = ParseRecord {
                status: ParseStatus::NoAnswer,
                reason: Some("turn_limit".into()),
                format_ok: Some(false),
            };
        }
        self.reward = Some(reward);
        Ok(())
    }
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
