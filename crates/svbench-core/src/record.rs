//! Run artifacts written by `eval` and read by `report`: `metadata.json` and
//! the lines of `results.jsonl` (harness §3.1, §3.2).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::env_record::{CompatFields, EnvPart, ToolInteraction};
use crate::message::Message;
use crate::parse::ParseRecord;

/// Token usage of a sample or request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Reasoning tokens (subset of completion tokens).
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Prompt + completion.
    #[serde(default)]
    pub total_tokens: u64,
    /// Model calls made.
    #[serde(default)]
    pub requests: u64,
    /// Calls answered from the response cache.
    #[serde(default)]
    pub cached_requests: u64,
}

/// One model call of a sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestRecord {
    /// 0-based turn.
    pub turn: u32,
    /// Wall time of the call including retries.
    pub latency_ms: f64,
    /// Attempts made.
    pub attempts: u32,
    /// Answered from the cache.
    pub cached: bool,
    /// `finish_reason` of the first choice.
    pub finish_reason: Option<String>,
    /// Usage reported by the endpoint.
    pub usage: Usage,
    /// Response `model` as reported.
    pub response_model: Option<String>,
    /// Response `system_fingerprint` as reported.
    pub system_fingerprint: Option<String>,
}

/// A per-sample error. Errored samples are excluded from metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SampleError {
    /// `http_status`, `rate_limited`, `timeout`, `connection`,
    /// `malformed_response`, `context_length`, `cancelled`, `internal`, ….
    pub kind: String,
    /// Human-readable message.
    pub message: String,
    /// HTTP status, if any.
    pub http_status: Option<u16>,
    /// Attempts made.
    pub attempts: u32,
    /// Whether the error class is retryable.
    pub retryable: bool,
}

/// One line of `results.jsonl`: one finished sample.
///
/// Readers are tolerant: every field but the identity has a default, so
/// upstream-style records (only `predicted_label`/`confidence`, or only
/// `completion`) are readable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultRecord {
    /// Position of the example in the selection.
    #[serde(default)]
    pub index: usize,
    /// Rollout number of this sample for its example.
    #[serde(default)]
    pub rollout_index: usize,
    /// Example id: the row's `id`, else `meta.hash`, else a content hash;
    /// repeats get `~1`, `~2`, ….
    #[serde(default)]
    pub example_id: String,
    /// Split of the example (`all` when rows carry none).
    #[serde(default)]
    pub split: String,
    /// Raw question.
    #[serde(default)]
    pub question: String,
    /// Messages of the first call.
    #[serde(default)]
    pub prompt: Vec<Message>,
    /// Reference answer as given to rewards.
    #[serde(default)]
    pub answer: Value,
    /// Row metadata passed to rewards, exactly as loaded.
    #[serde(default)]
    pub info: Value,
    /// Final assistant text (`""` if none; null if errored).
    #[serde(default, deserialize_with = "completion_text")]
    pub completion: Option<String>,
    /// Assistant (and tool) messages of the sample.
    #[serde(default)]
    pub completion_messages: Vec<Value>,
    /// Reasoning text per turn; never parsed.
    #[serde(default)]
    pub reasoning_content: Vec<Option<String>>,
    /// The environment's structured record of the parsed prediction.
    #[serde(default)]
    pub parsed: Option<EnvPart>,
    /// Parse outcome; null for errored samples.
    #[serde(default)]
    pub parse: Option<ParseRecord>,
    /// Total reward; null for errored samples.
    #[serde(default)]
    pub reward: Option<f64>,
    /// Component → value.
    #[serde(default)]
    pub rewards: BTreeMap<String, f64>,
    /// Reward profile that scored the sample.
    #[serde(default)]
    pub reward_profile: String,
    /// Sample token usage.
    #[serde(default)]
    pub usage: Usage,
    /// Per-call records.
    #[serde(default)]
    pub requests: Vec<RequestRecord>,
    /// Sample wall time.
    #[serde(default)]
    pub latency_ms: f64,
    /// Model calls made.
    #[serde(default)]
    pub turns: u32,
    /// Stopped by length or turn limit.
    #[serde(default)]
    pub truncated: bool,
    /// Tool calls executed (multi-turn environments).
    #[serde(default)]
    pub tool_interactions: Vec<ToolInteraction>,
    /// Number of tool calls.
    #[serde(default)]
    pub tool_calls: u32,
    /// Time spent in tools.
    #[serde(default)]
    pub tool_time_ms: f64,
    /// Error, for errored samples.
    #[serde(default)]
    pub error: Option<SampleError>,
    /// Upstream key: the error message, present only on error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_error: Option<String>,
    /// RFC 3339 start time.
    #[serde(default)]
    pub started_at: String,
    /// RFC 3339 finish time.
    #[serde(default)]
    pub finished_at: String,
    /// The environment's compatibility fields, written at the top level
    /// (the keys upstream's reports read).
    #[serde(flatten)]
    pub compat: CompatFields,
}

