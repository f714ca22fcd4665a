//! Which environments exist, what they accept, and configured instances of
//! them (profile, reward-config overrides, environment arguments, budgets).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use svbench_envs::environment::EnvKind;
use svbench_envs::registry::{self, ConfigureError, EnvEntry, EnvSetup};

pub use svbench_envs::registry::Configured;

use crate::completion::json_kind;
use crate::error::{ApiError, ErrorCode};

/// An environment this build serves: a handle on its registry entry.
#[derive(Debug, Clone, Copy)]
pub struct EnvId(&'static EnvEntry);

impl PartialEq for EnvId {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for EnvId {}

impl std::hash::Hash for EnvId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl From<&'static EnvEntry> for EnvId {
    fn from(entry: &'static EnvEntry) -> Self {
        Self(entry)
    }
}

/// Every environment, in catalogue order.
#[must_use]
pub fn all() -> Vec<EnvId> {
    registry::REGISTRY.iter().map(|e| EnvId(e)).collect()
}

impl EnvId {
    /// The registry entry.
    #[must_use]
    pub fn entry(self) -> &'static EnvEntry {
        self.0
    }

    /// Canonical name.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// Other accepted spellings.
    #[must_use]
    pub fn aliases(self) -> [&'static str; 2] {
        self.0.identity.aliases()
    }

    /// Environment version.
    #[must_use]
    pub fn version(self) -> &'static str {
        self.0.version
    }

    /// The splits of the embedded dataset.
    #[must_use]
    pub fn splits(self) -> &'static [&'static str] {
        self.0.splits
    }

    /// The split used when a request names none (as `eval`).
    #[must_use]
    pub fn default_split(self) -> &'static str {
        self.0.default_split
    }

    /// Reward profiles, default first.
    #[must_use]
    pub fn profiles(self) -> &'static [&'static str] {
        self.0.profiles
    }

    /// Builtin policies (`--model builtin:<name>`).
    #[must_use]
    pub fn builtin_policies(self) -> Vec<&'static str> {
        self.0.builtin_names()
    }

    /// Dataset generators (`svbench data gen`).
    #[must_use]
    pub fn generators(self) -> Vec<&'static str> {
        self.0.generator_names()
    }

    /// The environment's own argument names.
    #[must_use]
    pub fn arg_names(self) -> &'static [&'static str] {
        self.0.arg_names
    }

    /// The arguments among [`EnvId::arg_names`] that name paths on the
    /// machine that configures the environment (see [`crate::fs_access`]).
    #[must_use]
    pub fn path_arg_names(self) -> &'static [&'static str] {
        self.0.path_arg_names
    }

    /// Resolves a canonical name or alias.
    ///
    /// # Errors
    /// `unknown_env`, listing the available names.
    pub fn resolve(name: &str) -> Result<Self, ApiError> {
        registry::REGISTRY
            .iter()
            .find(|e| e.identity.is_named(name))
            .map(|e| EnvId(e))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::UnknownEnv,
                    format!(
                        "unknown environment `{name}` (available: {})",
                        all()
                            .iter()
                            .map(|id| id.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
    }

    /// JSON schema of the environment's own arguments.
    #[must_use]
    pub fn args_schema(self) -> Value {
        (self.0.args_schema)()
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
    check_arg_names(id, &config.env_args)?;
    let overrides = match &config.reward_config {
        None => None,
        Some(v) => Some(reward_config_toml(v)?),
    };
    let pairs = env_arg_pairs(&config.env_args)?;
    let setup = EnvSetup {
        reward_profile: config.reward_profile.as_deref(),
        reward_overrides: overrides.as_deref().map(|t| (t, "reward_config (request)")),
        env_args: &pairs,
        max_turns: config.max_turns,
        tool_budget: config.tool_budget,
        system_prompt: None,
    };
    (id.entry().configure)(&setup).map_err(|e| match e {
        ConfigureError::Files(message) if remote => {
            eprintln!("svbench: refused env_args of a request: {message}");
            ApiError::new(
                ErrorCode::InvalidEnvArgs,
                format!(
                    "env_args: the files named by {} could not be loaded (the reason is in \
                     the server's log)",
                    id.path_arg_names().join(" or ")
                ),
            )
        }
        e => ApiError::new(ErrorCode::InvalidEnvArgs, e.to_string()),
    })
}

/// Refuses every key that is not exactly one of the environment's argument
/// names: no trimming, no case folding, no Unicode normalisation. A key that
/// only resembles a name (`"policy_dirs "`, `"\tpolicy_dirs"`,
/// `"Policy_Dirs"`, `"policy_dirs=x"`) would otherwise slip past checks that
/// look the name up exactly (the path check of [`crate::fs_access`]) and be
/// read as that name further down.
///
/// # Errors
/// `invalid_env_args` naming the key as given (escaped) and the known names.
pub fn check_arg_names(id: EnvId, args: &Map<String, Value>) -> Result<(), ApiError> {
    let known = id.arg_names();
    let Some(bad) = args.keys().find(|k| !known.contains(&k.as_str())) else {
        return Ok(());
    };
    let message = if known.is_empty() {
        format!(
            "env_args: `{}` takes no environment-specific arguments (got {bad:?})",
            id.name()
        )
    } else {
        format!(
            "env_args: unknown argument {bad:?} for `{}` (names are exact; known: {})",
            id.name(),
            known.join(", ")
        )
    };
    Err(ApiError::new(ErrorCode::InvalidEnvArgs, message))
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
