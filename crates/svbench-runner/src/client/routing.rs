//! Model routing (harness §2.2): from a `--model` value to an endpoint, a
//! model id and its request quirks. Offline and exact: no network, no fuzzy
//! matching.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};
use svbench_core::record::EndpointRecord;

use super::config::{Config, Profile, ReasoningSetting, TokenParam};
use super::url::{EndpointUrl, UrlError};
use crate::limits::Limits;

/// Prefix of builtin policies (routing rule 1).
pub const BUILTIN_PREFIX: &str = "builtin:";

/// Profile name recorded for `--base-url` endpoints.
pub const AD_HOC_PROFILE: &str = "ad-hoc";

/// Why a model reference cannot be routed. All are usage errors (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// `builtin:<policy>`: rule (1), handled by the caller before routing.
    #[error("`{0}` is a builtin policy, not a model endpoint")]
    Builtin(String),
    /// An empty `--model`.
    #[error("empty model name")]
    Empty,
    /// `name@profile` with an unknown profile.
    #[error("model `{model}`: unknown profile `{profile}` (profiles: {known})")]
    UnknownProfile {
        /// The reference as given.
        model: String,
        /// The profile named after `@`.
        profile: String,
        /// Comma-separated known profiles.
        known: String,
    },
    /// No rule matched (rule 7).
    #[error(
        "cannot route model `{0}`: not an alias, not an OpenAI model name and not a \
         `vendor/model` id\nhint: use `NAME@PROFILE`, define `[models.\"{0}\"]` in svbench.toml, \
         or pass --base-url"
    )]
    Unroutable(String),
    /// `--base-url` (or a profile's `base_url`) is refused: not http(s),
    /// no host, credentials in it, or a fragment. Never echoes a secret.
    #[error("--base-url {0}")]
    BadBaseUrl(#[from] UrlError),
    /// The key's environment variable is unset or empty.
    #[error("environment variable {var} is not set (model `{model}`)\nhint: set {var} or pass --api-key-env")]
    MissingApiKey {
        /// The variable.
        var: String,
        /// The model reference.
        model: String,
    },
}

/// Which routing rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteRule {
    /// (2) `--base-url`.
    BaseUrl,
    /// (3) `name@profile`.
    NameAtProfile,
    /// (4) an alias of `svbench.toml` or the built-in table.
    Alias,
    /// (5) an OpenAI-family bare name.
    OpenAiName,
    /// (6) a `vendor/model` id.
    VendorId,
}

/// An API key read from the environment. Never serialised; `Debug` redacts it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The secret itself, for building the auth header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([REDACTED])")
    }
}

/// Where and how to send one model's requests. Holds the *name* of the key
/// variable, never the key.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The `--model` value as given.
    pub model_ref: String,
    /// Rule that matched.
    pub rule: RouteRule,
    /// Profile name (`ad-hoc` for `--base-url`).
    pub profile: String,
    /// Provider recorded in metadata: `openai`, `openrouter` or `openai-compatible`.
    pub provider: String,
    /// Base URL without a trailing `/`, as recorded: secret-looking query
    /// values redacted (see [`EndpointUrl::display`]). Requests use `url`.
    pub base_url: String,
    /// The validated base URL requests are sent to (its query may hold a
    /// secret; `Debug` redacts it).
    pub url: EndpointUrl,
    /// Model id sent to the endpoint.
    pub model: String,
    /// Environment variable holding the key; `None` sends no auth header.
    pub api_key_env: Option<String>,
    /// Header carrying the key (`Authorization` → `Bearer <key>`).
    pub auth_header: String,
    /// Extra headers.
    pub headers: BTreeMap<String, String>,
    /// Reasoning-model request shape (resolved).
    pub reasoning: bool,
    /// Field carrying the token limit.
    pub token_param: TokenParam,
    /// Profile `extra_body`, then the alias's merged over it.
    pub extra_body: Map<String, Value>,
    /// Send a derived `seed`.
    pub send_seed: bool,
    /// Profile limits.
    pub limits: Limits,
    /// Profile request timeout, replacing `--request-timeout` when set.
    pub request_timeout: Option<Duration>,
}

