//! One sample, start to finish: prompt, model or builtin turns, tool calls
//! within the environment's budgets, scoring, and the result record.
//!
//! Synchronous work that may take long — scoring (analyzers, patch
//! application and re-scans), starting an episode and its tool calls, a
//! builtin policy's turns — runs on tokio's blocking pool
//! ([`tokio::task::spawn_blocking`]), never on an async worker: the workers
//! stay free to drive timers and other samples' requests, so the runner can
//! stop waiting at a deadline (`--sample-timeout`, the interrupt grace
//! period) while such work is still running. Work that cannot be stopped is
//! abandoned there; scoring is also handed the sample's deadline, so
//! environments that honour one stop the work itself.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use chrono::{SecondsFormat, Utc};
use serde_json::{json, Value};
use svbench_core::record::{RequestRecord, ResultRecord, SampleError, Usage};
use svbench_core::{Completion, Example, Message, ParseRecord, ParseStatus};
use svbench_envs::environment::{
    run_tool_call, Budgets, Deadline, Environment, Episode, ScoreErrorKind, ScoredAnswer,
};
use svbench_envs::policy::Policy;

/// One assistant turn as produced by a model endpoint.
#[derive(Debug, Clone)]
pub struct AssistantTurn {
    /// The assistant message (content and tool calls).
    pub message: Message,
    /// Reasoning text, recorded but never parsed.
    pub reasoning: Option<String>,
    /// The request record of the call.
    pub record: RequestRecord,
    /// Stopped by the token limit.
    pub truncated: bool,
    /// The responder has nothing more to say (a replay whose recording ran
    /// out): `message` is not part of the conversation and the sample ends
    /// here — with no answer if tool calls are pending.
    pub ends_episode: bool,
}

/// Why a turn failed.
#[derive(Debug, Clone)]
pub enum TurnFailure {
    /// Record the error on the sample and carry on with the run.
    Sample(SampleError),
    /// Record the error and abort the run (401, 403, 404).
    Fatal(SampleError),
}

/// The future a [`Responder`] returns.
pub type TurnFuture<'a> =
    Pin<Box<dyn Future<Output = Result<AssistantTurn, TurnFailure>> + Send + 'a>>;

/// What a turn is asked with.
#[derive(Debug, Clone, Copy)]
pub struct TurnContext<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// Tools offered.
    pub tools: &'a [Value],
    /// Example id (seeds, cache keys).
    pub example_id: &'a str,
    /// Rollout number.
    pub rollout_index: usize,
    /// 0-based turn.
    pub turn: u32,
}

/// A model endpoint (or anything that answers turns asynchronously).
pub trait Responder: Send + Sync {
    /// Answers one turn.
    fn respond<'a>(&'a self, ctx: TurnContext<'a>) -> TurnFuture<'a>;
}

/// Who answers the samples of a run.
#[derive(Clone)]
pub enum Agent {
    /// A builtin policy: answers in-process, single turn.
    Builtin(Arc<dyn Policy>),
    /// A model endpoint driven through the multi-turn loop.
    Model(Arc<dyn Responder>),
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Agent::Builtin(p) => write!(f, "Builtin({})", p.name()),
            Agent::Model(_) => f.write_str("Model"),
        }
    }
}

/// The outcome of one sample: its record, and whether the run must abort.
#[derive(Debug)]
pub struct SampleOutcome {
    /// The line for `results.jsonl`.
    pub record: ResultRecord,
    /// A fatal endpoint error happened.
    pub fatal: bool,
    /// Scoring stopped at the sample's deadline ([`run_sample_within`]):
    /// the sample ran out of time, and `record` is not its final record —
    /// callers record it as they record any sample past its time limit.
    pub timed_out: bool,
}

fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Runs `f` on the blocking pool and waits for it; a panic in `f`
/// propagates as if it happened here (the runner records nothing for the
/// sample and aborts the run loudly, as for any panic in a sample).
async fn off_runtime<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Cancelled: the runtime is shutting down, so nobody awaits this.
        Err(e) => panic!("blocking task cancelled: {e}"),
    }
}

