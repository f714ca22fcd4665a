//! The contract an environment offers the runner and the server: prompt,
//! tools, an episode that executes tool calls, and scoring.

use std::time::Instant;

use serde_json::{json, Value};
pub use svbench_core::deadline::{Deadline, TimeBudgetExceeded};
use svbench_core::record::{CompatFields, EnvPart, ToolInteraction};
use svbench_core::{Completion, Example, Message, ParseRecord, RewardBreakdown, Role};

/// One scored answer, ready to be recorded.
#[derive(Debug, Clone)]
pub struct ScoredAnswer {
    /// The `parse` object.
    pub parse: ParseRecord,
    /// The environment's structured record of the prediction (`None` when
    /// invalid).
    pub parsed: Option<EnvPart>,
    /// The reward with every component.
    pub reward: RewardBreakdown,
    /// Upstream compatibility fields written at the top level of the record.
    pub compat: CompatFields,
}

/// What kind of episode an environment runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvKind {
    /// One model call, no tools.
    SingleTurn,
    /// Model calls interleaved with tool calls until a final answer.
    Tool,
    /// The environment also speaks (simulated users, targets).
    MultiTurn,
}

impl EnvKind {
    /// `evaluation_type` in metadata.
    pub fn evaluation_type(self) -> &'static str {
        match self {
            EnvKind::SingleTurn => "single-turn",
            EnvKind::Tool | EnvKind::MultiTurn => "multi-turn",
        }
    }
}

/// Turn and tool limits of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    /// Model calls per sample.
    pub max_turns: u32,
    /// Tool calls per sample, all tools together, failed calls included.
    pub tool_budget: u32,
}

/// The result of one tool call, shown to the model as a tool message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// Tool message content (JSON text for svbench tools).
    pub content: String,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Why it failed, when it did.
    pub error: Option<String>,
}

impl ToolResult {
    /// A failed call: the model sees `{"error": {"code", "message"}}`.
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            content: serde_json::json!({"error": {"code": code, "message": message}}).to_string(),
            ok: false,
            error: Some(format!("{code}: {message}")),
        }
    }
}

/// Per-sample environment state: executes tool calls against the sample's
/// own workspace.
pub trait Episode: Send {
    /// Executes one tool call; problems are results shown to the model, never panics.
    fn call_tool(&mut self, name: &str, arguments: &str) -> ToolResult;
}

/// One tool call executed for a sample: the tool message the model sees
/// next and the `tool_interactions` entry of the result record.
#[derive(Debug, Clone)]
pub struct ToolCallRun {
    /// The tool message answering the call.
    pub message: Message,
    /// The `tool_interactions` entry.
    pub interaction: ToolInteraction,
    /// Wall time of the call in milliseconds.
    pub duration_ms: f64,
}

