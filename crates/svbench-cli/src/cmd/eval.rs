//! `svbench eval ENV`: run a policy over an environment's examples and write
//! the run artifacts (harness §1.1, §3).

use crate::out::outln;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::collections::BTreeMap;

use super::eval_agent::{
    builtin_agent, builtin_agent_from, builtin_name, load_config, model_agent, route_model,
    AgentSetup, E1_SAMPLING, E2_SAMPLING,
};
use anyhow::Context;
use clap::Args;
use serde_json::{json, Value};
use svbench_core::canonical::sha256_hex;
use svbench_core::record::{FileRef, RunCounts, RunMetadata, RunStatus, Selection};
use svbench_core::ExampleSet;
use svbench_envs::e1::dataset::{self, DatasetSpec, SelectionRequest, SplitRequest};
use svbench_envs::e1::env::E1Env;
use svbench_envs::e2::dataset as e2_dataset;
use svbench_envs::e2::env::{E2Args, E2Env, OracleMode, ARG_NAMES as E2_ARG_NAMES};
use svbench_envs::environment::{Budgets, Environment};
use svbench_envs::policy::e2_builtin;
use svbench_runner::artifacts::{new_run_id, run_dir, validate_run_id};
use svbench_runner::{run_eval, EvalPlan, RunSettings};

use super::GlobalArgs;
use crate::build_info;
use crate::exit;

/// Arguments of `svbench eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Environment: e1 (network-logs, sv-env-network-logs) or e2
    /// (config-verification, sv-env-config-verification).
    pub env: String,
    /// Model reference or builtin policy (E1: builtin:heuristic,
    /// builtin:oracle; E2: builtin:tool-only, builtin:oracle; both:
    /// builtin:replay:FILE); repeatable. E1 defaults to builtin:heuristic,
    /// E2 to builtin:tool-only.
    #[arg(long = "model", value_name = "M")]
    pub models: Vec<String>,
    /// Distinct examples to run (default: all in the split).
    #[arg(short = 'n', long = "num-examples")]
    pub num_examples: Option<usize>,
    /// Samples per example.
    #[arg(short = 'r', long = "rollouts-per-example")]
    pub rollouts_per_example: Option<usize>,
    /// embedded, a JSONL path, or synthetic:SEED:N.
    #[arg(long)]
    pub dataset: Option<String>,
    /// train, dev, test, ood or all (default test; `all` for rows without splits).
    #[arg(long)]
    pub split: Option<String>,
    /// Seeded shuffle before taking -n examples.
    #[arg(long)]
    pub shuffle: bool,
    /// Seed for shuffling, request seeds and generators.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Reward profile: v1 (default) or upstream (the parser mode follows it).
    #[arg(long)]
    pub reward_profile: Option<String>,
    /// TOML file overriding reward constants (only the keys to change).
    #[arg(long, value_name = "FILE")]
    pub reward_config: Option<PathBuf>,
    /// Environment-specific argument K=V, repeatable (E1 has none; E2:
    /// include_tools, oracle, oracle_patch, lang, policy_dirs,
    /// kube_linter_checks, backend, show_catalog, max_findings_per_result).
    #[arg(long = "env-arg", value_name = "K=V")]
    pub env_args: Vec<String>,
    /// Oracle mode, dataset or live: shorthand for --env-arg oracle=… (E2 only).
    #[arg(long, value_name = "MODE")]
    pub oracle: Option<String>,
    /// Run id (default: <timestamp>-<8 hex>).
    #[arg(long)]
    pub run_id: Option<String>,
    /// Artifact root.
    #[arg(long, default_value = "outputs/evals")]
    pub output_dir: PathBuf,
    /// Continue an interrupted run from its directory.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// With --resume: also re-run samples whose last record is an error.
    #[arg(long)]
    pub retry_errors: bool,
    /// Abort after this many consecutive errored samples (0 disables).
    #[arg(long, default_value_t = 3)]
    pub max_consecutive_errors: u32,
    /// Samples in flight for model endpoints (default 8, or svbench.toml
    /// `[defaults] concurrency`; capped by the profile's max_concurrency).
    /// Builtin policies run one at a time.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Send every model of this invocation to this OpenAI-compatible base URL.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Environment variable holding the API key for --base-url ("" for none).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Nucleus sampling (not sent to reasoning models).
    #[arg(long)]
    pub top_p: Option<f64>,
    /// Per-attempt request timeout in seconds.
    #[arg(long, default_value_t = 120.0)]
    pub request_timeout: f64,
    /// Response cache: auto (read-write at temperature 0), read-write,
    /// read-only, write-only or off.
    #[arg(long, value_name = "MODE")]
    pub cache_mode: Option<String>,
    /// Retries per model call after the first attempt (backoff with jitter,
    /// Retry-After honoured).
    #[arg(long, default_value_t = 6)]
    pub max_retries: u32,
    /// Bypass the response cache (same as --cache-mode off).
    #[arg(long)]
    pub no_cache: bool,
    /// Token limit per model call.
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Model calls per sample (E1 1, E2 5).
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Tool calls per sample, all tools together (E2 3; E1 has no tools).
    #[arg(long)]
    pub tool_budget: Option<u32>,
    /// Sampling temperature.
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Wall-time limit per sample, in seconds (exceeded: a `timeout` error).
    #[arg(long, default_value_t = 600.0)]
    pub sample_timeout: f64,
    /// Replace the environment's system prompt with this file.
    #[arg(long, value_name = "FILE")]
    pub system_prompt_file: Option<PathBuf>,
    /// Label recorded as baseline_name.
    #[arg(long)]
    pub baseline_name: Option<String>,
    /// Free-text notes for metadata.
    #[arg(long)]
    pub notes: Option<String>,
    /// Budget group label for metadata.
    #[arg(long)]
    pub budget_group: Option<String>,
    /// Print one JSON object per run on stdout instead of the run directory.
    #[arg(long)]
    pub json: bool,
}

