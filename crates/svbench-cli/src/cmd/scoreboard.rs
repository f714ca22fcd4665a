//! `svbench scoreboard --env e1|e2|e4 RUN_DIR...`: one entry per run, merged
//! into `<env>_scoreboard.json` and `.md` (harness §5.1).

use crate::out::outln;
use std::path::{Path, PathBuf};

use clap::Args;
use svbench_report::scoreboard::{self, Board, ScoreboardError};

use super::GlobalArgs;
use crate::exit;
use svbench_envs::registry::{report_plugin, REGISTRY};

/// Arguments of `svbench scoreboard`.
#[derive(Debug, Args)]
pub struct ScoreboardArgs {
    /// Environment of the scoreboard: a registered environment's name, short id
    /// or alias.
    #[arg(long, value_name = "ENV")]
    pub env: String,
    /// Run directories (each holding metadata.json and results.jsonl).
    #[arg(value_name = "RUN_DIR")]
    pub run_dirs: Vec<PathBuf>,
    /// Also take every run directory under ROOT whose environment matches.
    #[arg(long, value_name = "ROOT")]
    pub discover: Vec<PathBuf>,
    /// Directory of `<env>_scoreboard.json` and `.md`.
    #[arg(long, value_name = "DIR", default_value = "outputs/scoreboards")]
    pub out_dir: PathBuf,
    /// Recompute the given runs' entries and compare them with the file;
    /// exit 6 if any is missing or differs. Writes nothing.
    #[arg(long)]
    pub check: bool,
}

/// The registered environment `name` spells (any spelling, any case).
fn registered(name: &str) -> Option<&'static svbench_envs::registry::EnvEntry> {
    let lower = name.trim().to_ascii_lowercase();
    REGISTRY
        .iter()
        .copied()
        .find(|e| e.identity.is_named(&lower))
}

/// Runs the command; returns the exit code.
pub fn run(args: ScoreboardArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    let env = registered(&args.env)
        .and_then(|e| Board::of(e.identity, e.report))
        .ok_or_else(|| {
            exit::usage(format!(
                "--env {}: scoreboards exist for {}",
                args.env,
                boards_listed()
            ))
        })?;
    let mut runs = args.run_dirs.clone();
    for root in &args.discover {
        runs.extend(discover(root, env)?);
    }
    runs.sort();
    runs.dedup();
    if runs.is_empty() {
        return Err(exit::usage(
            "no run directory given (pass RUN_DIR... or --discover ROOT)",
        ));
    }
    if args.check {
        let differences =
            scoreboard::check(env, &runs, &args.out_dir, report_plugin).map_err(coded)?;
        let path = env.json_path(&args.out_dir);
        if differences.is_empty() {
            eprintln!(
                "✓ {}: the entries of {} run(s) match the recomputation",
                path.display(),
                runs.len()
            );
            return Ok(exit::OK);
        }
        eprintln!(
            "✗ {}: entries differ from the recomputation:",
            path.display()
        );
        for d in &differences {
            eprintln!("  {d}");
        }
        return Ok(exit::CHECK_FAILED);
    }
    let out = scoreboard::update(env, &runs, &args.out_dir, report_plugin).map_err(coded)?;
    eprintln!(
        "{} run(s) scored; the board holds {} entr{}",
        runs.len(),
        out.entries,
        if out.entries == 1 { "y" } else { "ies" }
    );
    outln!("{}", out.json_path.display())?;
    outln!("{}", out.md_path.display())?;
    Ok(exit::OK)
}

/// Input problems exit 3 (a run that cannot be read) or 2 (runs that do
/// not belong on this board); failed writes exit 1.
fn coded(e: ScoreboardError) -> anyhow::Error {
    match &e {
        ScoreboardError::WrongEnvironment { .. } | ScoreboardError::DuplicateRunId { .. } => {
            exit::usage(e.to_string())
        }
        ScoreboardError::Run { source, .. } if source.is_input_error() => exit::data(e.to_string()),
        ScoreboardError::BadFile { path, .. } => exit::with_hint(
            exit::DATA,
            e.to_string(),
            format!(
                "a board written by an older svbench has other columns: move {} aside and rebuild it from the runs (`--discover DIR`)",
                path.display()
            ),
        ),
        ScoreboardError::Empty(_) => exit::data(e.to_string()),
        _ => anyhow::Error::new(e),
    }
}

/// The short ids of every environment with a board, for messages:
/// `e1, e2 and e4`.
fn boards_listed() -> String {
    let shorts: Vec<&str> = REGISTRY
        .iter()
        .filter(|e| e.report.board().is_some())
        .map(|e| e.identity.short)
        .collect();
    match shorts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => shorts.concat(),
    }
}

/// Run directories under `root` (any depth, byte order) whose
/// `metadata.json` names `env`.
fn discover(root: &Path, env: Board) -> anyhow::Result<Vec<PathBuf>> {
    if !root.is_dir() {
        return Err(exit::data(format!(
            "--discover {}: not a directory",
            root.display()
        )));
    }
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let meta = dir.join("metadata.json");
        if meta.is_file() {
            let environment = std::fs::read(&meta)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|v| v.get("environment")?.as_str().map(str::to_string));
            let named = environment
                .as_deref()
                .and_then(registered)
                .is_some_and(|e| e.identity.name == env.identity.name);
            if named {
                found.push(dir);
            }
            continue;
        }
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| exit::data(format!("--discover: cannot read {}: {e}", dir.display())))?;
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    found.sort();
    Ok(found)
}
