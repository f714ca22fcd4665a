//! Chat Completions response bodies (harness §2.3): the first choice's
//! message, reasoning text, tool calls, finish reason and usage.
//!
//! What counts as malformed (kind `malformed_response`, retried):
//! - a body that is not JSON, or JSON that is not an object;
//! - an `error` object in a 2xx body (some gateways report upstream failures
//!   that way);
//! - `choices` missing, not an array, or empty; a first choice without a
//!   `message` object;
//! - `content` that is neither a string, null, nor an array of text parts;
//!   a tool call that is not an object with `function.name`;
//! - a message with neither content nor tool calls. Empty content (`""`)
//!   counts as no content, so `""` without tool calls is malformed — **except**
//!   when `finish_reason` is `"length"`: the model spent its whole token
//!   budget (typically on reasoning), which is model behaviour to be scored
//!   as a truncated empty answer, not an endpoint failure to retry.

use serde_json::{Map, Value};
use svbench_core::record::Usage;

/// A well-formed response, reduced to what svbench records.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedResponse {
    /// Assistant text; `None` for tool-call-only (or truncated empty) replies.
    pub content: Option<String>,
    /// `reasoning_content` (vLLM, SGLang, DeepSeek) or `reasoning`
    /// (OpenRouter); recorded, never parsed as the answer.
    pub reasoning: Option<String>,
    /// Tool calls normalised to `{id, type: "function", function: {name, arguments}}`
    /// with `arguments` a string.
    pub tool_calls: Vec<Value>,
    /// `finish_reason` of the first choice.
    pub finish_reason: Option<String>,
    /// Reported usage (`requests` = 1; zeros when not reported).
    pub usage: Usage,
    /// Whether the endpoint reported usage at all.
    pub usage_reported: bool,
    /// Response `model`.
    pub model: Option<String>,
    /// Response `system_fingerprint`.
    pub system_fingerprint: Option<String>,
}

impl ParsedResponse {
    /// `finish_reason == "length"`.
    pub fn truncated(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
    }
}

/// Why a response body is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MalformedResponse {
    /// Not JSON (or truncated JSON).
    #[error("response body is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("response body is not a JSON object")]
    NotObject,
    /// An `error` object instead of choices.
    #[error("response carries an error: {0}")]
    ErrorObject(String),
    /// `choices` missing, not an array, or empty.
    #[error("response has no choices")]
    NoChoices,
    /// First choice has no `message` object.
    #[error("first choice has no message")]
    NoMessage,
    /// `content` of an unexpected type.
    #[error("message content is neither a string, null nor text parts")]
    BadContent,
    /// A tool call without `function.name`, or `tool_calls` not an array.
    #[error("malformed tool call: {0}")]
    BadToolCall(String),
    /// Neither content nor tool calls.
    #[error("message has neither content nor tool calls")]
    Empty,
}

/// Parses a response body.
pub fn parse_response(body: &[u8]) -> Result<(Value, ParsedResponse), MalformedResponse> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| MalformedResponse::NotJson(format!("{e} ({} bytes)", body.len())))?;
    let parsed = parse_response_value(&v)?;
    Ok((v, parsed))
}

fn str_field(o: &Map<String, Value>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_string)
}

fn u64_field(v: Option<&Value>) -> u64 {
    v.and_then(|x| x.as_u64().or_else(|| x.as_f64().map(|f| f.max(0.0) as u64)))
        .unwrap_or(0)
}

