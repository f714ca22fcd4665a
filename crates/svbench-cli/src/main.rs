//! The `svbench` binary: argument parsing and wiring only.

// The metadata template of `svbench bench` is one large `json!` literal.
#![recursion_limit = "256"]

mod build_info;
mod cmd;
mod exit;
mod out;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// svbench — security verifiers: RL environments and a benchmark whose rewards are executed, not judged.
#[derive(Debug, Parser)]
#[command(name = "svbench", version, about, long_about = None)]
struct Cli {
    #[command(flatten)]
    global: cmd::GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate a model or builtin policy on an environment.
    Eval(Box<cmd::eval::EvalArgs>),
    /// Recompute summary.json, report.md and run_manifest.json from run directories.
    Report(cmd::report::ReportArgs),
    /// Generate, import and hash datasets.
    #[command(subcommand)]
    Data(cmd::data::DataCommand),
    /// Validate run manifests (run_manifest.json).
    #[command(subcommand)]
    Manifest(cmd::manifest::ManifestCommand),
    /// Scan config files (kube-linter, semgrep, Rego) and e-mail (phishing indicators).
    Scan(cmd::scan::ScanArgs),
    /// Benchmarks of scoring and reporting (prints figures, asserts nothing).
    #[cfg(feature = "bench")]
    Bench(cmd::bench::BenchArgs),
    /// Merge runs into `<env>_scoreboard.json` and `.md`.
    Scoreboard(cmd::scoreboard::ScoreboardArgs),
    /// Paired comparison of two runs on the same examples.
    Compare(cmd::compare::CompareArgs),
    /// Serve catalogue, rows, scoring and episodes over HTTP.
    Serve(cmd::serve::ServeArgs),
    /// What each environment is and accepts: splits, arguments, reward
    /// profiles (components and weights), tools, budgets.
    Envs(cmd::envs::EnvsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval(args) => cmd::eval::run(*args, &cli.global),
        Command::Report(args) => cmd::report::run(args, &cli.global),
        Command::Data(args) => cmd::data::run(args, &cli.global),
        Command::Manifest(args) => cmd::manifest::run(args, &cli.global),
        Command::Scan(args) => cmd::scan::run(args, &cli.global),
        #[cfg(feature = "bench")]
        Command::Bench(args) => cmd::bench::run(args, &cli.global),
        Command::Scoreboard(args) => cmd::scoreboard::run(args, &cli.global),
        Command::Compare(args) => cmd::compare::run(args, &cli.global),
        Command::Serve(args) => cmd::serve::run(args, &cli.global),
        Command::Envs(args) => cmd::envs::run(args, &cli.global),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`| head`): nothing more to say.
        Err(err) if out::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let code = exit::code_for(&err);
            eprintln!("error: {err:#}");
            if let Some(hint) = exit::hint_for(&err) {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(code)
        }
    }
}
