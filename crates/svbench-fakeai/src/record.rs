//! What the fake server remembers about each request it received.

use std::borrow::Cow;

use serde_json::Value;

/// One Chat Completions request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// Arrival order among chat-completion requests, from 0.
    pub index: usize,
    /// Request path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The query string (without `?`), if the URL had one.
    pub query: Option<String>,
    /// Every header as sent (names lower-cased, values lossily decoded),
    /// including `authorization`.
    pub headers: Vec<(String, String)>,
    /// The parsed JSON body, or `Value::Null` if the body was not JSON.
    pub body: Value,
    /// When the body had been read, on the server's tokio clock: under a
    /// paused test clock (server started with
    /// `FakeServer::start_on_current_runtime`) this is virtual time.
    pub received_at: tokio::time::Instant,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The request's `model`.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// The request's `messages` (empty if absent).
    pub fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The text of the last `user` message.
    pub fn last_user_text(&self) -> Option<Cow<'_, str>> {
        crate::script::last_user_text(&self.body)
    }
}