impl Route {
    /// Reads the key from the environment: `Ok(None)` when the route sends
    /// no key, an error naming the variable when it is unset or empty.
    pub fn api_key(&self) -> Result<Option<ApiKey>, RouteError> {
        let Some(var) = &self.api_key_env else {
            return Ok(None);
        };
        match std::env::var(var) {
            Ok(v) if !v.is_empty() => Ok(Some(ApiKey(v))),
            _ => Err(RouteError::MissingApiKey {
                var: var.clone(),
                model: self.model_ref.clone(),
            }),
        }
    }

    /// `{profile, provider, base_url}` for metadata.
    pub fn endpoint(&self) -> EndpointRecord {
        EndpointRecord {
            profile: self.profile.clone(),
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
        }
    }
}

/// Whether `id` (minus a leading `openai/`) is a reasoning model under
/// `reasoning = "auto"`: `^o[0-9]+($|-)` or `^gpt-5`.
pub fn is_reasoning_model_id(id: &str) -> bool {
    let id = id.strip_prefix("openai/").unwrap_or(id);
    is_o_series(id) || id.starts_with("gpt-5")
}

/// `^o[0-9]+($|-)`.
fn is_o_series(id: &str) -> bool {
    let Some(rest) = id.strip_prefix('o') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && (rest.len() == digits || rest.as_bytes()[digits] == b'-')
}

/// Rule (5): `^(gpt-|chatgpt-|o[0-9]+($|-)|text-|davinci|babbage)`.
pub fn is_openai_family_name(name: &str) -> bool {
    ["gpt-", "chatgpt-", "text-", "davinci", "babbage"]
        .iter()
        .any(|p| name.starts_with(p))
        || is_o_series(name)
}

/// Provider label from a base URL's host.
fn provider_for(base_url: &str) -> &'static str {
    let host = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest)
        .split(['/', ':', '?'])
        .next()
        .unwrap_or("");
    match host {
        "api.openai.com" => "openai",
        "openrouter.ai" => "openrouter",
        _ => "openai-compatible",
    }
}

/// The model half of a route: what an alias (or the bare reference) says.
struct ModelSpec<'a> {
    model: &'a str,
    reasoning: ReasoningSetting,
    token_param: Option<TokenParam>,
    extra_body: Option<&'a Map<String, Value>>,
}

impl<'a> ModelSpec<'a> {
    fn verbatim(model: &'a str) -> Self {
        Self {
            model,
            reasoning: ReasoningSetting::Auto,
            token_param: None,
            extra_body: None,
        }
    }
}

fn from_profile(
    model_ref: &str,
    rule: RouteRule,
    profile_name: &str,
    profile: &Profile,
    spec: ModelSpec<'_>,
) -> Result<Route, RouteError> {
    let ModelSpec {
        model,
        reasoning,
        token_param,
        extra_body: alias_extra,
    } = spec;
    let reasoning = reasoning.resolve(model);
    let mut extra_body = profile.extra_body.clone();
    if let Some(extra) = alias_extra {
        for (k, v) in extra {
            extra_body.insert(k.clone(), v.clone());
        }
    }
    let url = EndpointUrl::parse(&profile.base_url)?;
    Ok(Route {
        model_ref: model_ref.to_string(),
        rule,
        profile: profile_name.to_string(),
        provider: provider_for(&profile.base_url).to_string(),
        base_url: url.display(),
        url,
        model: model.to_string(),
        api_key_env: profile.api_key_env.clone(),
        auth_header: profile.auth_header.clone(),
        headers: profile.headers.clone(),
        reasoning,
        token_param: token_param.unwrap_or(if reasoning {
            TokenParam::MaxCompletionTokens
        } else {
            TokenParam::MaxTokens
        }),
        extra_body,
        send_seed: profile.send_seed,
        limits: Limits {
            requests_per_minute: profile.requests_per_minute,
            tokens_per_minute: profile.tokens_per_minute,
            max_concurrency: profile.max_concurrency,
        },
        request_timeout: profile.request_timeout_s.map(Duration::from_secs_f64),
    })
}

