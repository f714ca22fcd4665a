//! The runner asks for each example when it dispatches it: a set that
//! cannot produce one aborts the run loudly and loses nothing (a resume
//! finishes it), and ids that repeat are refused before anything runs.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use svbench_core::example::DatasetError;
use svbench_core::record::RunStatus;
use svbench_core::{Example, ExampleSet};
use svbench_envs::e1::env::E1Env;
use svbench_envs::environment::Budgets;
use svbench_envs::policy::Policy;
use svbench_runner::eval::EvalError;
use svbench_runner::{run_eval, AbortCause, Agent, EvalOutcome, EvalPlan, RunSettings};

use crate::shutdown::{metadata, six};

/// The embedded test split's first six examples; `example(broken)` fails.
struct Flaky {
    examples: Vec<Example>,
    broken: Option<usize>,
}

impl ExampleSet for Flaky {
    fn len(&self) -> usize {
        self.examples.len()
    }
    fn id(&self, index: usize) -> &str {
        &self.examples[index].id
    }
    fn example(&self, index: usize) -> Result<Example, DatasetError> {
        if Some(index) == self.broken {
            return Err(DatasetError::Selection("the disk went away".into()));
        }
        Ok(self.examples[index].clone())
    }
}

fn run(
    dir: &std::path::Path,
    examples: Arc<dyn ExampleSet>,
    resume: bool,
) -> Result<EvalOutcome, EvalError> {
    let policy: Arc<dyn Policy> =
        Arc::from(svbench_envs::e1::policy::builtin("heuristic").expect("heuristic"));
    let plan = EvalPlan {
        env: Arc::new(E1Env::new("v1", None).expect("e1")),
        agent: Agent::Builtin(policy),
        examples,
        metadata: metadata(),
        run_dir: dir.to_path_buf(),
        resume,
        settings: RunSettings {
            rollouts_per_example: 1,
            max_consecutive_errors: 0,
            progress: false,
            retry_errors: false,
            // One at a time, so exactly the samples before the broken one run.
            concurrency: 1,
            budgets: Budgets {
                max_turns: 1,
                tool_budget: 0,
            },
            sample_timeout: None,
            label: "t".into(),
            stats: None,
            interrupt_grace: Duration::from_secs(10),
        },
        interrupt: Arc::new(AtomicBool::new(false)),
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run_eval(plan))
}

fn recorded_ids(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["example_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn an_unreadable_example_aborts_the_run_and_a_resume_finishes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let examples = six();
    let ids: Vec<String> = examples.iter().map(|e| e.id.clone()).collect();
    let broken = Flaky {
        examples: examples.clone(),
        broken: Some(3),
    };
    let outcome = run(&dir, Arc::new(broken), false).expect("the run itself ends normally");
    assert_eq!(outcome.status, RunStatus::Aborted);
    let abort = outcome.abort.clone().expect("an aborted run says why");
    assert_eq!(abort.cause, AbortCause::UnreadableExample(3));
    assert_eq!(abort.kind, "dataset");
    assert_eq!(abort.message, "the disk went away");
    assert_eq!((abort.failed, abort.total), (0, 6));
    let reason = outcome.metadata.abort_reason.unwrap_or_default();
    assert_eq!(abort.reason, reason);
    assert!(
        reason.contains("cannot read example 3") && reason.contains("the disk went away"),
        "{reason}"
    );
    assert_eq!(outcome.counts.completed, 3);
    assert_eq!(outcome.counts.pending, 3);
    assert_eq!(recorded_ids(&dir), ids[..3]);

    let fixed = Flaky {
        examples,
        broken: None,
    };
    let outcome = run(&dir, Arc::new(fixed), true).expect("resume");
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(outcome.abort, None);
    assert_eq!(outcome.counts.completed, 6);
    assert_eq!(recorded_ids(&dir), ids, "each sample once, in order");
}

#[test]
fn repeated_ids_are_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let mut examples = six();
    examples[4].id = examples[1].id.clone();
    let repeated = examples[1].id.clone();
    match run(&dir, Arc::new(examples), false) {
        Err(EvalError::DuplicateId(id)) => assert_eq!(id, repeated),
        other => panic!("expected DuplicateId, got {other:?}"),
    }
    assert!(!dir.exists(), "nothing is created");
}
