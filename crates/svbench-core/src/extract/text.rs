//! Which text of a completion is parsed (E1 §2.1).

use std::borrow::Cow;

use serde_json::Value;

use super::ParseMode;
use crate::json::python::py_str;
use crate::message::Completion;

/// Content longer than this many bytes is Invalid(`too_long`) in `v1`.
pub const MAX_CONTENT_BYTES: usize = 1 << 20;

/// Why `v1` text selection found nothing to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum TextFailure {
    /// No assistant message, or its content is missing, null, empty or
    /// whitespace-only (`empty_content`).
    #[error("empty_content")]
    EmptyContent,
    /// The content is longer than [`MAX_CONTENT_BYTES`] (`too_long`).
    #[error("too_long")]
    TooLong,
    /// The content is neither a string nor an array of parts (a number, a
    /// bool or an object), so it holds no text (`content_not_text`).
    #[error("content_not_text")]
    ContentNotText,
}

impl TextFailure {
    /// The reason code recorded in `parse.reason`.
    pub fn reason(self) -> &'static str {
        match self {
            TextFailure::EmptyContent => "empty_content",
            TextFailure::TooLong => "too_long",
            TextFailure::ContentNotText => "content_not_text",
        }
    }
}

/// The text to parse in `mode`: [`v1_text`] or [`upstream_text`] (which
/// never fails).
pub fn completion_text(
    completion: &Completion,
    mode: ParseMode,
) -> Result<Cow<'_, str>, TextFailure> {
    match mode {
        ParseMode::V1 => v1_text(completion),
        ParseMode::Upstream => Ok(upstream_text(completion)),
    }
}

/// `upstream` text selection: a string is itself; an empty list is `""`;
/// otherwise only the last element is read: an object gives its `content`
/// (missing or `null` → `""`, a string as is, anything else in Python `str()`
/// form), any other element its Python `str()` form.
pub fn upstream_text(completion: &Completion) -> Cow<'_, str> {
    match completion {
        Completion::Text(s) => Cow::Borrowed(s),
        Completion::Messages(messages) => match messages.last() {
            None => Cow::Borrowed(""),
            Some(Value::Object(message)) => match message.get("content") {
                None | Some(Value::Null) => Cow::Borrowed(""),
                Some(content) => py_str(content),
            },
            Some(other) => py_str(other),
        },
    }
}

/// `v1` text selection: a string is itself; in a message list, the content
/// of the final message with role `assistant`. Array-of-parts content is the
/// concatenation of its text parts (strings, and objects with a string
/// `text` whose `type` is absent, `text` or `output_text`). Reasoning
/// side-fields and tool calls are never read. The result passes
/// [`check_content`].
pub fn v1_text(completion: &Completion) -> Result<Cow<'_, str>, TextFailure> {
    let messages = match completion {
        Completion::Text(s) => return check_content(s).map(Cow::Borrowed),
        Completion::Messages(messages) => messages,
    };
    let assistant = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"));
    let Some(message) = assistant else {
        return Err(TextFailure::EmptyContent);
    };
    match message.get("content") {
        None | Some(Value::Null) => Err(TextFailure::EmptyContent),
        Some(Value::String(s)) => check_content(s).map(Cow::Borrowed),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for part in parts {
                if let Some(t) = text_part(part) {
                    text.push_str(t);
                }
            }
            check_content(&text)?;
            Ok(Cow::Owned(text))
        }
        Some(_) => Err(TextFailure::ContentNotText),
    }
}

/// The `v1` checks on selected content: empty or whitespace-only →
/// `empty_content`; longer than [`MAX_CONTENT_BYTES`] → `too_long`.
pub fn check_content(text: &str) -> Result<&str, TextFailure> {
    if text.trim().is_empty() {
        Err(TextFailure::EmptyContent)
    } else if text.len() > MAX_CONTENT_BYTES {
        Err(TextFailure::TooLong)
    } else {
        Ok(text)
    }
}