/// Parses a response already decoded as JSON (a fresh body or a cache entry).
pub fn parse_response_value(v: &Value) -> Result<ParsedResponse, MalformedResponse> {
    let root = v.as_object().ok_or(MalformedResponse::NotObject)?;
    let choices = root.get("choices").and_then(Value::as_array);
    let Some(choice) = choices.and_then(|c| c.first()) else {
        if let Some(err) = root.get("error").filter(|e| !e.is_null()) {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| err.to_string(), str::to_string);
            return Err(MalformedResponse::ErrorObject(truncate(&msg, 300)));
        }
        return Err(MalformedResponse::NoChoices);
    };
    let msg = choice
        .get("message")
        .and_then(Value::as_object)
        .ok_or(MalformedResponse::NoMessage)?;
    let content = match msg.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => Some(text_parts(parts)?),
        Some(_) => return Err(MalformedResponse::BadContent),
    };
    let reasoning = ["reasoning_content", "reasoning"]
        .iter()
        .filter_map(|k| msg.get(*k).and_then(Value::as_str))
        .find(|s| !s.is_empty())
        .map(str::to_string);
    let tool_calls = match msg.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls
            .iter()
            .enumerate()
            .map(|(i, c)| normalise_tool_call(i, c))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(MalformedResponse::BadToolCall(
                "tool_calls is not an array".into(),
            ))
        }
    };
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    let has_content = content.as_deref().is_some_and(|c| !c.is_empty());
    if !has_content && tool_calls.is_empty() && finish_reason.as_deref() != Some("length") {
        return Err(MalformedResponse::Empty);
    }
    let usage_v = root.get("usage").filter(|u| u.is_object());
    let prompt_tokens = u64_field(usage_v.and_then(|u| u.get("prompt_tokens")));
    let completion_tokens = u64_field(usage_v.and_then(|u| u.get("completion_tokens")));
    let reasoning_tokens =
        u64_field(usage_v.and_then(|u| u.pointer("/completion_tokens_details/reasoning_tokens")));
    let total = u64_field(usage_v.and_then(|u| u.get("total_tokens")));
    let usage = Usage {
        prompt_tokens,
        completion_tokens,
        reasoning_tokens,
        total_tokens: if total > 0 {
            total
        } else {
            prompt_tokens + completion_tokens
        },
        requests: 1,
        cached_requests: 0,
    };
    Ok(ParsedResponse {
        content,
        reasoning,
        tool_calls,
        finish_reason,
        usage,
        usage_reported: usage_v.is_some(),
        model: str_field(root, "model"),
        system_fingerprint: str_field(root, "system_fingerprint"),
    })
}

/// Content given as `[{type: "text", text}, …]` parts: the texts joined.
fn text_parts(parts: &[Value]) -> Result<String, MalformedResponse> {
    let mut out = String::new();
    for p in parts {
        match p.get("text").and_then(Value::as_str) {
            Some(t) => out.push_str(t),
            None if p.is_object() => {}
            None => return Err(MalformedResponse::BadContent),
        }
    }
    Ok(out)
}

/// `{id, type: "function", function: {name, arguments}}`; a missing id
/// becomes `call_<index>`, object arguments become their JSON text.
fn normalise_tool_call(i: usize, c: &Value) -> Result<Value, MalformedResponse> {
    let f = c
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| MalformedResponse::BadToolCall(format!("call {i} has no function")))?;
    let name = f
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| MalformedResponse::BadToolCall(format!("call {i} has no function name")))?;
    let arguments = match f.get("arguments") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let id = c
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("call_{i}"), str::to_string);
    Ok(serde_json::json!({
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }))
}

fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(v: Value) -> ParsedResponse {
        parse_response(v.to_string().as_bytes())
            .expect("well-formed")
            .1
    }

    fn bad(body: &[u8]) -> MalformedResponse {
        parse_response(body).expect_err("malformed")
    }

    #[test]
    fn full_response() {
        let r = ok(json!({
            "id": "x", "model": "gpt-4o-mini-2024", "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "hello",
                            "reasoning_content": "thinking"}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                      "completion_tokens_details": {"reasoning_tokens": 3}}
        }));
        assert_eq!(r.content.as_deref(), Some("hello"));
        assert_eq!(r.reasoning.as_deref(), Some("thinking"));
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert!(!r.truncated());
        assert_eq!(r.usage.prompt_tokens, 10);
        assert_eq!(r.usage.completion_tokens, 5);
        assert_eq!(r.usage.reasoning_tokens, 3);
        assert_eq!(r.usage.total_tokens, 15);
        assert_eq!(r.usage.requests, 1);
        assert_eq!(r.model.as_deref(), Some("gpt-4o-mini-2024"));
        assert_eq!(r.system_fingerprint.as_deref(), Some("fp_1"));
    }

    #[test]
    fn openrouter_reasoning_field_and_no_usage() {
        let r = ok(json!({"choices": [{"message": {"content": "a", "reasoning": "r"}}]}));
        assert_eq!(r.reasoning.as_deref(), Some("r"));
        assert!(!r.usage_reported);
        assert_eq!(r.usage.total_tokens, 0);
        assert_eq!(r.finish_reason, None);
    }

    #[test]
    fn tool_calls_are_normalised() {
        let r = ok(
            json!({"choices": [{"finish_reason": "tool_calls", "message": {
            "content": null,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{\"a\":1}"}},
                {"function": {"name": "other", "arguments": {"b": 2}}}
            ]}}]}),
        );
        assert_eq!(r.content, None);
        assert_eq!(
            r.tool_calls,
            vec![
                json!({"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{\"a\":1}"}}),
                json!({"id": "call_1", "type": "function", "function": {"name": "other", "arguments": "{\"b\":2}"}}),
            ]
        );
    }

    #[test]
    fn text_parts_content_is_joined() {
        let r = ok(json!({"choices": [{"message": {"content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}));
        assert_eq!(r.content.as_deref(), Some("ab"));
    }

    #[test]
    fn length_with_no_content_is_a_truncated_answer() {
        let r = ok(json!({"choices": [{"finish_reason": "length",
            "message": {"content": null, "reasoning_content": "long thought"}}]}));
        assert!(r.truncated());
        assert_eq!(r.content, None);
        assert_eq!(r.reasoning.as_deref(), Some("long thought"));
        let r = ok(
            json!({"choices": [{"finish_reason": "length", "message": {"content": "partial"}}]}),
        );
        assert!(r.truncated());
    }

    #[test]
    fn every_malformed_case() {
        assert!(matches!(bad(b"not json"), MalformedResponse::NotJson(_)));
        assert!(matches!(
            bad(b"{\"choices\": [{\"mess"),
            MalformedResponse::NotJson(_)
        ));
        assert!(matches!(bad(b""), MalformedResponse::NotJson(_)));
        assert_eq!(bad(b"[1]"), MalformedResponse::NotObject);
        assert_eq!(bad(b"null"), MalformedResponse::NotObject);
        assert_eq!(bad(b"{}"), MalformedResponse::NoChoices);
        assert_eq!(bad(b"{\"choices\": []}"), MalformedResponse::NoChoices);
        assert_eq!(bad(b"{\"choices\": {}}"), MalformedResponse::NoChoices);
        assert_eq!(
            bad(br#"{"error": {"message": "upstream down", "code": 502}}"#),
            MalformedResponse::ErrorObject("upstream down".into())
        );
        assert_eq!(bad(br#"{"choices": [{}]}"#), MalformedResponse::NoMessage);
        assert_eq!(
            bad(br#"{"choices": [{"message": "hi"}]}"#),
            MalformedResponse::NoMessage
        );
        assert_eq!(
            bad(br#"{"choices": [{"message": {"content": 5}}]}"#),
            MalformedResponse::BadContent
        );
        assert!(matches!(
            bad(br#"{"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}"#),
            MalformedResponse::BadToolCall(_)
        ));
        assert!(matches!(
            bad(br#"{"choices": [{"message": {"tool_calls": [7]}}]}"#),
            MalformedResponse::BadToolCall(_)
        ));
        assert!(matches!(
            bad(br#"{"choices": [{"message": {"content": "x", "tool_calls": "no"}}]}"#),
            MalformedResponse::BadToolCall(_)
        ));
        // Neither content nor tool calls.
        assert_eq!(
            bad(br#"{"choices": [{"message": {}}]}"#),
            MalformedResponse::Empty
        );
        assert_eq!(
            bad(br#"{"choices": [{"finish_reason": "stop", "message": {"content": ""}}]}"#),
            MalformedResponse::Empty
        );
        assert_eq!(
            bad(br#"{"choices": [{"message": {"content": null, "tool_calls": []}}]}"#),
            MalformedResponse::Empty
        );
        // Reasoning alone is not an answer.
        assert_eq!(
            bad(br#"{"choices": [{"finish_reason": "stop", "message": {"content": null, "reasoning_content": "r"}}]}"#),
            MalformedResponse::Empty
        );
    }
}
