//! `svbench data` (scaffold).

use clap::Subcommand;

use super::GlobalArgs;

/// Arguments of `svbench data`.
#[derive(Debug, Subcommand)]
pub enum DataCommand {}

/// Runs the command; returns the exit code.
pub fn run(_args: DataCommand, _global: &GlobalArgs) -> anyhow::Result<u8> {
    Err(anyhow::anyhow!("`svbench data` is not implemented yet"))
}
