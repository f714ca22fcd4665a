//! The model client (harness §2): configuration, routing, request bodies,
//! response parsing, the HTTP transport, retries, and the [`ModelClient`]
//! façade the runner calls once per model turn.
//!
//! A call ([`ModelClient::complete`]) goes: build the body → cache lookup
//! (when the cache mode reads for the temperature sent; a hit makes no
//! request and takes nothing from the limiter) → limiter → send, retrying
//! with backoff → parse → cache store (when the mode writes) → reply.
//!
//! Keys: read from the environment once, in [`ModelClient::new`], kept only
//! inside the HTTP client's default headers (marked sensitive) and in a
//! redactor that scrubs them out of error messages. Nothing that is
//! serialised or Debug-printed holds them.

pub mod config;
pub mod http;
pub mod request;
pub mod response;
pub mod retry;
pub mod routing;
pub mod url;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use svbench_core::message::{Message, Role};
use svbench_core::record::{EndpointRecord, RequestRecord, SampleError};
use tokio::time::Instant;

use crate::cache::{CacheMode, ResponseCache};
use crate::limits::{estimate_tokens, ProfileLimiter};

pub use config::{Config, ConfigError, ModelAlias, Profile, ReasoningSetting, TokenParam};
pub use http::{AttemptError, Transport, TransportError};
pub use request::{build_body, derive_seed, Sampling};
pub use response::{parse_response, parse_response_value, MalformedResponse, ParsedResponse};
pub use retry::{classify_status, parse_retry_after, FailureClass, RetryDecision, RetryPolicy};
pub use routing::{route, ApiKey, Route, RouteError, RouteRule};
pub use url::{redact_url, redact_urls_in, EndpointUrl, UrlError};

/// Default `--request-timeout`.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// Run-wide settings of a model client.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientSettings {
    /// Per-attempt timeout (`--request-timeout`); a profile's
    /// `request_timeout_s` replaces it.
    pub request_timeout: Duration,
    /// Token limit per call (`--max-tokens`).
    pub max_tokens: u32,
    /// `--temperature`; `None` = not sent (never sent to reasoning models).
    pub temperature: Option<f64>,
    /// `--top-p`; `None` = not sent (never sent to reasoning models).
    pub top_p: Option<f64>,
    /// `--seed`, from which request seeds derive.
    pub run_seed: u64,
    /// `--cache-mode`.
    pub cache_mode: CacheMode,
}

/// Building a client failed (usage errors, exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The key variable is unset or empty.
    #[error(transparent)]
    Route(#[from] RouteError),
    /// The HTTP client or its headers could not be built.
    #[error(transparent)]
    Transport(#[from] TransportError),
}

/// One model call.
#[derive(Debug, Clone, Copy)]
pub struct TurnRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// Tool definitions offered (`[]`: no `tools` field).
    pub tools: &'a [Value],
    /// Example id (request seed).
    pub example_id: &'a str,
    /// Rollout number (request seed, cache key).
    pub rollout_index: usize,
    /// 0-based turn.
    pub turn: u32,
}

/// A successful model call.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnResponse {
    /// The assistant message: content and tool calls.
    pub message: Message,
    /// Reasoning text; recorded, never parsed.
    pub reasoning: Option<String>,
    /// The request record (latency includes limiter waits and retries;
    /// `attempts` is 0 for cache hits).
    pub record: RequestRecord,
    /// `finish_reason == "length"`.
    pub truncated: bool,
}

/// A failed model call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallFailure {
    /// Record on the sample and carry on with the run.
    Sample(SampleError),
    /// 401, 403, 404: record and abort the run (exit 4).
    Fatal(SampleError),
}

impl CallFailure {
    /// The error, whichever variant.
    pub fn error(&self) -> &SampleError {
        match self {
            CallFailure::Sample(e) | CallFailure::Fatal(e) => e,
        }
    }
}

/// Counters for the progress bar, shared by every call of a client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// HTTP attempts sent.
    pub requests: u64,
    /// Retries (attempts after the first of a call).
    pub retries: u64,
    /// `429` replies received.
    pub rate_limited: u64,
    /// Calls answered from the cache.
    pub cache_hits: u64,
    /// Cache reads or writes that failed (treated as misses / skipped).
    pub cache_errors: u64,
}

#[derive(Debug, Default)]
struct Counters {
    requests: AtomicU64,
    retries: AtomicU64,
    rate_limited: AtomicU64,
    cache_hits: AtomicU64,
    cache_errors: AtomicU64,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// A retry about to happen, reported to the observer set with
/// [`ModelClient::with_retry_observer`] (the CLI logs these at `warn`).
/// Carries no body, header or key.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryEvent {
    /// Model id sent.
    pub model: String,
    /// Example of the call.
    pub example_id: String,
    /// Rollout of the call.
    pub rollout_index: usize,
    /// Turn of the call.
    pub turn: u32,
    /// The attempt that failed (1-based).
    pub attempt: u32,
    /// Error kind of the failure (`http_status`, `rate_limited`, `timeout`, …).
    pub kind: String,
    /// HTTP status, if any.
    pub http_status: Option<u16>,
    /// Wait before the next attempt.
    pub retry_in: Duration,
}