/// Accepted spellings of E1's name.
const E1_NAMES: [&str; 3] = ["e1", "network-logs", "sv-env-network-logs"];
/// Accepted spellings of E2's name.
const E2_NAMES: [&str; 3] = ["e2", "config-verification", "sv-env-config-verification"];
/// The other environments, known but not built yet.
const LATER_ENVS: [&str; 12] = [
    "e3",
    "code-vulnerability",
    "sv-env-code-vulnerability",
    "e4",
    "phishing-detection",
    "sv-env-phishing-detection",
    "e5",
    "redteam-attack",
    "sv-env-redteam-attack",
    "e6",
    "redteam-defense",
    "sv-env-redteam-defense",
];

/// The environments `eval` can run; the per-environment pieces (defaults,
/// environment construction, dataset loading, metadata facts) hang off it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EnvId {
    E1,
    E2,
}

impl EnvId {
    fn from_name(name: &str) -> Option<Self> {
        if E1_NAMES.contains(&name) {
            Some(EnvId::E1)
        } else if E2_NAMES.contains(&name) {
            Some(EnvId::E2)
        } else {
            None
        }
    }

    /// Canonical environment name (metadata, run directory).
    fn name(self) -> &'static str {
        match self {
            EnvId::E1 => svbench_envs::e1::NAME,
            EnvId::E2 => svbench_envs::e2::NAME,
        }
    }

    /// The policy run without `--model`, and how stderr announces it. Only
    /// E1 has one (harness §1.1); the others require `--model`.
    fn default_model(self) -> Option<(&'static str, &'static str)> {
        match self {
            EnvId::E1 => Some((
                "builtin:heuristic",
                "note: no --model given; running builtin:heuristic, E1's default policy",
            )),
            EnvId::E2 => None,
        }
    }

    /// Default `(max_turns, tool_budget)` (harness §1.1).
    fn default_budgets(self) -> (u32, u32) {
        match self {
            EnvId::E1 => (1, 0),
            EnvId::E2 => (5, 3),
        }
    }

    /// Checks a builtin policy name before anything runs (E2's builtins are
    /// built later, against the configured environment).
    fn check_builtin(self, name: &str) -> anyhow::Result<()> {
        match self {
            EnvId::E1 => builtin_agent(name).map(|_| ()),
            EnvId::E2 => {
                if matches!(name, "oracle" | "tool-only") || name.starts_with("replay:") {
                    Ok(())
                } else {
                    Err(exit::usage(format!(
                        "unknown builtin policy `{name}` for {} (available: oracle, tool-only, replay:FILE)",
                        svbench_envs::e2::NAME
                    )))
                }
            }
        }
    }
}

/// `--env-arg` pairs plus `--oracle` (appended last, so the flag wins).
fn env_arg_pairs(args: &EvalArgs) -> Vec<String> {
    let mut pairs = args.env_args.clone();
    if let Some(mode) = &args.oracle {
        pairs.push(format!("oracle={mode}"));
    }
    pairs
}

/// The `--env-arg` pairs that reproduce the E2 arguments recorded in a
/// run's metadata.
fn recorded_e2_pairs(env_args: &BTreeMap<String, Value>) -> Vec<String> {
    E2_ARG_NAMES
        .iter()
        .filter_map(|key| {
            let value = match env_args.get(*key)? {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(","),
                other => other.to_string(),
            };
            Some(format!("{key}={value}"))
        })
        .collect()
}