impl ResultRecord {
    /// [`crate::example::sample_row_sha256`] of the row this record carries
    /// (`question`, `answer`, `info`).
    pub fn row_sha256(&self) -> String {
        crate::example::sample_row_sha256(&self.question, &self.answer, &self.info)
    }
}

/// Upstream results may store the completion as a message list; keep its
/// last message's text so tolerant readers see a string.
fn completion_text<'de, D>(de: D) -> Result<Option<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let v = Option::<Value>::deserialize(de)?;
    Ok(match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(Value::Array(items)) => Some(
            items
                .last()
                .and_then(|m| m.get("content"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ),
        Some(other) => Some(other.to_string()),
    })
}

/// Status of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Still running (or crashed while running).
    Running,
    /// Every planned sample finished.
    Completed,
    /// Stopped by the consecutive-error limit or a fatal error.
    Aborted,
    /// Stopped by a signal; resumable.
    Interrupted,
}

/// How examples were selected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Selection {
    /// `first` or `shuffle`.
    pub mode: String,
    /// Distinct examples.
    pub num_examples: usize,
    /// Samples per example.
    pub rollouts_per_example: usize,
    /// Seed used for shuffling.
    pub seed: u64,
}

/// Sample counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunCounts {
    /// Samples planned.
    pub planned: usize,
    /// Samples finished and scored.
    pub completed: usize,
    /// Samples finished with an error.
    pub errored: usize,
    /// Samples not yet finished.
    pub pending: usize,
}

/// `{path, sha256}` of an input file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileRef {
    /// Path as given.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
}

/// The worked examples shown before every prompt of a run (`eval --few-shot`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FewShotRecord {
    /// How many worked examples.
    pub k: usize,
    /// The split they were drawn from (never the evaluated one).
    pub split: String,
    /// Who wrote their answers (`builtin:oracle`).
    pub answers: String,
    /// Their example ids, in the order shown.
    pub example_ids: Vec<String>,
    /// SHA-256 of the canonical JSON of the messages inserted.
    pub sha256: String,
}

/// Where requests went (never a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EndpointRecord {
    /// Endpoint profile name.
    pub profile: String,
    /// Provider name.
    pub provider: String,
    /// Base URL.
    pub base_url: String,
}

