//! E1's builtin policies (E1 §5): `heuristic`, keyword and port rules over
//! the log line, and `oracle`, the upper bound. Both answer in the model's
//! JSON format, so their answers go through the same parser and rewards.

use std::path::Path;

use svbench_core::record::SampleError;
use svbench_core::{Completion, Example, Message};

use super::heuristic;
use crate::policy::{Policy, PolicyError, ReplayPolicy, ORACLE_LABEL};

/// E1's `builtin:heuristic` (E1 §5).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPolicy;

impl Policy for HeuristicPolicy {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn respond(
        &self,
        example: &Example,
        _: usize,
        _: &[Message],
    ) -> Result<Completion, SampleError> {
        Ok(Completion::assistant_text(heuristic::answer_text(
            &example.question,
        )))
    }
}

/// `builtin:oracle` for E1: the gold label with confidence 1.0 (an upper bound).
#[derive(Debug, Clone, Copy, Default)]
pub struct E1OraclePolicy;

impl Policy for E1OraclePolicy {
    fn name(&self) -> &str {
        "oracle"
    }

    fn label(&self) -> &str {
        ORACLE_LABEL
    }

    fn respond(
        &self,
        example: &Example,
        _: usize,
        _: &[Message],
    ) -> Result<Completion, SampleError> {
        let label = example.answer.as_str().unwrap_or_default();
        Ok(Completion::assistant_text(format!(
            "{{\"label\":\"{label}\",\"confidence\":1.0}}"
        )))
    }
}

/// A builtin policy by name (`heuristic`, `oracle`, `replay:FILE`) for E1.
pub fn builtin(name: &str) -> Result<Box<dyn Policy>, PolicyError> {
    match name {
        "heuristic" => Ok(Box::new(HeuristicPolicy)),
        "oracle" => Ok(Box::new(E1OraclePolicy)),
        _ => {
            if let Some(file) = name.strip_prefix("replay:") {
                return Ok(Box::new(ReplayPolicy::load(Path::new(file))?));
            }
            Err(super::entry::ENTRY.unknown_builtin(name))
        }
    }
}