/// Run-defining settings, from flags or from a resumed run's metadata.
#[derive(Debug, Clone, PartialEq)]
struct RunSpec {
    env: EnvId,
    env_args: Vec<String>,
    max_turns: u32,
    tool_budget: u32,
    model: String,
    dataset: String,
    split: Option<String>,
    num_examples: Option<usize>,
    shuffle: bool,
    seed: u64,
    rollouts: usize,
    reward_profile: String,
    reward_config: Option<PathBuf>,
    system_prompt_file: Option<PathBuf>,
}

/// Runs the command; returns the exit code.
pub fn run(args: EvalArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    if LATER_ENVS.contains(&args.env.as_str()) {
        return Err(exit::with_hint(
            exit::USAGE,
            format!(
                "environment `{}` is not implemented yet in this build",
                args.env
            ),
            "only e1 (sv-env-network-logs) is available so far",
        ));
    }
    let Some(env_id) = EnvId::from_name(&args.env) else {
        return Err(exit::usage(format!(
            "unknown environment `{}` (known: e1/network-logs/sv-env-network-logs, \
             e2/config-verification/sv-env-config-verification; e3–e6 are not built yet)",
            args.env
        )));
    };
    match env_id {
        EnvId::E1 => {
            if let Some(arg) = args.env_args.first() {
                return Err(exit::usage(format!(
                    "E1 has no environment-specific arguments (got --env-arg {arg}); use the common flags \
                     (--dataset, --split, -n, --seed, --reward-profile, …)"
                )));
            }
            if args.oracle.is_some() {
                return Err(exit::usage(
                    "--oracle is only for environments with an `oracle` argument (e2)",
                ));
            }
            if args.tool_budget.is_some_and(|b| b > 0) {
                return Err(exit::usage("E1 has no tools: --tool-budget must be 0"));
            }
        }
        EnvId::E2 => {
            E2Args::parse(&env_arg_pairs(&args)).map_err(|e| exit::usage(e.to_string()))?;
            if args.max_turns == Some(0) {
                return Err(exit::usage("--max-turns must be at least 1"));
            }
        }
    }
    for (flag, v) in [
        ("--sample-timeout", args.sample_timeout),
        ("--request-timeout", args.request_timeout),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return Err(exit::usage(format!(
                "{flag} must be a positive number of seconds"
            )));
        }
    }
    if args.concurrency == Some(0) {
        return Err(exit::usage("--concurrency must be at least 1"));
    }
    if args.retry_errors && args.resume.is_none() {
        return Err(exit::usage(
            "--retry-errors only makes sense with --resume RUN_DIR",
        ));
    }

    let interrupt = install_interrupt_handler();
    if let Some(dir) = args.resume.clone() {
        let spec = resume_spec(env_id, &dir, &args)?;
        return run_one(&args, global, spec, Some(dir), interrupt);
    }

    let models = if args.models.is_empty() {
        let Some((model, note)) = env_id.default_model() else {
            return Err(exit::with_hint(
                exit::USAGE,
                format!("{} has no default policy: pass --model", env_id.name()),
                "e.g. --model builtin:tool-only (runs the analyzers through the tools), \
                 --model builtin:oracle (upper bound) or a model name",
            ));
        };
        eprintln!("{note}");
        vec![model.to_string()]
    } else {
        args.models.clone()
    };
    // Validate every model route and key variable before running any:
    // nothing is created on a usage error.
    let config = load_config(global.config.as_deref())?;
    for m in &models {
        match builtin_name(m) {
            Some(name) => env_id.check_builtin(name)?,
            None => {
                route_model(m, &args, &config)?;
            }
        }
    }
    let mut worst = exit::OK;
    for model in models {
        let (max_turns, tool_budget) = env_id.default_budgets();
        let spec = RunSpec {
            env: env_id,
            env_args: env_arg_pairs(&args),
            max_turns: args.max_turns.unwrap_or(max_turns),
            tool_budget: args.tool_budget.unwrap_or(tool_budget),
            model,
            dataset: args.dataset.clone().unwrap_or_else(|| "embedded".into()),
            split: args.split.clone(),
            num_examples: args.num_examples,
            shuffle: args.shuffle,
            seed: args.seed.unwrap_or(42),
            rollouts: args.rollouts_per_example.unwrap_or(1),
            reward_profile: args.reward_profile.clone().unwrap_or_else(|| "v1".into()),
            reward_config: args.reward_config.clone(),
            system_prompt_file: args.system_prompt_file.clone(),
        };
        let code = run_one(&args, global, spec, None, interrupt.clone())?;
        worst = worst.max(code);
        if code == exit::INTERRUPTED {
            break;
        }
    }
    Ok(worst)
}

/// First SIGINT/SIGTERM stops dispatch (the run stays resumable); a second exits at once.
fn install_interrupt_handler() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let result = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            eprintln!("second interrupt: exiting now");
            std::process::exit(exit::INTERRUPTED as i32);
        }
        eprintln!(
            "interrupt: finishing the sample in flight; the run can be resumed with --resume"
        );
    });
    if let Err(e) = result {
        eprintln!("warning: cannot install the interrupt handler: {e}");
    }
    flag
}

