//! Rollout throughput of the whole stack against the in-process fake
//! OpenAI-compatible server answering instantly (target: ≥ 2,000
//! single-turn rollouts/s at concurrency 64, memory bounded). The
//! environment comes from the registry: rows from its first generator,
//! configured and opened through its entry, the fake endpoint's answer from
//! its whole-stack hook.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use svbench_envs::kit::bench::run_metadata;
use svbench_envs::registry::{DataRequest, EnvEntry, EnvSetup};
use svbench_fakeai::{FakeServer, Script, Step};
use svbench_runner::cache::CacheMode;
use svbench_runner::client::{route, ClientSettings, Config, ModelClient};
use svbench_runner::limits::ProfileLimiter;
use svbench_runner::model::ModelResponder;
use svbench_runner::{run_eval, Agent, EvalPlan, RunSettings};

/// Figures of one throughput run.
#[derive(Debug)]
pub struct RolloutFigures {
    /// Samples finished.
    pub samples: usize,
    /// Wall time of the rollout phase.
    pub seconds: f64,
    /// Peak resident memory of the process so far, in MB (Linux only).
    pub peak_rss_mb: Option<f64>,
}

/// Runs `n` rollouts of `entry`'s environment (reward profile `v1`)
/// against a fake endpoint answering `answer`, at `concurrency`.
pub fn bench_rollouts(
    entry: &'static EnvEntry,
    answer: &'static str,
    n: usize,
    concurrency: usize,
) -> anyhow::Result<RolloutFigures> {
    let dir = std::env::temp_dir().join(format!("svbench-bench-rollouts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    // Generate the rows in a child process, so this process's peak memory is
    // the run's own (loading the file, rolling out, recording).
    let data_file = dir.join("rows.jsonl");
    let status = std::process::Command::new(std::env::current_exe()?)
        .args(["data", "gen", entry.identity.short, "--seed", "7"])
        .args(["--split", entry.default_split, "-n"])
        .arg(n.to_string())
        .arg("--out")
        .arg(&data_file)
        .stderr(std::process::Stdio::null())
        .status()?;
    anyhow::ensure!(status.success(), "generating the benchmark rows failed");
    let configured = (entry.configure)(&EnvSetup {
        reward_profile: Some("v1"),
        ..EnvSetup::default()
    })?;
    let data = (entry.open)(
        &configured,
        &DataRequest {
            dataset: data_file
                .to_str()
                .ok_or_else(|| anyhow::anyhow!("the temporary directory is not UTF-8"))?
                .to_string(),
            split: Some(entry.default_split.into()),
            max_examples: None,
            shuffle: false,
            seed: 0,
        },
    )?;
    let server = FakeServer::start(
        Script::from_fn(move |_: &Value| Step::content(answer)).record_requests(false),
    );
    let r = route(
        "bench-model",
        &Config::builtin(),
        Some(&server.base_url()),
        Some(""),
    )?;
    let client = ModelClient::new(
        r,
        ClientSettings {
            request_timeout: Duration::from_secs(30),
            max_tokens: 64,
            temperature: Some(0.2),
            top_p: None,
            run_seed: 42,
            cache_mode: CacheMode::Off,
        },
        Arc::new(ProfileLimiter::unlimited("bench")),
        None,
    )?;
    let run_dir = dir.join("run");
    let mut metadata = run_metadata(entry.name(), entry.version, n)?;
    metadata.concurrency = concurrency;
    metadata.reward_weights = configured.weights.iter().cloned().collect();
    metadata.reward_params = configured.reward_params.clone();
    metadata.reward_config_hash = configured.config_hash.clone();
    let plan = EvalPlan {
        env: Arc::clone(&configured.env),
        agent: Agent::Model(Arc::new(ModelResponder::new(Arc::new(client)))),
        examples: data.examples,
        metadata,
        run_dir,
        resume: false,
        settings: RunSettings {
            rollouts_per_example: 1,
            max_consecutive_errors: 3,
            progress: false,
            retry_errors: false,
            concurrency,
            budgets: configured.budgets,
            sample_timeout: Some(Duration::from_secs(60)),
            label: "bench".into(),
            stats: None,
            interrupt_grace: svbench_runner::eval::INTERRUPT_GRACE,
        },
        interrupt: Arc::new(AtomicBool::new(false)),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let start = Instant::now();
    let outcome = runtime.block_on(run_eval(plan))?;
    let seconds = start.elapsed().as_secs_f64();
    let figures = RolloutFigures {
        samples: outcome.counts.completed + outcome.counts.errored,
        seconds,
        peak_rss_mb: peak_rss_mb(),
    };
    if outcome.counts.errored > 0 {
        eprintln!("warning: {} rollouts errored", outcome.counts.errored);
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(figures)
}

/// `VmHWM` of this process from /proc (Linux), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
