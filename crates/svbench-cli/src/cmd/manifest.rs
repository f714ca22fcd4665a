//! `svbench manifest validate PATH...`: checks `run_manifest.json` files
//! against the generated schema and the hosted-field rule (harness §1.2,
//! §5.4).

use crate::out::outln;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use svbench_report::manifest::validate_manifest_file;

use super::GlobalArgs;
use crate::exit;

/// `svbench manifest`.
#[derive(Debug, Subcommand)]
pub enum ManifestCommand {
    /// Validate run_manifest.json files; one ✓/✗ line per path, exit 6 if any fails.
    Validate(ValidateArgs),
}

/// `svbench manifest validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Manifest files (run_manifest.json).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

/// Runs the command; returns the exit code.
pub fn run(args: ManifestCommand, _global: &GlobalArgs) -> anyhow::Result<u8> {
    match args {
        ManifestCommand::Validate(a) => validate(&a),
    }
}

fn validate(args: &ValidateArgs) -> anyhow::Result<u8> {
    let mut code = exit::OK;
    for path in &args.paths {
        let problems = validate_manifest_file(path);
        if problems.is_empty() {
            outln!("✓ {}", path.display())?;
        } else {
            outln!("✗ {}: {}", path.display(), problems.join("; "))?;
            code = exit::CHECK_FAILED;
        }
    }
    Ok(code)
}