/// Reads a run's metadata and checks the flags given now do not contradict it.
fn resume_spec(env_id: EnvId, dir: &Path, args: &EvalArgs) -> anyhow::Result<RunSpec> {
    let path = dir.join("metadata.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| exit::data(format!("cannot resume {}: {e}", path.display())))?;
    let meta: RunMetadata = serde_json::from_str(&text).map_err(|e| {
        exit::data(format!(
            "cannot resume: {} is not valid metadata: {e}",
            path.display()
        ))
    })?;
    if meta.environment != env_id.name() {
        return Err(exit::usage(format!(
            "cannot resume: {} is a run of {}, not {}",
            dir.display(),
            meta.environment,
            env_id.name()
        )));
    }
    let recorded_env_args = match env_id {
        EnvId::E1 => Vec::new(),
        EnvId::E2 => recorded_e2_pairs(&meta.env_args),
    };
    let recorded = RunSpec {
        env: env_id,
        env_args: recorded_env_args.clone(),
        max_turns: meta.max_turns,
        tool_budget: meta.tool_budget,
        model: meta.model.clone(),
        dataset: meta.dataset.clone(),
        split: Some(meta.split.clone()),
        num_examples: Some(meta.selection.num_examples),
        shuffle: meta.selection.mode == "shuffle",
        seed: meta.seed,
        rollouts: meta.rollouts_per_example,
        reward_profile: meta.reward_profile.clone(),
        reward_config: meta
            .reward_config_file
            .as_ref()
            .map(|f| PathBuf::from(&f.path)),
        system_prompt_file: meta.system_prompt_file.as_ref().map(PathBuf::from),
    };
    let check = |name: &str, given: Option<String>, was: String| -> Option<String> {
        given
            .filter(|g| *g != was)
            .map(|g| format!("  {name}: run has {was}, flag says {g}"))
    };
    let shown = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let mut diff: Vec<String> = [
        check(
            "model",
            (args.models.len() == 1).then(|| args.models[0].clone()),
            recorded.model.clone(),
        ),
        check("dataset", args.dataset.clone(), recorded.dataset.clone()),
        check("split", args.split.clone(), meta.split.clone()),
        check(
            "num_examples",
            args.num_examples.map(|n| n.to_string()),
            meta.selection.num_examples.to_string(),
        ),
        check(
            "seed",
            args.seed.map(|s| s.to_string()),
            meta.seed.to_string(),
        ),
        check(
            "rollouts_per_example",
            args.rollouts_per_example.map(|r| r.to_string()),
            recorded.rollouts.to_string(),
        ),
        check(
            "reward_profile",
            args.reward_profile.clone(),
            recorded.reward_profile.clone(),
        ),
        check(
            "reward_config",
            shown(&args.reward_config),
            shown(&recorded.reward_config).unwrap_or_else(|| "none".into()),
        ),
        check(
            "system_prompt_file",
            shown(&args.system_prompt_file),
            meta.system_prompt_file
                .clone()
                .unwrap_or_else(|| "none".into()),
        ),
        check("run_id", args.run_id.clone(), meta.run_id.clone()),
        check(
            "max_turns",
            args.max_turns.map(|t| t.to_string()),
            meta.max_turns.to_string(),
        ),
        check(
            "tool_budget",
            args.tool_budget.map(|t| t.to_string()),
            meta.tool_budget.to_string(),
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    if args.models.len() > 1 {
        diff.push("  model: --resume continues one run; give at most one --model".into());
    }
    if args.shuffle && !recorded.shuffle {
        diff.push("  shuffle: run has first, flag says shuffle".into());
    }
    if env_id == EnvId::E2 {
        let given = env_arg_pairs(args);
        if !given.is_empty() {
            let was = E2Args::parse(&recorded_env_args).map_err(|e| {
                exit::data(format!("cannot resume: recorded env_args are invalid: {e}"))
            })?;
            let mut now_pairs = recorded_env_args.clone();
            now_pairs.extend(given.iter().cloned());
            let now = E2Args::parse(&now_pairs).map_err(|e| exit::usage(e.to_string()))?;
            if now != was {
                diff.push(format!(
                    "  env_args: run has {}, flags say {}",
                    recorded_env_args.join(" "),
                    given.join(" ")
                ));
            }
        }
    }
    if !diff.is_empty() {
        return Err(exit::usage(format!(
            "--resume: flags contradict the run's metadata:\n{}",
            diff.join("\n")
        )));
    }
    Ok(recorded)
}

/// Everything resolved before any directory is created.
struct Prepared {
    env: Arc<dyn Environment>,
    facts: EnvFacts,
    agent: AgentSetup,
    data: Data,
    reward_config_file: Option<FileRef>,
    system_prompt_file: Option<String>,
}

/// The selected examples and the dataset provenance metadata records.
struct Data {
    /// Built one at a time as the run dispatches them (E1 keeps rows on disk).
    examples: Arc<dyn ExampleSet>,
    split: String,
    split_rows: usize,
    dataset_sha256: String,
    selected_sha256: String,
    file_sha256: Option<String>,
    warnings: Vec<String>,
}

/// What metadata records about the configured environment.
struct EnvFacts {
    reward_name: &'static str,
    reward_config_hash: String,
    reward_weights: BTreeMap<String, f64>,
    reward_params: BTreeMap<String, Value>,
    system_prompt_sha256: Option<String>,
    /// Environment-specific arguments, recorded after the common settings.
    env_args: BTreeMap<String, Value>,
    include_tools: bool,
    tool_versions: BTreeMap<String, Value>,
    evaluation_type: &'static str,
    max_tokens: u32,
    env_provenance: BTreeMap<String, Value>,
}

fn prepare(spec: &RunSpec, args: &EvalArgs, global: &GlobalArgs) -> anyhow::Result<Prepared> {
    let overrides = match &spec.reward_config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                exit::usage(format!(
                    "cannot read --reward-config {}: {e}",
                    path.display()
                ))
            })?;
            Some((text, path.display().to_string()))
        }
        None => None,
    };
    let reward_config_file = overrides.as_ref().map(|(text, path)| FileRef {
        path: path.clone(),
        sha256: sha256_hex(text.as_bytes()),
    });
    let prompt_override = match &spec.system_prompt_file {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
            exit::usage(format!(
                "cannot read --system-prompt-file {}: {e}",
                path.display()
            ))
        })?),
        None => None,
    };
    let system_prompt_file = spec
        .system_prompt_file
        .as_ref()
        .map(|p| p.display().to_string());
    let overrides = overrides.as_ref().map(|(t, o)| (t.as_str(), o.as_str()));
    let (env, facts, agent, data) = match spec.env {
        EnvId::E1 => prepare_e1(spec, args, global, overrides, prompt_override)?,
        EnvId::E2 => prepare_e2(spec, args, global, overrides, prompt_override)?,
    };
    let missing = match &agent.policy {
        Some(policy) => policy.missing(data.examples.as_ref(), spec.rollouts),
        None => Vec::new(),
    };
    if !missing.is_empty() {
        let shown: Vec<_> = missing.iter().take(20).cloned().collect();
        return Err(exit::data(format!(
            "replay file has no record for {} selected sample(s): {}{}",
            missing.len(),
            shown.join(", "),
            if missing.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        )));
    }
    let unmatched = match &agent.policy {
        Some(policy) => policy.unmatched(data.examples.as_ref(), spec.rollouts),
        None => Vec::new(),
    };
    if !unmatched.is_empty() {
        let shown: Vec<String> = unmatched.iter().take(20).map(usize::to_string).collect();
        eprintln!(
            "warning: {} replay record(s) match no selected sample (lines {}{})",
            unmatched.len(),
            shown.join(", "),
            if unmatched.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        );
    }
    Ok(Prepared {
        env,
        facts,
        agent,
        data,
        reward_config_file,
        system_prompt_file,
    })
}

