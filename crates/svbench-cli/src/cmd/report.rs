//! `svbench report` (scaffold).

use clap::Args;

use super::GlobalArgs;

/// Arguments of `svbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {}

/// Runs the command; returns the exit code.
pub fn run(_args: ReportArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    Err(anyhow::anyhow!("`svbench report` is not implemented yet"))
}
