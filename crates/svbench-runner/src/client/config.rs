//! `svbench.toml` (harness §2.1): defaults, endpoint profiles and model
//! aliases, plus the built-in profiles and aliases that exist without a file.
//!
//! Secrets never come from the file: a profile names the *environment
//! variable* holding its key (`api_key_env`), and a literal `Authorization`
//! header in `headers` is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::cache::CacheMode;

/// Environment variable naming the configuration file when `--config` is not given.
pub const CONFIG_ENV: &str = "SVBENCH_CONFIG";

/// File looked for in the working directory when neither `--config` nor
/// `$SVBENCH_CONFIG` is given.
pub const CONFIG_FILE_NAME: &str = "svbench.toml";

/// Header that carries the key by default, as `Authorization: Bearer <key>`.
pub const DEFAULT_AUTH_HEADER: &str = "Authorization";

/// The built-in alias table: short names → OpenRouter model ids, the names
/// upstream mapped by hand. All route to the `openrouter` profile with
/// `reasoning = "auto"`. An alias of the same name in `svbench.toml` wins.
///
/// | alias | OpenRouter id |
/// |---|---|
/// | `qwen3-8b` | `qwen/qwen3-8b` |
/// | `qwen3-14b` | `qwen/qwen3-14b` |
/// | `qwen3-32b` | `qwen/qwen3-32b` |
/// | `qwen3-30b-a3b` | `qwen/qwen3-30b-a3b` |
/// | `qwen3-235b-a22b` | `qwen/qwen3-235b-a22b` |
/// | `llama-3.1-8b-instruct` | `meta-llama/llama-3.1-8b-instruct` |
/// | `llama-3.1-70b-instruct` | `meta-llama/llama-3.1-70b-instruct` |
/// | `llama-3.3-70b-instruct` | `meta-llama/llama-3.3-70b-instruct` |
/// | `mistral-7b-instruct` | `mistralai/mistral-7b-instruct` |
/// | `deepseek-r1` | `deepseek/deepseek-r1` |
/// | `deepseek-v3` | `deepseek/deepseek-chat` |
/// | `gemma-3-27b-it` | `google/gemma-3-27b-it` |
pub const BUILTIN_ALIASES: &[(&str, &str)] = &[
    ("qwen3-8b", "qwen/qwen3-8b"),
    ("qwen3-14b", "qwen/qwen3-14b"),
    ("qwen3-32b", "qwen/qwen3-32b"),
    ("qwen3-30b-a3b", "qwen/qwen3-30b-a3b"),
    ("qwen3-235b-a22b", "qwen/qwen3-235b-a22b"),
    ("llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct"),
    (
        "llama-3.1-70b-instruct",
        "meta-llama/llama-3.1-70b-instruct",
    ),
    (
        "llama-3.3-70b-instruct",
        "meta-llama/llama-3.3-70b-instruct",
    ),
    ("mistral-7b-instruct", "mistralai/mistral-7b-instruct"),
    ("deepseek-r1", "deepseek/deepseek-r1"),
    ("deepseek-v3", "deepseek/deepseek-chat"),
    ("gemma-3-27b-it", "google/gemma-3-27b-it"),
];

/// An error loading `svbench.toml`. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// An explicitly named file (`--config` or `$SVBENCH_CONFIG`) does not exist.
    #[error("config file {} does not exist (named by {origin})", path.display())]
    Missing {
        /// The path.
        path: PathBuf,
        /// `--config` or `$SVBENCH_CONFIG`.
        origin: &'static str,
    },
    /// The file could not be read.
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected shape (this includes
    /// unknown keys, which the message names).
    #[error("invalid config file {}: {message}", path.display())]
    Parse {
        /// The path.
        path: PathBuf,
        /// The parser's message, with the offending key and line.
        message: String,
    },
    /// The file parsed but a value is not acceptable.
    #[error("invalid config file {}: {message}", path.display())]
    Invalid {
        /// The path.
        path: PathBuf,
        /// What is wrong, naming the table and key.
        message: String,
    },
}

/// `reasoning` of a model alias: `true`, `false` or `"auto"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReasoningSetting {
    /// A reasoning model: `max_completion_tokens`, no `temperature`/`top_p`.
    On,
    /// An ordinary chat model.
    Off,
    /// Decide from the model id (see [`super::routing::is_reasoning_model_id`]).
    #[default]
    Auto,
}

