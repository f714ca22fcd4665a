//! The interrupt grace period is a bound (harness §1.1: samples in flight
//! get 10 s, the rest are dropped) even while samples are stuck in
//! synchronous scoring: scoring runs on the blocking pool, so the runner's
//! timers keep running and `run_eval` returns at the deadline.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use svbench_core::record::{RunMetadata, RunStatus};
use svbench_core::{Completion, Example, Message};
use svbench_envs::e1::env::E1Env;
use svbench_envs::environment::{Budgets, EnvKind, Environment, ScoreError, ScoredAnswer};
use svbench_envs::policy::Policy;
use svbench_runner::{run_eval, Agent, EvalPlan, RunSettings};

/// A gate that blocks callers until opened (the "heavy scoring").
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cv.wait(open).unwrap();
        }
    }
    fn release(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

/// E1, except that scoring the examples listed in `stuck` blocks on a
/// synchronous gate, as a scorer busy in a long analysis would.
struct StuckScoring {
    inner: E1Env,
    gate: Arc<Gate>,
    stuck_from: usize,
    entered: Arc<AtomicUsize>,
}

impl Environment for StuckScoring {
    fn name(&self) -> &'static str {
        Environment::name(&self.inner)
    }
    fn version(&self) -> &'static str {
        Environment::version(&self.inner)
    }
    fn kind(&self) -> EnvKind {
        Environment::kind(&self.inner)
    }
    fn default_budgets(&self) -> Budgets {
        Environment::default_budgets(&self.inner)
    }
    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        Environment::initial_messages(&self.inner, example)
    }
    fn score(&self, example: &Example, c: &Completion) -> Result<ScoredAnswer, ScoreError> {
        if example.index >= self.stuck_from {
            self.entered.fetch_add(1, Ordering::SeqCst);
            self.gate.wait();
        }
        Environment::score(&self.inner, example, c)
    }
}

/// A run's metadata as `eval` writes it at start (6 examples, 1 rollout).
pub(crate) fn metadata() -> RunMetadata {
    serde_json::from_str(
        r#"{
        "environment": "sv-env-network-logs", "env_version": "0.1.0",
        "model": "builtin:heuristic", "effective_model": "heuristic", "dataset": "embedded",
        "dataset_revision": "sha256:aa", "timestamp": "2025-01-01T00:00:00Z", "num_examples": 6,
        "git_commit": "abc1234", "python_version": null, "verifiers_version": null,
        "svbench_version": "0.1.0", "rustc_version": "rustc", "target": "t", "seed": 42,
        "temperature": 0.2, "max_tokens": 2048, "max_turns": 1, "tool_budget": 0,
        "include_tools": false, "tool_versions": {}, "evaluation_type": "single-turn",
        "max_consecutive_errors": 0, "baseline_name": null, "baseline_type": "heuristic",
        "system_prompt_file": null, "system_prompt_sha256": "bb", "run_id": "r",
        "status": "running", "abort_reason": null, "started_at": "2025-01-01T00:00:00.000Z",
        "finished_at": null, "split": "test", "dataset_rows": 6, "dataset_warnings": [],
        "dataset_sha256": "cc", "selected_sha256": "dd", "dataset_file_sha256": null,
        "selection": {"mode": "first", "num_examples": 6, "rollouts_per_example": 1, "seed": 42},
        "rollouts_per_example": 1, "env_args": {}, "reward_profile": "v1",
        "reward_config_hash": "sha256:ee", "reward_weights": {}, "reward_params": {},
        "reward_config_file": null, "env_provenance": {}, "replay_source": null,
        "sampling_params": {}, "concurrency": 4, "cache_mode": "off", "endpoint": null,
        "counts": {"planned": 6, "completed": 0, "errored": 0, "pending": 6},
        "argv": []
    }"#,
    )
    .expect("metadata fixture")
}

/// The embedded test split's first six examples (the runs' fixture).
pub(crate) fn six() -> Vec<Example> {
    svbench_envs::e1::dataset::load(
        &svbench_envs::e1::dataset::DatasetSpec::Embedded,
        &svbench_envs::e1::dataset::SplitRequest(Some("test".into())),
        &svbench_envs::e1::dataset::SelectionRequest {
            max_examples: Some(6),
            shuffle: false,
            seed: 0,
        },
    )
    .expect("embedded")
    .examples
}

#[test]
fn interrupt_returns_at_the_grace_deadline_while_scoring_is_stuck() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let inner = E1Env::new("v1", None).expect("e1");
    let examples = six();
    let gate = Arc::new(Gate::default());
    let entered = Arc::new(AtomicUsize::new(0));
    let policy: Arc<dyn Policy> =
        Arc::from(svbench_envs::e1::policy::builtin("heuristic").expect("heuristic"));
    let env = Arc::new(StuckScoring {
        inner,
        gate: gate.clone(),
        stuck_from: 2,
        entered: entered.clone(),
    });
    let interrupt = Arc::new(AtomicBool::new(false));
    let plan = EvalPlan {
        env,
        agent: Agent::Builtin(policy),
        examples: Arc::new(examples),
        metadata: metadata(),
        run_dir: run_dir.clone(),
        resume: false,
        settings: RunSettings {
            rollouts_per_example: 1,
            max_consecutive_errors: 0,
            progress: false,
            retry_errors: false,
            // More samples stuck than the runtime has workers.
            concurrency: 4,
            budgets: Budgets {
                max_turns: 1,
                tool_budget: 0,
            },
            sample_timeout: None,
            label: "t".into(),
            stats: None,
            interrupt_grace: Duration::from_millis(200),
        },
        interrupt: interrupt.clone(),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let runner = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let outcome = runtime.block_on(run_eval(plan));
        runtime.shutdown_background();
        let _ = tx.send(outcome.map(|o| (o.status, o.counts.completed)));
    });
    // Wait (event-driven) until the stuck samples are inside scoring.
    while entered.load(Ordering::SeqCst) < 4 {
        std::thread::sleep(Duration::from_millis(10));
    }
    interrupt.store(true, Ordering::SeqCst);
    // A hang guard, not a timing assertion: before the fix the runner never
    // returned while scoring was stuck.
    let result = rx.recv_timeout(Duration::from_secs(120));
    gate.release();
    let (status, completed) = result
        .expect("run_eval returned while scoring was still stuck")
        .expect("run ok");
    runner.join().unwrap();
    assert_eq!(status, RunStatus::Interrupted);
    assert_eq!(completed, 2, "the two samples that finished are recorded");
    let lines = std::fs::read_to_string(run_dir.join("results.jsonl")).unwrap();
    assert_eq!(
        lines.lines().count(),
        2,
        "the stuck samples are not written"
    );
}
