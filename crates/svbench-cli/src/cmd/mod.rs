//! One module per subcommand.

pub mod bench;
pub mod data;
pub mod eval;
pub mod report;

use clap::Args;

/// Flags every command accepts.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Hide progress bars (they are also hidden when stderr is not a terminal).
    #[arg(long, global = true)]
    pub no_progress: bool,
    /// When to use colour: auto, always or never (NO_COLOR is respected).
    #[arg(long, global = true, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
}