fn text_part(part: &Value) -> Option<&str> {
    match part {
        Value::String(s) => Some(s),
        Value::Object(p) => {
            let kind = p.get("type").map(Value::as_str);
            match kind {
                None | Some(Some("text" | "output_text")) => p.get("text")?.as_str(),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(v: Value) -> Completion {
        match v {
            Value::Array(items) => Completion::Messages(items),
            _ => unreachable!(),
        }
    }

    #[test]
    fn upstream_reads_only_the_last_element() {
        let c = msgs(json!([
            {"role": "assistant", "content": "{\"label\":\"Benign\",\"confidence\":0.9}"},
            {"role": "user", "content": "thanks"}
        ]));
        assert_eq!(upstream_text(&c), "thanks");
        assert_eq!(upstream_text(&msgs(json!([]))), "");
        assert_eq!(
            upstream_text(&msgs(json!([{"role": "assistant", "content": null}]))),
            ""
        );
        assert_eq!(upstream_text(&msgs(json!([{"role": "assistant"}]))), "");
        assert_eq!(upstream_text(&msgs(json!([{"content": 0.5}]))), "0.5");
        assert_eq!(
            upstream_text(&msgs(
                json!([{"content": [{"type": "text", "text": "hi"}]}])
            )),
            "[{'type': 'text', 'text': 'hi'}]"
        );
        assert_eq!(upstream_text(&msgs(json!(["raw"]))), "raw");
        assert_eq!(upstream_text(&msgs(json!([null]))), "None");
        assert_eq!(upstream_text(&Completion::Text("  x ".into())), "  x ");
    }

    #[test]
    fn v1_reads_the_final_assistant_message() {
        let c = msgs(json!([
            {"role": "assistant", "content": "first"},
            {"role": "tool", "content": "result"},
            {"role": "assistant", "content": "second", "reasoning_content": "ignored"},
            {"role": "user", "content": "not me"}
        ]));
        assert_eq!(v1_text(&c).as_deref(), Ok("second"));
        let parts = msgs(json!([{"role": "assistant", "content": [
            {"type": "text", "text": "a"},
            {"type": "reasoning", "text": "hidden"},
            {"type": "image_url", "image_url": {"url": "x"}},
            "b",
            {"type": "output_text", "text": "c"},
            {"text": "d"}
        ]}]));
        assert_eq!(v1_text(&parts).as_deref(), Ok("abcd"));
    }

    #[test]
    fn v1_failures() {
        let tool_only = msgs(json!([
            {"role": "assistant", "content": "earlier answer"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "1"}]}
        ]));
        assert_eq!(v1_text(&tool_only), Err(TextFailure::EmptyContent));
        assert_eq!(v1_text(&msgs(json!([]))), Err(TextFailure::EmptyContent));
        assert_eq!(
            v1_text(&msgs(json!([{"role": "user", "content": "x"}]))),
            Err(TextFailure::EmptyContent)
        );
        assert_eq!(
            v1_text(&msgs(json!([{"role": "assistant"}]))),
            Err(TextFailure::EmptyContent)
        );
        assert_eq!(
            v1_text(&msgs(json!([{"role": "assistant", "content": " \n\t"}]))),
            Err(TextFailure::EmptyContent)
        );
        assert_eq!(
            v1_text(&msgs(json!([{"role": "assistant", "content": []}]))),
            Err(TextFailure::EmptyContent)
        );
        assert_eq!(
            v1_text(&msgs(json!([{"role": "assistant", "content": 5}]))),
            Err(TextFailure::ContentNotText)
        );
        assert_eq!(
            v1_text(&Completion::Text(String::new())),
            Err(TextFailure::EmptyContent)
        );
        let long = "x".repeat(MAX_CONTENT_BYTES + 1);
        assert_eq!(v1_text(&Completion::Text(long)), Err(TextFailure::TooLong));
        let exact = "x".repeat(MAX_CONTENT_BYTES);
        assert!(v1_text(&Completion::Text(exact)).is_ok());
    }

    #[test]
    fn completion_text_dispatches() {
        let c = Completion::Text("   ".into());
        assert_eq!(
            completion_text(&c, ParseMode::V1),
            Err(TextFailure::EmptyContent)
        );
        assert_eq!(
            completion_text(&c, ParseMode::Upstream).as_deref(),
            Ok("   ")
        );
    }
}
