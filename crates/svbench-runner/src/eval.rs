//! The evaluation loop: a bounded pool of samples in flight and a single
//! writer appending their records in completion order.
//!
//! On an interrupt or abort dispatch stops, samples in flight get a grace
//! period to finish, and the run is left resumable.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use svbench_core::record::{ResultRecord, RunCounts, RunMetadata, RunStatus, SampleError};
use svbench_core::{Example, ExampleSet};
use svbench_envs::environment::{Budgets, Deadline, Environment};
use tokio::task::JoinSet;

use crate::artifacts::{create_run_dir, write_json_atomic, ArtifactError, RunLock};
use crate::integrity::{write_selected_ids, SampleKey, Selection, SELECTED_IDS_FILE};
use crate::progress::Progress;
use crate::results::{recover_checked, ResultsWriter};
use crate::rollout::{run_sample, run_sample_within, Agent};

/// How long samples in flight may take to finish after an interrupt or an
/// abort; [`RunSettings::interrupt_grace`].
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// Settings of the loop itself (not of the run's identity).
#[derive(Clone)]
pub struct RunSettings {
    /// Samples per example.
    pub rollouts_per_example: usize,
    /// Abort after this many consecutive errored samples (0 disables).
    pub max_consecutive_errors: u32,
    /// Show a progress bar (only when stderr is a terminal).
    pub progress: bool,
    /// On resume, re-run samples whose last record is an error.
    pub retry_errors: bool,
    /// Samples in flight.
    pub concurrency: usize,
    /// Turn and tool limits per sample.
    pub budgets: Budgets,
    /// Wall-time limit per sample (`timeout` error when exceeded). It ends
    /// the sample even while a tool call or scoring is still running: that
    /// work runs on the blocking pool and is abandoned there, and scoring
    /// is handed the same deadline so environments that honour it stop.
    pub sample_timeout: Option<Duration>,
    /// Label of the progress bar.
    pub label: String,
    /// Extra progress counters (retries, 429s) from the client.
    pub stats: Option<crate::progress::StatsNote>,
    /// After an interrupt or abort, how long samples in flight may take to
    /// finish ([`INTERRUPT_GRACE`]); then [`run_eval`] returns without them,
    /// even if their scoring or tool calls are still running on the
    /// blocking pool (callers then shut the runtime down without waiting:
    /// `Runtime::shutdown_background`).
    pub interrupt_grace: Duration,
}

impl std::fmt::Debug for RunSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSettings")
            .field("rollouts_per_example", &self.rollouts_per_example)
            .field("concurrency", &self.concurrency)
            .field("budgets", &self.budgets)
            .finish_non_exhaustive()
    }
}

/// A run to execute: where, what and who answers.
pub struct EvalPlan {
    /// The environment.
    pub env: Arc<dyn Environment>,
    /// Who answers.
    pub agent: Agent,
    /// Selected examples in evaluation order, built one at a time as they
    /// are dispatched.
    pub examples: Arc<dyn ExampleSet>,
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

impl std::fmt::Debug for EvalPlan {
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
    /// Why the run stopped, when it was aborted.
    pub abort: Option<RunAbort>,
}

/// Why a run was aborted, for callers to report (`metadata.json` keeps only
/// [`RunAbort::reason`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RunAbort {
    /// What stopped the run.
    pub cause: AbortCause,
    /// The same, as `metadata.abort_reason` words it.
    pub reason: String,
    /// Kind of the error behind it: the sample error's kind (`connection`,
    /// `http_status`, `timeout`, …) of the fatal error, or of the first
    /// sample of the errored run; `dataset` or `internal` otherwise.
    pub kind: String,
    /// That error's message.
    pub message: String,
    /// That error's HTTP status, if any.
    pub http_status: Option<u16>,
    /// Samples of the run that ended with an error.
    pub failed: usize,
    /// Samples the run planned.
    pub total: usize,
}

/// What stopped an aborted run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AbortCause {
    /// An endpoint error that retrying cannot fix (HTTP 401, 403, 404).
    FatalError,
    /// This many errored samples in a row reached
    /// [`RunSettings::max_consecutive_errors`].
    ConsecutiveErrors(u32),
    /// The example set could not build the example at this index.
    UnreadableExample(usize),
    /// A sample task panicked (a bug).
    Internal,
}

