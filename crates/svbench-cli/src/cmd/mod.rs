//! One module per subcommand.

// `svbench bench` only with the `bench` feature: its rollout benchmark runs
// the fake OpenAI-compatible server, which the shipped binary leaves out.
#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "bench")]
pub mod bench_rollouts;
#[cfg(feature = "bench")]
pub mod bench_scan;
#[cfg(feature = "bench")]
pub mod bench_serve;
pub mod compare;
pub mod data;
pub mod data_import;
pub mod envs;
pub mod eval;
pub mod eval_abort;
pub mod eval_args;
pub mod manifest;
pub mod report;
pub mod scan;
pub mod scoreboard;
pub mod serve;

use std::path::PathBuf;

use clap::Args;

/// Flags every command accepts.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// svbench.toml with endpoint profiles and model aliases (else
    /// $SVBENCH_CONFIG, else ./svbench.toml if present, else built-ins).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Hide progress bars (they are also hidden when stderr is not a terminal).
    #[arg(long, global = true)]
    pub no_progress: bool,
}
