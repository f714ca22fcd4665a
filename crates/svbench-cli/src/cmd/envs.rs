//! `svbench envs [NAME] [--json]`: what each served environment is and
//! accepts — the same catalogue as the server's `GET /v1/envs` and the
//! Python package's rubric names and weights.

use std::fmt::Write as _;
use std::io::Write as _;

use clap::Args;
use serde_json::json;
use svbench_api::envs::{self, EnvId, EnvInfo};
use svbench_api::Service;

use super::GlobalArgs;
use crate::exit;

/// Arguments of `svbench envs`.
#[derive(Debug, Args)]
pub struct EnvsArgs {
    /// One environment (name or alias); all when omitted.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Print `{"envs": [...]}` as `GET /v1/envs` returns it.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command; returns the exit code.
pub fn run(args: EnvsArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    let ids: Vec<EnvId> = match &args.name {
        Some(name) => vec![EnvId::resolve(name).map_err(|e| exit::usage(e.message))?],
        None => envs::all(),
    };
    let service = Service::new();
    let infos = ids
        .into_iter()
        .map(|id| service.env_info(id))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let mut out = String::new();
    if args.json {
        out = serde_json::to_string_pretty(&json!({ "envs": infos }))?;
        out.push('\n');
    } else {
        for (i, info) in infos.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            text(&mut out, info);
        }
    }
    // A closed pipe (`| head`) is not an error of this command.
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}

fn text(out: &mut String, info: &EnvInfo) {
    let _ = writeln!(
        out,
        "{} ({}) v{} — {}",
        info.name,
        info.aliases.join(", "),
        info.version,
        info.kind
    );
    let splits: Vec<String> = info
        .splits
        .iter()
        .map(|s| format!("{} {}", s.name, s.rows))
        .collect();
    let _ = writeln!(out, "  embedded splits: {}", splits.join(", "));
    let _ = writeln!(
        out,
        "  budgets: max_turns {}, tool_budget {}",
        info.max_turns, info.tool_budget
    );
    let tools: Vec<&str> = info
        .tools
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(|v| v.as_str()))
        .collect();
    if !tools.is_empty() {
        let _ = writeln!(out, "  tools: {}", tools.join(", "));
    }
    let _ = writeln!(out, "  builtin policies (--model builtin:NAME):");
    let summaries = svbench_envs::registry::find(&info.name)
        .map(|entry| entry.builtins)
        .unwrap_or_default();
    for name in &info.builtin_policies {
        let summary = summaries
            .iter()
            .find(|b| b.name == name)
            .map_or("", |b| b.summary);
        let _ = writeln!(out, "    {name}: {summary}");
    }
    let _ = writeln!(out, "  generators: {}", info.generators.join(", "));
    let importer = svbench_envs::registry::find(&info.name)
        .ok()
        .and_then(|entry| entry.importer);
    if let Some(importer) = importer {
        let _ = writeln!(out, "  imports (svbench data import --format FORMAT):");
        for (format, what) in importer.formats {
            let _ = writeln!(out, "    {format}: {what}");
        }
    }
    if let Some(props) = info
        .args_schema
        .get("properties")
        .and_then(|p| p.as_object())
    {
        if !props.is_empty() {
            let _ = writeln!(out, "  arguments (--env-arg KEY=VALUE):");
            for (name, schema) in props {
                let default = schema
                    .get("default")
                    .map(ToString::to_string)
                    .unwrap_or_else(|| "none".into());
                let kind = schema
                    .get("type")
                    .map(ToString::to_string)
                    .or_else(|| schema.get("enum").map(ToString::to_string))
                    .unwrap_or_default();
                let _ = writeln!(out, "    {name}: {kind}, default {default}");
            }
        }
    }
    for profile in &info.reward_profiles {
        let comps: Vec<String> = profile
            .components
            .iter()
            .map(|c| format!("{} × {}", c.name, c.weight))
            .collect();
        let _ = writeln!(
            out,
            "  reward profile {} (hash {}): {}",
            profile.name,
            &profile.config_hash,
            comps.join(" + ")
        );
    }
}
