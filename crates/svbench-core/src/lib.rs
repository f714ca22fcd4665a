//! Shared vocabulary of svbench.
//!
//! Every type that crosses a boundary (written to disk, sent over HTTP, passed
//! between the environments, the runner and the report) lives here, together
//! with the pieces the environment specs define once and reuse: the JSON answer
//! extractor, the cost-matrix utility, Brier calibration and the metric
//! primitives.

pub mod advantage;
pub mod canonical;
pub mod compact;
pub mod compare;
pub mod cost;
pub mod deadline;
pub mod env_record;
pub mod example;
pub mod extract;
pub mod identity;
pub mod json;
pub mod lines;
pub mod manifest;
pub mod message;
pub mod metrics;
pub mod parse;
pub mod record;
pub mod reward;
pub mod reward_config;
pub mod scoreboard;
pub mod spool;
pub mod summary;
pub mod text;
pub mod upstream_data;

pub use example::{Example, ExampleSet};

/// How artifacts, reports and scoreboards name the `builtin:oracle`
/// policies: an upper bound, never a baseline (harness §1.1, E2 §7).
pub const ORACLE_LABEL: &str = "oracle (upper bound)";
pub use message::{Completion, Message, Role};
pub use parse::{ParseOutcome, ParseRecord, ParseStatus};
pub use reward::{RewardBreakdown, RewardComponent};
