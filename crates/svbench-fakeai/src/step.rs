//! What the fake server does with one request.

use std::time::Duration;

/// One scripted answer to one Chat Completions request.
///
/// Steps describe wire behaviour, from a well-formed completion to a socket
/// closed without a response. Build them with the variants directly or with
/// the constructor functions (`Step::content("…")`, `Step::status(500)`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// 200 with `choices[0].message.content` set, `finish_reason: "stop"`,
    /// plausible `usage`, the request's `model` echoed and a `system_fingerprint`.
    Content(String),
    /// 200 with `content: null`, these tool calls and `finish_reason: "tool_calls"`.
    /// Calls without an explicit id get `call_N`, N counting up from 0 across
    /// the server's lifetime.
    ToolCalls(Vec<ToolCall>),
    /// 200 whose message carries reasoning text (under `key`) and optionally content.
    Reasoning {
        /// The reasoning text.
        reasoning: String,
        /// The answer; `None` sends `content: null` (a reasoning-only reply).
        content: Option<String>,
        /// Which message field carries the reasoning text.
        key: ReasoningKey,
    },
    /// An error status with an OpenAI-style JSON error body unless `body` is given.
    Status {
        /// HTTP status code (e.g. 429, 500, 401).
        code: u16,
        /// Value of a `Retry-After` header, sent verbatim (seconds or an HTTP date).
        retry_after: Option<String>,
        /// Body to send instead of the default JSON error object.
        body: Option<String>,
    },
    /// Sleep (on the server's tokio clock), then answer with the inner step.
    Delay(Duration, Box<Step>),
    /// 200, `Content-Type: application/json`, whose body is a completion cut in
    /// the middle of its JSON (the HTTP message itself is complete).
    Truncated,
    /// Headers with the full `Content-Length` and half of a completion body,
    /// then the connection closes: the client sees an incomplete message.
    IncompleteBody,
    /// 200 with an HTML body (`Content-Type: text/html`).
    NonJson,
    /// 200 with `"choices": []`.
    EmptyChoices,
    /// 200 whose message has `content: ""` and no tool calls.
    EmptyContent,
    /// 200 whose message has `content: null` and no tool calls.
    NullContent,
    /// 200 with this content and `finish_reason: "length"`.
    Length(String),
    /// Close the connection (FIN) without writing any response.
    DropConnection,
    /// Reset the connection (RST, via `SO_LINGER` 0) without writing any response.
    ResetConnection,
    /// Anything else: a status, headers and a body sent as given.
    Raw {
        /// HTTP status code.
        status: u16,
        /// Response headers (name, value); `Content-Length` is computed.
        headers: Vec<(String, String)>,
        /// Response body.
        body: String,
    },
}

/// The message field that carries reasoning text in a [`Step::Reasoning`] reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ReasoningKey {
    /// `reasoning_content`, as vLLM, SGLang and DeepSeek send it.
    #[default]
    ReasoningContent,
    /// `reasoning`, as OpenRouter sends it.
    Reasoning,
}

impl ReasoningKey {
    /// The JSON field name.
    pub fn field(self) -> &'static str {
        match self {
            ReasoningKey::ReasoningContent => "reasoning_content",
            ReasoningKey::Reasoning => "reasoning",
        }
    }
}

/// One function call in a [`Step::ToolCalls`] reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Explicit call id; `None` assigns `call_N`.
    pub id: Option<String>,
    /// Function name.
    pub name: String,
    /// The `arguments` string, sent verbatim (it need not be valid JSON).
    pub arguments: String,
}

impl ToolCall {
    /// A call to `name` with the given arguments string and an assigned id.
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall {
            id: None,
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The same call with an explicit id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

impl<N: Into<String>, A: Into<String>> From<(N, A)> for ToolCall {
    fn from((name, arguments): (N, A)) -> Self {
        ToolCall::new(name, arguments)
    }
}

impl Step {
    /// [`Step::Content`].
    pub fn content(text: impl Into<String>) -> Self {
        Step::Content(text.into())
    }

    /// [`Step::ToolCalls`] with a single call.
    pub fn tool_call(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Step::ToolCalls(vec![ToolCall::new(name, arguments)])
    }

    /// [`Step::ToolCalls`] from `(name, arguments)` pairs or [`ToolCall`]s.
    pub fn tool_calls<I, C>(calls: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: Into<ToolCall>,
    {
        Step::ToolCalls(calls.into_iter().map(Into::into).collect())
    }

    /// [`Step::Reasoning`] with the reasoning under `reasoning_content`.
    pub fn reasoning(reasoning: impl Into<String>, content: Option<&str>) -> Self {
        Step::Reasoning {
            reasoning: reasoning.into(),
            content: content.map(str::to_owned),
            key: ReasoningKey::ReasoningContent,
        }
    }

    /// [`Step::Reasoning`] with the reasoning under OpenRouter's `reasoning` key.
    pub fn openrouter_reasoning(reasoning: impl Into<String>, content: Option<&str>) -> Self {
        Step::Reasoning {
            reasoning: reasoning.into(),
            content: content.map(str::to_owned),
            key: ReasoningKey::Reasoning,
        }
    }

    /// [`Step::Status`] with the default JSON error body and no `Retry-After`.
    pub fn status(code: u16) -> Self {
        Step::Status {
            code,
            retry_after: None,
            body: None,
        }
    }

    /// A 429 with `Retry-After: <retry_after>`.
    pub fn rate_limited(retry_after: impl Into<String>) -> Self {
        Step::Status {
            code: 429,
            retry_after: Some(retry_after.into()),
            body: None,
        }
    }

    /// [`Step::Delay`]: wait `duration`, then answer with `then`.
    pub fn delay(duration: Duration, then: Step) -> Self {
        Step::Delay(duration, Box::new(then))
    }

    /// [`Step::Raw`].
    pub fn raw<H, K, V>(status: u16, headers: H, body: impl Into<String>) -> Self
    where
        H: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Step::Raw {
            status,
            headers: headers
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            body: body.into(),
        }
    }
}