impl ReasoningSetting {
    /// Resolves the setting for `model_id`.
    pub fn resolve(self, model_id: &str) -> bool {
        match self {
            ReasoningSetting::On => true,
            ReasoningSetting::Off => false,
            ReasoningSetting::Auto => super::routing::is_reasoning_model_id(model_id),
        }
    }
}

impl<'de> Deserialize<'de> for ReasoningSetting {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(de)? {
            Raw::Bool(true) => Ok(ReasoningSetting::On),
            Raw::Bool(false) => Ok(ReasoningSetting::Off),
            Raw::Text(s) if s == "auto" => Ok(ReasoningSetting::Auto),
            Raw::Text(s) => Err(serde::de::Error::custom(format!(
                "invalid reasoning `{s}`: expected true, false or \"auto\""
            ))),
        }
    }
}

/// Which request field carries the per-call token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenParam {
    /// `max_tokens` (ordinary chat models, most open-source servers).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI reasoning models).
    MaxCompletionTokens,
}

impl TokenParam {
    /// The JSON field name.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenParam::MaxTokens => "max_tokens",
            TokenParam::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// `[defaults]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Default `--concurrency`.
    pub concurrency: Option<usize>,
    /// Default `--cache-mode`.
    pub cache_mode: Option<CacheMode>,
    /// Cache file; `None` (or `""` in the file) means
    /// `<user cache dir>/svbench/responses.sqlite`.
    #[serde(default, deserialize_with = "empty_path_is_none")]
    pub cache_path: Option<PathBuf>,
}

/// One endpoint profile, `[profiles.NAME]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Base URL, without a trailing `/` (requests go to `{base_url}/chat/completions`).
    pub base_url: String,
    /// Environment variable holding the key; `None` sends no auth header.
    pub api_key_env: Option<String>,
    /// Header carrying the key: `Authorization` sends `Bearer <key>`, any
    /// other name sends the raw key.
    pub auth_header: String,
    /// Extra request headers (never secrets).
    pub headers: BTreeMap<String, String>,
    /// Requests per minute.
    pub requests_per_minute: Option<u32>,
    /// Tokens per minute.
    pub tokens_per_minute: Option<u64>,
    /// Requests in flight.
    pub max_concurrency: Option<usize>,
    /// Per-attempt timeout in seconds; replaces `--request-timeout` for this profile.
    pub request_timeout_s: Option<f64>,
    /// Send a derived `seed` with every request (default true).
    pub send_seed: bool,
    /// Fields merged into every request body.
    pub extra_body: Map<String, Value>,
}

impl Profile {
    fn builtin(base_url: &str, api_key_env: &str) -> Self {
        Self {
            base_url: base_url.to_string(),
            api_key_env: Some(api_key_env.to_string()),
            auth_header: DEFAULT_AUTH_HEADER.to_string(),
            headers: BTreeMap::new(),
            requests_per_minute: None,
            tokens_per_minute: None,
            max_concurrency: None,
            request_timeout_s: None,
            send_seed: true,
            extra_body: Map::new(),
        }
    }
}

/// One model alias, `[models."ALIAS"]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelAlias {
    /// Profile the alias routes to.
    pub profile: String,
    /// Model id sent to the endpoint.
    pub model: String,
    /// Reasoning-model request shape.
    #[serde(default)]
    pub reasoning: ReasoningSetting,
    /// Forces the token-limit field; by default it follows `reasoning`.
    #[serde(default)]
    pub token_param: Option<TokenParam>,
    /// Fields merged into the request body after the profile's.
    #[serde(default)]
    pub extra_body: Map<String, Value>,
}

/// A loaded configuration: the file's contents over the built-ins.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file loaded, `None` for built-ins only.
    pub source: Option<PathBuf>,
    /// `[defaults]`.
    pub defaults: Defaults,
    /// Profiles by name, built-ins included.
    pub profiles: BTreeMap<String, Profile>,
    /// Aliases by name, built-ins included.
    pub models: BTreeMap<String, ModelAlias>,
}

