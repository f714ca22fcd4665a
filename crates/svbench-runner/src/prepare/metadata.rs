//! The metadata a new run starts with.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use svbench_core::manifest::Trainer;
use svbench_core::record::{RunCounts, RunMetadata, RunStatus, Selection};

use super::{Prepared, RunSpec};

/// The build that runs the evaluation (the binary knows it).
#[derive(Debug, Clone, Default)]
pub struct BuildFacts {
    /// Short commit.
    pub git_commit: Option<String>,
    /// Full commit.
    pub git_sha: Option<String>,
    /// svbench version.
    pub version: String,
    /// rustc that built it.
    pub rustc_version: String,
    /// Target triple.
    pub target: String,
}

/// Labels and settings recorded as given (not run-defining).
#[derive(Debug, Clone, Default)]
pub struct RunLabels {
    /// `--baseline-name`.
    pub baseline_name: Option<String>,
    /// `--notes`.
    pub notes: Option<String>,
    /// `--budget-group`.
    pub budget_group: Option<String>,
    /// `--trainer`, `--max-steps` and the training config's hashes: how the
    /// evaluated model was trained.
    pub training: Option<TrainingLabel>,
    /// `--max-consecutive-errors`.
    pub max_consecutive_errors: u32,
    /// The command line, credentials in URLs redacted.
    pub argv: Vec<String>,
    /// `--max-tokens` as given (`None`: the environment's default).
    pub max_tokens: Option<u32>,
}

/// How the evaluated model was trained, as `eval` records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrainingLabel {
    /// `--trainer`.
    pub trainer: Trainer,
    /// `--max-steps`.
    pub max_steps: u64,
    /// `--training-config-sha256`.
    pub config_sha256: Option<String>,
    /// `--training-budget-sha256`.
    pub budget_sha256: Option<String>,
}

/// The metadata of a run starting now.
#[must_use]
pub fn new_metadata(
    spec: &RunSpec,
    p: &Prepared,
    run_id: String,
    now: chrono::DateTime<chrono::Utc>,
    build: &BuildFacts,
    labels: &RunLabels,
) -> RunMetadata {
    let agent = &p.agent;
    let c = &p.configured;
    let facts = &c.facts;
    let mut env_args: BTreeMap<String, Value> = [
        ("dataset", json!(spec.dataset)),
        ("split", json!(p.data.split)),
        ("max_examples", json!(spec.num_examples)),
        ("seed", json!(spec.seed)),
        ("shuffle", json!(spec.shuffle)),
        ("reward_profile", json!(c.profile)),
        (
            "reward_config",
            json!(spec.reward_config.as_ref().map(|p| p.display().to_string())),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    env_args.extend(facts.env_args.clone());
    let selected = p.examples.len();
    let planned = selected * spec.rollouts;
    RunMetadata {
        environment: spec.entry.name().into(),
        env_version: spec.entry.version.into(),
        model: spec.model.clone(),
        effective_model: agent.effective_model.clone(),
        dataset: spec.dataset.clone(),
        dataset_revision: format!("sha256:{}", p.data.dataset_sha256),
        timestamp: now.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        num_examples: selected,
        git_commit: build.git_commit.clone(),
        git_sha: build.git_sha.clone(),
        python_version: None,
        verifiers_version: None,
        svbench_version: build.version.clone(),
        rustc_version: build.rustc_version.clone(),
        target: build.target.clone(),
        seed: spec.seed,
        temperature: agent.temperature,
        max_tokens: labels.max_tokens.unwrap_or(spec.entry.sampling.max_tokens),
        max_turns: spec.max_turns,
        tool_budget: spec.tool_budget,
        include_tools: facts.include_tools,
        tool_versions: facts.tool_versions.clone(),
        evaluation_type: spec.entry.kind.evaluation_type().into(),
        max_consecutive_errors: labels.max_consecutive_errors,
        baseline_name: labels.baseline_name.clone(),
        baseline_type: agent.baseline_type.clone(),
        system_prompt_file: p.system_prompt_file.clone(),
        system_prompt_sha256: facts.system_prompt_sha256.clone(),
        run_id,
        status: RunStatus::Running,
        abort_reason: None,
        started_at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        finished_at: None,
        split: p.data.split.clone(),
        dataset_rows: p.data.split_rows,
        dataset_warnings: p.data.warnings.clone(),
        dataset_sha256: p.data.dataset_sha256.clone(),
        selected_sha256: p.data.selected_sha256.clone(),
        dataset_file_sha256: p.data.file_sha256.clone(),
        selection: Selection {
            mode: if spec.shuffle { "shuffle" } else { "first" }.into(),
            num_examples: selected,
            rollouts_per_example: spec.rollouts,
            seed: spec.seed,
        },
        rollouts_per_example: spec.rollouts,
        env_args,
        reward_profile: c.profile.into(),
        reward_config_hash: c.config_hash.clone(),
        reward_weights: c.weights.iter().cloned().collect(),
        reward_params: c.reward_params.clone(),
        reward_config_file: p.reward_config_file.clone(),
        env_provenance: facts.env_provenance.clone(),
        replay_source: agent.replay_source.clone(),
        sampling_params: agent.sampling_params.clone(),
        concurrency: agent.concurrency,
        cache_mode: agent.cache_mode.clone(),
        endpoint: agent.endpoint.clone(),
        counts: RunCounts {
            planned,
            completed: 0,
            errored: 0,
            pending: planned,
        },
        argv: labels.argv.clone(),
        notes: labels.notes.clone(),
        budget_group: labels.budget_group.clone(),
        trainer: labels.training.as_ref().map(|t| t.trainer),
        max_steps: labels.training.as_ref().map(|t| t.max_steps),
        training_config_sha256: labels
            .training
            .as_ref()
            .and_then(|t| t.config_sha256.clone()),
        training_budget_sha256: labels
            .training
            .as_ref()
            .and_then(|t| t.budget_sha256.clone()),
        few_shot: p.few_shot.as_ref().map(|f| f.record.clone()),
    }
}
