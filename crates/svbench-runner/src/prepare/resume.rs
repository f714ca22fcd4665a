//! `--resume`: the run's recorded settings, and refusals when the flags or
//! the inputs contradict them.

use std::path::{Path, PathBuf};

use svbench_core::record::RunMetadata;
use svbench_envs::registry::EnvEntry;

use super::{PrepareError, RunSpec};

/// The run-defining flags given with `--resume` (`None`: not given).
#[derive(Debug, Clone, Default)]
pub struct Requested {
    /// `--model`, every one given.
    pub models: Vec<String>,
    /// `--dataset`.
    pub dataset: Option<String>,
    /// `--split`.
    pub split: Option<String>,
    /// `-n`.
    pub num_examples: Option<usize>,
    /// `--shuffle`.
    pub shuffle: bool,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `-r`.
    pub rollouts: Option<usize>,
    /// `--reward-profile`.
    pub reward_profile: Option<String>,
    /// `--reward-config`.
    pub reward_config: Option<PathBuf>,
    /// `--system-prompt-file`.
    pub system_prompt_file: Option<PathBuf>,
    /// `--run-id`.
    pub run_id: Option<String>,
    /// `--max-turns`.
    pub max_turns: Option<u32>,
    /// `--tool-budget`.
    pub tool_budget: Option<u32>,
    /// `--few-shot`.
    pub few_shot: Option<usize>,
    /// The environment's own arguments, `K=V`.
    pub env_args: Vec<String>,
}

/// Reads a run's metadata.
///
/// # Errors
/// Data errors for a missing or invalid file.
pub fn read_metadata(dir: &Path) -> Result<RunMetadata, PrepareError> {
    let path = dir.join("metadata.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| PrepareError::data(format!("cannot resume {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        PrepareError::data(format!(
            "cannot resume: {} is not valid metadata: {e}",
            path.display()
        ))
    })
}

