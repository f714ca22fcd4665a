//! Turning a [`Step`] into bytes on the wire.

use std::fmt;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use hyper::body::{Body, Bytes, Frame, SizeHint};
use hyper::header::{HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Response, StatusCode};
use serde::Serialize;

use crate::step::{ReasoningKey, Step, ToolCall};

/// `created` in every completion: fixed, so replayed runs compare equal.
const CREATED: u64 = 1_700_000_000;
const FINGERPRINT: &str = "fp_svbench_fakeai";
const JSON: &str = "application/json";

/// What the connection should do instead of (or as) a response.
pub(crate) enum Reply {
    /// Send this response.
    Send(Response<FakeBody>),
    /// Close the connection without a response.
    Drop,
    /// Reset the connection without a response.
    Reset,
}

/// Facts about the request that shape a completion.
pub(crate) struct Ctx<'a> {
    pub index: usize,
    pub model: &'a str,
    pub prompt_tokens: u64,
    pub call_ids: &'a AtomicUsize,
}

/// A step with no delay left, rendered.
pub(crate) fn render(step: Step, ctx: &Ctx<'_>) -> Reply {
    match step {
        Step::Content(text) => completion(ctx, Msg::text(&text), "stop"),
        Step::Length(text) => completion(ctx, Msg::text(&text), "length"),
        Step::EmptyContent => completion(ctx, Msg::text(""), "stop"),
        Step::NullContent => completion(ctx, Msg::default(), "stop"),
        Step::ToolCalls(calls) => completion(ctx, Msg::tools(&calls), "tool_calls"),
        Step::Reasoning {
            reasoning,
            content,
            key,
        } => completion(
            ctx,
            Msg::reasoning(&reasoning, content.as_deref(), key),
            "stop",
        ),
        Step::Status {
            code,
            retry_after,
            body,
        } => {
            let body = body.unwrap_or_else(|| error_json(code, &format!("fake status {code}")));
            let mut resp = json_response(code, body);
            if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(&v).ok()) {
                resp.headers_mut().insert(RETRY_AFTER, value);
            }
            Reply::Send(resp)
        }
        Step::Truncated => {
            let mut full = completion_bytes(ctx, Msg::text("this answer is cut short"), "stop");
            full.truncate(full.len() / 2);
            Reply::Send(json_response(200, full))
        }
        Step::IncompleteBody => {
            let full = completion_bytes(ctx, Msg::text("this answer never arrives whole"), "stop");
            let declared = full.len();
            let half = Bytes::from(full).slice(..declared / 2);
            let mut resp = Response::new(FakeBody::broken(half));
            resp.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
            resp.headers_mut()
                .insert(CONTENT_LENGTH, HeaderValue::from(declared));
            Reply::Send(resp)
        }
        Step::NonJson => {
            let body = "<html><head><title>502 Bad Gateway</title></head>\
                        <body><h1>Bad Gateway</h1><p>svbench-fakeai</p></body></html>\n";
            let mut resp = Response::new(FakeBody::full(body));
            resp.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            Reply::Send(resp)
        }
        Step::EmptyChoices => {
            let body = serde_json::json!({
                "id": format!("chatcmpl-fake-{}", ctx.index),
                "object": "chat.completion",
                "created": CREATED,
                "model": ctx.model,
                "choices": [],
            });
            Reply::Send(json_response(200, body.to_string()))
        }
        Step::DropConnection => Reply::Drop,
        Step::ResetConnection => Reply::Reset,
        Step::Raw {
            status,
            headers,
            body,
        } => {
            let mut resp = Response::new(FakeBody::full(body));
            *resp.status_mut() = status_code(status);
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(&value),
                ) {
                    resp.headers_mut().append(name, value);
                }
            }
            Reply::Send(resp)
        }
        // A delay inside a delay that the caller did not unwrap: answer the inner step.
        Step::Delay(_, inner) => render(*inner, ctx),
    }
}

/// A JSON response with an OpenAI-style error object.
pub(crate) fn error_response(code: u16, message: &str) -> Response<FakeBody> {
    json_response(code, error_json(code, message))
}

pub(crate) fn json_response(code: u16, body: impl Into<Bytes>) -> Response<FakeBody> {
    let mut resp = Response::new(FakeBody::full(body));
    *resp.status_mut() = status_code(code);
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
    resp
}

fn status_code(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

fn error_json(code: u16, message: &str) -> String {
    let (kind, err_code) = match code {
        400 => ("invalid_request_error", "invalid_request"),
        401 => ("invalid_request_error", "invalid_api_key"),
        403 => ("invalid_request_error", "permission_denied"),
        404 => ("invalid_request_error", "model_not_found"),
        429 => ("requests", "rate_limit_exceeded"),
        500..=599 => ("server_error", "server_error"),
        _ => ("invalid_request_error", "fake_error"),
    };
    serde_json::json!({
        "error": { "message": message, "type": kind, "param": null, "code": err_code }
    })
    .to_string()
}

/// Rough token count, as a tokenizer-free stand-in: one token per 4 bytes.
pub(crate) fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

#[derive(Serialize)]
struct Completion<'a> {
    id: String,
    object: &'static str,
    created: u64,
    model: &'a str,
    system_fingerprint: &'static str,
    choices: [Choice<'a>; 1],
    usage: Usage,
}

#[derive(Serialize)]
struct Choice<'a> {
    index: u32,
    message: Msg<'a>,
    logprobs: Option<()>,
    finish_reason: &'static str,
}