/// Runs one sample to completion.
pub async fn run_sample(
    env: Arc<dyn Environment>,
    agent: &Agent,
    example: &Example,
    rollout_index: usize,
    budgets: Budgets,
) -> SampleOutcome {
    run_sample_within(env, agent, example, rollout_index, budgets, Deadline::NONE).await
}

/// [`run_sample`] for a sample with a time limit ending at `deadline`:
/// scoring is asked to stop then ([`Environment::score_within`]), and if it
/// does the outcome is [`SampleOutcome::timed_out`]. The caller still
/// bounds its wait for the sample (e.g. `tokio::time::timeout_at`), since
/// tool calls and environments that ignore the deadline run on.
pub async fn run_sample_within(
    env: Arc<dyn Environment>,
    agent: &Agent,
    example: &Example,
    rollout_index: usize,
    budgets: Budgets,
    deadline: Deadline,
) -> SampleOutcome {
    let started_at = now_rfc3339();
    let clock = Instant::now();
    let prompt = env.initial_messages(example);
    let mut record = ResultRecord {
        index: example.index,
        rollout_index,
        example_id: example.id.clone(),
        split: example.split.clone().unwrap_or_else(|| "all".into()),
        question: example.question.clone(),
        prompt: prompt.clone(),
        answer: example.answer.clone(),
        info: example.info_value(),
        started_at,
        ..Default::default()
    };
    let mut fatal = false;
    let transcript = match agent {
        Agent::Builtin(policy) if policy.interactive() => {
            // A multi-turn builtin goes through the model loop (same tool
            // budget, turn limit and recorded tool interactions).
            let responder = PolicyResponder {
                policy: policy.clone(),
                example: Arc::new(example.clone()),
            };
            drive_model(
                &env,
                &responder,
                example,
                rollout_index,
                budgets,
                prompt,
                &mut record,
                false,
            )
            .await
            .map_err(|failure| match failure {
                TurnFailure::Sample(e) | TurnFailure::Fatal(e) => e,
            })
        }
        Agent::Builtin(policy) => {
            let (policy, owned) = (policy.clone(), example.clone());
            off_runtime(move || policy.respond(&owned, rollout_index, &prompt))
                .await
                .map(|completion| {
                    record.turns = 1;
                    Transcript {
                        completion,
                        no_answer: false,
                    }
                })
        }
        Agent::Model(responder) => {
            let result = drive_model(
                &env,
                responder.as_ref(),
                example,
                rollout_index,
                budgets,
                prompt,
                &mut record,
                true,
            )
            .await;
            result.map_err(|failure| match failure {
                TurnFailure::Sample(e) => e,
                TurnFailure::Fatal(e) => {
                    fatal = true;
                    e
                }
            })
        }
    };
    let mut timed_out = false;
    match transcript {
        Ok(t) => timed_out = score_into(&env, example, t, &mut record, deadline).await,
        Err(err) => {
            record.completion = None;
            record.completion_error = Some(err.message.clone());
            record.error = Some(err);
        }
    }
    record.latency_ms = clock.elapsed().as_secs_f64() * 1000.0;
    record.finished_at = now_rfc3339();
    SampleOutcome {
        record,
        fatal,
        timed_out,
    }
}

/// What the policy produced, ready for scoring.
struct Transcript {
    completion: Completion,
    no_answer: bool,
}

/// A multi-turn builtin policy answering turns in-process (on the
/// blocking pool: a policy may run analyzers).
struct PolicyResponder {
    policy: Arc<dyn Policy>,
    example: Arc<Example>,
}

impl Responder for PolicyResponder {
    fn respond<'a>(&'a self, ctx: TurnContext<'a>) -> TurnFuture<'a> {
        let (policy, example) = (self.policy.clone(), self.example.clone());
        let (rollout_index, messages) = (ctx.rollout_index, ctx.messages.to_vec());
        Box::pin(async move {
            let clock = Instant::now();
            off_runtime(move || policy.respond(&example, rollout_index, &messages))
                .await
                .map_err(TurnFailure::Sample)
                .map(|completion| {
                    // An empty message list: the policy has no further turn.
                    let ends_episode =
                        matches!(&completion, Completion::Messages(m) if m.is_empty());
                    let value = match completion {
                        Completion::Text(text) => json!({"role": "assistant", "content": text}),
                        Completion::Messages(msgs) => {
                            msgs.into_iter().last().unwrap_or(Value::Null)
                        }
                    };
                    let message = serde_json::from_value::<Message>(value)
                        .unwrap_or_else(|_| Message::assistant(String::new()));
                    AssistantTurn {
                        message,
                        reasoning: None,
                        record: RequestRecord {
                            turn: ctx.turn,
                            latency_ms: clock.elapsed().as_secs_f64() * 1000.0,
                            ..RequestRecord::default()
                        },
                        truncated: false,
                        ends_episode,
                    }
                })
        })
    }
}

