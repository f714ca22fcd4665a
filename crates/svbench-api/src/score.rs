//! Stateless scoring: one completion against one example, the response
//! every caller (server, Python, TRL, verl) returns.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use svbench_core::record::{CompatFields, EnvPart};
use svbench_core::{Completion, Example, ParseRecord};
use svbench_envs::environment::{Deadline, ScoreErrorKind};

use crate::completion::completion_from_json;
use crate::envs::{Configured, EnvConfig, EnvId};
use crate::error::{ApiError, ErrorCode};

/// `POST /v1/envs/{env}/score`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreRequest {
    /// An example of the split (either this or `answer`).
    #[serde(default)]
    pub example_id: Option<String>,
    /// The split of `example_id` (default `test`).
    #[serde(default)]
    pub split: Option<String>,
    /// The reference answer, when no `example_id` is given.
    #[serde(default)]
    pub answer: Option<Value>,
    /// Row metadata that goes with `answer`.
    #[serde(default)]
    pub info: Option<Value>,
    /// The row's question that goes with `answer`: environments that score
    /// against it need it (E2: the configuration under audit; E4: the
    /// rendered email its evidence is grounded in); E1 ignores it.
    #[serde(default)]
    pub question: Option<String>,
    /// A string or a list of messages.
    pub completion: Value,
    /// `v1` (default) or `upstream`.
    #[serde(default)]
    pub reward_profile: Option<String>,
    /// Reward-config overrides (the TOML file's shape as JSON).
    #[serde(default)]
    pub reward_config: Option<Value>,
    /// The environment's own arguments.
    #[serde(default)]
    pub env_args: Option<Map<String, Value>>,
}

impl ScoreRequest {
    /// The configuration the request asks for.
    #[must_use]
    pub fn env_config(&self) -> EnvConfig {
        EnvConfig {
            reward_profile: self.reward_profile.clone(),
            reward_config: self.reward_config.clone(),
            env_args: self.env_args.clone().unwrap_or_default(),
            max_turns: None,
            tool_budget: None,
        }
    }
}

/// A score with every component, the parse outcome and the compatibility fields.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ScoreResponse {
    /// The example scored (`null` for an inline reference).
    pub example_id: Option<String>,
    /// Total reward (Σ weight × component).
    pub reward: f64,
    /// Every component's value.
    pub rewards: BTreeMap<String, f64>,
    /// Every component's weight.
    pub weights: BTreeMap<String, f64>,
    /// Active profile.
    pub reward_profile: String,
    /// Hash of the effective reward config.
    pub reward_config_hash: String,
    /// Parse outcome.
    pub parse: ParseRecord,
    /// The environment's structured reading of the answer (`null` when invalid).
    pub parsed: Option<EnvPart>,
    /// The upstream compatibility fields of result records (E1:
    /// `predicted_label`, `confidence`; E2: the fields upstream's report reads).
    pub compat: CompatFields,
}

/// An example built from an inline reference (`answer`, `info`, `question`).
///
/// # Errors
/// `bad_request` when `answer` is missing, or the `question` an
/// environment scores against is (the registry's `inline_question`).
pub fn inline_example(id: EnvId, req: &ScoreRequest) -> Result<Example, ApiError> {
    let answer = req.answer.clone().ok_or_else(|| {
        ApiError::bad_request("give either `example_id` or `answer` (with `info`) to score against")
    })?;
    let question = match (&req.question, id.entry().inline_question) {
        (Some(q), _) => q.clone(),
        (None, None) => String::new(),
        (None, Some(needed)) => return Err(ApiError::bad_request(needed)),
    };
    let info = match &req.info {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "`info` must be an object, got {}",
                crate::completion::json_kind(other)
            )))
        }
    };
    let info = serde_json::value::to_raw_value(&info)
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(Example {
        index: 0,
        id: "inline".into(),
        split: None,
        question,
        answer,
        info,
    })
}

/// Scores a completion (as JSON) against an example.
///
/// # Errors
/// `bad_request` for a malformed completion; as [`score_completion`].
pub fn score_json(
    configured: &Configured,
    example: &Example,
    example_id: Option<&str>,
    completion: &Value,
) -> Result<ScoreResponse, ApiError> {
    score_json_within(configured, example, example_id, completion, Deadline::NONE)
}

/// [`score_json`] whose work ends at `deadline`.
///
/// # Errors
/// As [`score_json`]; `timeout` when scoring ran past `deadline` (or the
/// environment's own scoring budget).
pub fn score_json_within(
    configured: &Configured,
    example: &Example,
    example_id: Option<&str>,
    completion: &Value,
    deadline: Deadline,
) -> Result<ScoreResponse, ApiError> {
    let completion = completion_from_json(completion)?;
    score_completion_within(configured, example, example_id, &completion, deadline)
}

/// Scores a parsed completion against an example; `example_id` is `None`
/// for an inline reference (the caller's `answer`).
///
/// # Errors
/// A reference that cannot be scored against: `bad_request` when it is the
/// caller's inline `answer`, `internal` when it is a dataset row's.
pub fn score_completion(
    configured: &Configured,
    example: &Example,
    example_id: Option<&str>,
    completion: &Completion,
) -> Result<ScoreResponse, ApiError> {
    score_completion_within(configured, example, example_id, completion, Deadline::NONE)
}

/// [`score_completion`] whose work ends at `deadline`
/// ([`svbench_envs::environment::Environment::score_within`]).
///
/// # Errors
/// As [`score_completion`]; `timeout` when scoring ran past `deadline` (or
/// the environment's own scoring budget): the work has stopped.
pub fn score_completion_within(
    configured: &Configured,
    example: &Example,
    example_id: Option<&str>,
    completion: &Completion,
    deadline: Deadline,
) -> Result<ScoreResponse, ApiError> {
    let scored = configured
        .env
        .score_within(example, completion, deadline)
        .map_err(|e| {
            if e.kind == ScoreErrorKind::TimeBudgetExceeded {
                ApiError::new(ErrorCode::Timeout, format!("cannot score: {e}"))
            } else if example_id.is_none() {
                ApiError::bad_request(format!(
                    "the inline `answer` (with `info`) cannot be scored against: {}",
                    e.message
                ))
            } else {
                ApiError::new(ErrorCode::Internal, format!("cannot score: {e}"))
            }
        })?;
    Ok(ScoreResponse {
        example_id: example_id.map(str::to_string),
        reward: scored.reward.total,
        rewards: scored.reward.values(),
        weights: scored.reward.weights(),
        reward_profile: scored.reward.profile.to_string(),
        reward_config_hash: configured.config_hash.clone(),
        parse: scored.parse,
        parsed: scored.parsed,
        compat: scored.compat,
    })
}
