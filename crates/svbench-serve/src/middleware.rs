//! Cross-cutting request handling: metrics, bearer auth, the request
//! timeout, and JSON answers for unknown routes and methods.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use svbench_api::ErrorCode;

use crate::error::HttpError;
use crate::state::AppState;

/// Counts every answer by route pattern and status, with its latency.
pub async fn metrics(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    let response = next.run(req).await;
    state
        .metrics
        .request(&route, response.status().as_u16(), started.elapsed());
    response
}

/// Requires `Authorization: Bearer <token>` when a token is configured,
/// except on the health routes (probes carry no credentials).
pub async fn auth(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let Some(token) = state.config.auth_token.as_deref() else {
        return next.run(req).await;
    };
    if matches!(req.uri().path(), "/healthz" | "/readyz") {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(g) if constant_time_eq(g.as_bytes(), token.as_bytes()) => next.run(req).await,
        _ => {
            let mut response = HttpError::api(
                ErrorCode::Unauthorized,
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            )
            .into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            response
        }
    }
}

/// Compares without an early exit on the first differing byte, so response
/// time does not leak how much of a guessed token is right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Answers 413 `payload_too_large` at once to a request whose declared
/// `Content-Length` is over `--max-body`, without reading a byte of its
/// body (or waiting for it), and closes the connection, whose unread body
/// would otherwise be the next request's start.
pub async fn content_length(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let limit = state.config.max_body;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(n) if n > u64::try_from(limit).unwrap_or(u64::MAX) => {
            let mut response = HttpError::api(
                ErrorCode::PayloadTooLarge,
                format!(
                    "the request declares a {n}-byte body, over the --max-body limit of {limit} \
                     bytes"
                ),
            )
            .into_response();
            response.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            response
        }
        _ => next.run(req).await,
    }
}

/// Answers `timeout` (504) when a request runs past `--request-timeout`.
/// Work already handed to a blocking thread finishes there and releases
/// its episode lock itself.
pub async fn timeout(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let limit = state.config.request_timeout;
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(response) => response,
        Err(_) => HttpError::api(
            ErrorCode::Timeout,
            format!(
                "the request ran past the {:.3} s limit (--request-timeout)",
                limit.as_secs_f64()
            ),
        )
        .into_response(),
    }
}

/// Unknown path.
pub async fn not_found(req: Request) -> HttpError {
    HttpError::Route {
        status: StatusCode::NOT_FOUND,
        code: "not_found",
        message: format!("no route for {} {}", req.method(), req.uri().path()),
    }
}

/// Known path, wrong method.
pub async fn method_not_allowed(req: Request) -> HttpError {
    HttpError::Route {
        status: StatusCode::METHOD_NOT_ALLOWED,
        code: "method_not_allowed",
        message: format!("{} is not allowed on {}", req.method(), req.uri().path()),
    }
}
