//! `svbench eval` (scaffold).

use clap::Args;

use super::GlobalArgs;

/// Arguments of `svbench eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {}

/// Runs the command; returns the exit code.
pub fn run(_args: EvalArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    Err(anyhow::anyhow!("`svbench eval` is not implemented yet"))
}
