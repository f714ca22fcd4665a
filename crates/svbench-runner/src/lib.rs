//! svbench runner: the rollout loop, run directories and their artifacts,
//! append-only results, resume and progress.

pub mod artifacts;
pub mod eval;
pub mod progress;
pub mod results;

pub use eval::{run_eval, EvalOutcome, EvalPlan, RunSettings};
