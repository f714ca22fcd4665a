//! `svbench bench` (scaffold).

use clap::Args;

use super::GlobalArgs;

/// Arguments of `svbench bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {}

/// Runs the command; returns the exit code.
pub fn run(_args: BenchArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    Err(anyhow::anyhow!("`svbench bench` is not implemented yet"))
}
