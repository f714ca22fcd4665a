//! The parts every environment shares, written once: dataset specs and
//! provenance, the generator plumbing (seeded randomness, manifests, corpus
//! files) and reward-profile loading. An environment module keeps only what
//! is its own.

pub mod args;
pub mod bench;
pub mod confidence;
pub mod dataset;
pub mod generate;
pub mod import;
pub mod policy;
pub mod reward;
pub mod rows;
pub mod training;