/// Callback receiving [`RetryEvent`]s.
pub type RetryObserver = Arc<dyn Fn(&RetryEvent) + Send + Sync>;

/// Scrubs the key, URLs (as recorded), and the secrets of the base URL
/// ([`EndpointUrl::secrets`]) out of text that came from the server (error
/// bodies may echo them).
#[derive(Clone, Default)]
struct Redactor(Option<ApiKey>, Vec<String>);

impl Redactor {
    fn scrub(&self, text: &str) -> String {
        // A server that echoes the request URL echoes its query and path.
        let text = url::redact_urls_in(text);
        let mut out = match &self.0 {
            Some(k) if !k.expose().is_empty() => text.replace(k.expose(), "[REDACTED]"),
            _ => text,
        };
        for secret in &self.1 {
            out = out.replace(secret.as_str(), "[REDACTED]");
        }
        out
    }
}

/// A client for one routed model. Share it through an `Arc`; `Debug`
/// never shows the key.
pub struct ModelClient {
    route: Route,
    settings: ClientSettings,
    sampling: Sampling,
    timeout: Duration,
    policy: RetryPolicy,
    transport: Transport,
    redactor: Redactor,
    limiter: Arc<ProfileLimiter>,
    cache: Option<Arc<ResponseCache>>,
    counters: Counters,
    on_retry: Option<RetryObserver>,
}

impl fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelClient")
            .field("route", &self.route)
            .field("sampling", &self.sampling)
            .field("timeout", &self.timeout)
            .field("transport", &self.transport)
            .field("cache", &self.cache)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// How one attempt failed, before the retry decision.
struct AttemptFailure {
    class: FailureClass,
    kind: &'static str,
    message: String,
    http_status: Option<u16>,
    retry_after: Option<Duration>,
}

impl ModelClient {
    /// A client for `route`. Reads the API key variable now: unset or empty
    /// is an error naming it.
    pub fn new(
        route: Route,
        settings: ClientSettings,
        limiter: Arc<ProfileLimiter>,
        cache: Option<Arc<ResponseCache>>,
    ) -> Result<Self, ClientError> {
        let key = route.api_key()?;
        let transport = Transport::new(&route, key.as_ref())?;
        let redactor = Redactor(key, route.url.secrets());
        let sampling = Sampling::new(
            &route,
            settings.max_tokens,
            settings.temperature,
            settings.top_p,
        );
        Ok(Self {
            timeout: route.request_timeout.unwrap_or(settings.request_timeout),
            sampling,
            settings,
            policy: RetryPolicy::default(),
            transport,
            redactor,
            limiter,
            cache: cache.filter(|_| settings.cache_mode != CacheMode::Off),
            counters: Counters::default(),
            on_retry: None,
            route,
        })
    }

    /// Replaces the retry policy (tests shorten it).
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Calls `observer` before every retry.
    pub fn with_retry_observer(mut self, observer: RetryObserver) -> Self {
        self.on_retry = Some(observer);
        self
    }

    /// `metadata.sampling_params`: exactly what is sent.
    pub fn sampling_params(&self) -> BTreeMap<String, Value> {
        self.sampling.record()
    }

    /// `metadata.endpoint`: `{profile, provider, base_url}`, never a key.
    pub fn endpoint(&self) -> EndpointRecord {
        self.route.endpoint()
    }

    /// The model id sent (`metadata.effective_model`).
    pub fn effective_model(&self) -> &str {
        &self.route.model
    }

    /// The route this client was built from.
    pub fn route(&self) -> &Route {
        &self.route
    }

    /// The per-attempt timeout in force.
    pub fn request_timeout(&self) -> Duration {
        self.timeout
    }

    /// The shared profile limiter.
    pub fn limiter(&self) -> &Arc<ProfileLimiter> {
        &self.limiter
    }

    /// Counters so far.
    pub fn stats(&self) -> ClientStats {
        let c = &self.counters;
        ClientStats {
            requests: c.requests.load(Ordering::Relaxed),
            retries: c.retries.load(Ordering::Relaxed),
            rate_limited: c.rate_limited.load(Ordering::Relaxed),
            cache_hits: c.cache_hits.load(Ordering::Relaxed),
            cache_errors: c.cache_errors.load(Ordering::Relaxed),
        }
    }

