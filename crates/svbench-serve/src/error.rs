//! The one place handler errors become HTTP responses: every error answer,
//! including axum's own rejections, is `{"error":{"code","message","details"}}`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use svbench_api::{ApiError, ErrorCode};

/// An error answer of a route.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// An error with one of the harness's codes (§6).
    #[error(transparent)]
    Api(#[from] ApiError),
    /// A routing error that has no code of its own in §6 (`not_found`,
    /// `method_not_allowed`): unknown paths are not unknown resources.
    #[error("{code}: {message}")]
    Route {
        /// HTTP status.
        status: StatusCode,
        /// Code written in the body.
        code: &'static str,
        /// What went wrong.
        message: String,
    },
}

impl HttpError {
    /// An error with a harness code.
    pub fn api(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::Api(ApiError::new(code, message))
    }

    /// `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::api(ErrorCode::BadRequest, message)
    }

    /// `internal`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::api(ErrorCode::Internal, message)
    }

    /// The HTTP status.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        match self {
            HttpError::Api(e) => StatusCode::from_u16(e.code.http_status())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            HttpError::Route { status, .. } => *status,
        }
    }

    fn body(&self) -> Value {
        match self {
            HttpError::Api(e) => e.body(),
            HttpError::Route { code, message, .. } => {
                json!({"error": {"code": code, "message": message, "details": null}})
            }
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut response = (status, axum::Json(self.body())).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            // Capacity frees up when a client deletes an episode or the
            // sweeper evicts one; a second is a reasonable first back-off.
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}
