//! Who answers an eval: a builtin policy or a routed model endpoint, with
//! everything metadata records about it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use svbench_core::record::{EndpointRecord, FileRef};
use svbench_envs::policy::{e1_builtin, Policy, PolicyError};

/// E2's default token limit per call (harness §1.1; E2 sends no temperature by default).
pub const E2_MAX_TOKENS: u32 = 4096;
use svbench_runner::cache::{CacheMode, ResponseCache};
use svbench_runner::client::{route, ClientSettings, Config, ModelClient, RetryPolicy, Route};
use svbench_runner::limits::{effective_concurrency, LimiterRegistry};
use svbench_runner::model::ModelResponder;
use svbench_runner::progress::StatsNote;
use svbench_runner::Agent;

use super::eval::EvalArgs;
use crate::exit;

/// E1's default sampling temperature (harness §1.1).
pub const E1_TEMPERATURE: f64 = 0.2;
/// E1's default token limit per call.
pub const E1_MAX_TOKENS: u32 = 2048;

/// A resolved agent and what metadata records about it.
pub struct AgentSetup {
    /// Who answers.
    pub agent: Agent,
    /// Directory slug source and progress label: the policy name for
    /// builtins, the model reference for endpoints.
    pub slug: String,
    /// Id sent to the endpoint (policy name for builtins).
    pub effective_model: String,
    /// Builtin policy name, if a builtin runs.
    pub baseline_type: Option<String>,
    /// Endpoint, for models.
    pub endpoint: Option<EndpointRecord>,
    /// Exactly what is sent.
    pub sampling_params: BTreeMap<String, Value>,
    /// Temperature sent, if any.
    pub temperature: Option<f64>,
    /// Samples in flight.
    pub concurrency: usize,
    /// Effective cache mode.
    pub cache_mode: String,
    /// Replay source for `builtin:replay:FILE`.
    pub replay_source: Option<FileRef>,
    /// Progress counters from the client.
    pub stats: Option<StatsNote>,
    /// The builtin policy (replay coverage checks).
    pub policy: Option<Arc<dyn Policy>>,
}

/// The builtin policy name of a model reference, if it is one.
pub fn builtin_name(model: &str) -> Option<&str> {
    model.strip_prefix("builtin:")
}

/// Resolves an E1 builtin policy.
pub fn builtin_agent(name: &str) -> anyhow::Result<AgentSetup> {
    builtin_agent_from(e1_builtin(name))
}

/// Wraps a constructed builtin policy (unknown names exit 2, unreadable
/// replay files exit 3).
pub fn builtin_agent_from(
    built: Result<Box<dyn Policy>, PolicyError>,
) -> anyhow::Result<AgentSetup> {
    let policy: Arc<dyn Policy> = Arc::from(built.map_err(|e| match e {
        PolicyError::Unknown { .. } => exit::usage(e.to_string()),
        other => exit::data(other.to_string()),
    })?);
    let policy_name = policy.name().to_string();
    Ok(AgentSetup {
        agent: Agent::Builtin(policy.clone()),
        slug: policy_name.clone(),
        effective_model: policy_name.clone(),
        baseline_type: Some(policy_name),
        endpoint: None,
        sampling_params: BTreeMap::new(),
        temperature: None,
        // Builtins answer in-process; one at a time keeps results in example order.
        concurrency: 1,
        cache_mode: "off".into(),
        replay_source: policy
            .replay_source()
            .map(|(path, sha256)| FileRef { path, sha256 }),
        stats: None,
        policy: Some(policy),
    })
}

/// Loads `svbench.toml` (global `--config`, `$SVBENCH_CONFIG`, `./svbench.toml`, built-ins).
pub fn load_config(explicit: Option<&Path>) -> anyhow::Result<Config> {
    let cwd = std::env::current_dir()?;
    Config::load(explicit, &cwd).map_err(|e| exit::usage(e.to_string()))
}

