//! Rollout throughput of the whole stack against the in-process fake
//! OpenAI-compatible server answering instantly (issue: ≥ 2,000 single-turn
//! rollouts/s at concurrency 64, memory bounded).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use svbench_core::record::RunMetadata;
use svbench_envs::e1::dataset::{load, DatasetSpec, SelectionRequest, SplitRequest};
use svbench_envs::e1::env::E1Env;
use svbench_envs::environment::{Budgets, Environment};
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

/// Runs `n` E1 rollouts against a fake endpoint at `concurrency`.
pub fn bench_rollouts(n: usize, concurrency: usize) -> anyhow::Result<RolloutFigures> {
    let dir = std::env::temp_dir().join(format!("svbench-bench-rollouts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    // Generate the rows in a child process, so this process's peak memory is
    // the run's own (loading the file, rolling out, recording).
    let data_file = dir.join("rows.jsonl");
    let status = std::process::Command::new(std::env::current_exe()?)
        .args(["data", "gen", "e1", "--seed", "7", "--split", "test", "-n"])
        .arg(n.to_string())
        .arg("--out")
        .arg(&data_file)
        .stderr(std::process::Stdio::null())
        .status()?;
    anyhow::ensure!(status.success(), "generating the benchmark rows failed");
    let data = load(
        &DatasetSpec::File(data_file),
        &SplitRequest(Some("test".into())),
        &SelectionRequest {
            max_examples: None,
            shuffle: false,
            seed: 0,
        },
    )?;
    let server = FakeServer::start(
        Script::from_fn(|_: &Value| Step::content(r#"{"label":"Malicious","confidence":0.8}"#))
            .record_requests(false),
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
    let env: Arc<dyn Environment> = Arc::new(E1Env::new("v1", None)?);
    let run_dir = dir.join("run");
    let mut metadata: RunMetadata = serde_json::from_value(super::bench::template_metadata(n))?;
    metadata.concurrency = concurrency;
    let plan = EvalPlan {
        env,
        agent: Agent::Model(Arc::new(ModelResponder::new(Arc::new(client)))),
        examples: Arc::new(data.examples),
        metadata,
        run_dir,
        resume: false,
        settings: RunSettings {
            rollouts_per_example: 1,
            max_consecutive_errors: 3,
            progress: false,
            retry_errors: false,
            concurrency,
            budgets: Budgets {
                max_turns: 1,
                tool_budget: 0,
            },
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