    /// The request body of a turn, exactly as it would be sent.
    pub fn request_body(&self, turn: &TurnRequest<'_>) -> Value {
        let seed = self
            .sampling
            .send_seed
            .then(|| derive_seed(self.settings.run_seed, turn.example_id, turn.rollout_index));
        build_body(
            &self.route.model,
            &self.sampling,
            turn.messages,
            turn.tools,
            seed,
        )
    }

    /// One model call: cache, limiter, retries, parsing (see the module docs).
    pub async fn complete(&self, turn: TurnRequest<'_>) -> Result<TurnResponse, CallFailure> {
        let start = Instant::now();
        let body = self.request_body(&turn);
        let temperature = body.get("temperature").and_then(Value::as_f64);
        let mode = self.settings.cache_mode;
        let cache_key = self
            .cache
            .as_ref()
            .filter(|_| mode.reads(temperature) || mode.writes(temperature))
            .map(|_| ResponseCache::key(&self.route.base_url, &body, turn.rollout_index));
        if let (Some(key), true) = (&cache_key, mode.reads(temperature)) {
            if let Some(parsed) = self.cache_get(key).await {
                bump(&self.counters.cache_hits);
                return Ok(self.turn_response(turn.turn, parsed, start, 0, true));
            }
        }
        let bytes = serde_json::to_vec(&body).map_err(|e| {
            CallFailure::Sample(SampleError {
                kind: "internal".into(),
                message: format!("cannot serialise the request: {e}"),
                http_status: None,
                attempts: 0,
                retryable: false,
            })
        })?;
        drop(body);
        let estimate = if self.limiter.limits_tokens() {
            estimate_tokens(
                request::prompt_chars(turn.messages),
                self.sampling.max_tokens,
            )
        } else {
            0
        };
        let mut rng = ChaCha8Rng::seed_from_u64(jitter_seed(&turn, self.settings.run_seed));
        let mut attempts = 0u32;
        loop {
            let permit = self.limiter.acquire(estimate).await;
            attempts += 1;
            bump(&self.counters.requests);
            let failure = match self.transport.post(bytes.clone(), self.timeout).await {
                Ok(reply) if (200..300).contains(&reply.status) => {
                    match parse_response(&reply.body) {
                        Ok((json, parsed)) => {
                            let used = parsed.usage.prompt_tokens + parsed.usage.completion_tokens;
                            if parsed.usage_reported {
                                permit.settle(used);
                            } else {
                                drop(permit);
                            }
                            if let (Some(key), true) = (&cache_key, mode.writes(temperature)) {
                                self.cache_put(key.clone(), json).await;
                            }
                            return Ok(
                                self.turn_response(turn.turn, parsed, start, attempts, false)
                            );
                        }
                        Err(e) => {
                            drop(permit);
                            AttemptFailure {
                                class: FailureClass::Retryable,
                                kind: "malformed_response",
                                message: self.redactor.scrub(&e.to_string()),
                                http_status: Some(reply.status),
                                retry_after: None,
                            }
                        }
                    }
                }
                Ok(reply) => {
                    drop(permit);
                    self.status_failure(&reply)
                }
                Err(e) => {
                    drop(permit);
                    match e {
                        AttemptError::Timeout => AttemptFailure {
                            class: FailureClass::Retryable,
                            kind: "timeout",
                            message: format!(
                                "no complete reply within {:.1} s",
                                self.timeout.as_secs_f64()
                            ),
                            http_status: None,
                            retry_after: None,
                        },
                        AttemptError::Connection(m) => AttemptFailure {
                            class: FailureClass::Retryable,
                            kind: "connection",
                            message: self.redactor.scrub(&m),
                            http_status: None,
                            retry_after: None,
                        },
                        AttemptError::TooLarge => AttemptFailure {
                            class: FailureClass::Retryable,
                            kind: "malformed_response",
                            message: format!(
                                "response body larger than {} bytes",
                                http::MAX_BODY_BYTES
                            ),
                            http_status: None,
                            retry_after: None,
                        },
                    }
                }
            };
            let error = |f: &AttemptFailure, kind: &str, message: String| SampleError {
                kind: kind.to_string(),
                message,
                http_status: f.http_status,
                attempts,
                retryable: f.class == FailureClass::Retryable,
            };
            match failure.class {
                FailureClass::Fatal => {
                    let msg = failure.message.clone();
                    return Err(CallFailure::Fatal(error(&failure, failure.kind, msg)));
                }
                FailureClass::Sample => {
                    let msg = failure.message.clone();
                    return Err(CallFailure::Sample(error(&failure, failure.kind, msg)));
                }
                FailureClass::Retryable => {}
            }
            if failure.http_status == Some(429) {
                bump(&self.counters.rate_limited);
            }
            match self.policy.decide(attempts, failure.retry_after, &mut rng) {
                RetryDecision::Wait(delay) => {
                    if let (Some(429), Some(ra)) = (failure.http_status, failure.retry_after) {
                        self.limiter.pause_until(Instant::now() + ra);
                    }
                    bump(&self.counters.retries);
                    if let Some(observer) = &self.on_retry {
                        observer(&RetryEvent {
                            model: self.route.model.clone(),
                            example_id: turn.example_id.to_string(),
                            rollout_index: turn.rollout_index,
                            turn: turn.turn,
                            attempt: attempts,
                            kind: failure.kind.to_string(),
                            http_status: failure.http_status,
                            retry_in: delay,
                        });
                    }
                    tokio::time::sleep(delay).await;
                }
                RetryDecision::Exhausted => {
                    let msg = format!("{} (gave up after {attempts} attempts)", failure.message);
                    return Err(CallFailure::Sample(error(&failure, failure.kind, msg)));
                }
                RetryDecision::RetryAfterTooLong(ra) => {
                    let msg = format!(
                        "{}; Retry-After {} s exceeds the {} s limit",
                        failure.message,
                        ra.as_secs(),
                        self.policy.max_retry_after.as_secs()
                    );
                    return Err(CallFailure::Sample(error(&failure, "rate_limited", msg)));
                }
            }
        }
    }

