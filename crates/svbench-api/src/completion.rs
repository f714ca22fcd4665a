//! Completions and messages as callers send them, normalised to the shape the
//! runner records: OpenAI chat messages with nested
//! `tool_calls[].function.{name, arguments}` and string arguments.
//!
//! Callers send plain strings, message lists from older verifiers and TRL
//! (nested OpenAI form), or current verifiers' flat tool calls
//! `{id, name, arguments}` with arguments as an object; all of them score the
//! same.

use serde_json::{json, Map, Value};
use svbench_core::Completion;

use crate::error::ApiError;

/// Reads a completion: a string (one assistant message's text) or a list of
/// messages.
///
/// # Errors
/// Anything else, or a message that is not an object with a `role`.
pub fn completion_from_json(value: &Value) -> Result<Completion, ApiError> {
    match value {
        Value::String(text) => Ok(Completion::Text(text.clone())),
        Value::Array(items) => {
            let mut messages = Vec::with_capacity(items.len());
            for (i, m) in items.iter().enumerate() {
                messages.push(
                    normalize_message(m)
                        .map_err(|e| ApiError::bad_request(format!("completion[{i}]: {e}")))?,
                );
            }
            Ok(Completion::Messages(messages))
        }
        other => Err(ApiError::bad_request(format!(
            "`completion` must be a string or a list of messages, got {}",
            json_kind(other)
        ))),
    }
}

/// Why a message cannot be normalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Not a JSON object (its [`json_kind`]).
    #[error("a message must be an object, got {0}")]
    NotAnObject(&'static str),
    /// No string `role`.
    #[error("a message needs a string `role`")]
    NoRole,
    /// A role other than system, user, assistant or tool.
    #[error("unknown role `{0}` (system, user, assistant or tool)")]
    UnknownRole(String),
    /// `tool_calls` is neither a list nor null (its [`json_kind`]).
    #[error("`tool_calls` must be a list, got {0}")]
    ToolCallsNotAList(&'static str),
    /// A malformed tool call.
    #[error("tool_calls[{index}]: {error}")]
    ToolCall {
        /// Its position in `tool_calls`.
        index: usize,
        /// What is wrong with it.
        error: ToolCallError,
    },
}

/// Why a tool call cannot be normalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// Not a JSON object (its [`json_kind`]).
    #[error("a tool call must be an object, got {0}")]
    NotAnObject(&'static str),
    /// `function` is present and not an object (its [`json_kind`]).
    #[error("`function` must be an object, got {0}")]
    FunctionNotAnObject(&'static str),
    /// No string `name`, flat or under `function`.
    #[error("a tool call needs a string `name` (flat or under `function`)")]
    NoName,
}

/// Normalises one message (see the module docs).
///
/// # Errors
/// Not an object, no string `role`, or a malformed tool call.
pub fn normalize_message(value: &Value) -> Result<Value, MessageError> {
    let Value::Object(obj) = value else {
        return Err(MessageError::NotAnObject(json_kind(value)));
    };
    let role = obj
        .get("role")
        .and_then(Value::as_str)
        .ok_or(MessageError::NoRole)?;
    if !matches!(role, "system" | "user" | "assistant" | "tool") {
        return Err(MessageError::UnknownRole(role.to_owned()));
    }
    let mut out = obj.clone();
    match obj.get("tool_calls") {
        None | Some(Value::Null) => {
            out.remove("tool_calls");
        }
        Some(Value::Array(calls)) => {
            let calls = calls
                .iter()
                .enumerate()
                .map(|(index, c)| {
                    normalize_tool_call(c).map_err(|error| MessageError::ToolCall { index, error })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if calls.is_empty() {
                out.remove("tool_calls");
            } else {
                out.insert("tool_calls".into(), Value::Array(calls));
            }
        }
        Some(other) => return Err(MessageError::ToolCallsNotAList(json_kind(other))),
    }
    Ok(Value::Object(out))
}

/// One tool call in nested OpenAI form with string arguments.
fn normalize_tool_call(call: &Value) -> Result<Value, ToolCallError> {
    let Value::Object(obj) = call else {
        return Err(ToolCallError::NotAnObject(json_kind(call)));
    };
    let id = obj
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let (name, arguments) = match obj.get("function") {
        Some(Value::Object(f)) => (f.get("name"), f.get("arguments")),
        Some(other) => return Err(ToolCallError::FunctionNotAnObject(json_kind(other))),
        None => (obj.get("name"), obj.get("arguments")),
    };
    let name = name.and_then(Value::as_str).ok_or(ToolCallError::NoName)?;
    let arguments = match arguments {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut function = Map::new();
    function.insert("name".into(), json!(name));
    function.insert("arguments".into(), json!(arguments));
    Ok(json!({"id": id, "type": "function", "function": function}))
}

/// The JSON type of a value, for messages.
#[must_use]
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_nested_tool_calls_normalise_alike() {
        let flat = json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "name": "run_kubelinter", "arguments": {"paths": ["a.yaml"]}}]});
        let nested = json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"a.yaml\"]}"}}]});
        assert_eq!(
            normalize_message(&flat).unwrap(),
            normalize_message(&nested).unwrap()
        );
    }

    #[test]
    fn bad_shapes_are_errors_naming_the_place() {
        let e = completion_from_json(&json!([{"role": "assistant"}, 3])).unwrap_err();
        assert!(e.message.contains("completion[1]"), "{}", e.message);
        assert!(completion_from_json(&json!(5)).is_err());
        assert_eq!(
            normalize_message(&json!({"role": "wizard"})),
            Err(MessageError::UnknownRole("wizard".into()))
        );
        let e = normalize_message(&json!({"role": "assistant", "tool_calls": [{"id": "x"}]}))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "tool_calls[0]: a tool call needs a string `name` (flat or under `function`)"
        );
        assert_eq!(
            e,
            MessageError::ToolCall {
                index: 0,
                error: ToolCallError::NoName
            }
        );
    }

    #[test]
    fn empty_tool_call_lists_are_dropped() {
        let m = normalize_message(&json!({"role": "assistant", "content": "hi", "tool_calls": []}))
            .unwrap();
        assert_eq!(m, json!({"role": "assistant", "content": "hi"}));
    }
}
