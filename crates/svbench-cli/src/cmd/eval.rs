//! `svbench eval ENV`: run a policy over an environment's examples and write
//! the run artifacts. Flags are parsed and checked here; the environment
//! comes from the registry and the run is prepared by `svbench-runner`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use serde_json::json;
use svbench_core::record::{RunMetadata, RunStatus};
use svbench_envs::environment::Budgets;
use svbench_envs::registry::{self, EnvEntry, LookupError};
use svbench_runner::cache::CacheMode;
use svbench_runner::prepare::{
    self, agent, builtin_name, check_resume_inputs, new_metadata, new_run_dir, resume_spec,
    BuildFacts, EndpointOptions, PrepareError, PrepareErrorKind, Requested, RunLabels, RunSpec,
    TrainingLabel,
};
use svbench_runner::{run_eval, EvalPlan, RunSettings};

pub use super::eval_args::{EvalArgs, OracleArg, RewardProfileArg};
use super::{eval_abort, GlobalArgs};
use crate::build_info;
use crate::exit;
use crate::out::outln;

/// A preparation error as the exit code and hint the CLI reports.
fn coded(e: PrepareError) -> anyhow::Error {
    let code = match e.kind {
        PrepareErrorKind::Usage => exit::USAGE,
        PrepareErrorKind::Data => exit::DATA,
        PrepareErrorKind::Internal => exit::INTERNAL,
    };
    match e.hint {
        Some(hint) => exit::with_hint(code, e.message, hint),
        None => exit::with_code(code, e.message),
    }
}

/// `--env-arg` pairs plus `--oracle` (appended last, so the flag wins).
fn env_arg_pairs(args: &EvalArgs) -> Vec<String> {
    let mut pairs = args.env_args.clone();
    if let Some(mode) = args.oracle {
        let mode = match mode {
            OracleArg::Dataset => "dataset",
            OracleArg::Live => "live",
        };
        pairs.push(format!("oracle={mode}"));
    }
    pairs
}

/// The environment `eval ENV` names, or why there is none.
fn find_env(name: &str) -> anyhow::Result<&'static EnvEntry> {
    registry::find(name).map_err(|e| match e {
        LookupError::Planned { .. } => exit::with_hint(
            exit::USAGE,
            e.to_string(),
            format!("this build runs: {}", registry::known_names()),
        ),
        LookupError::Unknown { .. } => exit::usage(e.to_string()),
    })
}

/// Flag checks that need no files: nothing is created on a usage error.
fn check_flags(entry: &EnvEntry, args: &EvalArgs) -> anyhow::Result<()> {
    if args.oracle.is_some() && !entry.arg_names.contains(&"oracle") {
        return Err(exit::usage(format!(
            "--oracle is only for environments with an `oracle` argument ({} has none)",
            entry.name()
        )));
    }
    (entry.args_record)(&env_arg_pairs(args)).map_err(|e| {
        exit::usage(if args.env_args.is_empty() {
            e.to_string()
        } else {
            format!("{e}; use the common flags (--dataset, --split, -n, --seed, --reward-profile, …) for the rest")
        })
    })?;
    if args.max_turns == Some(0) {
        return Err(exit::usage("--max-turns must be at least 1"));
    }
    // The environment's own budget rules (E1 takes no tools), as its
    // `configure` applies them, checked here before anything is printed.
    let budgets = registry::EnvSetup {
        max_turns: args.max_turns,
        tool_budget: args.tool_budget,
        ..registry::EnvSetup::default()
    };
    registry::budgets(entry, &budgets).map_err(|e| exit::usage(e.to_string()))?;
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
    Ok(())
}

/// How models are reached, from flags and `svbench.toml`.
fn endpoint_options(args: &EvalArgs, global: &GlobalArgs) -> anyhow::Result<EndpointOptions> {
    let cwd = std::env::current_dir()?;
    let config = svbench_runner::client::Config::load(global.config.as_deref(), &cwd)
        .map_err(|e| exit::usage(e.to_string()))?;
    Ok(EndpointOptions {
        config,
        base_url: args.base_url.clone(),
        api_key_env: args.api_key_env.clone(),
        concurrency: args.concurrency,
        request_timeout: Duration::from_secs_f64(args.request_timeout),
        cache_mode: if args.no_cache {
            Some(CacheMode::Off)
        } else {
            args.cache_mode
        },
        max_retries: args.max_retries,
        max_tokens: args.max_tokens,
        temperature: args.temperature,
        top_p: args.top_p,
    })
}