/// Executes one tool call (nested OpenAI form) of model turn `turn`
/// (0-based), or refuses it with `budget_exhausted` once `used` calls have
/// spent `budget`. Every call counts, failed and refused ones too. The runner
/// and externally driven episodes (server, Python) both go through here, so
/// budgets and records follow one rule.
pub fn run_tool_call(
    episode: &mut dyn Episode,
    call: &Value,
    turn: u32,
    used: &mut u32,
    budget: u32,
) -> ToolCallRun {
    let text = |pointer: &str| {
        call.pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (id, name, arguments) = (
        text("/id"),
        text("/function/name"),
        text("/function/arguments"),
    );
    let started = Instant::now();
    let result = if *used >= budget {
        ToolResult {
            content: json!({"error": {"code": "budget_exhausted", "budget": budget}}).to_string(),
            ok: false,
            error: Some("budget_exhausted".into()),
        }
    } else {
        episode.call_tool(&name, &arguments)
    };
    *used += 1;
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    let arguments_value: Value =
        serde_json::from_str(&arguments).unwrap_or(Value::String(arguments));
    let interaction = ToolInteraction {
        turn,
        tool: name,
        tool_call_id: id.clone(),
        arguments: arguments_value,
        duration_ms,
        ok: result.ok,
        error: result.error,
    };
    ToolCallRun {
        message: Message {
            role: Role::Tool,
            content: Some(result.content),
            tool_calls: Vec::new(),
            tool_call_id: Some(id),
        },
        interaction,
        duration_ms,
    }
}

/// An episode with no tools: every call is an `unknown_tool` error.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTools;

impl Episode for NoTools {
    fn call_tool(&mut self, name: &str, _arguments: &str) -> ToolResult {
        ToolResult::error(
            "unknown_tool",
            format!("this environment offers no tools (called `{name}`)"),
        )
    }
}

/// An environment: prompt in, answers (and tool calls) out, scored.
pub trait Environment: Send + Sync {
    /// Canonical name.
    fn name(&self) -> &'static str;
    /// Environment version.
    fn version(&self) -> &'static str;
    /// Episode kind.
    fn kind(&self) -> EnvKind;
    /// Default turn and tool limits.
    fn default_budgets(&self) -> Budgets;
    /// Messages of the first call.
    fn initial_messages(&self, example: &Example) -> Vec<Message>;
    /// Tool specifications offered to the model (OpenAI `tools` entries).
    fn tools(&self) -> Vec<Value> {
        Vec::new()
    }
    /// Starts a sample's episode.
    fn start_episode(&self, example: &Example) -> Box<dyn Episode> {
        let _ = example;
        Box::new(NoTools)
    }
    /// Parses and scores an answer. Fails only when the example's reference
    /// answer is unusable (never because of the completion), or when the
    /// environment's own scoring time budget runs out.
    fn score(&self, example: &Example, completion: &Completion)
        -> Result<ScoredAnswer, ScoreError>;

    /// [`Environment::score`] that stops by `deadline` (e.g. the end of an
    /// HTTP request, or of a sample's time limit) — the work itself ends
    /// then, with a [`ScoreErrorKind::TimeBudgetExceeded`] error, not only
    /// the caller's wait. Environments whose scoring is cheap ignore the
    /// deadline (the default); those that run analyzers override this.
    ///
    /// # Errors
    /// As [`Environment::score`].
    fn score_within(
        &self,
        example: &Example,
        completion: &Completion,
        deadline: Deadline,
    ) -> Result<ScoredAnswer, ScoreError> {
        let _ = deadline;
        self.score(example, completion)
    }
}

/// Why an example could not be scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ScoreErrorKind {
    /// The example's reference cannot be scored against (unreadable labels,
    /// or a live oracle that could not label the config).
    #[default]
    Reference,
    /// Scoring ran past its time budget and was stopped.
    TimeBudgetExceeded,
}

impl ScoreErrorKind {
    /// `reference` or `time_budget_exceeded` (for records and error codes).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ScoreErrorKind::Reference => "reference",
            ScoreErrorKind::TimeBudgetExceeded => "time_budget_exceeded",
        }
    }
}

/// An example that could not be scored (a per-sample error, never a reward).
#[derive(Debug, Clone, thiserror::Error)]
#[error("example {example_id}: {message}")]
pub struct ScoreError {
    /// Example id.
    pub example_id: String,
    /// What went wrong.
    pub message: String,
    /// Why, as a category.
    pub kind: ScoreErrorKind,
}

impl ScoreError {
    /// The example's reference is unusable.
    #[must_use]
    pub fn reference(example_id: &str, message: impl Into<String>) -> Self {
        ScoreError {
            example_id: example_id.to_owned(),
            message: message.into(),
            kind: ScoreErrorKind::Reference,
        }
    }

    /// Scoring `example_id` ran past its time budget.
    #[must_use]
    pub fn time_budget(example_id: &str, exceeded: TimeBudgetExceeded) -> Self {
        ScoreError {
            example_id: example_id.to_owned(),
            message: format!("scoring stopped: {exceeded}"),
            kind: ScoreErrorKind::TimeBudgetExceeded,
        }
    }
}
