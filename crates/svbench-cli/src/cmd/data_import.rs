//! `svbench data import ENV --format FMT …` and `svbench data inspect FILE`:
//! local files to an environment's rows through the importers its registry
//! entry declares, and a look at a table before choosing the flags.
//!
//! The importer flags are not spelled here: every importer declares its own
//! (`ImporterEntry::flags`), and this command offers their union, checks
//! the given ones against the chosen environment and format, and passes
//! them on as one typed map.

use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};
use svbench_envs::kit::generate::to_jsonl;
use svbench_envs::kit::import::{Accepts, FlagKind, FlagValue, ImportFailure, ImportFlag};
use svbench_envs::registry::{self, EnvEntry, REGISTRY};

use super::data::emit;
use crate::exit;

/// `svbench data import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Environment (`svbench envs` lists which import and the formats).
    pub env: String,
    /// Input files (or, for eml, directories).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Input format.
    #[arg(long, help = format_help())]
    pub format: String,
    /// The importers' own flags.
    #[command(flatten)]
    pub flags: ImporterFlags,
    /// Output JSONL file [default: stdout].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `svbench data inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A CSV (by extension) or JSONL file.
    pub file: PathBuf,
}

/// The flags every importer in the registry declares, as given (name
/// without `--`, typed by the flag's kind).
#[derive(Debug, Clone, Default)]
pub struct ImporterFlags(pub Vec<(String, FlagValue)>);

/// Every declared flag once, in registry order, with the environments that
/// declare it. A name has one kind across the registry (its test checks),
/// so the first declaration's kind types the value.
fn declared() -> Vec<(
    &'static ImportFlag,
    Vec<(&'static EnvEntry, &'static ImportFlag)>,
)> {
    let mut out: Vec<(&ImportFlag, Vec<_>)> = Vec::new();
    for entry in REGISTRY.iter() {
        for flag in entry.importer.map_or(&[][..], |i| i.flags) {
            match out.iter_mut().find(|(f, _)| f.name == flag.name) {
                Some((_, by)) => by.push((*entry, flag)),
                None => out.push((flag, vec![(*entry, flag)])),
            }
        }
    }
    out
}

/// `--format`'s help: every environment's formats.
fn format_help() -> String {
    let per_env: Vec<String> = REGISTRY
        .iter()
        .filter_map(|e| {
            let importer = e.importer?;
            Some(format!(
                "{}: {}",
                e.identity.short,
                importer.format_names().join(", ")
            ))
        })
        .collect();
    format!("Input format ({})", per_env.join("; "))
}

/// A flag's help: what it does for each environment that declares it.
fn flag_help(by: &[(&EnvEntry, &ImportFlag)]) -> String {
    let parts: Vec<String> = by
        .iter()
        .map(|(entry, flag)| {
            let formats = match flag.accepts {
                Accepts::Every => String::new(),
                Accepts::Only(formats) => format!(" {}", formats.join("/")),
            };
            let default = flag
                .default
                .map(|d| format!(" [default: {d}]"))
                .unwrap_or_default();
            format!("{}{formats}: {}{default}", entry.identity.short, flag.help)
        })
        .collect();
    parts.join("; ")
}

impl Args for ImporterFlags {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for (flag, by) in declared() {
            let arg = Arg::new(flag.name).long(flag.name).help(flag_help(&by));
            // clap keeps value names as `&'static str`; the command is built
            // once per process, so each name is leaked once.
            let value_name: &'static str = Box::leak(
                flag.name
                    .to_ascii_uppercase()
                    .replace('-', "_")
                    .into_boxed_str(),
            );
            cmd = cmd.arg(match flag.kind {
                FlagKind::Switch => arg.action(ArgAction::SetTrue),
                FlagKind::Text => arg.value_name(value_name),
                FlagKind::Path => arg
                    .value_name(value_name)
                    .value_parser(clap::value_parser!(PathBuf)),
                FlagKind::Count => arg
                    .value_name(value_name)
                    .value_parser(clap::value_parser!(u64)),
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for ImporterFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for (flag, _) in declared() {
            let value = match flag.kind {
                FlagKind::Switch => matches.get_flag(flag.name).then_some(FlagValue::Switch),
                FlagKind::Text => matches
                    .get_one::<String>(flag.name)
                    .map(|v| FlagValue::Text(v.clone())),
                FlagKind::Path => matches
                    .get_one::<PathBuf>(flag.name)
                    .map(|v| FlagValue::Path(v.clone())),
                FlagKind::Count => matches
                    .get_one::<u64>(flag.name)
                    .map(|v| FlagValue::Count(*v)),
            };
            if let Some(value) = value {
                given.push((flag.name.to_string(), value));
            }
        }
        Ok(Self(given))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// Runs `data import`.
pub fn import(a: ImportArgs) -> anyhow::Result<u8> {
    let entry = registry::find(&a.env).map_err(|e| exit::usage(e.to_string()))?;
    run_import(entry, &a.format, &a.inputs, a.flags.0, a.out.as_deref())
}

/// Imports `inputs` with `entry`'s importer: checks the flags against its
/// declarations, runs it, prints its notes to stderr and the rows to `out`.
pub(super) fn run_import(
    entry: &EnvEntry,
    format: &str,
    inputs: &[PathBuf],
    given: Vec<(String, FlagValue)>,
    out: Option<&Path>,
) -> anyhow::Result<u8> {
    let importer = entry.importer.ok_or_else(|| {
        exit::usage(format!(
            "{} has no `data import` formats in this build",
            entry.name()
        ))
    })?;
    let flags = importer
        .flags(entry.identity.short, format, given)
        .map_err(failure)?;
    let report = (importer.run)(inputs, &flags).map_err(failure)?;
    for note in &report.notes {
        eprintln!("{note}");
    }
    emit(&to_jsonl(&report.rows), out)
}

/// An importer's failure with its exit code.
fn failure(e: ImportFailure) -> anyhow::Error {
    match e {
        ImportFailure::Usage(m) => exit::usage(m),
        ImportFailure::Data(m) => exit::data(m),
    }
}

/// Runs `data inspect`: every environment that imports tables summarises
/// the file and suggests flags; nothing is applied.
pub fn inspect(a: InspectArgs) -> anyhow::Result<u8> {
    let mut printed = false;
    for entry in REGISTRY.iter() {
        let Some(inspect) = entry.importer.and_then(|i| i.inspect) else {
            continue;
        };
        let text = inspect(&a.file).map_err(|e| exit::data(e.to_string()))?;
        println!(
            "# svbench data import {} --format csv|jsonl …",
            entry.identity.short
        );
        print!("{text}");
        printed = true;
    }
    if !printed {
        return Err(exit::usage("no environment in this build imports tables"));
    }
    Ok(exit::OK)
}
