//! The cache key of a request (harness §2.5).

use serde_json::{Map, Value};

/// Version of the key layout; bump it to invalidate every stored entry.
const KEY_VERSION: u64 = 1;

/// Body fields that get their own slot in the key; every other field of the
/// body is a sampling parameter.
const NAMED_FIELDS: [&str; 4] = ["model", "messages", "tools", "tool_choice"];

/// Lowercase hex SHA-256 of the canonical JSON (RFC 8785) of
/// `{"v":1, base_url, model, messages, tools, tool_choice, params, rollout_index}`.
///
/// `body` is the request body exactly as sent, so `params` holds whatever
/// sampling fields went out: temperature, top_p, the token limit under its
/// sent name, seed, stop, response_format and the merged `extra_body` fields.
/// Trailing `/` on `base_url` is ignored (`…/v1/` and `…/v1` are one
/// endpoint). A body that is not a JSON object (the client never sends one)
/// is kept whole as `params`, so distinct bodies still get distinct keys.
pub(crate) fn request_key(base_url: &str, body: &Value, rollout_index: usize) -> String {
    let mut key = Map::new();
    key.insert("v".into(), Value::from(KEY_VERSION));
    key.insert(
        "base_url".into(),
        Value::from(base_url.trim_end_matches('/')),
    );
    match body {
        Value::Object(fields) => {
            for name in NAMED_FIELDS {
                let value = fields.get(name).cloned().unwrap_or(Value::Null);
                key.insert(name.into(), value);
            }
            let params: Map<String, Value> = fields
                .iter()
                .filter(|(name, _)| !NAMED_FIELDS.contains(&name.as_str()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            key.insert("params".into(), Value::Object(params));
        }
        other => {
            for name in NAMED_FIELDS {
                key.insert(name.into(), Value::Null);
            }
            key.insert("params".into(), other.clone());
        }
    }
    key.insert("rollout_index".into(), Value::from(rollout_index));
    svbench_core::canonical::canonical_sha256(&Value::Object(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The key is the hash of exactly the documented object, so a future
    /// change of layout cannot slip in unnoticed (it would silently orphan
    /// every user's cache, or worse, collide).
    #[test]
    fn key_is_the_hash_of_the_documented_object() {
        let body = json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "hi"}],
            "temperature": 0,
            "max_tokens": 64,
            "seed": 7,
        });
        let expected = json!({
            "v": 1,
            "base_url": "https://api.openai.com/v1",
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": null,
            "tool_choice": null,
            "params": {"temperature": 0, "max_tokens": 64, "seed": 7},
            "rollout_index": 3,
        });
        assert_eq!(
            request_key("https://api.openai.com/v1", &body, 3),
            svbench_core::canonical::canonical_sha256(&expected)
        );
    }

    #[test]
    fn non_object_bodies_are_hashed_whole() {
        let a = request_key("u", &json!([1]), 0);
        let b = request_key("u", &json!([2]), 0);
        let empty = request_key("u", &json!({}), 0);
        assert_ne!(a, b);
        assert_ne!(a, empty);
    }
}