/// The multi-turn loop: call the model, execute tool calls within the
/// budget, stop at a reply without tool calls or at the turn limit.
/// `record_requests` is false for builtin policies, which make no requests.
#[allow(clippy::too_many_arguments)]
async fn drive_model(
    env: &Arc<dyn Environment>,
    responder: &dyn Responder,
    example: &Example,
    rollout_index: usize,
    budgets: Budgets,
    prompt: Vec<Message>,
    record: &mut ResultRecord,
    record_requests: bool,
) -> Result<Transcript, TurnFailure> {
    let tools = env.tools();
    // Started with the first tool call, on the blocking pool (an
    // environment may set up a workspace); samples without tool calls
    // never start one.
    let mut episode: Option<Box<dyn Episode>> = None;
    let mut conversation = prompt;
    let mut transcript: Vec<Value> = Vec::new();
    let mut tool_calls_used = 0u32;
    let mut pending_tools = false;
    for turn in 0..budgets.max_turns.max(1) {
        let reply = responder
            .respond(TurnContext {
                messages: &conversation,
                tools: &tools,
                example_id: &example.id,
                rollout_index,
                turn,
            })
            .await?;
        if reply.ends_episode {
            break;
        }
        record.turns = turn + 1;
        if record_requests {
            add_usage(&mut record.usage, &reply.record);
            record.requests.push(reply.record);
        }
        record.reasoning_content.push(reply.reasoning);
        record.truncated |= reply.truncated;
        transcript.push(serde_json::to_value(&reply.message).unwrap_or(Value::Null));
        let calls = reply.message.tool_calls.clone();
        conversation.push(reply.message);
        if calls.is_empty() {
            pending_tools = false;
            break;
        }
        pending_tools = true;
        if turn + 1 >= budgets.max_turns {
            // Turn limit with calls pending: the sample ends with no answer.
            break;
        }
        for call in calls {
            let budget = budgets.tool_budget;
            let mut used = tool_calls_used;
            let state = episode.take().ok_or_else(|| (env.clone(), example.clone()));
            let (ep, used, run) = off_runtime(move || {
                let mut ep = state.unwrap_or_else(|(env, example)| env.start_episode(&example));
                let run = run_tool_call(ep.as_mut(), &call, turn, &mut used, budget);
                (ep, used, run)
            })
            .await;
            episode = Some(ep);
            tool_calls_used = used;
            record.tool_time_ms += run.duration_ms;
            record.tool_calls += 1;
            record.tool_interactions.push(run.interaction);
            transcript.push(serde_json::to_value(&run.message).unwrap_or(Value::Null));
            conversation.push(run.message);
        }
    }
    if pending_tools {
        record.truncated = true;
    }
    Ok(Transcript {
        completion: Completion::Messages(transcript),
        no_answer: pending_tools,
    })
}

fn add_usage(total: &mut Usage, request: &RequestRecord) {
    total.prompt_tokens += request.usage.prompt_tokens;
    total.completion_tokens += request.usage.completion_tokens;
    total.reasoning_tokens += request.usage.reasoning_tokens;
    total.total_tokens += request.usage.prompt_tokens + request.usage.completion_tokens;
    total.requests += 1;
    total.cached_requests += u64::from(request.cached);
}

