//! Run preparation: everything resolved before a run directory exists —
//! the configured environment, the selected rows, who answers, metadata —
//! and the checks that let `--resume` continue a run only with the inputs
//! it started with. The CLI, the server and Python can start the same run.

pub mod agent;
mod few_shot;
mod metadata;
mod resume;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use svbench_core::canonical::sha256_hex;
use svbench_core::example::DatasetError;
use svbench_core::record::FileRef;
use svbench_core::ExampleSet;
use svbench_envs::registry::{
    Configured, DataProvenance, DataRequest, EnvEntry, EnvSetup, SelectedData,
};

use crate::artifacts::{new_run_id, run_dir, validate_run_id};

pub use agent::{builtin_name, AgentSetup, EndpointOptions};
pub use few_shot::{FewShot, FEW_SHOT_SPLIT, MAX_FEW_SHOT};
pub use metadata::{new_metadata, BuildFacts, RunLabels, TrainingLabel};
pub use resume::{check_resume_inputs, read_metadata, recorded_spec, resume_spec, Requested};

/// The run-defining settings, from flags or from a resumed run's metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// Which environment.
    pub entry: &'static EnvEntry,
    /// The environment's own arguments, `K=V`.
    pub env_args: Vec<String>,
    /// Model calls per sample.
    pub max_turns: u32,
    /// Tool calls per sample.
    pub tool_budget: u32,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec.
    pub dataset: String,
    /// Split (`None`: the environment's rule).
    pub split: Option<String>,
    /// Distinct examples to run.
    pub num_examples: Option<usize>,
    /// Seeded shuffle before truncation.
    pub shuffle: bool,
    /// Run seed.
    pub seed: u64,
    /// Samples per example.
    pub rollouts: usize,
    /// Reward profile.
    pub reward_profile: String,
    /// Reward-config override file.
    pub reward_config: Option<PathBuf>,
    /// System prompt override file.
    pub system_prompt_file: Option<PathBuf>,
    /// Worked examples from the train split before every prompt (0:
    /// zero-shot).
    pub few_shot: usize,
}

/// What kind of problem stopped preparation (the CLI maps it to an exit code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrepareErrorKind {
    /// A flag, setting or combination the run cannot take.
    Usage,
    /// Input data (rows, replay files, recorded metadata) is unusable.
    Data,
    /// Something outside the inputs failed (I/O, the response cache).
    Internal,
}

/// Why a run could not be prepared.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct PrepareError {
    /// What kind of problem.
    pub kind: PrepareErrorKind,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub hint: Option<String>,
}

impl PrepareError {
    fn new(kind: PrepareErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            hint: None,
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(PrepareErrorKind::Usage, message)
    }

    /// A data error.
    pub fn data(message: impl Into<String>) -> Self {
        Self::new(PrepareErrorKind::Data, message)
    }

    /// An internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(PrepareErrorKind::Internal, message)
    }

    /// Adds what to do next.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Everything resolved before any directory is created.
pub struct Prepared {
    /// The configured environment and what metadata records about it.
    pub configured: Configured,
    /// Who answers.
    pub agent: AgentSetup,
    /// The selected examples, built one at a time as the run asks.
    pub examples: Arc<dyn ExampleSet>,
    /// Where they came from.
    pub data: DataProvenance,
    /// `--reward-config` path and hash.
    pub reward_config_file: Option<FileRef>,
    /// `--system-prompt-file` as given.
    pub system_prompt_file: Option<String>,
    /// The worked examples every prompt starts with (`--few-shot`).
    pub few_shot: Option<FewShot>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("configured", &self.configured)
            .field("agent", &self.agent)
            .field("selected", &self.examples.len())
            .field("data", &self.data)
            .finish_non_exhaustive()
    }
}

/// A new run's id and directory (`OUTPUT/<env>/<slug>/<run_id>`); refuses
/// an existing non-empty directory so no run is overwritten.
///
/// # Errors
/// Usage errors for an invalid `--run-id` or a taken directory.
pub fn new_run_dir(
    output_dir: &Path,
    entry: &EnvEntry,
    slug: &str,
    run_id: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(PathBuf, String), PrepareError> {
    let run_id = match run_id {
        Some(id) => {
            validate_run_id(id).map_err(|e| PrepareError::usage(e.to_string()))?;
            id.to_string()
        }
        None => new_run_id(now),
    };
    let dir = run_dir(output_dir, entry.name(), slug, &run_id);
    let taken = std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some());
    if taken {
        return Err(PrepareError::usage(format!(
            "run directory {} already exists and is not empty",
            dir.display()
        ))
        .with_hint("choose another --run-id, or continue it with --resume"));
    }
    Ok((dir, run_id))
}

fn read_flag_file(flag: &str, path: &Path) -> Result<String, PrepareError> {
    std::fs::read_to_string(path)
        .map_err(|e| PrepareError::usage(format!("cannot read {flag} {}: {e}", path.display())))
}

/// The environment configured and the rows selected as a run spec says,
/// without anyone to answer: what `report --verify` re-scores against.
pub struct Inputs {
    /// The configured environment and what metadata records about it.
    pub configured: Configured,
    /// The selected examples and where they came from.
    pub selected: SelectedData,
    /// `--reward-config` path and hash.
    pub reward_config_file: Option<FileRef>,
}

impl std::fmt::Debug for Inputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inputs")
            .field("configured", &self.configured)
            .field("selected", &self.selected)
            .finish_non_exhaustive()
    }
}

