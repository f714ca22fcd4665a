//! Chat messages and completions as they travel between policies and environments.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions from the environment.
    System,
    /// The task or an environment turn.
    User,
    /// The model (or a builtin policy).
    Assistant,
    /// A tool result.
    Tool,
}

/// One chat message in OpenAI Chat Completions shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    /// Author.
    pub role: Role,
    /// Text content; `null` for tool-call-only assistant messages.
    pub content: Option<String>,
    /// Tool calls requested by an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<serde_json::Value>,
    /// For tool messages: the call answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with text content and nothing else.
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::text(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::text(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::text(Role::Assistant, content)
    }
}

/// What a policy produced for one sample, in the shape it arrived.
///
/// Completions are kept as raw JSON values rather than [`Message`]s because
/// replayed outputs of other harnesses may carry content of any JSON type
/// (array-of-parts, numbers, null), and the upstream parse mode reads such
/// content in its own way (E1 §2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Completion {
    /// A plain completion string.
    Text(String),
    /// A list of messages (usually assistant and tool messages).
    Messages(Vec<serde_json::Value>),
}

impl Completion {
    /// A completion holding one assistant message with this text.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Completion::Messages(vec![serde_json::json!({
            "role": "assistant",
            "content": text.into(),
        })])
    }
}