/// Scores a finished transcript (on the blocking pool, within `deadline`)
/// and fills the record's answer fields. True when scoring stopped because
/// the sample's deadline passed.
async fn score_into(
    env: &Arc<dyn Environment>,
    example: &Example,
    t: Transcript,
    record: &mut ResultRecord,
    deadline: Deadline,
) -> bool {
    let messages = match &t.completion {
        Completion::Text(text) => vec![json!({"role": "assistant", "content": text})],
        Completion::Messages(msgs) => msgs.clone(),
    };
    if record.reasoning_content.is_empty() {
        record.reasoning_content = vec![None; 1];
    }
    // A sample stopped at the turn limit with tool calls pending has no
    // answer; it is recorded as `no_answer`. The environment scores the
    // transcript with the pending message's content removed (its tool calls
    // kept, so it can tell no answer from an empty one): answer components
    // are 0, while rewards that read tool messages (E2's upstream
    // `tool_observation_reward`) still see them.
    let scored_completion = if t.no_answer {
        Completion::Messages(without_pending_content(&messages))
    } else {
        t.completion
    };
    record.completion = Some(recorded_completion(&messages, t.no_answer));
    record.completion_messages = messages;
    let (env, owned) = (env.clone(), example.clone());
    let scored = off_runtime(move || env.score_within(&owned, &scored_completion, deadline)).await;
    match scored.map(|s| (non_finite_score(&s), s)) {
        Ok((None, scored)) => fill_scored(record, scored, t.no_answer),
        // JSON would write the total as `null`, as if the sample had
        // errored; say so instead (reward configs refuse weights that can
        // overflow, so this is a bug in a reward).
        Ok((Some(message), _)) => {
            let err = SampleError {
                kind: "internal".into(),
                message,
                http_status: None,
                attempts: 0,
                retryable: false,
            };
            record.completion = None;
            record.completion_error = Some(err.message.clone());
            record.error = Some(err);
        }
        // The sample's time limit, not the environment's own scoring
        // budget: a timeout like any other.
        Err(e) if e.kind == ScoreErrorKind::TimeBudgetExceeded && deadline.expired() => {
            return true;
        }
        Err(e) => {
            let err = SampleError {
                kind: "internal".into(),
                message: e.to_string(),
                http_status: None,
                attempts: 0,
                retryable: false,
            };
            record.completion = None;
            record.completion_error = Some(err.message.clone());
            record.error = Some(err);
        }
    }
    false
}

/// Fills a record's answer fields from its scored answer (`parse` says
/// `no_answer` for a sample stopped with tool calls pending). `eval` and
/// `report --verify` both go through here, so they record alike.
pub(crate) fn fill_scored(record: &mut ResultRecord, scored: ScoredAnswer, no_answer: bool) {
    record.parsed = scored.parsed;
    record.parse = Some(if no_answer {
        ParseRecord {
            status: ParseStatus::NoAnswer,
            reason: Some("turn_limit".into()),
            format_ok: Some(false),
        }
    } else {
        scored.parse
    });
    record.reward = Some(scored.reward.total);
    record.rewards = scored.reward.values();
    record.reward_profile = scored.reward.profile.to_string();
    record.compat = scored.compat;
}

/// Why a scored answer cannot be recorded: a total or component that is
/// not a finite number.
pub(crate) fn non_finite_score(scored: &ScoredAnswer) -> Option<String> {
    let r = &scored.reward;
    if !r.total.is_finite() {
        return Some(format!(
            "the reward total is not a finite number ({}); components: {:?}",
            r.total,
            r.values()
        ));
    }
    r.components.iter().find(|c| !c.value.is_finite()).map(|c| {
        format!(
            "reward component `{}` is not a finite number ({})",
            c.name, c.value
        )
    })
}

/// The record's `completion`: the final assistant text, `""` for a sample
/// without an answer.
pub(crate) fn recorded_completion(messages: &[Value], no_answer: bool) -> String {
    if no_answer {
        String::new()
    } else {
        final_text(messages)
    }
}

/// The completion a transcript is scored with: with the pending message's
/// content removed when the sample has no answer.
pub(crate) fn scored_completion(messages: &[Value], no_answer: bool) -> Completion {
    if no_answer {
        Completion::Messages(without_pending_content(messages))
    } else {
        Completion::Messages(messages.to_vec())
    }
}

/// The transcript with the content of its last assistant message (the one
/// whose tool calls were left pending) set to null.
fn without_pending_content(messages: &[Value]) -> Vec<Value> {
    let mut out = messages.to_vec();
    if let Some(last) = out
        .iter_mut()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
    {
        if let Some(obj) = last.as_object_mut() {
            obj.insert("content".into(), Value::Null);
        }
    }
    out
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
