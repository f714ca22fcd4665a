//! The evaluation loop for single-turn environments and builtin policies.
//!
//! Samples run in index order; each builds its prompt, asks the policy,
//! scores the answer through the environment and appends one record. On an
//! interrupt dispatch stops after the sample in flight and the run is left
//! resumable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use chrono::{SecondsFormat, Utc};
use serde_json::{json, Value};
use svbench_core::record::{ResultRecord, RunCounts, RunMetadata, RunStatus, SampleError, Usage};
use svbench_core::{Completion, Example};
use svbench_envs::policy::Policy;
use svbench_envs::single_turn::SingleTurnEnv;

use crate::artifacts::{create_run_dir, write_json_atomic, ArtifactError, RunLock};
use crate::progress::Progress;
use crate::results::{recover, ResultsWriter};

/// Settings of the loop itself (not of the run's identity).
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Samples per example.
    pub rollouts_per_example: usize,
    /// Abort after this many consecutive errored samples (0 disables).
    pub max_consecutive_errors: u32,
    /// Show a progress bar (only when stderr is a terminal).
    pub progress: bool,
    /// On resume, re-run samples whose last record is an error.
    pub retry_errors: bool,
}

/// A run to execute: where, what and with which policy.
pub struct EvalPlan<'a> {
    /// The environment.
    pub env: &'a dyn SingleTurnEnv,
    /// The policy answering.
    pub policy: &'a dyn Policy,
    /// Selected examples in evaluation order.
    pub examples: &'a [Example],
    /// Metadata as written at start (status is managed by the loop).
    pub metadata: RunMetadata,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Continue an existing run instead of creating one.
    pub resume: bool,
    /// Loop settings.
    pub settings: RunSettings,
    /// Set by a signal handler to stop dispatch.
    pub interrupt: Arc<AtomicBool>,
}

impl std::fmt::Debug for EvalPlan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalPlan")
            .field("run_dir", &self.run_dir)
            .field("examples", &self.examples.len())
            .field("resume", &self.resume)
            .finish()
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct EvalOutcome {
    /// Final status.
    pub status: RunStatus,
    /// Final counts.
    pub counts: RunCounts,
    /// Run directory.
    pub run_dir: PathBuf,
    /// Lines truncated from a torn results file on resume.
    pub truncated_lines: usize,
    /// Final metadata as written.
    pub metadata: RunMetadata,
}

/// Errors of the loop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// Artifact I/O.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
}

fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Runs (or resumes) an evaluation to completion, abort or interrupt.
pub fn run_eval(plan: EvalPlan<'_>) -> Result<EvalOutcome, EvalError> {
    let dir = plan.run_dir.clone();
    if !plan.resume {
        create_run_dir(&dir)?;
    }
    let _lock = RunLock::acquire(&dir)?;
    let results_path = dir.join("results.jsonl");
    let recovered = recover(&results_path)?;
    let mut done: HashMap<(String, usize), bool> = recovered
        .records
        .iter()
        .map(|(k, r)| (k.clone(), r.error.is_none()))
        .collect();

    let mut metadata = plan.metadata;
    metadata.status = RunStatus::Running;
    metadata.finished_at = None;
    metadata.abort_reason = None;
    let rollouts = plan.settings.rollouts_per_example.max(1);
    let planned = plan.examples.len() * rollouts;
    metadata.counts = counts(&done, planned);
    write_json_atomic(&dir.join("metadata.json"), "metadata.json", &metadata)?;

    let todo: Vec<(&Example, usize)> = plan
        .examples
        .iter()
        .flat_map(|ex| (0..rollouts).map(move |r| (ex, r)))
        .filter(|(ex, r)| match done.get(&(ex.id.clone(), *r)) {
            None => true,
            Some(ok) => !ok && plan.settings.retry_errors,
        })
        .collect();

    let mut writer = ResultsWriter::open(&results_path)?;
    let mut progress = Progress::new(
        plan.settings.progress,
        plan.policy.name(),
        planned as u64,
        (planned - todo.len()) as u64,
    );
    let mut consecutive_errors = 0u32;
    let mut status = RunStatus::Completed;
    let mut abort_reason = None;
    for (example, rollout) in todo {
        if plan.interrupt.load(Ordering::SeqCst) {
            status = RunStatus::Interrupted;
            break;
        }
        let record = run_sample(plan.env, plan.policy, example, rollout);
        let errored = record.error.is_some();
        writer.append(&record)?;
        progress.sample_done(record.reward);
        done.insert((example.id.clone(), rollout), !errored);
        if errored {
            consecutive_errors += 1;
            let limit = plan.settings.max_consecutive_errors;
            if limit > 0 && consecutive_errors >= limit {
                status = RunStatus::Aborted;
                abort_reason = Some(format!("{consecutive_errors} consecutive errored samples"));
                break;
            }
        } else {
            consecutive_errors = 0;
        }
    }
    writer.sync()?;
    progress.finish();

    metadata.counts = counts(&done, planned);
    metadata.status = status;
    metadata.abort_reason = abort_reason;
    metadata.finished_at = Some(now_rfc3339());
    write_json_atomic(&dir.join("metadata.json"), "metadata.json", &metadata)?;
    Ok(EvalOutcome {
        status,
        counts: metadata.counts.clone(),
        run_dir: dir,
        truncated_lines: recovered.truncated_lines,
        metadata,
    })
}