impl Default for Config {
    fn default() -> Self {
        Self::builtin()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    defaults: Defaults,
    #[serde(default)]
    profiles: BTreeMap<String, RawProfile>,
    #[serde(default)]
    models: BTreeMap<String, ModelAlias>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    base_url: Option<String>,
    api_key_env: Option<String>,
    auth_header: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    requests_per_minute: Option<u32>,
    tokens_per_minute: Option<u64>,
    max_concurrency: Option<usize>,
    request_timeout_s: Option<f64>,
    send_seed: Option<bool>,
    #[serde(default)]
    extra_body: Map<String, Value>,
}

fn empty_path_is_none<'de, D: serde::Deserializer<'de>>(
    de: D,
) -> Result<Option<PathBuf>, D::Error> {
    let s = Option::<String>::deserialize(de)?;
    Ok(s.filter(|s| !s.is_empty()).map(PathBuf::from))
}

impl Config {
    /// Built-in profiles (`openai`, `openrouter`) and aliases only.
    pub fn builtin() -> Self {
        let mut profiles = BTreeMap::new();
        profiles.insert(
            "openai".to_string(),
            Profile::builtin("https://api.openai.com/v1", "OPENAI_API_KEY"),
        );
        profiles.insert(
            "openrouter".to_string(),
            Profile::builtin("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        );
        let models = BUILTIN_ALIASES
            .iter()
            .map(|(alias, id)| {
                (
                    (*alias).to_string(),
                    ModelAlias {
                        profile: "openrouter".to_string(),
                        model: (*id).to_string(),
                        reasoning: ReasoningSetting::Auto,
                        token_param: None,
                        extra_body: Map::new(),
                    },
                )
            })
            .collect();
        Self {
            source: None,
            defaults: Defaults::default(),
            profiles,
            models,
        }
    }

    /// Finds and loads the configuration (harness §1): `explicit`
    /// (`--config`) if given — missing is an error; else `$SVBENCH_CONFIG`
    /// if set and non-empty — missing is an error; else `cwd/svbench.toml`
    /// if it exists; else the built-ins.
    pub fn load(explicit: Option<&Path>, cwd: &Path) -> Result<Self, ConfigError> {
        let env = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty());
        Self::load_with(explicit, env.as_deref().map(Path::new), cwd)
    }

    /// [`Config::load`] with the value of `$SVBENCH_CONFIG` passed in (tests).
    pub fn load_with(
        explicit: Option<&Path>,
        env_path: Option<&Path>,
        cwd: &Path,
    ) -> Result<Self, ConfigError> {
        let named = explicit
            .map(|p| (p, "--config"))
            .or(env_path.map(|p| (p, "$SVBENCH_CONFIG")));
        if let Some((path, origin)) = named {
            let path = cwd.join(path);
            if !path.exists() {
                return Err(ConfigError::Missing { path, origin });
            }
            return Self::from_file(&path);
        }
        let local = cwd.join(CONFIG_FILE_NAME);
        if local.is_file() {
            return Self::from_file(&local);
        }
        Ok(Self::builtin())
    }

    /// Loads one file over the built-ins.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml_str(&text, path)
    }

