//! The flags of `svbench eval`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use svbench_core::manifest::Trainer;
use svbench_runner::cache::CacheMode;

/// Arguments of `svbench eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Environment, by name or alias (`svbench envs` lists them).
    pub env: String,
    /// Model reference or builtin policy (`builtin:NAME`; `svbench envs
    /// ENV` lists an environment's builtins); repeatable. E1 runs
    /// builtin:heuristic when none is given; E2 has no default.
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
    /// A split of the environment (E1: train, dev, test, ood; E2: train, dev,
    /// test) or all (default test; `all` for files whose rows carry no split).
    #[arg(long)]
    pub split: Option<String>,
    /// Seeded shuffle before taking -n examples.
    #[arg(long)]
    pub shuffle: bool,
    /// Seed for shuffling, request seeds and generators.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Reward profile (the parser mode follows it) [default: v1].
    #[arg(long, value_enum)]
    pub reward_profile: Option<RewardProfileArg>,
    /// TOML file overriding reward constants (only the keys to change).
    #[arg(long, value_name = "FILE")]
    pub reward_config: Option<PathBuf>,
    /// Environment-specific argument K=V, repeatable (`svbench envs ENV`
    /// lists them; E1 has none).
    #[arg(long = "env-arg", value_name = "K=V")]
    pub env_args: Vec<String>,
    /// Oracle mode: shorthand for --env-arg oracle=… (environments with
    /// an `oracle` argument: E2).
    #[arg(long, value_enum)]
    pub oracle: Option<OracleArg>,
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
    #[arg(long, value_name = "MODE", value_parser = parse_cache_mode)]
    pub cache_mode: Option<CacheMode>,
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
    /// Model calls per sample (default: the environment's; E1 1, E2 5).
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Tool calls per sample, all tools together (default: the
    /// environment's; E2 3, E1 has no tools).
    #[arg(long)]
    pub tool_budget: Option<u32>,
    /// Sampling temperature.
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Wall-time limit per sample, in seconds (exceeded: a `timeout` error,
    /// even mid tool call or scoring).
    #[arg(long, default_value_t = 600.0)]
    pub sample_timeout: f64,
    /// Replace the environment's system prompt with this file.
    #[arg(long, value_name = "FILE")]
    pub system_prompt_file: Option<PathBuf>,
    /// Show K worked examples before every prompt: rows of the train split
    /// (picked by --seed) with the oracle's answers, as earlier turns of the
    /// conversation. Evaluates a held-out split only; at most 16.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(0..=16))]
    pub few_shot: Option<u64>,
    /// Label recorded as baseline_name.
    #[arg(long)]
    pub baseline_name: Option<String>,
    /// Free-text notes for metadata.
    #[arg(long)]
    pub notes: Option<String>,
    /// Budget group label for metadata.
    #[arg(long)]
    pub budget_group: Option<String>,
    /// How the evaluated model was trained (grpo, gdpo, distillation or
    /// other), recorded in run_manifest.json and compared by `svbench
    /// compare` (needs --max-steps).
    #[arg(long, value_parser = parse_trainer, requires = "max_steps")]
    pub trainer: Option<Trainer>,
    /// Training steps of the evaluated model (needs --trainer).
    #[arg(long, requires = "trainer")]
    pub max_steps: Option<u64>,
    /// SHA-256 (64 hex digits) of the evaluated model's whole training
    /// config, recorded and compared by `svbench compare` (needs --trainer).
    #[arg(long, value_parser = parse_sha256, requires = "trainer", value_name = "HEX")]
    pub training_config_sha256: Option<String>,
    /// SHA-256 of its training budget (the config without the settings of
    /// how it learns), so `compare` can tell matched budgets (needs --trainer).
    #[arg(long, value_parser = parse_sha256, requires = "trainer", value_name = "HEX")]
    pub training_budget_sha256: Option<String>,
    /// Print one JSON object per run on stdout instead of the run directory.
    #[arg(long)]
    pub json: bool,
}

/// `--reward-profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RewardProfileArg {
    // Fixes known exploits of the upstream rewards.
    V1,
    // Reproduces the upstream Python rewards exactly.
    Upstream,
}

impl RewardProfileArg {
    /// The profile name.
    pub fn as_str(self) -> &'static str {
        match self {
            RewardProfileArg::V1 => "v1",
            RewardProfileArg::Upstream => "upstream",
        }
    }
}

/// `--oracle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OracleArg {
    // The row's stored labels.
    Dataset,
    // A re-scan of the config.
    Live,
}

fn parse_cache_mode(text: &str) -> Result<CacheMode, String> {
    text.parse::<CacheMode>().map_err(|e| e.to_string())
}

/// `--trainer`: one of the manifest's training algorithms other than `none`.
fn parse_sha256(s: &str) -> Result<String, String> {
    let hex = s.to_ascii_lowercase();
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(hex)
    } else {
        Err("expected a SHA-256 as 64 hex digits".to_string())
    }
}

fn parse_trainer(s: &str) -> Result<Trainer, String> {
    match serde_json::from_value::<Trainer>(serde_json::Value::String(s.to_string())) {
        Ok(Trainer::None) | Err(_) => Err("expected grpo, gdpo, distillation or other".to_string()),
        Ok(t) => Ok(t),
    }
}
