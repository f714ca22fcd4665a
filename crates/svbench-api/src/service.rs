//! The entry point callers share: configured environments and loaded
//! splits, cached, and the operations of the server's routes.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use svbench_core::advantage::{self, Grouping, Norm};
use svbench_envs::environment::Deadline;

use crate::envs::{
    check_arg_names, configure_for, kind_name, profile_infos, Configured, EnvConfig, EnvId,
    EnvInfo, SplitInfo,
};
use crate::error::{ApiError, ErrorCode};
use crate::fs_access::{names_paths, FsAccess};
use crate::rows::{load_split, DataRequest, SplitData};
use crate::score::{inline_example, score_json_within, ScoreRequest, ScoreResponse};
use crate::session::Session;

/// Configured environments kept at most (distinct profiles × configs ×
/// arguments); the cache is cleared when a new one would exceed it.
const MAX_CONFIGURED: usize = 256;

/// Shared, thread-safe state of the callers: caches only, no per-request
/// state, and the filesystem access granted to the callers' environment
/// arguments.
#[derive(Debug, Default)]
pub struct Service {
    configured: RwLock<HashMap<String, Arc<Configured>>>,
    splits: RwLock<HashMap<String, Arc<SplitData>>>,
    fs: FsAccess,
}

/// `advantage` of a `score_batch` request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvantageRequest {
    /// `grpo`, `component` or `gdpo`.
    pub mode: String,
    /// Samples per contiguous group.
    pub group_size: usize,
    /// Added to the standard deviation (default 1e-6).
    #[serde(default)]
    pub eps: Option<f64>,
    /// 0 (population, default) or 1.
    #[serde(default)]
    pub ddof: Option<u32>,
}

/// `POST /v1/envs/{env}/score_batch`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreBatchRequest {
    /// Score requests, grouped contiguously when advantages are asked for.
    pub items: Vec<ScoreRequest>,
    /// Advantages to compute over the totals or components.
    #[serde(default)]
    pub advantage: Option<AdvantageRequest>,
    /// `{run_id, step}`; recorded by environments that keep cross-step state
    /// (none of the served ones do).
    #[serde(default)]
    pub context: Option<Value>,
}

/// Body of `POST /v1/envs/{env}/episodes`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    #[serde(default)]
    example_id: Option<String>,
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    split: Option<String>,
    #[serde(default)]
    env_args: Option<Map<String, Value>>,
    #[serde(default)]
    reward_profile: Option<String>,
    #[serde(default)]
    reward_config: Option<Value>,
    #[serde(default)]
    max_turns: Option<u32>,
    #[serde(default)]
    tool_budget: Option<u32>,
}

impl ResetRequest {
    /// The environment's own arguments, if the request gives any.
    #[must_use]
    pub fn env_args(&self) -> Option<&Map<String, Value>> {
        self.env_args.as_ref()
    }

    /// The turn limit the request asks for, if any.
    #[must_use]
    pub fn max_turns(&self) -> Option<u32> {
        self.max_turns
    }

    /// The tool budget the request asks for, if any.
    #[must_use]
    pub fn tool_budget(&self) -> Option<u32> {
        self.tool_budget
    }
}

/// The answer of `score_batch`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScoreBatchResponse {
    /// One score per item, in order.
    pub results: Vec<ScoreResponse>,
    /// One advantage per item when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advantages: Option<Vec<f64>>,
}

impl Service {
    /// An empty service for callers acting for others: no environment
    /// argument may name a path ([`FsAccess::default`]). Environments and
    /// splits load on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty service granting `fs` to its callers' path arguments:
    /// [`FsAccess::Local`] for the local user, [`FsAccess::within`] the
    /// directories a server's operator allowed.
    #[must_use]
    pub fn with_fs_access(fs: FsAccess) -> Self {
        Self {
            fs,
            ..Self::default()
        }
    }

    /// The filesystem access granted to the callers.
    #[must_use]
    pub fn fs_access(&self) -> &FsAccess {
        &self.fs
    }

    /// A configured environment (cached by configuration). Path arguments
    /// are checked against the service's [`FsAccess`] first.
    ///
    /// # Errors
    /// As [`crate::envs::configure`]; `invalid_env_args` for a path that is
    /// not allowed.
    pub fn configured(&self, id: EnvId, config: &EnvConfig) -> Result<Arc<Configured>, ApiError> {
        // Exact names first: the path check below looks names up exactly,
        // so a padded alias of a path argument must never get past here.
        check_arg_names(id, &config.env_args)?;
        let checked;
        let config = if names_paths(id, &config.env_args) {
            checked = self.fs.check(id, config)?;
            &checked
        } else {
            config
        };
        let key = config.cache_key(id);
        if let Some(c) = read(&self.configured).get(&key) {
            return Ok(Arc::clone(c));
        }
        let built = Arc::new(configure_for(id, config, self.fs.is_restricted())?);
        let mut map = write(&self.configured);
        if map.len() >= MAX_CONFIGURED {
            map.clear();
        }
        Ok(Arc::clone(map.entry(key).or_insert(built)))
    }