/// Configures the environment and selects the rows of `spec` (the reward
/// config file and system prompt read as the spec names them).
///
/// # Errors
/// Usage errors for settings the environment refuses, data errors for rows
/// that cannot be used.
pub fn open_inputs(spec: &RunSpec) -> Result<Inputs, PrepareError> {
    let (configured, reward_config_file) = configure(spec)?;
    let selected = open_rows(spec, &configured)?;
    Ok(Inputs {
        configured,
        selected,
        reward_config_file,
    })
}

fn configure(spec: &RunSpec) -> Result<(Configured, Option<FileRef>), PrepareError> {
    let overrides = match &spec.reward_config {
        Some(path) => Some((
            read_flag_file("--reward-config", path)?,
            path.display().to_string(),
        )),
        None => None,
    };
    let reward_config_file = overrides.as_ref().map(|(text, path)| FileRef {
        path: path.clone(),
        sha256: sha256_hex(text.as_bytes()),
    });
    let system_prompt = match &spec.system_prompt_file {
        Some(path) => Some(read_flag_file("--system-prompt-file", path)?),
        None => None,
    };
    let setup = EnvSetup {
        reward_profile: Some(&spec.reward_profile),
        reward_overrides: overrides.as_ref().map(|(t, o)| (t.as_str(), o.as_str())),
        env_args: &spec.env_args,
        max_turns: Some(spec.max_turns),
        tool_budget: Some(spec.tool_budget),
        system_prompt,
    };
    let configured =
        (spec.entry.configure)(&setup).map_err(|e| PrepareError::usage(e.to_string()))?;
    check_selection(spec)?;
    Ok((configured, reward_config_file))
}

fn open_rows(spec: &RunSpec, configured: &Configured) -> Result<SelectedData, PrepareError> {
    (spec.entry.open)(
        configured,
        &DataRequest {
            dataset: spec.dataset.clone(),
            split: spec.split.clone(),
            max_examples: spec.num_examples,
            shuffle: spec.shuffle,
            seed: spec.seed,
        },
    )
    .map_err(dataset_error)
}

/// Configures the environment, selects the rows and resolves who answers.
///
/// # Errors
/// Usage errors for settings the environment refuses, data errors for rows
/// or replay files that cannot be used.
pub fn prepare(spec: &RunSpec, endpoint: &EndpointOptions) -> Result<Prepared, PrepareError> {
    let (mut configured, reward_config_file) = configure(spec)?;
    let agent = match builtin_name(&spec.model) {
        Some(name) => agent::builtin_agent((spec.entry.builtin)(name, &configured))?,
        None => agent::model_agent(&spec.model, endpoint, spec.seed, spec.entry.sampling)?,
    };
    let selected = open_rows(spec, &configured)?;
    check_replay_coverage(&agent, selected.examples.as_ref(), spec.rollouts)?;
    let few_shot = few_shot::few_shot(spec, &configured, &selected.provenance.split)?;
    if let Some(shots) = &few_shot {
        configured.env = few_shot::with_shots(configured.env.clone(), shots);
    }
    Ok(Prepared {
        configured,
        agent,
        examples: selected.examples,
        data: selected.provenance,
        reward_config_file,
        system_prompt_file: spec
            .system_prompt_file
            .as_ref()
            .map(|p| p.display().to_string()),
        few_shot,
    })
}

/// Selection flags the environment cannot take are usage errors, found
/// before any row is read: a split it does not have, `-n 0`, `-r 0`.
fn check_selection(spec: &RunSpec) -> Result<(), PrepareError> {
    let entry = spec.entry;
    if let Some(split) = &spec.split {
        if split != "all" && !entry.splits.contains(&split.as_str()) {
            return Err(PrepareError::usage(format!(
                "unknown split `{split}` ({} splits: {}, all)",
                entry.identity.short.to_ascii_uppercase(),
                entry.splits.join(", ")
            )));
        }
    }
    if spec.num_examples == Some(0) {
        return Err(PrepareError::usage("-n/--num-examples must be at least 1"));
    }
    if spec.rollouts == 0 {
        return Err(PrepareError::usage(
            "-r/--rollouts-per-example must be at least 1",
        ));
    }
    Ok(())
}

/// A dataset error as a data error; an empty split also says which
/// `--split` values would select rows.
fn dataset_error(e: DatasetError) -> PrepareError {
    let hint = match &e {
        DatasetError::EmptySplit { present, .. } if !present.is_empty() => {
            let names: Vec<String> = present
                .iter()
                .map(|(s, _)| format!("--split {s}"))
                .collect();
            Some(format!(
                "pass {} (or --split all for every row)",
                names.join(" or ")
            ))
        }
        _ => None,
    };
    let error = PrepareError::data(e.to_string());
    match hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}

/// A replay must answer every selected sample; records that match none
/// are a warning.
fn check_replay_coverage(
    agent: &AgentSetup,
    examples: &dyn ExampleSet,
    rollouts: usize,
) -> Result<(), PrepareError> {
    let Some(policy) = &agent.policy else {
        return Ok(());
    };
    let more = |shown: usize, all: usize| if all > shown { ", …" } else { "" };
    let missing = policy.missing(examples, rollouts);
    if !missing.is_empty() {
        let shown: Vec<_> = missing.iter().take(20).cloned().collect();
        return Err(PrepareError::data(format!(
            "replay file has no record for {} selected sample(s): {}{}",
            missing.len(),
            shown.join(", "),
            more(shown.len(), missing.len())
        )));
    }
    let unmatched = policy.unmatched(examples, rollouts);
    if !unmatched.is_empty() {
        let shown: Vec<String> = unmatched.iter().take(20).map(usize::to_string).collect();
        eprintln!(
            "warning: {} replay record(s) match no selected sample (lines {}{})",
            unmatched.len(),
            shown.join(", "),
            more(shown.len(), unmatched.len())
        );
    }
    Ok(())
}
