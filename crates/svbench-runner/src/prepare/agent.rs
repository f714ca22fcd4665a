//! Who answers a run: a builtin policy or a routed model endpoint, with
//! everything metadata records about it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use svbench_core::record::{EndpointRecord, FileRef};
use svbench_envs::policy::{Policy, PolicyError};
use svbench_envs::registry::SamplingDefaults;

use super::PrepareError;
use crate::cache::{CacheMode, ResponseCache};
use crate::client::{route, ClientSettings, Config, ModelClient, RetryPolicy, Route};
use crate::limits::{effective_concurrency, LimiterRegistry};
use crate::model::ModelResponder;
use crate::progress::StatsNote;
use crate::Agent;

/// How to reach and call a model endpoint: `eval`'s endpoint flags.
#[derive(Debug, Clone, Default)]
pub struct EndpointOptions {
    /// `svbench.toml` (profiles, defaults).
    pub config: Config,
    /// Send every model to this OpenAI-compatible base URL.
    pub base_url: Option<String>,
    /// Environment variable holding the API key for `base_url`.
    pub api_key_env: Option<String>,
    /// Samples in flight (default: config, then 8).
    pub concurrency: Option<usize>,
    /// Per-attempt request timeout.
    pub request_timeout: Duration,
    /// Response cache mode (`None`: config, then `auto`).
    pub cache_mode: Option<CacheMode>,
    /// Retries per model call after the first attempt.
    pub max_retries: u32,
    /// Token limit per call (`None`: the environment's default).
    pub max_tokens: Option<u32>,
    /// Temperature (`None`: the environment's default).
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
}

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

impl std::fmt::Debug for AgentSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSetup")
            .field("slug", &self.slug)
            .field("effective_model", &self.effective_model)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

/// The builtin policy name of a model reference, if it is one.
#[must_use]
pub fn builtin_name(model: &str) -> Option<&str> {
    model.strip_prefix("builtin:")
}

/// Wraps a constructed builtin policy (unknown names are usage errors,
/// unreadable replay files data errors).
///
/// # Errors
/// As described.
pub fn builtin_agent(
    built: Result<Box<dyn Policy>, PolicyError>,
) -> Result<AgentSetup, PrepareError> {
    let policy: Arc<dyn Policy> = Arc::from(built.map_err(|e| match e {
        PolicyError::Unknown { .. } => PrepareError::usage(e.to_string()),
        other => PrepareError::data(other.to_string()),
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

/// Routes a model reference without touching the network; a missing key
/// variable is a usage error before anything is created.
///
/// # Errors
/// Unknown providers, bad URLs, a missing key variable.
pub fn route_model(model: &str, opts: &EndpointOptions) -> Result<Route, PrepareError> {
    let r = route(
        model,
        &opts.config,
        opts.base_url.as_deref(),
        opts.api_key_env.as_deref(),
    )
    .map_err(|e| PrepareError::usage(e.to_string()))?;
    r.api_key()
        .map_err(|e| PrepareError::usage(e.to_string()))?;
    Ok(r)
}

/// Builds the client of a routed model.
///
/// # Errors
/// Routing errors, an unusable response cache.
pub fn model_agent(
    model: &str,
    opts: &EndpointOptions,
    run_seed: u64,
    defaults: SamplingDefaults,
) -> Result<AgentSetup, PrepareError> {
    let r = route_model(model, opts)?;
    let config = &opts.config;
    let mode = opts
        .cache_mode
        .or(config.defaults.cache_mode)
        .unwrap_or(CacheMode::Auto);
    let cache = if mode == CacheMode::Off {
        None
    } else {
        let path = config
            .defaults
            .cache_path
            .clone()
            .or_else(ResponseCache::default_path)
            .ok_or_else(|| {
                PrepareError::usage(
                    "no user cache directory: set cache_path in svbench.toml or pass --no-cache",
                )
            })?;
        Some(Arc::new(ResponseCache::open(&path).map_err(|e| {
            PrepareError::internal(e.to_string())
                .with_hint("delete the cache file or pass --no-cache")
        })?))
    };
    let requested = opts
        .concurrency
        .or(config.defaults.concurrency)
        .unwrap_or(8);
    let concurrency = effective_concurrency(requested, r.limits.max_concurrency);
    let limiter = LimiterRegistry::global().get(&r.profile, r.limits);
    let settings = ClientSettings {
        request_timeout: opts.request_timeout,
        max_tokens: opts.max_tokens.unwrap_or(defaults.max_tokens),
        temperature: opts.temperature.or(defaults.temperature),
        top_p: opts.top_p,
        run_seed,
        cache_mode: mode,
    };
    let client = Arc::new(
        ModelClient::new(r, settings, limiter, cache)
            .map_err(|e| PrepareError::usage(e.to_string()))?
            .with_retry_policy(RetryPolicy {
                max_retries: opts.max_retries,
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