    fn status_failure(&self, reply: &http::RawReply) -> AttemptFailure {
        let (class, kind) = classify_status(reply.status, &reply.body);
        let detail = error_detail(&reply.body);
        let hint = match reply.status {
            401 | 403 => match &self.route.api_key_env {
                Some(var) => format!(" (check the key in {var})"),
                None => " (the endpoint wants a key: pass --api-key-env or set api_key_env)".into(),
            },
            404 => format!(
                " (check the model id `{}` and base URL {})",
                self.route.model, self.route.base_url
            ),
            _ => String::new(),
        };
        AttemptFailure {
            class,
            kind,
            message: self
                .redactor
                .scrub(&format!("HTTP {}{hint}{detail}", reply.status)),
            http_status: Some(reply.status),
            retry_after: reply
                .retry_after
                .as_deref()
                .and_then(|v| parse_retry_after(v, SystemTime::now())),
        }
    }

    fn turn_response(
        &self,
        turn: u32,
        parsed: ParsedResponse,
        start: Instant,
        attempts: u32,
        cached: bool,
    ) -> TurnResponse {
        let truncated = parsed.truncated();
        let mut usage = parsed.usage;
        usage.requests = 1;
        usage.cached_requests = u64::from(cached);
        TurnResponse {
            message: Message {
                role: Role::Assistant,
                content: parsed.content,
                tool_calls: parsed.tool_calls,
                tool_call_id: None,
            },
            reasoning: parsed.reasoning,
            record: RequestRecord {
                turn,
                latency_ms: start.elapsed().as_secs_f64() * 1000.0,
                attempts,
                cached,
                finish_reason: parsed.finish_reason,
                usage,
                response_model: parsed.model,
                system_fingerprint: parsed.system_fingerprint,
            },
            truncated,
        }
    }

    /// A cache hit that still parses as a well-formed response. Read errors
    /// and unparseable entries count as misses (and in `cache_errors`).
    async fn cache_get(&self, key: &str) -> Option<ParsedResponse> {
        let cache = Arc::clone(self.cache.as_ref()?);
        let key = key.to_string();
        let got = tokio::task::spawn_blocking(move || cache.get(&key)).await;
        match got {
            Ok(Ok(Some(v))) => match parse_response_value(&v) {
                Ok(p) => Some(p),
                Err(_) => {
                    bump(&self.counters.cache_errors);
                    None
                }
            },
            Ok(Ok(None)) => None,
            _ => {
                bump(&self.counters.cache_errors);
                None
            }
        }
    }

    async fn cache_put(&self, key: String, response: Value) {
        let Some(cache) = self.cache.as_ref().map(Arc::clone) else {
            return;
        };
        let base_url = self.route.base_url.clone();
        let model = self.route.model.clone();
        let put =
            tokio::task::spawn_blocking(move || cache.put(&key, &response, &base_url, &model))
                .await;
        if !matches!(put, Ok(Ok(()))) {
            bump(&self.counters.cache_errors);
        }
    }
}

/// A short description of an error body: its `error.message` (or the
/// first 200 characters of the body), prefixed by `: `.
fn error_detail(body: &[u8]) -> String {
    let text = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| {
            let e = v.get("error")?;
            e.get("message")
                .and_then(Value::as_str)
                .or_else(|| e.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(400)]).into_owned());
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text: String = text.chars().take(200).collect();
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

/// Seed of the backoff jitter of one call, so retries are reproducible
/// given the same failures.
fn jitter_seed(turn: &TurnRequest<'_>, run_seed: u64) -> u64 {
    u64::from(derive_seed(run_seed, turn.example_id, turn.rollout_index)) << 32
        | u64::from(turn.turn)
}