type PreparedEnv = (Arc<dyn Environment>, EnvFacts, AgentSetup, Data);

fn prepare_e1(
    spec: &RunSpec,
    args: &EvalArgs,
    global: &GlobalArgs,
    overrides: Option<(&str, &str)>,
    prompt_override: Option<String>,
) -> anyhow::Result<PreparedEnv> {
    let mut env =
        E1Env::new(&spec.reward_profile, overrides).map_err(|e| exit::usage(e.to_string()))?;
    if let Some(text) = prompt_override {
        env.set_system_prompt(text);
    }
    if spec.rollouts == 0 {
        return Err(exit::usage("-r/--rollouts-per-example must be at least 1"));
    }
    let agent = match builtin_name(&spec.model) {
        Some(name) => builtin_agent(name)?,
        None => {
            let config = load_config(global.config.as_deref())?;
            model_agent(&spec.model, args, &config, spec.seed, E1_SAMPLING)?
        }
    };
    let dataset_spec = DatasetSpec::parse(&spec.dataset).map_err(|e| exit::data(e.to_string()))?;
    let mut loaded = dataset::open(
        &dataset_spec,
        &SplitRequest(spec.split.clone()),
        &SelectionRequest {
            max_examples: spec.num_examples,
            shuffle: spec.shuffle,
            seed: spec.seed,
        },
    )
    .map_err(|e| exit::data(e.to_string()))?;
    let rewards = &env.rewards;
    let facts = EnvFacts {
        reward_name: rewards.name(),
        reward_config_hash: rewards.config_hash(),
        reward_weights: rewards
            .weights()
            .into_iter()
            .map(|(n, w)| (n.to_string(), w))
            .collect(),
        reward_params: rewards.params.clone(),
        system_prompt_sha256: Some(sha256_hex(env.system_prompt.as_bytes())),
        env_args: BTreeMap::new(),
        include_tools: false,
        tool_versions: BTreeMap::new(),
        evaluation_type: "single-turn",
        max_tokens: args.max_tokens.unwrap_or(E1_SAMPLING.max_tokens),
        env_provenance: BTreeMap::new(),
    };
    let data = Data {
        split: loaded.split.clone(),
        split_rows: loaded.split_rows,
        dataset_sha256: loaded.dataset_sha256.clone(),
        selected_sha256: loaded.selected_sha256.clone(),
        file_sha256: loaded.file_sha256.clone(),
        warnings: std::mem::take(&mut loaded.warnings),
        examples: Arc::new(loaded),
    };
    Ok((Arc::new(env), facts, agent, data))
}