/// The spec a run recorded, after checking the flags given now do not
/// contradict it.
///
/// # Errors
/// Usage errors listing every contradiction; data errors for unreadable metadata.
pub fn resume_spec(
    entry: &'static EnvEntry,
    dir: &Path,
    given: &Requested,
) -> Result<(RunSpec, RunMetadata), PrepareError> {
    let meta = read_metadata(dir)?;
    if meta.environment != entry.name() {
        return Err(PrepareError::usage(format!(
            "cannot resume: {} is a run of {}, not {}",
            dir.display(),
            meta.environment,
            entry.name()
        )));
    }
    let recorded = recorded_spec(entry, &meta);
    let recorded_env_args = recorded.env_args.clone();
    let check = |name: &str, given: Option<String>, was: String| -> Option<String> {
        given
            .filter(|g| *g != was)
            .map(|g| format!("  {name}: run has {was}, flag says {g}"))
    };
    let shown = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let mut diff: Vec<String> = [
        check(
            "model",
            (given.models.len() == 1).then(|| given.models[0].clone()),
            recorded.model.clone(),
        ),
        check("dataset", given.dataset.clone(), recorded.dataset.clone()),
        check("split", given.split.clone(), meta.split.clone()),
        check(
            "num_examples",
            given.num_examples.map(|n| n.to_string()),
            meta.selection.num_examples.to_string(),
        ),
        check(
            "seed",
            given.seed.map(|s| s.to_string()),
            meta.seed.to_string(),
        ),
        check(
            "rollouts_per_example",
            given.rollouts.map(|r| r.to_string()),
            recorded.rollouts.to_string(),
        ),
        check(
            "reward_profile",
            given.reward_profile.clone(),
            recorded.reward_profile.clone(),
        ),
        check(
            "reward_config",
            shown(&given.reward_config),
            shown(&recorded.reward_config).unwrap_or_else(|| "none".into()),
        ),
        check(
            "system_prompt_file",
            shown(&given.system_prompt_file),
            meta.system_prompt_file
                .clone()
                .unwrap_or_else(|| "none".into()),
        ),
        check("run_id", given.run_id.clone(), meta.run_id.clone()),
        check(
            "max_turns",
            given.max_turns.map(|t| t.to_string()),
            meta.max_turns.to_string(),
        ),
        check(
            "tool_budget",
            given.tool_budget.map(|t| t.to_string()),
            meta.tool_budget.to_string(),
        ),
        check(
            "few_shot",
            given.few_shot.map(|k| k.to_string()),
            recorded.few_shot.to_string(),
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    if given.models.len() > 1 {
        diff.push("  model: --resume continues one run; give at most one --model".into());
    }
    if given.shuffle && !recorded.shuffle {
        diff.push("  shuffle: run has first, flag says shuffle".into());
    }
    if !given.env_args.is_empty() {
        let was = (entry.args_record)(&recorded_env_args).map_err(|e| {
            PrepareError::data(format!("cannot resume: recorded env_args are invalid: {e}"))
        })?;
        let mut now_pairs = recorded_env_args.clone();
        now_pairs.extend(given.env_args.iter().cloned());
        let now =
            (entry.args_record)(&now_pairs).map_err(|e| PrepareError::usage(e.to_string()))?;
        if now != was {
            diff.push(format!(
                "  env_args: run has {}, flags say {}",
                recorded_env_args.join(" "),
                given.env_args.join(" ")
            ));
        }
    }
    if !diff.is_empty() {
        return Err(PrepareError::usage(format!(
            "--resume: flags contradict the run's metadata:\n{}",
            diff.join("\n")
        )));
    }
    Ok((recorded, meta))
}

/// The run-defining settings `meta` recorded, for a run of `entry`.
#[must_use]
pub fn recorded_spec(entry: &'static EnvEntry, meta: &RunMetadata) -> RunSpec {
    RunSpec {
        entry,
        env_args: entry.recorded_arg_pairs(&meta.env_args),
        max_turns: meta.max_turns,
        tool_budget: meta.tool_budget,
        model: meta.model.clone(),
        dataset: meta.dataset.clone(),
        split: Some(meta.split.clone()),
        num_examples: Some(meta.selection.num_examples),
        shuffle: meta.selection.mode == "shuffle",
        seed: meta.seed,
        rollouts: meta.rollouts_per_example,
        reward_profile: meta.reward_profile.clone(),
        reward_config: meta
            .reward_config_file
            .as_ref()
            .map(|f| PathBuf::from(&f.path)),
        system_prompt_file: meta.system_prompt_file.as_ref().map(PathBuf::from),
        few_shot: meta.few_shot.as_ref().map_or(0, |f| f.k),
    }
}

/// Refuses to resume when the inputs changed since the run started: the
/// rows, the selection, the reward config, or the endpoint.
///
/// # Errors
/// A usage error listing what changed.
pub fn check_resume_inputs(old: &RunMetadata, fresh: &RunMetadata) -> Result<(), PrepareError> {
    let mut mismatches = Vec::new();
    for (name, was, is) in [
        ("dataset_sha256", &old.dataset_sha256, &fresh.dataset_sha256),
        (
            "selected_sha256",
            &old.selected_sha256,
            &fresh.selected_sha256,
        ),
        (
            "reward_config_hash",
            &old.reward_config_hash,
            &fresh.reward_config_hash,
        ),
    ] {
        if was != is {
            mismatches.push(format!("  {name}: run has {was}, now {is}"));
        }
    }
    let training = |m: &RunMetadata| match (m.trainer, m.max_steps) {
        (Some(t), Some(n)) => {
            let hash = |label: &str, h: &Option<String>| {
                h.as_deref()
                    .map(|h| format!(", {label} {}", &h[..h.len().min(12)]))
                    .unwrap_or_default()
            };
            format!(
                "{} for {n} steps{}{}",
                serde_json::json!(t).as_str().unwrap_or("?"),
                hash("config", &m.training_config_sha256),
                hash("budget", &m.training_budget_sha256)
            )
        }
        _ => "none".to_string(),
    };
    if training(old) != training(fresh) {
        mismatches.push(format!(
            "  training: run has {}, now {} (pass the same --trainer / --max-steps / --training-*-sha256)",
            training(old),
            training(fresh)
        ));
    }
    // The worked examples come from the train split: changed rows there
    // change every prompt.
    let shots = |m: &RunMetadata| m.few_shot.as_ref().map(|f| f.sha256.clone());
    if shots(old) != shots(fresh) {
        mismatches.push(format!(
            "  few_shot worked examples: run has {}, now {}",
            shots(old).unwrap_or_else(|| "none".into()),
            shots(fresh).unwrap_or_else(|| "none".into())
        ));
    }
    let base_url = |m: &RunMetadata| m.endpoint.as_ref().map(|e| e.base_url.clone());
    if base_url(old) != base_url(fresh) {
        mismatches.push(format!(
            "  endpoint: run used {}, now {} (pass the same --base-url / --config)",
            base_url(old).unwrap_or_else(|| "none".into()),
            base_url(fresh).unwrap_or_else(|| "none".into())
        ));
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(PrepareError::usage(format!(
            "--resume refused: the inputs changed since the run started:\n{}",
            mismatches.join("\n")
        )))
    }
}
