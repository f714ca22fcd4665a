//! Which environments exist, what they accept, and configured instances of
//! them (profile, reward-config overrides, environment arguments, budgets).

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use svbench_envs::e1::env::E1Env;
use svbench_envs::e2::env::{E2Args, E2Env, E2EnvError};
use svbench_envs::environment::{Budgets, EnvKind, Environment};
use svbench_scan::scan::ScanConfigError;

use crate::completion::json_kind;
use crate::error::{ApiError, ErrorCode};

/// The environments this build serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EnvId {
    /// `sv-env-network-logs`.
    E1,
    /// `sv-env-config-verification`.
    E2,
}

/// Every environment, in catalogue order.
pub const ALL: [EnvId; 2] = [EnvId::E1, EnvId::E2];

impl EnvId {
    /// Canonical name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EnvId::E1 => svbench_envs::e1::NAME,
            EnvId::E2 => svbench_envs::e2::NAME,
        }
    }

    /// Other accepted spellings (harness §0).
    #[must_use]
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            EnvId::E1 => &["e1", "network-logs"],
            EnvId::E2 => &["e2", "config-verification"],
        }
    }

    /// Environment version.
    #[must_use]
    pub fn version(self) -> &'static str {
        match self {
            EnvId::E1 => svbench_envs::e1::VERSION,
            EnvId::E2 => svbench_envs::e2::VERSION,
        }
    }

    /// The splits of the embedded dataset.
    #[must_use]
    pub fn splits(self) -> &'static [&'static str] {
        match self {
            EnvId::E1 => &svbench_envs::e1::dataset::SPLITS,
            EnvId::E2 => &["train", "dev", "test"],
        }
    }

    /// The split used when a request names none (as `eval`).
    #[must_use]
    pub fn default_split(self) -> &'static str {
        "test"
    }

    /// Reward profiles, default first.
    #[must_use]
    pub fn profiles(self) -> &'static [&'static str] {
        &["v1", "upstream"]
    }

    /// Builtin policies (`--model builtin:<name>`).
    #[must_use]
    pub fn builtin_policies(self) -> &'static [&'static str] {
        match self {
            EnvId::E1 => &svbench_envs::policy::E1_BUILTINS,
            EnvId::E2 => &svbench_envs::policy::E2_BUILTINS,
        }
    }

    /// Dataset generators (`svbench data gen`).
    #[must_use]
    pub fn generators(self) -> &'static [&'static str] {
        match self {
            EnvId::E1 => &[svbench_envs::e1::generate::GENERATOR_NAME],
            EnvId::E2 => &[svbench_envs::e2::generate::GENERATOR_NAME],
        }
    }

    /// The environment's own argument names.
    #[must_use]
    pub fn arg_names(self) -> &'static [&'static str] {
        match self {
            EnvId::E1 => &[],
            EnvId::E2 => &svbench_envs::e2::env::ARG_NAMES,
        }
    }

    /// The arguments among [`EnvId::arg_names`] that name paths on the
    /// machine that configures the environment (see [`crate::fs_access`]).
    #[must_use]
    pub fn path_arg_names(self) -> &'static [&'static str] {
        match self {
            EnvId::E1 => &[],
            EnvId::E2 => &svbench_envs::e2::env::PATH_ARG_NAMES,
        }
    }

    /// Resolves a canonical name or alias.
    ///
    /// # Errors
    /// `unknown_env`, listing the known names.
    pub fn resolve(name: &str) -> Result<Self, ApiError> {
        ALL.into_iter()
            .find(|id| id.name() == name || id.aliases().contains(&name))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::UnknownEnv,
                    format!(
                        "unknown environment `{name}` (served: {})",
                        ALL.map(EnvId::name).join(", ")
                    ),
                )
            })
    }

    /// JSON schema of the environment's own arguments.
    #[must_use]
    pub fn args_schema(self) -> Value {
        let properties = match self {
            EnvId::E1 => json!({}),
            EnvId::E2 => json!({
                "include_tools": {"type": "boolean", "default": true},
                "oracle": {"enum": ["dataset", "live"], "default": "dataset"},
                "oracle_patch": {"type": "boolean", "default": false},
                "lang": {"enum": ["k8s", "tf", "all"], "default": "all"},
                "policy_dirs": {"type": "array", "items": {"type": "string"}, "default": []},
                "kube_linter_checks": {"type": "string", "default": "default",
                    "description": "default, all or a comma list of kube-linter checks"},
                "backend": {"enum": ["native", "external", "crosscheck"], "default": "native"},
                "semgrep_config": {"type": "string"},
                "show_catalog": {"type": "boolean", "default": true},
                "max_findings_per_result": {"type": "integer", "minimum": 1, "default": 200},
            }),
        };
        json!({"type": "object", "properties": properties, "additionalProperties": false})
    }
}