fn prepare_e2(
    spec: &RunSpec,
    args: &EvalArgs,
    global: &GlobalArgs,
    overrides: Option<(&str, &str)>,
    prompt_override: Option<String>,
) -> anyhow::Result<PreparedEnv> {
    let e2_args = E2Args::parse(&spec.env_args).map_err(|e| exit::usage(e.to_string()))?;
    let mut env = E2Env::new(&spec.reward_profile, overrides, e2_args)
        .map_err(|e| exit::usage(e.to_string()))?;
    env.set_budgets(Budgets {
        max_turns: spec.max_turns,
        tool_budget: spec.tool_budget,
    });
    let system_prompt_sha256 = prompt_override
        .as_ref()
        .map(|text| sha256_hex(text.as_bytes()));
    if let Some(text) = prompt_override {
        env.set_system_prompt(text);
    }
    if spec.rollouts == 0 {
        return Err(exit::usage("-r/--rollouts-per-example must be at least 1"));
    }
    let agent = match builtin_name(&spec.model) {
        Some(name) => builtin_agent_from(e2_builtin(name, &env))?,
        None => {
            let config = load_config(global.config.as_deref())?;
            model_agent(&spec.model, args, &config, spec.seed, E2_SAMPLING)?
        }
    };
    let dataset_spec =
        e2_dataset::DatasetSpec::parse(&spec.dataset).map_err(|e| exit::data(e.to_string()))?;
    let mut loaded = e2_dataset::load(&dataset_spec, spec.split.as_deref())
        .map_err(|e| exit::data(e.to_string()))?;
    loaded
        .select(
            e2_dataset::lang_filter(env.args().lang),
            spec.num_examples,
            spec.shuffle,
            spec.seed,
        )
        .map_err(|e| exit::data(e.to_string()))?;
    if env.args().oracle == OracleMode::Live {
        // Items the oracle cannot label become per-sample errors when scored.
        e2_dataset::relabel_live(&mut loaded.examples, &env);
    }
    let rewards = env.rewards();
    // `{backend, version}` per namespace as the tools run it (external
    // binaries with `backend=external`).
    let analyzer_versions = env.analyzers().versions_record();
    let include_tools = env.args().include_tools;
    let facts = EnvFacts {
        reward_name: rewards.name(),
        reward_config_hash: rewards.config_hash(),
        reward_weights: rewards
            .weights()
            .into_iter()
            .map(|(n, w)| (n.to_string(), w))
            .collect(),
        reward_params: rewards.params.clone(),
        // The default prompt is per item (it lists the item's labelled
        // namespaces); only an override has one hash.
        system_prompt_sha256,
        env_args: env.args().to_record(),
        include_tools,
        tool_versions: if include_tools {
            analyzer_versions.clone()
        } else {
            BTreeMap::new()
        },
        evaluation_type: "multi-turn",
        max_tokens: args.max_tokens.unwrap_or(E2_SAMPLING.max_tokens),
        env_provenance: BTreeMap::from([
            ("analyzer_versions".to_string(), json!(analyzer_versions)),
            ("oracle".to_string(), json!(env.args().oracle.as_str())),
        ]),
    };
    let data = Data {
        examples: Arc::new(loaded.examples),
        split: loaded.split,
        split_rows: loaded.split_rows,
        dataset_sha256: loaded.dataset_sha256,
        selected_sha256: loaded.selected_sha256,
        file_sha256: loaded.file_sha256,
        warnings: loaded.warnings,
    };
    Ok((Arc::new(env), facts, agent, data))
}

