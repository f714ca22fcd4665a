//! E2's builtin policies (E2 §7): `oracle`, the item's oracle set, and
//! `tool-only`, a scripted episode that answers what the tools showed. Both
//! answer in the model's JSON format, so their answers go through the same
//! parser and rewards.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use svbench_core::record::SampleError;
use svbench_core::{Completion, Example, Message, Role};

use super::env::E2Env;
use super::tools::function_name;
use super::{Severity, Tool};
use crate::kit::policy::SingleShot;
use crate::policy::{internal, Policy, PolicyError, ReplayPolicy};

/// E2's `builtin:oracle` (E2 §7): answers exactly the item's oracle set —
/// distinct ids of the labelled namespaces with catalogue severities,
/// confidence 1.0 — and, with `oracle_patch=true`, the row's stored patch
/// (`info.patch`, the generator's inverse diff) when it has one.
#[derive(Debug, Clone)]
pub struct E2OraclePolicy {
    env: E2Env,
}

impl E2OraclePolicy {
    /// The oracle policy of an environment (its oracle mode and arguments).
    #[must_use]
    pub fn new(env: &E2Env) -> Self {
        Self { env: env.clone() }
    }
}

/// An E2 answer text: these full ids with catalogue severities.
fn e2_answer_text<'a>(
    env: &E2Env,
    ids: impl IntoIterator<Item = &'a str>,
    patch: Option<&str>,
) -> String {
    let catalogue = env.catalogue();
    let violations: Vec<Value> = ids
        .into_iter()
        .map(|id| {
            let severity = id
                .split_once('/')
                .and_then(|(t, r)| catalogue.severity(Tool::parse(t)?, r))
                .unwrap_or(Severity::Med);
            serde_json::json!({"id": id, "severity": severity.as_str()})
        })
        .collect();
    serde_json::json!({"violations": violations, "patch": patch.unwrap_or(""), "confidence": 1.0})
        .to_string()
}

impl SingleShot for E2OraclePolicy {
    const NAME: &'static str = "oracle";
    const ORACLE: bool = true;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        let item = self
            .env
            .item(example)
            .map_err(|e| internal(e.to_string()))?;
        let ids: BTreeSet<&str> = item
            .oracle
            .violations
            .iter()
            .map(|v| v.id.as_str())
            .filter(|id| {
                id.split_once('/')
                    .and_then(|(t, _)| Tool::parse(t))
                    .is_some_and(|t| item.oracle.namespaces.contains(&t))
            })
            .collect();
        let info = example.info_value();
        let patch = self
            .env
            .args()
            .oracle_patch
            .then(|| info.pointer("/info/patch").and_then(Value::as_str))
            .flatten();
        Ok(e2_answer_text(&self.env, ids, patch))
    }
}

/// E2's `builtin:tool-only` (E2 §7): a scripted two-turn episode. Turn 1
/// calls the tool of each labelled namespace on the workspace file (at most
/// three calls); turn 2 answers with the distinct findings those tool
/// results showed for the labelled namespaces (catalogue severities), no
/// patch, confidence 1.0. It is [`Policy::interactive`], so the runner drives
/// it through the same loop, budget and turn limit as a model, and its tool
/// calls are executed by the episode and recorded.
#[derive(Debug, Clone)]
pub struct E2ToolOnlyPolicy {
    env: E2Env,
}

impl E2ToolOnlyPolicy {
    /// The tool-only policy of an environment.
    #[must_use]
    pub fn new(env: &E2Env) -> Self {
        Self { env: env.clone() }
    }
}

impl Policy for E2ToolOnlyPolicy {
    fn name(&self) -> &str {
        "tool-only"
    }

    fn interactive(&self) -> bool {
        true
    }

    fn respond(
        &self,
        example: &Example,
        _: usize,
        messages: &[Message],
    ) -> Result<Completion, SampleError> {
        let (lang, labelled) = self.env.labelled_namespaces(example);
        let called = messages.iter().any(|m| m.role == Role::Assistant);
        if !called {
            let arguments = serde_json::json!({"paths": [lang.workspace_name()]}).to_string();
            let calls: Vec<Value> = labelled
                .iter()
                .take(3)
                .enumerate()
                .map(|(i, tool)| {
                    serde_json::json!({
                        "id": format!("call_{i}"),
                        "type": "function",
                        "function": {"name": function_name(*tool), "arguments": arguments},
                    })
                })
                .collect();
            return Ok(Completion::Messages(vec![serde_json::json!({
                "role": "assistant",
                "content": null,
                "tool_calls": calls,
            })]));
        }
        let mut ids = BTreeSet::new();
        for message in messages.iter().filter(|m| m.role == Role::Tool) {
            let Some(Ok(result)) = message
                .content
                .as_deref()
                .map(serde_json::from_str::<Value>)
            else {
                continue;
            };
            for finding in result
                .get("findings")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let tool = finding.get("tool").and_then(Value::as_str);
                let rule = finding.get("rule_id").and_then(Value::as_str);
                if let (Some(tool), Some(rule)) = (tool.and_then(Tool::parse), rule) {
                    if labelled.contains(&tool) {
                        ids.insert(format!("{}/{rule}", tool.as_str()));
                    }
                }
            }
        }
        Ok(Completion::assistant_text(e2_answer_text(
            &self.env,
            ids.iter().map(String::as_str),
            None,
        )))
    }
}

/// A builtin policy by name (`oracle`, `tool-only`, `replay:FILE`) for E2,
/// configured by the environment it will run against.
///
/// # Errors
/// Unknown names and unreadable replay files.
pub fn builtin(name: &str, env: &E2Env) -> Result<Box<dyn Policy>, PolicyError> {
    match name {
        "oracle" => Ok(Box::new(E2OraclePolicy::new(env))),
        "tool-only" => Ok(Box::new(E2ToolOnlyPolicy::new(env))),
        _ => {
            if let Some(file) = name.strip_prefix("replay:") {
                return Ok(Box::new(ReplayPolicy::load(Path::new(file))?.multi_turn()));
            }
            Err(super::entry::ENTRY.unknown_builtin(name))
        }
    }
}