    /// An embedded split as a configured environment sees it (cached).
    ///
    /// # Errors
    /// `unknown_split`; loader errors.
    pub fn split(&self, configured: &Configured, split: &str) -> Result<Arc<SplitData>, ApiError> {
        let id = EnvId::from(configured.entry);
        if !id.splits().contains(&split) {
            return Err(crate::rows::unknown_split(id, split));
        }
        // The environment's own arguments can change what a split holds
        // (E2's lang filter and live oracle); profiles and budgets cannot.
        let args = serde_json::to_string(&configured.facts.env_args).unwrap_or_default();
        let key = format!("{}\u{1f}{args}\u{1f}{split}", id.name());
        if let Some(s) = read(&self.splits).get(&key) {
            return Ok(Arc::clone(s));
        }
        let loaded = Arc::new(load_split(configured, &DataRequest::embedded(split))?);
        Ok(Arc::clone(write(&self.splits).entry(key).or_insert(loaded)))
    }

    /// The episode a reset request starts: the environment configured as
    /// the request asks, on the example it names (by id or by index) in its
    /// split (the environment's default split when it names none).
    ///
    /// # Errors
    /// As [`Service::configured`] and [`Service::split`]; `bad_request` for a
    /// request naming the example both ways or neither; `unknown_example`
    /// for an id the split lacks; an index out of range.
    pub fn start_episode(&self, id: EnvId, req: ResetRequest) -> Result<Session, ApiError> {
        let config = EnvConfig {
            reward_profile: req.reward_profile,
            reward_config: req.reward_config,
            env_args: req.env_args.unwrap_or_default(),
            max_turns: req.max_turns,
            tool_budget: req.tool_budget,
        };
        let configured = self.configured(id, &config)?;
        let split_name = req.split.as_deref().unwrap_or(id.default_split());
        let data = self.split(&configured, split_name)?;
        let example = match (&req.example_id, req.index) {
            (Some(_), Some(_)) => {
                return Err(ApiError::bad_request(
                    "give either `example_id` or `index`, not both",
                ))
            }
            (Some(eid), None) => data.by_id(eid).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::UnknownExample,
                    format!("no example `{eid}` in split `{split_name}`"),
                )
            })?,
            (None, Some(i)) => data.by_index(i)?,
            (None, None) => {
                return Err(ApiError::bad_request(
                    "give `example_id` or `index` of the example to start",
                ))
            }
        };
        Ok(Session::start(configured, example.clone()))
    }

    /// The catalogue entry of an environment.
    ///
    /// # Errors
    /// Only on bugs (built-in configs or data that fail to load).
    pub fn env_info(&self, id: EnvId) -> Result<EnvInfo, ApiError> {
        let configured = self.configured(id, &EnvConfig::default())?;
        let splits = id
            .splits()
            .iter()
            .map(|s| {
                let data = self.split(&configured, s)?;
                Ok(SplitInfo {
                    name: (*s).to_string(),
                    rows: data.examples.len(),
                    dataset_sha256: data.dataset_sha256.clone(),
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(EnvInfo {
            name: id.name().to_string(),
            aliases: id.aliases().iter().map(|a| (*a).to_string()).collect(),
            version: id.version().to_string(),
            kind: kind_name(configured.env.kind()).to_string(),
            splits,
            args_schema: id.args_schema(),
            reward_profiles: profile_infos(id)?,
            tools: configured.env.tools(),
            max_turns: configured.budgets.max_turns,
            tool_budget: configured.budgets.tool_budget,
            builtin_policies: id
                .builtin_policies()
                .iter()
                .map(|p| (*p).to_string())
                .collect(),
            generators: id.generators().iter().map(|g| (*g).to_string()).collect(),
        })
    }

    /// Stateless scoring.
    ///
    /// # Errors
    /// `unknown_env`, `invalid_env_args`, `unknown_split`, `unknown_example`,
    /// `bad_request`.
    pub fn score(&self, env: &str, req: &ScoreRequest) -> Result<ScoreResponse, ApiError> {
        self.score_within(env, req, Deadline::NONE)
    }

    /// [`Service::score`] whose work ends at `deadline` (a server passes the
    /// end of the request's time limit, so a request that timed out stops
    /// scanning instead of holding a scoring slot).
    ///
    /// # Errors
    /// As [`Service::score`]; `timeout` when scoring ran past `deadline` (or
    /// the environment's own scoring budget).
    pub fn score_within(
        &self,
        env: &str,
        req: &ScoreRequest,
        deadline: Deadline,
    ) -> Result<ScoreResponse, ApiError> {
        let id = EnvId::resolve(env)?;
        let configured = self.configured(id, &req.env_config())?;
        self.score_with(&configured, req, deadline)
    }

    fn score_with(
        &self,
        configured: &Configured,
        req: &ScoreRequest,
        deadline: Deadline,
    ) -> Result<ScoreResponse, ApiError> {
        match &req.example_id {
            Some(example_id) => {
                if req.answer.is_some() || req.question.is_some() {
                    return Err(ApiError::bad_request(
                        "give either `example_id` or an inline `answer`, not both",
                    ));
                }
                let split_name = req
                    .split
                    .as_deref()
                    .unwrap_or(configured.entry.default_split);
                let split = self.split(configured, split_name)?;
                let example = split.by_id(example_id).ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::UnknownExample,
                        format!("no example `{example_id}` in split `{split_name}`"),
                    )
                })?;
                score_json_within(
                    configured,
                    example,
                    Some(example_id),
                    &req.completion,
                    deadline,
                )
            }
            None => {
                let example = inline_example(EnvId::from(configured.entry), req)?;
                score_json_within(configured, &example, None, &req.completion, deadline)
            }
        }
    }

    /// Scores a batch and computes advantages over it (contiguous groups).
    ///
    /// # Errors
    /// Any item's error (its index named in `details.item`), or a bad
    /// advantage request.
    pub fn score_batch(
        &self,
        env: &str,
        req: &ScoreBatchRequest,
    ) -> Result<ScoreBatchResponse, ApiError> {
        self.score_batch_within(env, req, Deadline::NONE)
    }

    /// [`Service::score_batch`] whose items all end by `deadline`.
    ///
    /// # Errors
    /// As [`Service::score_batch`]; `timeout` for the item that ran past
    /// `deadline`.
    pub fn score_batch_within(
        &self,
        env: &str,
        req: &ScoreBatchRequest,
        deadline: Deadline,
    ) -> Result<ScoreBatchResponse, ApiError> {
        let id = EnvId::resolve(env)?;
        let mut results = Vec::with_capacity(req.items.len());
        for (i, item) in req.items.iter().enumerate() {
            let scored = self
                .configured(id, &item.env_config())
                .and_then(|c| self.score_with(&c, item, deadline))
                .map_err(|e| {
                    let message = format!("items[{i}]: {}", e.message);
                    ApiError::new(e.code, message).with_details(serde_json::json!({"item": i}))
                })?;
            results.push(scored);
        }
        let advantages = match &req.advantage {
            None => None,
            Some(a) => Some(advantages(&results, a)?),
        };
        Ok(ScoreBatchResponse {
            results,
            advantages,
        })
    }
}

