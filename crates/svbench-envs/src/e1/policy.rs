//! E1's builtin policies (E1 §5): `heuristic`, keyword and port rules over
//! the log line, and `oracle`, the upper bound. Both answer in the model's
//! JSON format, so their answers go through the same parser and rewards.

use std::path::Path;

use svbench_core::record::SampleError;
use svbench_core::Example;

use super::heuristic;
use crate::kit::policy::SingleShot;
use crate::policy::{Policy, PolicyError, ReplayPolicy};

/// E1's `builtin:heuristic` (E1 §5).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPolicy;

impl SingleShot for HeuristicPolicy {
    const NAME: &'static str = "heuristic";
    const ORACLE: bool = false;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        Ok(heuristic::answer_text(&example.question))
    }
}

/// `builtin:oracle` for E1: the gold label with confidence 1.0 (an upper bound).
#[derive(Debug, Clone, Copy, Default)]
pub struct E1OraclePolicy;

impl SingleShot for E1OraclePolicy {
    const NAME: &'static str = "oracle";
    const ORACLE: bool = true;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        let label = example.answer.as_str().unwrap_or_default();
        Ok(format!("{{\"label\":\"{label}\",\"confidence\":1.0}}"))
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