fn counts(done: &HashMap<(String, usize), bool>, planned: usize) -> RunCounts {
    let completed = done.values().filter(|ok| **ok).count();
    let errored = done.len() - completed;
    RunCounts {
        planned,
        completed,
        errored,
        pending: planned.saturating_sub(done.len()),
    }
}

/// One sample: prompt, policy, score, record.
pub fn run_sample(
    env: &dyn SingleTurnEnv,
    policy: &dyn Policy,
    example: &Example,
    rollout_index: usize,
) -> ResultRecord {
    let started_at = now_rfc3339();
    let clock = Instant::now();
    let prompt = env.initial_messages(example);
    let answer = policy
        .respond(example, rollout_index, &prompt)
        .and_then(|completion| {
            env.score(example, &completion)
                .map(|scored| (completion, scored))
                .map_err(|e| SampleError {
                    kind: "internal".into(),
                    message: e.to_string(),
                    http_status: None,
                    attempts: 1,
                    retryable: false,
                })
        });
    let mut record = ResultRecord {
        index: example.index,
        rollout_index,
        example_id: example.id.clone(),
        split: example.split.clone().unwrap_or_else(|| "all".into()),
        question: example.question.clone(),
        prompt,
        answer: example.answer.clone(),
        info: example.info.clone(),
        turns: 1,
        usage: Usage::default(),
        started_at,
        ..Default::default()
    };
    match answer {
        Ok((completion, scored)) => {
            let messages = completion_messages(&completion);
            record.completion = Some(final_text(&messages));
            record.reasoning_content = vec![None; messages.len().max(1)];
            record.completion_messages = messages;
            record.parsed = Some(scored.parsed).filter(|v| !v.is_null());
            record.parse = Some(scored.parse);
            record.reward = Some(scored.reward.total);
            record.rewards = scored.reward.values();
            record.reward_profile = scored.reward.profile.to_string();
            record.compat = scored.compat;
        }
        Err(err) => {
            record.completion_error = Some(err.message.clone());
            record.error = Some(err);
        }
    }
    record.latency_ms = clock.elapsed().as_secs_f64() * 1000.0;
    record.finished_at = now_rfc3339();
    record
}

fn completion_messages(completion: &Completion) -> Vec<Value> {
    match completion {
        Completion::Text(text) => vec![json!({"role": "assistant", "content": text})],
        Completion::Messages(msgs) => msgs.clone(),
    }
}

/// The final assistant text of a sample (`""` if none).
fn final_text(messages: &[Value]) -> String {
    messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Whether a directory looks like a run directory (has `metadata.json`).
pub fn is_run_dir(path: &Path) -> bool {
    path.join("metadata.json").is_file()
}