impl AbortCause {
    /// A stable snake_case name (`fatal_error`, `consecutive_errors`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::FatalError => "fatal_error",
            Self::ConsecutiveErrors(_) => "consecutive_errors",
            Self::UnreadableExample(_) => "unreadable_example",
            Self::Internal => "internal",
        }
    }
}

/// The error behind an abort, until the outcome is assembled.
struct Cause {
    cause: AbortCause,
    kind: String,
    message: String,
    http_status: Option<u16>,
}

impl Cause {
    fn sample(cause: AbortCause, e: &SampleError) -> Self {
        Self {
            cause,
            kind: e.kind.clone(),
            message: e.message.clone(),
            http_status: e.http_status,
        }
    }

    fn other(cause: AbortCause, kind: &str, message: String) -> Self {
        Self {
            cause,
            kind: kind.into(),
            message,
            http_status: None,
        }
    }
}

/// Errors of the loop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// Artifact I/O.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    /// Two selected examples share an id, so their records could not be
    /// told apart.
    #[error("two selected examples have the id `{0}`")]
    DuplicateId(String),
}

/// What is known of each sample of the run: one byte per sample, indexed
/// `example index × rollouts + rollout`, so a 1,000,000-sample run keeps
/// 1 MB of progress state.
#[derive(Debug)]
struct SampleStates {
    states: Vec<u8>,
    rollouts: usize,
}

const PENDING: u8 = 0;
const DONE: u8 = 1;
const ERRORED: u8 = 2;

impl SampleStates {
    fn new(examples: usize, rollouts: usize) -> Self {
        Self {
            states: vec![PENDING; examples * rollouts],
            rollouts,
        }
    }

    fn set(&mut self, (index, rollout): SampleKey, ok: bool) {
        self.states[index * self.rollouts + rollout] = if ok { DONE } else { ERRORED };
    }

    /// Whether sample `k` still has to run.
    fn todo(&self, k: usize, retry_errors: bool) -> bool {
        match self.states[k] {
            PENDING => true,
            ERRORED => retry_errors,
            _ => false,
        }
    }

    fn counts(&self) -> RunCounts {
        let count = |s| self.states.iter().filter(|&&x| x == s).count();
        let (completed, errored) = (count(DONE), count(ERRORED));
        RunCounts {
            planned: self.states.len(),
            completed,
            errored,
            pending: self.states.len() - completed - errored,
        }
    }
}

fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Runs (or resumes) an evaluation to completion, abort or interrupt.
pub async fn run_eval(plan: EvalPlan) -> Result<EvalOutcome, EvalError> {
    let examples = plan.examples;
    let settings = plan.settings;
    let rollouts = settings.rollouts_per_example.max(1);
    // Checked before the run directory is touched.
    let selection = Selection::new((0..examples.len()).map(|i| examples.id(i)), rollouts);
    if selection.len() != examples.len() {
        let mut seen = std::collections::HashSet::new();
        let repeated = (0..examples.len())
            .map(|i| examples.id(i))
            .find(|id| !seen.insert(*id))
            .unwrap_or_default();
        return Err(EvalError::DuplicateId(repeated.to_string()));
    }
    let dir = plan.run_dir.clone();
    if !plan.resume {
        create_run_dir(&dir)?;
    }
    let _lock = RunLock::acquire(&dir)?;
    let results_path = dir.join("results.jsonl");
    // Each kept record must carry its dataset row (a record edited after
    // the fact is refused, not continued).
    let mut recovered = recover_checked(&results_path, Some(&selection), Some(examples.as_ref()))?;
    drop(selection);
    let mut done = SampleStates::new(examples.len(), rollouts);
    for (key, ok) in std::mem::take(&mut recovered.done) {
        done.set(key, ok);
    }

    let mut metadata = plan.metadata;
    metadata.status = RunStatus::Running;
    metadata.finished_at = None;
    metadata.abort_reason = None;
    let planned = examples.len() * rollouts;
    metadata.counts = done.counts();
    write_json_atomic(&dir.join("metadata.json"), "metadata.json", &metadata)?;
    // So that `report` can tell a record of another run even in a partial run.
    write_selected_ids(&dir, (0..examples.len()).map(|i| examples.id(i))).map_err(|source| {
        ArtifactError::Io {
            path: dir.join(SELECTED_IDS_FILE),
            source,
        }
    })?;

    // Samples are taken in order from a cursor over the states (no list of
    // pending samples is built).
    let todo = (0..planned)
        .filter(|&k| done.todo(k, settings.retry_errors))
        .count();
    let mut cursor = 0usize;

    let mut writer = ResultsWriter::open(&results_path)?;
    let mut progress = Progress::new(
        settings.progress,
        &settings.label,
        planned as u64,
        (planned - todo) as u64,
        settings.stats.clone(),
    );
    let mut consecutive_errors = 0u32;
    // The first error of the current run of errored samples.
    let mut streak_first: Option<SampleError> = None;
    let mut status = RunStatus::Completed;
    let mut abort_reason = None;
    let mut abort_cause: Option<Cause> = None;
    let mut in_flight: JoinSet<(SampleKey, ResultRecordOutcome)> = JoinSet::new();
    let concurrency = settings.concurrency.max(1);
    let mut stop_dispatch = false;
    let mut grace_deadline: Option<tokio::time::Instant> = None;

    loop {
        if !stop_dispatch && plan.interrupt.load(Ordering::SeqCst) {
            stop_dispatch = true;
            status = RunStatus::Interrupted;
        }
        if stop_dispatch && grace_deadline.is_none() {
            grace_deadline = Some(tokio::time::Instant::now() + settings.interrupt_grace);
        }
        while !stop_dispatch && in_flight.len() < concurrency {
            while cursor < planned && !done.todo(cursor, settings.retry_errors) {
                cursor += 1;
            }
            if cursor == planned {
                break;
            }
            let key = (cursor / rollouts, cursor % rollouts);
            cursor += 1;
            let example = match examples.example(key.0) {
                Ok(example) => example,
                Err(e) => {
                    status = RunStatus::Aborted;
                    abort_reason = Some(format!("cannot read example {}: {e}", key.0));
                    abort_cause = Some(Cause::other(
                        AbortCause::UnreadableExample(key.0),
                        "dataset",
                        e.to_string(),
                    ));
                    stop_dispatch = true;
                    break;
                }
            };
            let env = plan.env.clone();
            let agent = plan.agent.clone();
            let budgets = settings.budgets;
            let timeout = settings.sample_timeout;
            let rollout = key.1;
            in_flight.spawn(async move {
                let outcome: ResultRecordOutcome = match timeout {
                    None => run_sample(env, &agent, &example, rollout, budgets)
                        .await
                        .into(),
                    Some(limit) => {
                        // One instant for the wait and for scoring's own deadline.
                        let end = std::time::Instant::now() + limit;
                        let sample = run_sample_within(
                            env,
                            &agent,
                            &example,
                            rollout,
                            budgets,
                            Deadline::at(end, limit),
                        );
                        match tokio::time::timeout_at(end.into(), sample).await {
                            Ok(outcome) if !outcome.timed_out => outcome.into(),
                            _ => ResultRecordOutcome {
                                record: timed_out(&example, rollout, limit),
                                fatal: false,
                            },
                        }
                    }
                };
                (key, outcome)
            });
        }
        if in_flight.is_empty() {
            break;
        }
        let joined = match grace_deadline {
            Some(deadline) => {
                match tokio::time::timeout_at(deadline, in_flight.join_next()).await {
                    Ok(j) => j,
                    Err(_) => {
                        // Grace period over: drop what is still running.
                        in_flight.abort_all();
                        break;
                    }
                }
            }
            None => {
                // Wake up periodically to notice an interrupt.
                match tokio::time::timeout(Duration::from_millis(100), in_flight.join_next()).await
                {
                    Ok(j) => j,
                    Err(_) => continue,
                }
            }
        };
        let Some(joined) = joined else { break };
        let (key, outcome) = match joined {
            Ok(o) => o,
            Err(e) if e.is_cancelled() => continue,
            Err(e) => {
                // A panic in a sample task is a bug; record nothing for it so
                // a resume redoes the sample, and abort the run loudly.
                status = RunStatus::Aborted;
                abort_reason = Some(format!("internal error in a sample task: {e}"));
                abort_cause = Some(Cause::other(
                    AbortCause::Internal,
                    "internal",
                    e.to_string(),
                ));
                stop_dispatch = true;
                continue;
            }
        };
        let record = outcome.record;
        let errored = record.error.is_some();
        writer.append(&record)?;
        progress.sample_done(record.reward);
        done.set(key, !errored);
        if outcome.fatal && status != RunStatus::Aborted {
            status = RunStatus::Aborted;
            abort_reason = record
                .error
                .as_ref()
                .map(|e| format!("fatal endpoint error: {}", e.message));
            abort_cause = record
                .error
                .as_ref()
                .map(|e| Cause::sample(AbortCause::FatalError, e));
            stop_dispatch = true;
        }
        if let Some(error) = &record.error {
            consecutive_errors += 1;
            let first = streak_first.get_or_insert_with(|| error.clone());
            let limit = settings.max_consecutive_errors;
            if limit > 0 && consecutive_errors >= limit && status == RunStatus::Completed {
                status = RunStatus::Aborted;
                abort_reason = Some(format!("{consecutive_errors} consecutive errored samples"));
                abort_cause = Some(Cause::sample(
                    AbortCause::ConsecutiveErrors(consecutive_errors),
                    first,
                ));
                stop_dispatch = true;
            }
        } else {
            consecutive_errors = 0;
            streak_first = None;
        }
    }
    writer.sync()?;
    progress.finish();

    metadata.counts = done.counts();
    metadata.status = status;
    metadata.abort_reason = abort_reason;
    metadata.finished_at = Some(now_rfc3339());
    write_json_atomic(&dir.join("metadata.json"), "metadata.json", &metadata)?;
    let abort = match (status, &metadata.abort_reason, abort_cause) {
        (RunStatus::Aborted, Some(reason), Some(c)) => Some(RunAbort {
            cause: c.cause,
            reason: reason.clone(),
            kind: c.kind,
            message: c.message,
            http_status: c.http_status,
            failed: metadata.counts.errored,
            total: metadata.counts.planned,
        }),
        _ => None,
    };
    Ok(EvalOutcome {
        status,
        counts: metadata.counts.clone(),
        run_dir: dir,
        truncated_lines: recovered.truncated_lines,
        metadata,
        abort,
    })
}