/// How to configure an environment; the cache key of configured instances.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvConfig {
    /// `v1` (default) or `upstream`.
    pub reward_profile: Option<String>,
    /// Reward-config overrides as a JSON object (the TOML file's shape, 1.3).
    pub reward_config: Option<Value>,
    /// The environment's own arguments.
    pub env_args: Map<String, Value>,
    /// Turn limit override.
    pub max_turns: Option<u32>,
    /// Tool budget override.
    pub tool_budget: Option<u32>,
}

impl EnvConfig {
    /// A stable key for caching configured instances.
    #[must_use]
    pub fn cache_key(&self, id: EnvId) -> String {
        json!([
            id.name(),
            self.reward_profile,
            self.reward_config,
            self.env_args,
            self.max_turns,
            self.tool_budget
        ])
        .to_string()
    }
}

/// A configured environment with the facts callers report.
pub struct Configured {
    /// Which environment.
    pub id: EnvId,
    /// The environment.
    pub env: Arc<dyn Environment>,
    /// Active profile name.
    pub profile: &'static str,
    /// Components and weights of the active profile, in declared order.
    pub weights: Vec<(String, f64)>,
    /// `reward_config_hash` of the effective config.
    pub config_hash: String,
    /// Turn and tool limits of an episode.
    pub budgets: Budgets,
    /// The E2 instance itself (its language filter and live oracle).
    pub e2: Option<Arc<E2Env>>,
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured")
            .field("id", &self.id)
            .field("profile", &self.profile)
            .field("config_hash", &self.config_hash)
            .finish_non_exhaustive()
    }
}

/// Builds a configured environment.
///
/// # Errors
/// `invalid_env_args` for unknown arguments, bad values, unknown profiles and
/// rejected reward configs.
pub fn configure(id: EnvId, config: &EnvConfig) -> Result<Configured, ApiError> {
    configure_for(id, config, false)
}

/// As [`configure`]; with `remote`, errors that come from reading the files
/// a path argument names (a policy that does not parse, unusable semgrep
/// rules, a missing external binary) do not reach the caller: their text
/// can quote the files. The caller gets a generic message; the details go
/// to stderr, the server's log.
///
/// # Errors
/// As [`configure`].
pub fn configure_for(id: EnvId, config: &EnvConfig, remote: bool) -> Result<Configured, ApiError> {
    let profile = config.reward_profile.as_deref().unwrap_or("v1");
    let overrides = match &config.reward_config {
        None => None,
        Some(v) => Some(reward_config_toml(v)?),
    };
    let overrides_ref = overrides.as_deref().map(|t| (t, "reward_config (request)"));
    let invalid =
        |e: &dyn std::fmt::Display| ApiError::new(ErrorCode::InvalidEnvArgs, e.to_string());
    match id {
        EnvId::E1 => {
            if let Some(key) = config.env_args.keys().next() {
                return Err(ApiError::new(
                    ErrorCode::InvalidEnvArgs,
                    format!("unknown E1 environment argument `{key}` (E1 has none)"),
                ));
            }
            let env = E1Env::new(profile, overrides_ref).map_err(|e| invalid(&e))?;
            let budgets = Budgets {
                max_turns: config.max_turns.unwrap_or(1),
                tool_budget: config.tool_budget.unwrap_or(0),
            };
            if budgets.max_turns != 1 {
                return Err(ApiError::new(
                    ErrorCode::InvalidEnvArgs,
                    "E1 is single-turn: max_turns must be 1",
                ));
            }
            Ok(Configured {
                id,
                profile: env.rewards.name(),
                weights: named(env.rewards.weights()),
                config_hash: env.rewards.config_hash(),
                budgets,
                env: Arc::new(env),
                e2: None,
            })
        }
        EnvId::E2 => {
            let pairs = env_arg_pairs(&config.env_args)?;
            let args = E2Args::parse(&pairs).map_err(|e| invalid(&e))?;
            let mut env = E2Env::new(profile, overrides_ref, args).map_err(|e| match e {
                E2EnvError::Scan(ScanConfigError::Policies(_)) | E2EnvError::Backend { .. }
                    if remote =>
                {
                    eprintln!("svbench: refused env_args of a request: {e}");
                    ApiError::new(
                        ErrorCode::InvalidEnvArgs,
                        "env_args: the files named by policy_dirs or semgrep_config could not be \
                         loaded (the reason is in the server's log)",
                    )
                }
                e => invalid(&e),
            })?;
            let defaults = env.default_budgets();
            let budgets = Budgets {
                max_turns: config.max_turns.unwrap_or(defaults.max_turns),
                tool_budget: config.tool_budget.unwrap_or(defaults.tool_budget),
            };
            if budgets.max_turns == 0 {
                return Err(ApiError::new(
                    ErrorCode::InvalidEnvArgs,
                    "max_turns must be at least 1",
                ));
            }
            env.set_budgets(budgets);
            let env = Arc::new(env);
            Ok(Configured {
                id,
                profile: env.rewards().name(),
                weights: named(env.rewards().weights()),
                config_hash: env.rewards().config_hash(),
                budgets,
                env: Arc::clone(&env) as Arc<dyn Environment>,
                e2: Some(env),
            })
        }
    }
}