/// Advantages of scored results (harness §7.4).
///
/// # Errors
/// `bad_request` for an unknown mode, bad shapes or mixed reward profiles.
pub fn advantages(results: &[ScoreResponse], req: &AdvantageRequest) -> Result<Vec<f64>, ApiError> {
    let norm = Norm {
        eps: req.eps.unwrap_or(advantage::DEFAULT_EPS),
        ddof: req.ddof.unwrap_or(0),
    };
    let grouping = Grouping::Contiguous(req.group_size);
    let bad = |e: advantage::AdvantageError| ApiError::bad_request(format!("advantage: {e}"));
    match req.mode.as_str() {
        "grpo" => {
            let totals: Vec<f64> = results.iter().map(|r| r.reward).collect();
            advantage::grpo(&totals, &grouping, norm).map_err(bad)
        }
        "component" | "gdpo" => {
            let Some(first) = results.first() else {
                return Ok(Vec::new());
            };
            if results
                .iter()
                .any(|r| r.weights != first.weights || r.reward_profile != first.reward_profile)
            {
                return Err(ApiError::bad_request(
                    "advantage: component-wise modes need every item scored with the same profile and weights",
                ));
            }
            let mut components: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for r in results {
                for (name, value) in &r.rewards {
                    components.entry(name.clone()).or_default().push(*value);
                }
            }
            let weights = first.weights.clone();
            if req.mode == "component" {
                advantage::component_normalized(&components, &weights, &grouping, norm).map_err(bad)
            } else {
                advantage::gdpo(&components, &weights, &grouping, norm).map_err(bad)
            }
        }
        other => Err(ApiError::bad_request(format!(
            "advantage.mode `{other}` is not one of grpo, component, gdpo"
        ))),
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Converts a JSON object of environment arguments, for callers holding
/// other map types.
#[must_use]
pub fn env_args_map(pairs: impl IntoIterator<Item = (String, Value)>) -> Map<String, Value> {
    pairs.into_iter().collect()
}