/// `metadata.json`. Every value is observed, none typed by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunMetadata {
    /// Canonical environment name.
    pub environment: String,
    /// Environment crate version.
    pub env_version: String,
    /// `--model` as given.
    pub model: String,
    /// Id sent to the endpoint (policy name for builtins).
    pub effective_model: String,
    /// Dataset spec as given.
    pub dataset: String,
    /// `sha256:<dataset_sha256>`.
    pub dataset_revision: String,
    /// Run start, `YYYY-MM-DDTHH:MM:SSZ`.
    pub timestamp: String,
    /// Distinct examples selected.
    pub num_examples: usize,
    /// Short commit of the svbench source built.
    pub git_commit: Option<String>,
    /// Full commit of the svbench source built (null for a build without
    /// git; absent in metadata written before svbench recorded it).
    #[serde(default)]
    pub git_sha: Option<String>,
    /// Kept for key compatibility with upstream (always null).
    pub python_version: Option<String>,
    /// Kept for key compatibility with upstream (always null).
    pub verifiers_version: Option<String>,
    /// svbench version.
    pub svbench_version: String,
    /// rustc that built svbench.
    pub rustc_version: String,
    /// Target triple.
    pub target: String,
    /// Run seed.
    pub seed: u64,
    /// Sampling temperature; null = not sent.
    pub temperature: Option<f64>,
    /// Token limit per call.
    pub max_tokens: u32,
    /// Model calls per sample.
    pub max_turns: u32,
    /// Tool calls per sample.
    pub tool_budget: u32,
    /// Tools offered.
    pub include_tools: bool,
    /// Analyzer namespace → `{backend, version}`.
    pub tool_versions: BTreeMap<String, Value>,
    /// `single-turn` | `multi-turn`.
    pub evaluation_type: String,
    /// Consecutive-error limit (0 disables).
    pub max_consecutive_errors: u32,
    /// Free label.
    pub baseline_name: Option<String>,
    /// Builtin policy name, if a builtin ran.
    pub baseline_type: Option<String>,
    /// `--system-prompt-file` path.
    pub system_prompt_file: Option<String>,
    /// SHA-256 of the system prompt used.
    pub system_prompt_sha256: Option<String>,
    /// Run id.
    pub run_id: String,
    /// Run status.
    pub status: RunStatus,
    /// Why the run was aborted.
    pub abort_reason: Option<String>,
    /// RFC 3339 start.
    pub started_at: String,
    /// RFC 3339 end.
    pub finished_at: Option<String>,
    /// Split (`all` if none).
    pub split: String,
    /// Rows in the split.
    pub dataset_rows: usize,
    /// Loader warnings (duplicate ids, …).
    pub dataset_warnings: Vec<String>,
    /// Canonical hash of the loaded split's rows.
    pub dataset_sha256: String,
    /// Canonical hash of the selected rows in evaluation order.
    pub selected_sha256: String,
    /// Hash of the dataset file bytes (null for embedded/generated data).
    pub dataset_file_sha256: Option<String>,
    /// Selection settings.
    pub selection: Selection,
    /// Samples per example.
    pub rollouts_per_example: usize,
    /// Resolved environment arguments.
    pub env_args: BTreeMap<String, Value>,
    /// Reward profile (also the parser mode).
    pub reward_profile: String,
    /// `sha256:` hash of the effective reward config.
    pub reward_config_hash: String,
    /// Component → weight.
    pub reward_weights: BTreeMap<String, f64>,
    /// Effective profile constants.
    pub reward_params: BTreeMap<String, Value>,
    /// `--reward-config` file, if any.
    pub reward_config_file: Option<FileRef>,
    /// Environment-specific provenance.
    pub env_provenance: BTreeMap<String, Value>,
    /// Replay source for `builtin:replay:FILE`.
    pub replay_source: Option<FileRef>,
    /// Exactly what was sent to the endpoint.
    pub sampling_params: BTreeMap<String, Value>,
    /// Samples in flight.
    pub concurrency: usize,
    /// Effective cache mode.
    pub cache_mode: String,
    /// Endpoint, null for builtins.
    pub endpoint: Option<EndpointRecord>,
    /// Sample counts.
    pub counts: RunCounts,
    /// Command line.
    pub argv: Vec<String>,
    /// Free-text notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Budget group label.
    #[serde(default)]
    pub budget_group: Option<String>,
    /// How the evaluated model was trained (`--trainer`; absent: not
    /// trained by a recorded trainer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer: Option<crate::manifest::Trainer>,
    /// Training steps of the evaluated model (`--max-steps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
    /// SHA-256 of the evaluated model's whole training config
    /// (`--training-config-sha256`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_config_sha256: Option<String>,
    /// SHA-256 of its training budget: the config without the settings of
    /// how it learns (`--training-budget-sha256`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_budget_sha256: Option<String>,
    /// Worked examples shown before every prompt (`--few-shot`; absent:
    /// none, zero-shot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub few_shot: Option<FewShotRecord>,
}