fn run_one(
    args: &EvalArgs,
    global: &GlobalArgs,
    spec: RunSpec,
    resume_dir: Option<PathBuf>,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<u8> {
    let prepared = prepare(&spec, args, global)?;
    let resume = resume_dir.is_some();
    let now = chrono::Utc::now();
    let (dir, metadata) = match resume_dir {
        Some(dir) => {
            let text = std::fs::read_to_string(dir.join("metadata.json"))
                .with_context(|| format!("reading {}", dir.join("metadata.json").display()))?;
            let mut old: RunMetadata = serde_json::from_str(&text)?;
            let fresh = new_metadata(args, &spec, &prepared, old.run_id.clone(), now);
            let mut mismatches = Vec::new();
            for (name, was, is) in [
                ("dataset_sha256", &old.dataset_sha256, &fresh.dataset_sha256),
                (
                    "selected_sha256",
                    &old.selected_sha256,
                    &fresh.selected_sha256,
                ),
                (
                    "reward_config_hash",
                    &old.reward_config_hash,
                    &fresh.reward_config_hash,
                ),
            ] {
                if was != is {
                    mismatches.push(format!("  {name}: run has {was}, now {is}"));
                }
            }
            let base_url = |m: &RunMetadata| m.endpoint.as_ref().map(|e| e.base_url.clone());
            if base_url(&old) != base_url(&fresh) {
                mismatches.push(format!(
                    "  endpoint: run used {}, now {} (pass the same --base-url / --config)",
                    base_url(&old).unwrap_or_else(|| "none".into()),
                    base_url(&fresh).unwrap_or_else(|| "none".into())
                ));
            }
            if !mismatches.is_empty() {
                return Err(exit::usage(format!(
                    "--resume refused: the inputs changed since the run started:\n{}",
                    mismatches.join("\n")
                )));
            }
            // Settings that may change on resume.
            old.concurrency = fresh.concurrency;
            old.argv = fresh.argv;
            (dir, old)
        }
        None => {
            let run_id = match &args.run_id {
                Some(id) => {
                    validate_run_id(id).map_err(|e| exit::usage(e.to_string()))?;
                    id.clone()
                }
                None => new_run_id(now),
            };
            let meta = new_metadata(args, &spec, &prepared, run_id.clone(), now);
            let dir = run_dir(
                &args.output_dir,
                spec.env.name(),
                &prepared.agent.slug,
                &run_id,
            );
            if dir.exists()
                && std::fs::read_dir(&dir)
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(false)
            {
                return Err(exit::with_hint(
                    exit::USAGE,
                    format!(
                        "run directory {} already exists and is not empty",
                        dir.display()
                    ),
                    "choose another --run-id, or continue it with --resume",
                ));
            }
            (dir, meta)
        }
    };

    let env: Arc<dyn Environment> = prepared.env.clone();
    let budgets = Budgets {
        max_turns: metadata.max_turns,
        tool_budget: metadata.tool_budget,
    };
    let label = prepared.agent.slug.clone();
    let plan = EvalPlan {
        env,
        agent: prepared.agent.agent.clone(),
        examples: prepared.data.examples.clone(),
        metadata,
        run_dir: dir.clone(),
        resume,
        settings: RunSettings {
            rollouts_per_example: spec.rollouts,
            max_consecutive_errors: args.max_consecutive_errors,
            progress: !global.no_progress,
            retry_errors: args.retry_errors,
            concurrency: prepared.agent.concurrency,
            budgets,
            sample_timeout: Some(Duration::from_secs_f64(args.sample_timeout)),
            label,
            stats: prepared.agent.stats.clone(),
            interrupt_grace: svbench_runner::eval::INTERRUPT_GRACE,
        },
        interrupt,
    };
    // The run holds the only handle on the examples, so they are freed
    // before the report is written.
    drop(prepared);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let outcome = runtime.block_on(run_eval(plan)).map_err(|e| match &e {
        svbench_runner::eval::EvalError::Artifact(
            svbench_runner::artifacts::ArtifactError::Locked(_),
        ) => exit::usage(e.to_string()),
        svbench_runner::eval::EvalError::Artifact(
            svbench_runner::artifacts::ArtifactError::Integrity(_),
        ) => exit::with_hint(
            exit::DATA,
            format!("--resume refused: {e}"),
            "results.jsonl was changed outside svbench; remove the named line(s) by hand, \
             or start a new run",
        ),
        _ => anyhow::Error::new(e),
    });
    // Scoring or tool calls of samples dropped at the end of the grace
    // period may still be running on the blocking pool: do not wait for
    // them (dropping the runtime would), their samples are simply not
    // recorded and a resume redoes them.
    runtime.shutdown_background();
    let outcome = outcome?;
    if outcome.truncated_lines > 0 {
        eprintln!(
            "warning: truncated {} torn line(s) at the end of results.jsonl before resuming",
            outcome.truncated_lines
        );
    }

    write_report(&dir)?;

    if args.json {
        outln!(
            "{}",
            json!({
                "run_dir": dir.display().to_string(),
                "run_id": outcome.metadata.run_id,
                "status": outcome.status,
                "counts": outcome.counts,
            })
        )?;
    } else {
        outln!("{}", dir.display())?;
    }
    Ok(match outcome.status {
        RunStatus::Completed | RunStatus::Running => exit::OK,
        RunStatus::Aborted => exit::ABORTED,
        RunStatus::Interrupted => exit::INTERRUPTED,
    })
}

fn new_metadata(
    args: &EvalArgs,
    spec: &RunSpec,
    p: &Prepared,
    run_id: String,
    now: chrono::DateTime<chrono::Utc>,
) -> RunMetadata {
    let agent = &p.agent;
    let facts = &p.facts;
    let mut env_args: BTreeMap<String, Value> = [
        ("dataset", json!(spec.dataset)),
        ("split", json!(p.data.split)),
        ("max_examples", json!(spec.num_examples)),
        ("seed", json!(spec.seed)),
        ("shuffle", json!(spec.shuffle)),
        ("reward_profile", json!(facts.reward_name)),
        (
            "reward_config",
            json!(spec.reward_config.as_ref().map(|p| p.display().to_string())),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    env_args.extend(facts.env_args.clone());
    let planned = p.data.examples.len() * spec.rollouts;
    RunMetadata {
        environment: spec.env.name().into(),
        env_version: match spec.env {
            EnvId::E1 => svbench_envs::e1::VERSION,
            EnvId::E2 => svbench_envs::e2::VERSION,
        }
        .into(),
        model: spec.model.clone(),
        effective_model: agent.effective_model.clone(),
        dataset: spec.dataset.clone(),
        dataset_revision: format!("sha256:{}", p.data.dataset_sha256),
        timestamp: now.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        num_examples: p.data.examples.len(),
        git_commit: build_info::git_commit(),
        git_sha: build_info::git_sha(),
        python_version: None,
        verifiers_version: None,
        svbench_version: build_info::VERSION.into(),
        rustc_version: build_info::RUSTC_VERSION.into(),
        target: build_info::TARGET.into(),
        seed: spec.seed,
        temperature: agent.temperature,
        max_tokens: facts.max_tokens,
        max_turns: spec.max_turns,
        tool_budget: spec.tool_budget,
        include_tools: facts.include_tools,
        tool_versions: facts.tool_versions.clone(),
        evaluation_type: facts.evaluation_type.into(),
        max_consecutive_errors: args.max_consecutive_errors,
        baseline_name: args.baseline_name.clone(),
        baseline_type: agent.baseline_type.clone(),
        system_prompt_file: p.system_prompt_file.clone(),
        system_prompt_sha256: facts.system_prompt_sha256.clone(),
        run_id,
        status: RunStatus::Running,
        abort_reason: None,
        started_at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        finished_at: None,
        split: p.data.split.clone(),
        dataset_rows: p.data.split_rows,
        dataset_warnings: p.data.warnings.clone(),
        dataset_sha256: p.data.dataset_sha256.clone(),
        selected_sha256: p.data.selected_sha256.clone(),
        dataset_file_sha256: p.data.file_sha256.clone(),
        selection: Selection {
            mode: if spec.shuffle { "shuffle" } else { "first" }.into(),
            num_examples: p.data.examples.len(),
            rollouts_per_example: spec.rollouts,
            seed: spec.seed,
        },
        rollouts_per_example: spec.rollouts,
        env_args,
        reward_profile: facts.reward_name.into(),
        reward_config_hash: facts.reward_config_hash.clone(),
        reward_weights: facts.reward_weights.clone(),
        reward_params: facts.reward_params.clone(),
        reward_config_file: p.reward_config_file.clone(),
        env_provenance: facts.env_provenance.clone(),
        replay_source: agent.replay_source.clone(),
        sampling_params: agent.sampling_params.clone(),
        concurrency: agent.concurrency,
        cache_mode: agent.cache_mode.clone(),
        endpoint: agent.endpoint.clone(),
        counts: RunCounts {
            planned,
            completed: 0,
            errored: 0,
            pending: planned,
        },
        // Credentials in URLs (userinfo, `?api-key=…`) are never recorded.
        argv: std::env::args()
            .map(|a| svbench_runner::client::redact_urls_in(&a))
            .collect(),
        notes: args.notes.clone(),
        budget_group: args.budget_group.clone(),
    }
}

/// Writes summary.json, report.md and run_manifest.json for a finished (or
/// stopped) run, after a fresh run and after `--resume` alike.
fn write_report(dir: &Path) -> anyhow::Result<()> {
    svbench_report::report_run(dir, &svbench_report::ReportOptions::default())
        .with_context(|| format!("writing the report of {}", dir.display()))?;
    Ok(())
}