    /// Parses `text` as the contents of the file `path` (used in messages)
    /// over the built-ins.
    ///
    /// A profile named like a built-in (`openai`, `openrouter`) inherits the
    /// built-in's `base_url` and `api_key_env` when it does not set them; any
    /// other profile must set `base_url` and sends no key unless it sets
    /// `api_key_env`.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let mut config = Self::builtin();
        config.source = Some(path.to_path_buf());
        config.defaults = raw.defaults;
        if config.defaults.concurrency == Some(0) {
            return Err(invalid("[defaults] concurrency must be at least 1".into()));
        }
        for (name, rp) in raw.profiles {
            let base = config.profiles.get(&name).cloned();
            let profile = build_profile(&name, rp, base).map_err(invalid)?;
            config.profiles.insert(name, profile);
        }
        for (alias, m) in raw.models {
            if !config.profiles.contains_key(&m.profile) {
                return Err(invalid(format!(
                    "[models.\"{alias}\"] profile `{}` is not defined (profiles: {})",
                    m.profile,
                    config
                        .profiles
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            if m.model.is_empty() {
                return Err(invalid(format!("[models.\"{alias}\"] model is empty")));
            }
            if alias.contains('@') || alias.starts_with("builtin:") {
                return Err(invalid(format!(
                    "[models.\"{alias}\"] alias names may not contain `@` or start with `builtin:`"
                )));
            }
            config.models.insert(alias, m);
        }
        Ok(config)
    }
}

fn build_profile(name: &str, rp: RawProfile, base: Option<Profile>) -> Result<Profile, String> {
    let table = format!("[profiles.{name}]");
    if name.is_empty() || name.contains('@') {
        return Err(format!(
            "{table}: profile names may not be empty or contain `@`"
        ));
    }
    let base_url = match (rp.base_url, &base) {
        (Some(u), _) => u,
        (None, Some(b)) => b.base_url.clone(),
        (None, None) => return Err(format!("{table} base_url is required")),
    };
    let base_url = base_url.trim_end_matches('/').to_string();
    if let Err(e) = super::url::EndpointUrl::parse(&base_url) {
        return Err(format!("{table} base_url {e}"));
    }
    let api_key_env = match rp.api_key_env {
        Some(v) if v.is_empty() => None,
        Some(v) => Some(v),
        None => base.as_ref().and_then(|b| b.api_key_env.clone()),
    };
    let auth_header = rp
        .auth_header
        .unwrap_or_else(|| DEFAULT_AUTH_HEADER.to_string());
    if reqwest::header::HeaderName::from_bytes(auth_header.as_bytes()).is_err() {
        return Err(format!(
            "{table} auth_header `{auth_header}` is not a valid header name"
        ));
    }
    for (k, v) in &rp.headers {
        if k.eq_ignore_ascii_case(DEFAULT_AUTH_HEADER) || k.eq_ignore_ascii_case(&auth_header) {
            return Err(format!(
                "{table} headers.{k}: keys never go in the config file; name the \
                 environment variable that holds the key in api_key_env"
            ));
        }
        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err()
            || reqwest::header::HeaderValue::from_str(v).is_err()
        {
            return Err(format!("{table} headers.{k} is not a valid HTTP header"));
        }
    }
    if rp.requests_per_minute == Some(0) || rp.tokens_per_minute == Some(0) {
        return Err(format!(
            "{table} requests_per_minute and tokens_per_minute must be at least 1 (omit them for no limit)"
        ));
    }
    if rp.max_concurrency == Some(0) {
        return Err(format!("{table} max_concurrency must be at least 1"));
    }
    if let Some(t) = rp.request_timeout_s {
        if !(t.is_finite() && t > 0.0 && t <= 86_400.0) {
            return Err(format!(
                "{table} request_timeout_s must be a positive number of seconds (at most 86400)"
            ));
        }
    }
    Ok(Profile {
        base_url,
        api_key_env,
        auth_header,
        headers: rp.headers,
        requests_per_minute: rp.requests_per_minute,
        tokens_per_minute: rp.tokens_per_minute,
        max_concurrency: rp.max_concurrency,
        request_timeout_s: rp.request_timeout_s,
        send_seed: rp.send_seed.unwrap_or(true),
        extra_body: rp.extra_body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_EXAMPLE: &str = r#"
[defaults]
concurrency = 8
cache_mode = "auto"
cache_path = ""              # empty: <user cache dir>/svbench/responses.sqlite

[profiles.openrouter]
base_url = "https://openrouter.ai/api/v1"
api_key_env = "OPENROUTER_API_KEY"
headers = { "X-Title" = "svbench" }
requests_per_minute = 500
tokens_per_minute = 200000
max_concurrency = 16

[profiles.local]
base_url = "http://127.0.0.1:8000/v1"
api_key_env = ""             # no auth header
send_seed = true

[models."local-qwen"]
profile = "local"
model = "Qwen/Qwen3-4B-Instruct-2507"
reasoning = false
extra_body = { top_k = 20 }
"#;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml_str(text, Path::new("/tmp/svbench.toml"))
    }

    #[test]
    fn spec_example_loads() {
        let c = parse(SPEC_EXAMPLE).expect("spec example");
        assert_eq!(c.defaults.concurrency, Some(8));
        assert_eq!(c.defaults.cache_mode, Some(CacheMode::Auto));
        assert_eq!(c.defaults.cache_path, None);
        let or = &c.profiles["openrouter"];
        assert_eq!(or.requests_per_minute, Some(500));
        assert_eq!(or.headers["X-Title"], "svbench");
        let local = &c.profiles["local"];
        assert_eq!(local.api_key_env, None);
        assert!(local.send_seed);
        let alias = &c.models["local-qwen"];
        assert_eq!(alias.reasoning, ReasoningSetting::Off);
        assert_eq!(alias.extra_body["top_k"], 20);
        // Built-ins survive.
        assert!(c.profiles.contains_key("openai"));
        assert_eq!(c.models["qwen3-14b"].model, "qwen/qwen3-14b");
    }

    #[test]
    fn unknown_keys_are_errors_naming_key_and_file() {
        for (text, key) in [
            ("[defaults]\nconcurrenccy = 3\n", "concurrenccy"),
            (
                "[profiles.x]\nbase_url = \"http://a\"\napi_key = \"sk\"\n",
                "api_key",
            ),
            (
                "[models.m]\nprofile = \"openai\"\nmodel = \"x\"\ntemp = 1\n",
                "temp",
            ),
            ("[endpoints]\n", "endpoints"),
        ] {
            let err = parse(text).expect_err(text).to_string();
            assert!(err.contains(key), "{err}");
            assert!(err.contains("/tmp/svbench.toml"), "{err}");
        }
    }

    #[test]
    fn invalid_values_are_errors() {
        for (text, needle) in [
            ("[profiles.x]\napi_key_env = \"K\"\n", "base_url is required"),
            ("[profiles.x]\nbase_url = \"ftp://a\"\n", "http://"),
            (
                "[models.m]\nprofile = \"nope\"\nmodel = \"x\"\n",
                "profile `nope` is not defined",
            ),
            (
                "[models.m]\nprofile = \"openai\"\nmodel = \"x\"\nreasoning = \"maybe\"\n",
                "reasoning",
            ),
            (
                "[profiles.x]\nbase_url = \"http://a\"\nheaders = { Authorization = \"Bearer sk\" }\n",
                "api_key_env",
            ),
            ("[defaults]\ncache_mode = \"sometimes\"\n", "sometimes"),
            ("[profiles.x]\nbase_url = \"http://a\"\nmax_concurrency = 0\n", "max_concurrency"),
        ] {
            let err = parse(text).expect_err(text).to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn builtin_profile_override_inherits_url_and_key_variable() {
        let c = parse("[profiles.openai]\nrequests_per_minute = 60\n").expect("config");
        let p = &c.profiles["openai"];
        assert_eq!(p.base_url, "https://api.openai.com/v1");
        assert_eq!(p.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
        assert_eq!(p.requests_per_minute, Some(60));
    }

    #[test]
    fn token_param_and_reasoning_values_parse() {
        let c = parse(
            "[models.a]\nprofile = \"openai\"\nmodel = \"x\"\nreasoning = \"auto\"\ntoken_param = \"max_completion_tokens\"\n\
             [models.b]\nprofile = \"openai\"\nmodel = \"y\"\nreasoning = true\n",
        )
        .expect("config");
        assert_eq!(c.models["a"].reasoning, ReasoningSetting::Auto);
        assert_eq!(
            c.models["a"].token_param,
            Some(TokenParam::MaxCompletionTokens)
        );
        assert_eq!(c.models["b"].reasoning, ReasoningSetting::On);
    }

    #[test]
    fn load_order_explicit_env_local_builtin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path();
        // Nothing: built-ins.
        let c = Config::load_with(None, None, cwd).expect("builtin");
        assert_eq!(c.source, None);
        // Explicit missing: error even though the others would work.
        let err = Config::load_with(Some(Path::new("nope.toml")), None, cwd)
            .expect_err("missing explicit");
        assert!(
            matches!(
                err,
                ConfigError::Missing {
                    origin: "--config",
                    ..
                }
            ),
            "{err}"
        );
        let err = Config::load_with(None, Some(Path::new("gone.toml")), cwd).expect_err("env");
        assert!(err.to_string().contains("SVBENCH_CONFIG"), "{err}");
        // ./svbench.toml is picked up.
        std::fs::write(cwd.join("svbench.toml"), "[defaults]\nconcurrency = 3\n").expect("write");
        let c = Config::load_with(None, None, cwd).expect("local");
        assert_eq!(c.defaults.concurrency, Some(3));
        // The environment variable beats the local file, --config beats both.
        std::fs::write(cwd.join("env.toml"), "[defaults]\nconcurrency = 4\n").expect("write");
        std::fs::write(cwd.join("cli.toml"), "[defaults]\nconcurrency = 5\n").expect("write");
        let c = Config::load_with(None, Some(Path::new("env.toml")), cwd).expect("env");
        assert_eq!(c.defaults.concurrency, Some(4));
        let c = Config::load_with(
            Some(Path::new("cli.toml")),
            Some(Path::new("env.toml")),
            cwd,
        )
        .expect("cli");
        assert_eq!(c.defaults.concurrency, Some(5));
    }
}