/// A finished sample as the pool hands it to the writer.
struct ResultRecordOutcome {
    record: ResultRecord,
    fatal: bool,
}

impl From<crate::rollout::SampleOutcome> for ResultRecordOutcome {
    fn from(o: crate::rollout::SampleOutcome) -> Self {
        Self {
            record: o.record,
            fatal: o.fatal,
        }
    }
}

/// The record of a sample that exceeded `--sample-timeout`.
fn timed_out(example: &Example, rollout_index: usize, limit: Duration) -> ResultRecord {
    let message = format!(
        "sample exceeded --sample-timeout of {} s",
        limit.as_secs_f64()
    );
    ResultRecord {
        index: example.index,
        rollout_index,
        example_id: example.id.clone(),
        split: example.split.clone().unwrap_or_else(|| "all".into()),
        question: example.question.clone(),
        answer: example.answer.clone(),
        info: example.info_value(),
        completion_error: Some(message.clone()),
        error: Some(SampleError {
            kind: "timeout".into(),
            message,
            http_status: None,
            attempts: 0,
            retryable: true,
        }),
        latency_ms: limit.as_secs_f64() * 1000.0,
        finished_at: now_rfc3339(),
        ..Default::default()
    }
}

/// Whether a directory looks like a run directory (has `metadata.json`).
pub fn is_run_dir(path: &Path) -> bool {
    path.join("metadata.json").is_file()
}