/// Routes `model_ref` (harness §2.2, first match wins):
///
/// 1. `builtin:<policy>` → [`RouteError::Builtin`]; callers check for
///    builtins first.
/// 2. `base_url_override` (`--base-url`) → that URL, the reference sent
///    verbatim, profile `ad-hoc`, no limits, the key from
///    `api_key_env_override` (none without it).
/// 3. `name@profile` (split at the last `@`) → `name` verbatim to that
///    profile; an unknown profile is an error.
/// 4. An alias of the configuration (file aliases over built-in ones).
/// 5. An OpenAI-family bare name → `openai`.
/// 6. A name containing `/` → `openrouter`.
/// 7. Otherwise [`RouteError::Unroutable`].
///
/// `api_key_env_override` (`--api-key-env`) replaces the key variable of
/// whichever rule matched. `reasoning` is `"auto"` except for aliases that
/// set it.
pub fn route(
    model_ref: &str,
    config: &Config,
    base_url_override: Option<&str>,
    api_key_env_override: Option<&str>,
) -> Result<Route, RouteError> {
    if model_ref.starts_with(BUILTIN_PREFIX) {
        return Err(RouteError::Builtin(model_ref.to_string()));
    }
    if model_ref.is_empty() {
        return Err(RouteError::Empty);
    }
    let mut route = route_inner(model_ref, config, base_url_override)?;
    if let Some(var) = api_key_env_override {
        route.api_key_env = (!var.is_empty()).then(|| var.to_string());
    }
    Ok(route)
}

fn route_inner(
    model_ref: &str,
    config: &Config,
    base_url_override: Option<&str>,
) -> Result<Route, RouteError> {
    let profile = |name: &str| config.profiles.get(name);
    if let Some(url) = base_url_override {
        EndpointUrl::parse(url)?;
        let p = Profile {
            base_url: url.to_string(),
            api_key_env: None,
            ..Config::builtin().profiles["openai"].clone()
        };
        return from_profile(
            model_ref,
            RouteRule::BaseUrl,
            AD_HOC_PROFILE,
            &p,
            ModelSpec::verbatim(model_ref),
        );
    }
    if let Some((name, pname)) = model_ref.rsplit_once('@') {
        let Some(p) = profile(pname) else {
            return Err(RouteError::UnknownProfile {
                model: model_ref.to_string(),
                profile: pname.to_string(),
                known: config
                    .profiles
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        if name.is_empty() {
            return Err(RouteError::Empty);
        }
        return from_profile(
            model_ref,
            RouteRule::NameAtProfile,
            pname,
            p,
            ModelSpec::verbatim(name),
        );
    }
    if let Some(alias) = config.models.get(model_ref) {
        // Config loading checks alias profiles exist; a hand-built Config may not.
        let p = profile(&alias.profile).ok_or_else(|| RouteError::UnknownProfile {
            model: model_ref.to_string(),
            profile: alias.profile.clone(),
            known: config
                .profiles
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        return from_profile(
            model_ref,
            RouteRule::Alias,
            &alias.profile,
            p,
            ModelSpec {
                model: &alias.model,
                reasoning: alias.reasoning,
                token_param: alias.token_param,
                extra_body: Some(&alias.extra_body),
            },
        );
    }
    let (rule, pname) = if is_openai_family_name(model_ref) {
        (RouteRule::OpenAiName, "openai")
    } else if model_ref.contains('/') {
        (RouteRule::VendorId, "openrouter")
    } else {
        return Err(RouteError::Unroutable(model_ref.to_string()));
    };
    let p = profile(pname).ok_or_else(|| RouteError::Unroutable(model_ref.to_string()))?;
    from_profile(model_ref, rule, pname, p, ModelSpec::verbatim(model_ref))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn o_series_pattern() {
        for yes in ["o1", "o3", "o3-mini", "o4-mini", "o10", "o1-2024-12-17"] {
            assert!(is_o_series(yes), "{yes}");
        }
        for no in ["o", "o-1", "omni", "o3mini", "oa1", "gpt-4o", ""] {
            assert!(!is_o_series(no), "{no}");
        }
    }

    #[test]
    fn reasoning_auto_strips_openai_prefix() {
        assert!(is_reasoning_model_id("openai/o3"));
        assert!(is_reasoning_model_id("openai/gpt-5-mini"));
        assert!(is_reasoning_model_id("gpt-5"));
        assert!(!is_reasoning_model_id("gpt-4o-mini"));
        assert!(!is_reasoning_model_id("qwen/o3"));
        assert!(!is_reasoning_model_id("openai/gpt-4.1"));
    }

    #[test]
    fn provider_from_host() {
        assert_eq!(provider_for("https://api.openai.com/v1"), "openai");
        assert_eq!(provider_for("https://openrouter.ai/api/v1"), "openrouter");
        assert_eq!(
            provider_for("http://127.0.0.1:8000/v1"),
            "openai-compatible"
        );
    }
}