fn named(weights: Vec<(&'static str, f64)>) -> Vec<(String, f64)> {
    weights
        .into_iter()
        .map(|(n, w)| (n.to_string(), w))
        .collect()
}

/// `KEY=VALUE` pairs as `--env-arg` takes them: strings as they are,
/// booleans and numbers printed, lists joined with commas.
fn env_arg_pairs(args: &Map<String, Value>) -> Result<Vec<String>, ApiError> {
    let mut pairs = Vec::with_capacity(args.len());
    for (key, value) in args {
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            Value::Array(items) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(ApiError::new(
                        ErrorCode::InvalidEnvArgs,
                        format!(
                            "env_args.{key}: list items must be strings, got {}",
                            json_kind(other)
                        ),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?
                .join(","),
            other => {
                return Err(ApiError::new(
                    ErrorCode::InvalidEnvArgs,
                    format!(
                        "env_args.{key}: expected a string, boolean, number or list, got {}",
                        json_kind(other)
                    ),
                ))
            }
        };
        pairs.push(format!("{key}={text}"));
    }
    Ok(pairs)
}

/// The reward-config override object as the TOML text the loaders read.
fn reward_config_toml(value: &Value) -> Result<String, ApiError> {
    if !value.is_object() {
        return Err(ApiError::new(
            ErrorCode::InvalidEnvArgs,
            format!("reward_config must be an object, got {}", json_kind(value)),
        ));
    }
    let toml_value: toml::Value = serde_json::from_value(value.clone()).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidEnvArgs,
            format!("reward_config cannot be written as TOML: {e}"),
        )
    })?;
    toml::to_string(&toml_value).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidEnvArgs,
            format!("reward_config cannot be written as TOML: {e}"),
        )
    })
}

/// One split of the catalogue entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SplitInfo {
    /// Split name.
    pub name: String,
    /// Rows in the split.
    pub rows: usize,
    /// Canonical hash of the split's rows.
    pub dataset_sha256: String,
}

/// A component and its weight.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ComponentInfo {
    /// Component name (the rubric function's name in Python).
    pub name: String,
    /// Weight in the total.
    pub weight: f64,
}

/// A reward profile of the catalogue entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProfileInfo {
    /// Profile name.
    pub name: String,
    /// Components in declared order.
    pub components: Vec<ComponentInfo>,
    /// Hash of the profile's built-in config.
    pub config_hash: String,
}

/// `GET /v1/envs/{env}`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvInfo {
    /// Canonical name.
    pub name: String,
    /// Other accepted names.
    pub aliases: Vec<String>,
    /// Environment version.
    pub version: String,
    /// `single_turn`, `tool` or `multi_turn`.
    pub kind: String,
    /// Embedded splits.
    pub splits: Vec<SplitInfo>,
    /// JSON schema of the environment's own arguments.
    pub args_schema: Value,
    /// Reward profiles with components and weights.
    pub reward_profiles: Vec<ProfileInfo>,
    /// Tool specifications offered to the model (default arguments).
    pub tools: Vec<Value>,
    /// Default turn limit.
    pub max_turns: u32,
    /// Default tool budget.
    pub tool_budget: u32,
    /// Builtin policies (`--model builtin:<name>`).
    pub builtin_policies: Vec<String>,
    /// Dataset generators (`svbench data gen`).
    pub generators: Vec<String>,
}

/// The catalogue entry's reward profiles (built-in configs).
///
/// # Errors
/// Only if a built-in config fails to load (a bug).
pub fn profile_infos(id: EnvId) -> Result<Vec<ProfileInfo>, ApiError> {
    id.profiles()
        .iter()
        .map(|p| {
            let c = configure(
                id,
                &EnvConfig {
                    reward_profile: Some((*p).to_string()),
                    ..EnvConfig::default()
                },
            )
            .map_err(|e| ApiError::new(ErrorCode::Internal, e.message))?;
            Ok(ProfileInfo {
                name: c.profile.to_string(),
                components: c
                    .weights
                    .iter()
                    .map(|(name, weight)| ComponentInfo {
                        name: name.clone(),
                        weight: *weight,
                    })
                    .collect(),
                config_hash: c.config_hash,
            })
        })
        .collect()
}

/// The kind as the catalogue writes it.
#[must_use]
pub fn kind_name(kind: EnvKind) -> &'static str {
    match kind {
        EnvKind::SingleTurn => "single_turn",
        EnvKind::Tool => "tool",
        EnvKind::MultiTurn => "multi_turn",
    }
}

/// Weights as a name → weight map.
#[must_use]
pub fn weight_map(weights: &[(String, f64)]) -> BTreeMap<String, f64> {
    weights.iter().cloned().collect()
}
