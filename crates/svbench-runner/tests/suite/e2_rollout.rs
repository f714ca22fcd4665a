//! E2 through the runner's sample loop (spec E2 §2.1, §7, §10 items 10 and
//! 22): the tool budget answers the 4th call with `budget_exhausted`, the
//! turn limit with calls pending is a no-answer, and `builtin:tool-only`
//! runs as a real multi-turn episode with recorded tool interactions.

use std::sync::Arc;

use serde_json::{json, Value};
use svbench_core::record::RequestRecord;
use svbench_core::{Example, Message, ParseStatus};
use svbench_envs::e2::env::{E2Args, E2Env};
use svbench_envs::e2::policy::builtin as e2_builtin;
use svbench_envs::environment::{Budgets, Environment};
use svbench_runner::rollout::{run_sample, TurnFuture};
use svbench_runner::{Agent, AssistantTurn, Responder, TurnContext};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  containers:\n  - name: web\n    image: nginx\n";

fn example(question: &str) -> Example {
    let info = json!({"info": {"violations": []}, "meta": {"lang": "k8s"}});
    Example {
        index: 0,
        id: "pod".into(),
        split: None,
        question: question.into(),
        answer: Value::Null,
        info: serde_json::value::RawValue::from_string(info.to_string()).expect("json"),
    }
}

/// Replies with a fixed assistant message per turn.
pub(crate) struct Script(pub(crate) Vec<Message>);

impl Responder for Script {
    fn respond<'a>(&'a self, ctx: TurnContext<'a>) -> TurnFuture<'a> {
        let message = self.0[ctx.turn as usize].clone();
        Box::pin(std::future::ready(Ok(AssistantTurn {
            message,
            reasoning: None,
            record: RequestRecord::default(),
            truncated: false,
            ends_episode: false,
        })))
    }
}

fn calls(n: usize) -> Message {
    Message {
        role: svbench_core::Role::Assistant,
        content: None,
        tool_calls: (0..n)
            .map(|i| {
                json!({"id": format!("c{i}"), "type": "function",
                       "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}})
            })
            .collect(),
        tool_call_id: None,
    }
}

fn env(args: &[&str]) -> E2Env {
    E2Env::new("v1", None, E2Args::parse(args).expect("args")).expect("env")
}

#[tokio::test]
async fn the_fourth_call_is_budget_exhausted() {
    let e = Arc::new(env(&[]));
    let answer = Message::assistant(r#"{"violations":[],"patch":"","confidence":0.5}"#);
    let agent = Agent::Model(Arc::new(Script(vec![calls(4), answer])));
    let out = run_sample(e.clone(), &agent, &example(POD), 0, e.default_budgets()).await;
    let r = out.record;
    assert_eq!(r.tool_calls, 4);
    assert_eq!(r.tool_interactions.len(), 4);
    let tool_contents: Vec<Value> = r
        .completion_messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| serde_json::from_str(m["content"].as_str().expect("content")).expect("json"))
        .collect();
    assert!(tool_contents[..3]
        .iter()
        .all(|c| c.get("findings").is_some()));
    assert_eq!(
        tool_contents[3],
        json!({"error": {"code": "budget_exhausted", "budget": 3}})
    );
    assert!(!r.tool_interactions[3].ok);
    assert_eq!(
        r.tool_interactions[3].error.as_deref(),
        Some("budget_exhausted")
    );
    assert_eq!(r.parse.expect("parse").status, ParseStatus::Valid);
}

#[tokio::test]
async fn turn_limit_with_pending_calls_is_no_answer() {
    let e = env(&["oracle=live"]);
    let agent = Agent::Model(Arc::new(Script(vec![calls(1), calls(1)])));
    let budgets = Budgets {
        max_turns: 2,
        tool_budget: 3,
    };
    let r = run_sample(Arc::new(e), &agent, &example(POD), 0, budgets)
        .await
        .record;
    assert_eq!(r.turns, 2);
    assert!(r.truncated);
    assert_eq!(
        r.tool_calls, 1,
        "the pending calls of the last turn are not run"
    );
    assert_eq!(r.parse.expect("parse").status, ParseStatus::NoAnswer);
    assert_eq!(r.reward, Some(0.0));
    assert_eq!(r.completion.as_deref(), Some(""));
}

#[tokio::test]
async fn tool_only_runs_through_the_episode_and_scores_detection_1_live() {
    let e = Arc::new(env(&["oracle=live"]));
    let policy = e2_builtin("tool-only", &e).expect("tool-only");
    let agent = Agent::Builtin(Arc::from(policy));
    let r = run_sample(e.clone(), &agent, &example(POD), 0, e.default_budgets())
        .await
        .record;
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.turns, 2);
    assert_eq!(r.tool_calls, 3);
    let tools: Vec<&str> = r
        .tool_interactions
        .iter()
        .map(|t| t.tool.as_str())
        .collect();
    assert_eq!(tools, ["run_kubelinter", "run_semgrep", "run_opa"]);
    assert!(r.tool_interactions.iter().all(|t| t.ok));
    assert!(r.requests.is_empty(), "builtins make no requests");
    assert_eq!(r.rewards["detection"], 1.0);
    let violations = r.compat.to_map().get("predicted_violations").cloned();
    assert!(
        matches!(violations, Some(serde_json::Value::Array(v)) if !v.is_empty()),
        "E2 compatibility fields expected, got {:?}",
        r.compat
    );
}
