//! The one layer between callers that are not the CLI (the HTTP server, the
//! Python bindings) and the environments: which environments exist and what
//! they accept, dataset rows with the prompt `eval` sends, stateless scoring
//! of a completion, and multi-turn episodes. Every caller goes through
//! [`Service`], so a score from `/score`, from a verifiers rubric or from a
//! TRL reward function is computed by the same code as `eval`'s.

pub mod completion;
pub mod envs;
pub mod error;
pub mod fs_access;
pub mod rows;
pub mod score;
pub mod service;
pub mod session;

pub use error::{ApiError, ErrorCode};
pub use fs_access::FsAccess;
pub use service::Service;
/// The time budget `*_within` scoring takes (re-exported so callers need not
/// depend on the environments crate).
pub use svbench_envs::environment::Deadline;

#[cfg(test)]
mod tests;