/// Runs the command; returns the exit code.
pub fn run(args: EvalArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let entry = find_env(&args.env)?;
    check_flags(entry, &args)?;
    let endpoint = endpoint_options(&args, global)?;
    let interrupt = install_interrupt_handler();
    if let Some(dir) = args.resume.clone() {
        let (spec, old) = resume_spec(entry, &dir, &requested(&args)).map_err(coded)?;
        return run_one(&args, global, &endpoint, spec, Some((dir, old)), interrupt);
    }
    let models = if args.models.is_empty() {
        let Some(policy) = entry.default_policy else {
            let builtins: Vec<String> = entry
                .builtins
                .iter()
                .map(|b| format!("builtin:{}", b.name))
                .collect();
            return Err(exit::with_hint(
                exit::USAGE,
                format!("{} has no default policy: pass --model", entry.name()),
                format!(
                    "a model name, or one of {} (`svbench envs {}` says what each does)",
                    builtins.join(", "),
                    entry.identity.short
                ),
            ));
        };
        eprintln!(
            "note: no --model given; running builtin:{policy}, {}'s default policy",
            entry.identity.short.to_ascii_uppercase()
        );
        vec![format!("builtin:{policy}")]
    } else {
        args.models.clone()
    };
    // Validate every model route and key variable before running any:
    // nothing is created on a usage error.
    for m in &models {
        match builtin_name(m) {
            Some(name) => entry
                .check_builtin(name)
                .map_err(|e| exit::usage(e.to_string()))?,
            None => {
                agent::route_model(m, &endpoint).map_err(coded)?;
            }
        }
    }
    let mut worst = exit::OK;
    for model in models {
        let spec = RunSpec {
            entry,
            env_args: env_arg_pairs(&args),
            max_turns: args.max_turns.unwrap_or(entry.budgets.max_turns),
            tool_budget: args.tool_budget.unwrap_or(entry.budgets.tool_budget),
            model,
            dataset: args.dataset.clone().unwrap_or_else(|| "embedded".into()),
            split: args.split.clone(),
            num_examples: args.num_examples,
            shuffle: args.shuffle,
            seed: args.seed.unwrap_or(42),
            rollouts: args.rollouts_per_example.unwrap_or(1),
            reward_profile: args
                .reward_profile
                .map_or("v1", RewardProfileArg::as_str)
                .to_string(),
            reward_config: args.reward_config.clone(),
            system_prompt_file: args.system_prompt_file.clone(),
            few_shot: args.few_shot.map_or(0, shots),
        };
        let code = run_one(&args, global, &endpoint, spec, None, interrupt.clone())?;
        worst = worst.max(code);
        if code == exit::INTERRUPTED {
            break;
        }
    }
    Ok(worst)
}

/// `--few-shot K` (at most 16 by its parser) as a count.
fn shots(k: u64) -> usize {
    usize::try_from(k).unwrap_or(usize::MAX)
}