/// Routes a model reference without touching the network (usage errors exit 2).
pub fn route_model(model: &str, args: &EvalArgs, config: &Config) -> anyhow::Result<Route> {
    let r = route(
        model,
        config,
        args.base_url.as_deref(),
        args.api_key_env.as_deref(),
    )
    .map_err(|e| exit::usage(e.to_string()))?;
    // A missing key variable is a usage error before anything is created.
    r.api_key().map_err(|e| exit::usage(e.to_string()))?;
    Ok(r)
}

/// The effective cache mode from flags, then config, then `auto`.
pub fn cache_mode(args: &EvalArgs, config: &Config) -> anyhow::Result<CacheMode> {
    if args.no_cache {
        return Ok(CacheMode::Off);
    }
    match &args.cache_mode {
        Some(m) => m
            .parse()
            .map_err(|e| exit::usage(format!("--cache-mode: {e}"))),
        None => Ok(config.defaults.cache_mode.unwrap_or(CacheMode::Auto)),
    }
}

/// The environment's sampling defaults (harness §1.1): token limit per
/// call and temperature (`None`: not sent).
#[derive(Debug, Clone, Copy)]
pub struct SamplingDefaults {
    /// `--max-tokens` default.
    pub max_tokens: u32,
    /// `--temperature` default.
    pub temperature: Option<f64>,
}

/// E1's sampling defaults.
pub const E1_SAMPLING: SamplingDefaults = SamplingDefaults {
    max_tokens: E1_MAX_TOKENS,
    temperature: Some(E1_TEMPERATURE),
};

/// E2's sampling defaults.
pub const E2_SAMPLING: SamplingDefaults = SamplingDefaults {
    max_tokens: E2_MAX_TOKENS,
    temperature: None,
};

/// Builds the client of a routed model.
pub fn model_agent(
    model: &str,
    args: &EvalArgs,
    config: &Config,
    run_seed: u64,
    defaults: SamplingDefaults,
) -> anyhow::Result<AgentSetup> {
    let r = route_model(model, args, config)?;
    let mode = cache_mode(args, config)?;
    let cache = if mode == CacheMode::Off {
        None
    } else {
        let path = config
            .defaults
            .cache_path
            .clone()
            .or_else(ResponseCache::default_path)
            .ok_or_else(|| {
                exit::usage(
                    "no user cache directory: set cache_path in svbench.toml or pass --no-cache",
                )
            })?;
        Some(Arc::new(ResponseCache::open(&path).map_err(|e| {
            exit::with_hint(
                exit::INTERNAL,
                e.to_string(),
                "delete the cache file or pass --no-cache",
            )
        })?))
    };
    let requested = args
        .concurrency
        .or(config.defaults.concurrency)
        .unwrap_or(8);
    let concurrency = effective_concurrency(requested, r.limits.max_concurrency);
    let limiter = LimiterRegistry::global().get(&r.profile, r.limits);
    let settings = ClientSettings {
        request_timeout: Duration::from_secs_f64(args.request_timeout),
        max_tokens: args.max_tokens.unwrap_or(defaults.max_tokens),
        temperature: args.temperature.or(defaults.temperature),
        top_p: args.top_p,
        run_seed,
        cache_mode: mode,
    };
    let client = Arc::new(
        ModelClient::new(r, settings, limiter, cache)
            .map_err(|e| exit::usage(e.to_string()))?
            .with_retry_policy(RetryPolicy {
                max_retries: args.max_retries,
                ..RetryPolicy::default()
            }),
    );
    let sampling_params = client.sampling_params();
    let temperature = sampling_params.get("temperature").and_then(Value::as_f64);
    let stats_client = client.clone();
    let stats: StatsNote = Arc::new(move || {
        let s = stats_client.stats();
        format!(
            "retries {} 429s {} cached {}",
            s.retries, s.rate_limited, s.cache_hits
        )
    });
    Ok(AgentSetup {
        slug: model.to_string(),
        effective_model: client.effective_model().to_string(),
        baseline_type: None,
        endpoint: Some(client.endpoint()),
        sampling_params,
        temperature,
        concurrency,
        cache_mode: mode.as_str().to_string(),
        replay_source: None,
        stats: Some(stats),
        policy: None,
        agent: Agent::Model(Arc::new(ModelResponder::new(client))),
    })
}
