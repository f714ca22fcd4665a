//! Errors with the server's codes (harness §6); the Python bindings map the
//! same codes onto their exceptions.

use serde::Serialize;
use serde_json::Value;

/// An error class with a fixed HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed or contradictory request (400).
    BadRequest,
    /// Environment arguments, reward profile or reward config rejected (400).
    InvalidEnvArgs,
    /// Missing or wrong bearer token (401).
    Unauthorized,
    /// No such environment (404).
    UnknownEnv,
    /// No such split (404).
    UnknownSplit,
    /// No such example id or row index (404).
    UnknownExample,
    /// No such episode (404).
    EpisodeNotFound,
    /// Another step of the episode is running (409).
    EpisodeBusy,
    /// The episode has finished (409).
    EpisodeDone,
    /// The episode idled past its TTL and was dropped (410).
    EpisodeExpired,
    /// Body, or an episode step's message, over its size limit (413).
    PayloadTooLarge,
    /// An episode step would make the episode hold more bytes than its
    /// memory budget allows (413); the episode is left as it was.
    EpisodeTooLarge,
    /// A dataset file is unreadable or malformed (400; Python
    /// `DatasetError`). The server serves embedded data only, so it answers
    /// this code only for rows that reference such a file.
    DatasetError,
    /// A bug or an unusable reference answer (500).
    Internal,
    /// Too many live episodes or open connections, or the server's episode
    /// memory is full (503).
    CapacityExhausted,
    /// The request ran past its time limit (504).
    Timeout,
}

impl ErrorCode {
    /// The HTTP status of the code.
    #[must_use]
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest | ErrorCode::InvalidEnvArgs | ErrorCode::DatasetError => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::UnknownEnv
            | ErrorCode::UnknownSplit
            | ErrorCode::UnknownExample
            | ErrorCode::EpisodeNotFound => 404,
            ErrorCode::EpisodeBusy | ErrorCode::EpisodeDone => 409,
            ErrorCode::EpisodeExpired => 410,
            ErrorCode::PayloadTooLarge | ErrorCode::EpisodeTooLarge => 413,
            ErrorCode::Internal => 500,
            ErrorCode::CapacityExhausted => 503,
            ErrorCode::Timeout => 504,
        }
    }

    /// The code as written in error bodies.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::InvalidEnvArgs => "invalid_env_args",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::UnknownEnv => "unknown_env",
            ErrorCode::UnknownSplit => "unknown_split",
            ErrorCode::UnknownExample => "unknown_example",
            ErrorCode::EpisodeNotFound => "episode_not_found",
            ErrorCode::EpisodeBusy => "episode_busy",
            ErrorCode::EpisodeDone => "episode_done",
            ErrorCode::EpisodeExpired => "episode_expired",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::EpisodeTooLarge => "episode_too_large",
            ErrorCode::DatasetError => "dataset_error",
            ErrorCode::Internal => "internal",
            ErrorCode::CapacityExhausted => "capacity_exhausted",
            ErrorCode::Timeout => "timeout",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error answer: code, human message, structured details.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    /// Error class.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// Structured details (`null` when none).
    pub details: Value,
}

impl ApiError {
    /// An error without details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Value::Null,
        }
    }

    /// Adds structured details.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// The error body `{"error":{"code","message","details"}}`.
    #[must_use]
    pub fn body(&self) -> Value {
        serde_json::json!({"error": {
            "code": self.code.as_str(),
            "message": self.message,
            "details": self.details,
        }})
    }
}
