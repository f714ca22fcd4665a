//! A reward total that is not a finite number is never written as a score:
//! JSON would record it as `null`, as if the sample had errored, and the
//! run would exit 0. The sample is recorded as an `internal` error that says
//! why, across many samples of a run (every other sample keeps its score).

use std::sync::Arc;

use serde_json::Value;
use svbench_core::{Completion, Example, Message};
use svbench_envs::e1::env::E1Env;
use svbench_envs::environment::{Budgets, EnvKind, Environment, ScoreError, ScoredAnswer};
use svbench_envs::policy::Policy;
use svbench_runner::rollout::run_sample;
use svbench_runner::Agent;

use crate::shutdown::six;

/// E1 whose reward overflows on every odd example: the total becomes ±∞
/// or NaN (a weight a config could not refuse, or a reward bug).
struct Overflowing(E1Env);

impl Environment for Overflowing {
    fn name(&self) -> &'static str {
        Environment::name(&self.0)
    }
    fn version(&self) -> &'static str {
        Environment::version(&self.0)
    }
    fn kind(&self) -> EnvKind {
        EnvKind::SingleTurn
    }
    fn default_budgets(&self) -> Budgets {
        self.0.default_budgets()
    }
    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        Environment::initial_messages(&self.0, example)
    }
    fn score(&self, example: &Example, c: &Completion) -> Result<ScoredAnswer, ScoreError> {
        let mut scored = Environment::score(&self.0, example, c)?;
        match example.index % 4 {
            1 => scored.reward.total = f64::INFINITY,
            3 => scored.reward.components[0].value = f64::NAN,
            _ => {}
        }
        Ok(scored)
    }
}

#[tokio::test]
async fn non_finite_totals_and_components_are_recorded_as_errors() {
    let env: Arc<dyn Environment> = Arc::new(Overflowing(E1Env::new("v1", None).expect("e1")));
    let policy: Arc<dyn Policy> =
        Arc::from(svbench_envs::e1::policy::builtin("heuristic").expect("heuristic"));
    let agent = Agent::Builtin(policy);
    for example in six() {
        let out = run_sample(env.clone(), &agent, &example, 0, env.default_budgets()).await;
        let r = out.record;
        let line: Value = serde_json::to_value(&r).expect("record");
        match example.index % 4 {
            1 | 3 => {
                let error = r.error.as_ref().expect("recorded as an error");
                assert_eq!(error.kind, "internal");
                assert!(error.message.contains("not a finite number"), "{error:?}");
                assert!(r.reward.is_none() && r.rewards.is_empty(), "{line}");
            }
            _ => {
                assert!(r.error.is_none(), "{line}");
                assert!(r.reward.is_some_and(f64::is_finite), "{line}");
            }
        }
    }
}
