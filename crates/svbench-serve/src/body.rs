//! Extractors whose rejections are JSON error bodies with §6's codes, in
//! place of axum's plain-text ones.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;
use svbench_api::ErrorCode;

use crate::error::HttpError;

/// A JSON request body. A missing `Content-Type` is accepted (so a bare
/// `curl -d` works); any other type than JSON is a `bad_request`.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = HttpError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        JsonBytes::from_request(req, state)
            .await?
            .parse()
            .map(JsonBody)
    }
}

/// A JSON request body read but not yet parsed, so the parse can run on the
/// worker pool with the rest of the request's work (a body may be megabytes).
/// Checks the `Content-Type` as [`JsonBody`] does.
#[derive(Debug)]
pub struct JsonBytes(pub Bytes);

impl JsonBytes {
    /// Parses the body.
    ///
    /// # Errors
    /// `bad_request` naming what is wrong with the JSON.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, HttpError> {
        serde_json::from_slice(&self.0)
            .map_err(|e| HttpError::bad_request(format!("invalid JSON body: {e}")))
    }
}

impl<S: Send + Sync> FromRequest<S> for JsonBytes {
    type Rejection = HttpError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(ct) = req.headers().get(header::CONTENT_TYPE) {
            let ct = ct.to_str().unwrap_or("");
            let essence = ct.split(';').next().unwrap_or("").trim();
            if !(essence.eq_ignore_ascii_case("application/json") || essence.ends_with("+json")) {
                return Err(HttpError::bad_request(format!(
                    "expected a JSON body (Content-Type: application/json), got Content-Type `{ct}`"
                )));
            }
        }
        Bytes::from_request(req, state)
            .await
            .map(JsonBytes)
            .map_err(|e| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    HttpError::api(
                        ErrorCode::PayloadTooLarge,
                        "request body is over the --max-body limit",
                    )
                } else {
                    HttpError::bad_request(format!("cannot read the request body: {e}"))
                }
            })
    }
}

/// Path parameters.
#[derive(Debug)]
pub struct Params<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Params<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(v)| Params(v))
            .map_err(|e| HttpError::bad_request(format!("bad path: {}", e.body_text())))
    }
}

/// Query parameters.
#[derive(Debug)]
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(v)| QueryParams(v))
            .map_err(|e| HttpError::bad_request(e.body_text()))
    }
}
