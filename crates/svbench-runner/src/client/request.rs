//! Chat Completions request bodies (harness §2.3): sampling fields with the
//! reasoning-model quirks, the derived per-sample seed, tools, `extra_body`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use svbench_core::message::Message;

use super::config::TokenParam;
use super::routing::Route;

/// The sampling fields of every request of one model, fixed when the client
/// is built: exactly what is sent, after the reasoning-model adjustment.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    /// Field carrying the token limit.
    pub token_param: TokenParam,
    /// Token limit per call.
    pub max_tokens: u32,
    /// `temperature` sent (`None`: not sent; always `None` for reasoning models).
    pub temperature: Option<f64>,
    /// `top_p` sent (`None`: not sent; always `None` for reasoning models).
    pub top_p: Option<f64>,
    /// Whether a derived `seed` is sent.
    pub send_seed: bool,
    /// Fields merged into the body last.
    pub extra_body: Map<String, Value>,
}

impl Sampling {
    /// The sampling of `route` for these settings. Reasoning models get no
    /// `temperature` or `top_p` (the one automatic, recorded adjustment,
    /// harness §9.6).
    pub fn new(
        route: &Route,
        max_tokens: u32,
        temperature: Option<f64>,
        top_p: Option<f64>,
    ) -> Self {
        let (temperature, top_p) = if route.reasoning {
            (None, None)
        } else {
            (temperature, top_p)
        };
        Self {
            token_param: route.token_param,
            max_tokens,
            temperature,
            top_p,
            send_seed: route.send_seed,
            extra_body: route.extra_body.clone(),
        }
    }

    /// `metadata.sampling_params`: the fields sent (`temperature` and
    /// `top_p` only when sent; `max_tokens` or `max_completion_tokens`),
    /// `seed` as a bool (the value differs per sample), and `extra_body`
    /// (an object, `{}` when empty).
    pub fn record(&self) -> BTreeMap<String, Value> {
        let mut r = BTreeMap::new();
        if let Some(t) = self.temperature {
            r.insert("temperature".to_string(), Value::from(t));
        }
        if let Some(p) = self.top_p {
            r.insert("top_p".to_string(), Value::from(p));
        }
        r.insert(
            self.token_param.as_str().to_string(),
            Value::from(self.max_tokens),
        );
        r.insert("seed".to_string(), Value::Bool(self.send_seed));
        r.insert(
            "extra_body".to_string(),
            Value::Object(self.extra_body.clone()),
        );
        r
    }
}

/// The per-sample request seed, constant across a sample's turns: the first
/// four bytes, big-endian, of
/// `SHA-256("svbench-seed" ‖ run_seed as u64 little-endian ‖ example_id as
/// UTF-8 ‖ rollout_index as u64 little-endian)`.
pub fn derive_seed(run_seed: u64, example_id: &str, rollout_index: usize) -> u32 {
    let mut h = Sha256::new();
    h.update(b"svbench-seed");
    h.update(run_seed.to_le_bytes());
    h.update(example_id.as_bytes());
    h.update((rollout_index as u64).to_le_bytes());
    let d = h.finalize();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// One message in OpenAI shape: `role`, `content` (null allowed), plus
/// `tool_calls` on assistant messages that have them and `tool_call_id` on
/// tool messages.
pub fn message_json(m: &Message) -> Value {
    let mut o = Map::with_capacity(4);
    o.insert(
        "role".to_string(),
        serde_json::to_value(m.role).unwrap_or(Value::Null),
    );
    o.insert(
        "content".to_string(),
        m.content.clone().map_or(Value::Null, Value::String),
    );
    if !m.tool_calls.is_empty() {
        o.insert("tool_calls".to_string(), Value::Array(m.tool_calls.clone()));
    }
    if let Some(id) = &m.tool_call_id {
        o.insert("tool_call_id".to_string(), Value::String(id.clone()));
    }
    Value::Object(o)
}

/// The request body: `model`, `messages`, the sampling fields, `seed` (when
/// given), `tools` + `tool_choice: "auto"` (when tools are given), then
/// `extra_body` merged over everything.
pub fn build_body(
    model: &str,
    sampling: &Sampling,
    messages: &[Message],
    tools: &[Value],
    seed: Option<u32>,
) -> Value {
    let mut b = Map::with_capacity(8 + sampling.extra_body.len());
    b.insert("model".to_string(), Value::String(model.to_string()));
    b.insert(
        "messages".to_string(),
        Value::Array(messages.iter().map(message_json).collect()),
    );
    if let Some(t) = sampling.temperature {
        b.insert("temperature".to_string(), Value::from(t));
    }
    if let Some(p) = sampling.top_p {
        b.insert("top_p".to_string(), Value::from(p));
    }
    b.insert(
        sampling.token_param.as_str().to_string(),
        Value::from(sampling.max_tokens),
    );
    if let Some(s) = seed {
        b.insert("seed".to_string(), Value::from(s));
    }
    if !tools.is_empty() {
        b.insert("tools".to_string(), Value::Array(tools.to_vec()));
        b.insert("tool_choice".to_string(), Value::String("auto".to_string()));
    }
    for (k, v) in &sampling.extra_body {
        b.insert(k.clone(), v.clone());
    }
    Value::Object(b)
}

/// Characters of the prompt, for the up-front token charge: message
/// contents plus tool-call arguments.
pub fn prompt_chars(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| {
            m.content.as_deref().map_or(0, |c| c.chars().count())
                + m.tool_calls
                    .iter()
                    .filter_map(|c| c.pointer("/function/arguments").and_then(Value::as_str))
                    .map(|a| a.chars().count())
                    .sum::<usize>()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seed_encoding_is_fixed() {
        // Recomputed by hand from the documented encoding.
        let mut h = Sha256::new();
        h.update(b"svbench-seed");
        h.update(42u64.to_le_bytes());
        h.update("ex-1".as_bytes());
        h.update(3u64.to_le_bytes());
        let d = h.finalize();
        let expect = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
        assert_eq!(derive_seed(42, "ex-1", 3), expect);
        assert_ne!(derive_seed(42, "ex-1", 3), derive_seed(43, "ex-1", 3));
        assert_ne!(derive_seed(42, "ex-1", 3), derive_seed(42, "ex-2", 3));
        assert_ne!(derive_seed(42, "ex-1", 3), derive_seed(42, "ex-1", 4));
    }

    #[test]
    fn messages_keep_tool_fields() {
        let mut a = Message::assistant("x");
        a.content = None;
        a.tool_calls = vec![json!({"id": "c1", "type": "function",
            "function": {"name": "f", "arguments": "{}"}})];
        let mut t = Message::text(svbench_core::message::Role::Tool, "out");
        t.tool_call_id = Some("c1".into());
        assert_eq!(
            message_json(&a),
            json!({"role": "assistant", "content": null, "tool_calls": a.tool_calls})
        );
        assert_eq!(
            message_json(&t),
            json!({"role": "tool", "content": "out", "tool_call_id": "c1"})
        );
        assert_eq!(
            message_json(&Message::user("hi")),
            json!({"role": "user", "content": "hi"})
        );
        assert_eq!(prompt_chars(&[a, t]), 5);
    }
}