#[derive(Serialize, Default)]
struct Msg<'a> {
    role: &'static str,
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireCall<'a>>,
    /// Used only to size usage; not serialized.
    #[serde(skip)]
    calls: &'a [ToolCall],
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct Usage {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    completion_tokens_details: Details,
}

#[derive(Serialize)]
struct Details {
    reasoning_tokens: u64,
}

impl<'a> Msg<'a> {
    fn text(text: &'a str) -> Self {
        Msg {
            content: Some(text),
            ..Msg::default()
        }
    }

    fn tools(calls: &'a [ToolCall]) -> Self {
        Msg {
            calls,
            ..Msg::default()
        }
    }

    fn reasoning(reasoning: &'a str, content: Option<&'a str>, key: ReasoningKey) -> Self {
        let mut msg = Msg {
            content,
            ..Msg::default()
        };
        match key {
            ReasoningKey::ReasoningContent => msg.reasoning_content = Some(reasoning),
            ReasoningKey::Reasoning => msg.reasoning = Some(reasoning),
        }
        msg
    }
}

fn completion(ctx: &Ctx<'_>, msg: Msg<'_>, finish_reason: &'static str) -> Reply {
    Reply::Send(json_response(
        200,
        completion_bytes(ctx, msg, finish_reason),
    ))
}

fn completion_bytes(ctx: &Ctx<'_>, mut msg: Msg<'_>, finish_reason: &'static str) -> Vec<u8> {
    msg.role = "assistant";
    if !msg.calls.is_empty() {
        let calls = msg.calls;
        msg.tool_calls = calls
            .iter()
            .map(|call| WireCall {
                id: match &call.id {
                    Some(id) => id.clone(),
                    None => format!("call_{}", ctx.call_ids.fetch_add(1, Ordering::Relaxed)),
                },
                kind: "function",
                function: WireFunction {
                    name: &call.name,
                    arguments: &call.arguments,
                },
            })
            .collect();
    }
    let reasoning_tokens = tokens(msg.reasoning_content.or(msg.reasoning).map_or(0, str::len));
    let answer_bytes = msg.content.map_or(0, str::len)
        + msg
            .calls
            .iter()
            .map(|c| c.name.len() + c.arguments.len())
            .sum::<usize>();
    let completion_tokens = tokens(answer_bytes).max(1) + reasoning_tokens;
    let body = Completion {
        id: format!("chatcmpl-fake-{}", ctx.index),
        object: "chat.completion",
        created: CREATED,
        model: ctx.model,
        system_fingerprint: FINGERPRINT,
        choices: [Choice {
            index: 0,
            message: msg,
            logprobs: None,
            finish_reason,
        }],
        usage: Usage {
            prompt_tokens: ctx.prompt_tokens,
            completion_tokens,
            total_tokens: ctx.prompt_tokens + completion_tokens,
            completion_tokens_details: Details { reasoning_tokens },
        },
    };
    let mut out = Vec::with_capacity(512 + answer_bytes);
    serde_json::to_writer(&mut out, &body).expect("serializing plain structs to a Vec cannot fail");
    out
}

/// A response body: whole, or a prefix followed by a failure that makes
/// hyper abort the connection.
pub(crate) struct FakeBody {
    data: Option<Bytes>,
    tail: Tail,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// The body is complete once `data` is sent.
    End,
    /// Yield once (so hyper flushes what it has), then fail.
    YieldThenFail,
    /// Fail now.
    Fail,
}

impl FakeBody {
    pub(crate) fn full(data: impl Into<Bytes>) -> Self {
        FakeBody {
            data: Some(data.into()),
            tail: Tail::End,
        }
    }

    fn broken(prefix: Bytes) -> Self {
        FakeBody {
            data: Some(prefix),
            tail: Tail::YieldThenFail,
        }
    }
}

impl fmt::Debug for FakeBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeBody")
            .field("len", &self.data.as_ref().map(Bytes::len))
            .finish()
    }
}

/// The error a broken body ends with.
#[derive(Debug)]
pub(crate) struct BodyCut;

impl fmt::Display for BodyCut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("svbench-fakeai: response body cut on purpose")
    }
}

impl std::error::Error for BodyCut {}

impl Body for FakeBody {
    type Data = Bytes;
    type Error = BodyCut;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyCut>>> {
        let this = self.get_mut();
        if let Some(data) = this.data.take() {
            return Poll::Ready(Some(Ok(Frame::data(data))));
        }
        match this.tail {
            Tail::End => Poll::Ready(None),
            Tail::YieldThenFail => {
                this.tail = Tail::Fail;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Tail::Fail => Poll::Ready(Some(Err(BodyCut))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none() && self.tail == Tail::End
    }

    fn size_hint(&self) -> SizeHint {
        match (&self.data, self.tail) {
            (Some(data), Tail::End) => SizeHint::with_exact(data.len() as u64),
            (None, Tail::End) => SizeHint::with_exact(0),
            _ => SizeHint::default(),
        }
    }
}
