//! svbench environments.
//!
//! Each environment module owns its prompt, answer parser, reward profiles,
//! builtin policies and datasets; all of them go through the shared pieces of
//! `svbench-core`.

pub mod e1;
pub mod e2;
pub mod e4;
pub mod environment;
pub mod kit;
pub mod policy;
pub mod registry;
