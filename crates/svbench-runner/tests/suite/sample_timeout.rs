//! `--sample-timeout` ends a sample stuck in a tool call or in scoring (work
//! that runs on the blocking pool): the sample is recorded as a `timeout`
//! error, the other samples complete, and the run returns without waiting
//! for the stuck work. Scoring is also handed the sample's deadline, so an
//! environment that honours it stops the work itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use svbench_core::record::{RunCounts, RunStatus};
use svbench_core::{Completion, Example, Message, Role};
use svbench_envs::e1::env::E1Env;
use svbench_envs::environment::{
    Budgets, Deadline, EnvKind, Environment, Episode, ScoreError, ScoredAnswer, ToolResult,
};
use svbench_runner::rollout::run_sample_within;
use svbench_runner::{run_eval, Agent, EvalPlan, RunSettings};

use crate::e2_rollout::Script;
use crate::shutdown::{metadata, six};

/// How long stuck work lasts unless released: far past the run's guard.
const HANG: Duration = Duration::from_secs(60);
/// The sample timeout of the runs.
const LIMIT: Duration = Duration::from_secs(2);
/// The example whose tool call or scoring gets stuck.
const STUCK: usize = 1;

/// Sleeps until `release` is set or `HANG` has passed, as an external tool
/// or analyzer that does not answer would block its thread.
fn hang(release: &AtomicBool) {
    let started = Instant::now();
    while !release.load(Ordering::SeqCst) && started.elapsed() < HANG {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stuck {
    Tool,
    Scorer,
}

/// E1 as a tool environment with one tool, `inspect`; example `STUCK`'s
/// tool call or scoring hangs. A hanging scorer honours the deadline it is
/// given (as E2's analyzers do) and notes what it saw.
struct Hanging {
    inner: E1Env,
    stuck: Stuck,
    release: Arc<AtomicBool>,
    /// The budget of the deadline the stuck scorer was given.
    scorer_budget: Arc<Mutex<Option<Option<Duration>>>>,
    /// Set when the stuck scorer has returned.
    scorer_returned: Arc<AtomicBool>,
}

impl Hanging {
    fn new(stuck: Stuck) -> Self {
        Self {
            inner: E1Env::new("v1", None).expect("e1"),
            stuck,
            release: Arc::new(AtomicBool::new(false)),
            scorer_budget: Arc::default(),
            scorer_returned: Arc::default(),
        }
    }
}

struct HangingEpisode {
    hangs: bool,
    release: Arc<AtomicBool>,
}

impl Episode for HangingEpisode {
    fn call_tool(&mut self, _name: &str, _arguments: &str) -> ToolResult {
        if self.hangs {
            hang(&self.release);
        }
        ToolResult {
            content: r#"{"findings":[]}"#.into(),
            ok: true,
            error: None,
        }
    }
}

impl Environment for Hanging {
    fn name(&self) -> &'static str {
        Environment::name(&self.inner)
    }
    fn version(&self) -> &'static str {
        Environment::version(&self.inner)
    }
    fn kind(&self) -> EnvKind {
        EnvKind::Tool
    }
    fn default_budgets(&self) -> Budgets {
        Budgets {
            max_turns: 2,
            tool_budget: 1,
        }
    }
    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        Environment::initial_messages(&self.inner, example)
    }
    fn tools(&self) -> Vec<Value> {
        vec![
            json!({"type": "function", "function": {"name": "inspect", "parameters": {"type": "object"}}}),
        ]
    }
    fn start_episode(&self, example: &Example) -> Box<dyn Episode> {
        Box::new(HangingEpisode {
            hangs: self.stuck == Stuck::Tool && example.index == STUCK,
            release: self.release.clone(),
        })
    }
    fn score(&self, example: &Example, c: &Completion) -> Result<ScoredAnswer, ScoreError> {
        self.score_within(example, c, Deadline::NONE)
    }
    fn score_within(
        &self,
        example: &Example,
        c: &Completion,
        deadline: Deadline,
    ) -> Result<ScoredAnswer, ScoreError> {
        if self.stuck == Stuck::Scorer && example.index == STUCK {
            *self.scorer_budget.lock().unwrap() = Some(deadline.budget());
            let started = Instant::now();
            while !deadline.expired()
                && !self.release.load(Ordering::SeqCst)
                && started.elapsed() < HANG
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            self.scorer_returned.store(true, Ordering::SeqCst);
            return Err(ScoreError::time_budget(&example.id, deadline.exceeded()));
        }
        Environment::score(&self.inner, example, c)
    }
}

