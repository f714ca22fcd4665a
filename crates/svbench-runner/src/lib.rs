//! svbench runner: the rollout loop, run directories and their artifacts,
//! append-only results, resume and progress.

pub mod artifacts;
pub mod cache;
pub mod client;
pub mod eval;
pub mod integrity;
pub mod limits;
pub mod model;
pub mod prepare;
pub mod progress;
pub mod results;
pub mod rollout;
pub mod verify;

pub use eval::{run_eval, AbortCause, EvalOutcome, EvalPlan, RunAbort, RunSettings};
pub use rollout::{Agent, AssistantTurn, Responder, TurnContext, TurnFailure};