/// The run-defining flags, for `--resume`'s contradiction check.
fn requested(args: &EvalArgs) -> Requested {
    Requested {
        models: args.models.clone(),
        dataset: args.dataset.clone(),
        split: args.split.clone(),
        num_examples: args.num_examples,
        shuffle: args.shuffle,
        seed: args.seed,
        rollouts: args.rollouts_per_example,
        reward_profile: args.reward_profile.map(|p| p.as_str().to_string()),
        reward_config: args.reward_config.clone(),
        system_prompt_file: args.system_prompt_file.clone(),
        run_id: args.run_id.clone(),
        max_turns: args.max_turns,
        tool_budget: args.tool_budget,
        few_shot: args.few_shot.map(shots),
        env_args: env_arg_pairs(args),
    }
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

fn build_facts() -> BuildFacts {
    BuildFacts {
        git_commit: build_info::git_commit(),
        git_sha: build_info::git_sha(),
        version: build_info::VERSION.into(),
        rustc_version: build_info::RUSTC_VERSION.into(),
        target: build_info::TARGET.into(),
    }
}

fn run_one(
    args: &EvalArgs,
    global: &GlobalArgs,
    endpoint: &EndpointOptions,
    spec: RunSpec,
    resume: Option<(PathBuf, RunMetadata)>,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<u8> {
    let prepared = prepare::prepare(&spec, endpoint).map_err(coded)?;
    let now = chrono::Utc::now();
    let labels = RunLabels {
        baseline_name: args.baseline_name.clone(),
        notes: args.notes.clone(),
        budget_group: args.budget_group.clone(),
        training: args
            .trainer
            .zip(args.max_steps)
            .map(|(trainer, max_steps)| TrainingLabel {
                trainer,
                max_steps,
                config_sha256: args.training_config_sha256.clone(),
                budget_sha256: args.training_budget_sha256.clone(),
            }),
        max_consecutive_errors: args.max_consecutive_errors,
        // Credentials in URLs (userinfo, `?api-key=…`) are never recorded.
        argv: std::env::args()
            .map(|a| svbench_runner::client::redact_urls_in(&a))
            .collect(),
        max_tokens: args.max_tokens,
    };
    let build = build_facts();
    let is_resume = resume.is_some();
    let (dir, metadata) = match resume {
        Some((dir, mut old)) => {
            let fresh = new_metadata(&spec, &prepared, old.run_id.clone(), now, &build, &labels);
            check_resume_inputs(&old, &fresh).map_err(coded)?;
            // Settings that may change on resume.
            old.concurrency = fresh.concurrency;
            old.argv = fresh.argv;
            (dir, old)
        }
        None => {
            let (dir, run_id) = new_run_dir(
                &args.output_dir,
                spec.entry,
                &prepared.agent.slug,
                args.run_id.as_deref(),
                now,
            )
            .map_err(coded)?;
            let meta = new_metadata(&spec, &prepared, run_id, now, &build, &labels);
            (dir, meta)
        }
    };
    let budgets = Budgets {
        max_turns: metadata.max_turns,
        tool_budget: metadata.tool_budget,
    };
    let plan = EvalPlan {
        env: Arc::clone(&prepared.configured.env),
        agent: prepared.agent.agent.clone(),
        examples: Arc::clone(&prepared.examples),
        metadata,
        run_dir: dir.clone(),
        resume: is_resume,
        settings: RunSettings {
            rollouts_per_example: spec.rollouts,
            max_consecutive_errors: args.max_consecutive_errors,
            progress: !global.no_progress,
            retry_errors: args.retry_errors,
            concurrency: prepared.agent.concurrency,
            budgets,
            sample_timeout: Some(Duration::from_secs_f64(args.sample_timeout)),
            label: prepared.agent.slug.clone(),
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
    // summary.json, report.md and run_manifest.json, after a fresh run and
    // after `--resume` alike.
    svbench_report::report_run(
        &dir,
        &svbench_report::ReportOptions::new(svbench_envs::registry::report_plugin),
    )
    .with_context(|| format!("writing the report of {}", dir.display()))?;
    // An abort is said on stderr (and in `--json`), not only in the artifacts.
    let abort = outcome.abort.as_ref().map(|abort| {
        let api_key_env = builtin_name(&spec.model)
            .is_none()
            .then(|| agent::route_model(&spec.model, endpoint).ok())
            .flatten()
            .and_then(|route| route.api_key_env);
        let facts = eval_abort::EndpointFacts {
            base_url: outcome
                .metadata
                .endpoint
                .as_ref()
                .map(|e| e.base_url.as_str()),
            api_key_env: api_key_env.as_deref(),
        };
        let hint = eval_abort::hint(abort, &facts, &dir);
        eprintln!("error: {}", eval_abort::message(abort));
        eprintln!("hint: {hint}");
        eval_abort::to_json(abort, &hint)
    });
    if args.json {
        let mut line = json!({
            "run_dir": dir.display().to_string(),
            "run_id": outcome.metadata.run_id,
            "status": outcome.status,
            "counts": outcome.counts,
        });
        if let Some(abort) = abort {
            line["abort"] = abort;
        }
        outln!("{line}")?;
    } else {
        outln!("{}", dir.display())?;
    }
    Ok(match outcome.status {
        RunStatus::Completed | RunStatus::Running => exit::OK,
        RunStatus::Aborted => exit::ABORTED,
        RunStatus::Interrupted => exit::INTERRUPTED,
    })
}