/// A model that calls `inspect` on its first turn and answers on its second.
fn call_then_answer() -> Agent {
    let call = Message {
        role: Role::Assistant,
        content: None,
        tool_calls: vec![json!({"id": "c0", "type": "function",
            "function": {"name": "inspect", "arguments": "{}"}})],
        tool_call_id: None,
    };
    let answer = Message::assistant(r#"{"label":"Benign","confidence":0.6}"#);
    Agent::Model(Arc::new(Script(vec![call, answer])))
}

/// Runs the six examples against `env` on a runtime shaped like the CLI's
/// (two workers, more samples in flight than workers), and returns the
/// outcome and the records by example index — or `None` if the run had not
/// returned after 30 s (the stuck work lasts 60 s).
fn run(env: Arc<Hanging>) -> Option<(RunStatus, RunCounts, Vec<Value>)> {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let plan = EvalPlan {
        env,
        agent: call_then_answer(),
        examples: Arc::new(six()),
        metadata: metadata(),
        run_dir: run_dir.clone(),
        resume: false,
        settings: RunSettings {
            rollouts_per_example: 1,
            max_consecutive_errors: 0,
            progress: false,
            retry_errors: false,
            concurrency: 3,
            budgets: Budgets {
                max_turns: 2,
                tool_budget: 1,
            },
            sample_timeout: Some(LIMIT),
            label: "t".into(),
            stats: None,
            interrupt_grace: Duration::from_secs(10),
        },
        interrupt: Arc::new(AtomicBool::new(false)),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let outcome = runtime.block_on(run_eval(plan));
        runtime.shutdown_background();
        let _ = tx.send(outcome);
    });
    // A hang guard, not a timing assertion.
    let outcome = rx
        .recv_timeout(Duration::from_secs(30))
        .ok()?
        .expect("run ok");
    let text = std::fs::read_to_string(run_dir.join("results.jsonl")).unwrap();
    let mut records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    records.sort_by_key(|r| r["index"].as_u64());
    Some((outcome.status, outcome.counts, records))
}

/// The stuck sample is a `timeout` error, every other sample has a reward.
fn assert_only_the_stuck_sample_timed_out(
    (status, counts, records): (RunStatus, RunCounts, Vec<Value>),
) {
    assert_eq!(status, RunStatus::Completed);
    assert_eq!((counts.completed, counts.errored), (5, 1));
    assert_eq!(records.len(), 6);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["index"], i);
        if i == STUCK {
            assert_eq!(r["error"]["kind"], "timeout", "{r}");
            assert_eq!(
                r["error"]["message"],
                "sample exceeded --sample-timeout of 2 s"
            );
            assert!(r["reward"].is_null());
        } else {
            assert!(r["error"].is_null(), "{r}");
            assert!(r["reward"].is_number(), "{r}");
            assert_eq!(r["tool_calls"], 1);
        }
    }
}

#[test]
fn a_hanging_tool_call_is_ended_by_the_sample_timeout() {
    let env = Arc::new(Hanging::new(Stuck::Tool));
    let outcome = run(env.clone());
    env.release.store(true, Ordering::SeqCst);
    let outcome = outcome.expect("run_eval returned while the tool call was still stuck");
    assert_only_the_stuck_sample_timed_out(outcome);
}

#[test]
fn a_hanging_scorer_is_stopped_at_the_sample_deadline() {
    let env = Arc::new(Hanging::new(Stuck::Scorer));
    let outcome = run(env.clone());
    // The scorer stops by itself at the deadline it was handed (not only
    // the runner's wait), well before the release below.
    let waited = Instant::now();
    while !env.scorer_returned.load(Ordering::SeqCst) && waited.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let returned = env.scorer_returned.load(Ordering::SeqCst);
    env.release.store(true, Ordering::SeqCst);
    let outcome = outcome.expect("run_eval returned while scoring was still stuck");
    assert_only_the_stuck_sample_timed_out(outcome);
    assert_eq!(
        *env.scorer_budget.lock().unwrap(),
        Some(Some(LIMIT)),
        "scoring is given the sample's deadline"
    );
    assert!(returned, "the scorer stopped at the sample's deadline");
}

#[test]
fn scoring_stopped_by_the_sample_deadline_is_a_timeout_not_an_error_record() {
    let env = Arc::new(Hanging::new(Stuck::Scorer));
    let example = six().swap_remove(STUCK);
    let agent = call_then_answer();
    let sample = run_sample_within(
        env.clone(),
        &agent,
        &example,
        0,
        env.default_budgets(),
        Deadline::after(Duration::from_millis(200)),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // No timeout around the sample here: only the deadline ends scoring.
    let outcome =
        runtime.block_on(async { tokio::time::timeout(Duration::from_secs(30), sample).await });
    env.release.store(true, Ordering::SeqCst);
    runtime.shutdown_background();
    let outcome = outcome.expect("scoring stopped at the deadline");
    assert!(outcome.timed_out);
    assert!(!outcome.fatal);
}
