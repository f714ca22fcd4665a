//! svbench environments.
//!
//! Each environment module owns its prompt, answer parser, reward profiles,
//! builtin policies and datasets; all of them go through the shared pieces of
//! `svbench-core`. Each one is a cargo feature (`e1`, `e2`, `e4`, all on by
//! default) that brings its own heavy dependencies: E2 the config analyzers
//! (`svbench-scan`), E4 the mail parser (`svbench-mail`).

#[cfg(feature = "e1")]
pub mod e1;
#[cfg(feature = "e2")]
pub mod e2;
#[cfg(feature = "e4")]
pub mod e4;
#[cfg(feature = "test-env")]
pub mod echo;
pub mod environment;
pub mod kit;
pub mod policy;
pub mod registry;
