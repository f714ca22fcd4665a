//! The HTTP transport: one pooled reqwest client (rustls) per model client,
//! posting prepared bodies to `{base_url}/chat/completions[?query]` with a
//! per-attempt timeout. Headers (and so the key) are never logged or
//! Debug-printed: the auth header value is marked sensitive.

use std::fmt;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, RETRY_AFTER};

use super::routing::{ApiKey, Route};

/// Largest response body read; a longer one is a malformed response.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// Building the transport failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// A header name or value is not valid HTTP (never prints the value).
    #[error("invalid HTTP header `{0}`")]
    InvalidHeader(String),
    /// The TLS/HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Build(String),
}

/// An attempt that got no HTTP reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptError {
    /// The attempt exceeded its timeout.
    Timeout,
    /// Connecting, sending, or reading the reply failed (reset, refused,
    /// truncated framing).
    Connection(String),
    /// The body exceeded [`MAX_BODY_BYTES`].
    TooLarge,
}

/// Posts request bodies to one endpoint.
pub struct Transport {
    client: reqwest::Client,
    /// The request URL (its query may hold a secret: never printed).
    url: String,
    /// The base URL as recorded (redacted).
    shown_url: String,
    /// Header names sent (for Debug; values stay inside the client).
    header_names: Vec<String>,
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transport")
            .field("base_url", &self.shown_url)
            .field("headers", &self.header_names)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// A transport for `route`, sending `key` (if any) in the route's auth header.
    pub fn new(route: &Route, key: Option<&ApiKey>) -> Result<Self, TransportError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (k, v) in &route.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| TransportError::InvalidHeader(k.clone()))?;
            let value =
                HeaderValue::from_str(v).map_err(|_| TransportError::InvalidHeader(k.clone()))?;
            headers.insert(name, value);
        }
        if let Some(key) = key {
            let name = HeaderName::from_bytes(route.auth_header.as_bytes())
                .map_err(|_| TransportError::InvalidHeader(route.auth_header.clone()))?;
            let text = if route.auth_header.eq_ignore_ascii_case("authorization") {
                format!("Bearer {}", key.expose())
            } else {
                key.expose().to_string()
            };
            let mut value = HeaderValue::from_str(&text)
                .map_err(|_| TransportError::InvalidHeader(route.auth_header.clone()))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        let header_names = headers.keys().map(|k| k.as_str().to_string()).collect();
        let client = reqwest::Client::builder()
            .default_headers(headers)
            .pool_max_idle_per_host(1024)
            .pool_idle_timeout(Duration::from_secs(90))
            .tcp_nodelay(true)
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| TransportError::Build(e.to_string()))?;
        Ok(Self {
            client,
            url: route.url.request_url("chat/completions"),
            shown_url: route.base_url.clone(),
            header_names,
        })
    }

    /// The URL posted to. May hold a secret query value: send it, never
    /// record or print it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Posts `body` and reads the whole reply within `timeout`.
    pub async fn post(&self, body: Vec<u8>, timeout: Duration) -> Result<RawReply, AttemptError> {
        match tokio::time::timeout(timeout, self.post_inner(body)).await {
            Ok(r) => r,
            Err(_) => Err(AttemptError::Timeout),
        }
    }

    async fn post_inner(&self, body: Vec<u8>) -> Result<RawReply, AttemptError> {
        let mut resp = self
            .client
            .post(&self.url)
            .body(body)
            .send()
            .await
            .map_err(connection_error)?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut buf = Vec::with_capacity(
            resp.content_length()
                .map_or(8 * 1024, |n| (n as usize).min(MAX_BODY_BYTES)),
        );
        while let Some(chunk) = resp.chunk().await.map_err(connection_error)? {
            if buf.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(AttemptError::TooLarge);
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(RawReply {
            status,
            retry_after,
            body: buf,
        })
    }
}

/// One HTTP reply, whatever its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawReply {
    /// Status code.
    pub status: u16,
    /// The raw `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// Body bytes.
    pub body: Vec<u8>,
}

/// A reqwest error as a connection failure. The message is reqwest's
/// description without the URL (whose path and query may carry a key) and
/// never includes headers.
fn connection_error(e: reqwest::Error) -> AttemptError {
    if e.is_timeout() {
        return AttemptError::Timeout;
    }
    let e = e.without_url();
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    AttemptError::Connection(msg)
}
