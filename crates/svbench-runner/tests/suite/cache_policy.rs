//! Response cache policy: which requests read and write the cache
//! (`--cache-mode`), and which requests share a key (harness §2.5).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use svbench_runner::cache::{CacheMode, ResponseCache};

const OPENAI: &str = "https://api.openai.com/v1";

/// The expected `(reads, writes)` of each mode for one sent temperature.
fn check(temperature: Option<f64>, expected: [(CacheMode, bool, bool); 5]) {
    for (mode, reads, writes) in expected {
        assert_eq!(
            mode.reads(temperature),
            reads,
            "{mode}.reads({temperature:?})"
        );
        assert_eq!(
            mode.writes(temperature),
            writes,
            "{mode}.writes({temperature:?})"
        );
    }
}

#[test]
fn auto_reads_and_writes_only_requests_sent_at_temperature_zero() {
    use CacheMode::*;
    for zero in [Some(0.0), Some(-0.0)] {
        check(
            zero,
            [
                (Auto, true, true),
                (ReadWrite, true, true),
                (ReadOnly, true, false),
                (WriteOnly, false, true),
                (Off, false, false),
            ],
        );
    }
    // Sampled requests, and requests that sent no temperature at all
    // (reasoning models), are off under auto and follow the explicit modes.
    for other in [Some(0.7), Some(1.0), Some(1e-9), Some(f64::NAN), None] {
        check(
            other,
            [
                (Auto, false, false),
                (ReadWrite, true, true),
                (ReadOnly, true, false),
                (WriteOnly, false, true),
                (Off, false, false),
            ],
        );
    }
}

#[test]
fn mode_spellings_are_the_flag_values() {
    let spelled: Vec<&str> = CacheMode::ALL.iter().map(|m| m.as_str()).collect();
    assert_eq!(
        spelled,
        ["auto", "read-write", "read-only", "write-only", "off"]
    );
    assert_eq!("off".parse::<CacheMode>(), Ok(CacheMode::Off));
    assert_eq!(CacheMode::ReadOnly.to_string(), "read-only");
    assert!("no-cache".parse::<CacheMode>().is_err());
}

fn base_body() -> Value {
    json!({
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are a SOC analyst."},
            {"role": "user", "content": "flow: 10.0.0.1 -> 10.0.0.2:443"}
        ],
        "temperature": 0,
        "max_tokens": 256,
        "seed": 1234567,
    })
}

fn with(mut body: Value, field: &str, value: Value) -> Value {
    body[field] = value;
    body
}

#[test]
fn key_is_lowercase_hex_sha256_and_deterministic() {
    let key = ResponseCache::key(OPENAI, &base_body(), 0);
    assert_eq!(key.len(), 64);
    assert!(key
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(key, ResponseCache::key(OPENAI, &base_body(), 0));
}

#[test]
fn key_ignores_key_order_number_spelling_and_trailing_slash() {
    let reference = ResponseCache::key(OPENAI, &base_body(), 0);
    let reordered: Value = serde_json::from_str(
        r#"{"seed": 1234567, "max_tokens": 256,
            "messages": [
              {"content": "You are a SOC analyst.", "role": "system"},
              {"content": "flow: 10.0.0.1 -> 10.0.0.2:443", "role": "user"}],
            "temperature": 0, "model": "gpt-4o-mini"}"#,
    )
    .expect("valid JSON");
    assert_eq!(ResponseCache::key(OPENAI, &reordered, 0), reference);
    // `0` and `0.0` are the same JSON number (RFC 8785 writes both as 0).
    let float_zero = with(base_body(), "temperature", json!(0.0));
    assert_eq!(ResponseCache::key(OPENAI, &float_zero, 0), reference);
    let slash = format!("{OPENAI}/");
    assert_eq!(ResponseCache::key(&slash, &base_body(), 0), reference);
}

#[test]
fn anything_that_changes_the_request_changes_the_key() {
    let tools = json!([{"type": "function", "function": {
        "name": "lookup", "description": "d", "parameters": {"type": "object"}}}]);
    let variants: Vec<(&str, String)> = vec![
        ("reference", ResponseCache::key(OPENAI, &base_body(), 0)),
        ("rollout 1", ResponseCache::key(OPENAI, &base_body(), 1)),
        (
            "base_url",
            ResponseCache::key("http://127.0.0.1:8000/v1", &base_body(), 0),
        ),
        (
            "model",
            ResponseCache::key(OPENAI, &with(base_body(), "model", json!("gpt-4.1")), 0),
        ),
        (
            "message content",
            ResponseCache::key(
                OPENAI,
                &with(
                    base_body(),
                    "messages",
                    json!([{"role": "user", "content": "flow: 10.0.0.1 -> 10.0.0.3:443"}]),
                ),
                0,
            ),
        ),
        (
            "message order",
            ResponseCache::key(
                OPENAI,
                &with(
                    base_body(),
                    "messages",
                    json!([
                        {"role": "user", "content": "flow: 10.0.0.1 -> 10.0.0.2:443"},
                        {"role": "system", "content": "You are a SOC analyst."}
                    ]),
                ),
                0,
            ),
        ),
        (
            "tools",
            ResponseCache::key(OPENAI, &with(base_body(), "tools", tools.clone()), 0),
        ),
        (
            "tools + tool_choice",
            ResponseCache::key(
                OPENAI,
                &with(
                    with(base_body(), "tools", tools),
                    "tool_choice",
                    json!("auto"),
                ),
                0,
            ),
        ),
        (
            "temperature",
            ResponseCache::key(OPENAI, &with(base_body(), "temperature", json!(0.7)), 0),
        ),
        ("no temperature", {
            let mut body = base_body();
            body.as_object_mut().map(|o| o.remove("temperature"));
            ResponseCache::key(OPENAI, &body, 0)
        }),
        (
            "top_p",
            ResponseCache::key(OPENAI, &with(base_body(), "top_p", json!(0.9)), 0),
        ),
        (
            "max_tokens",
            ResponseCache::key(OPENAI, &with(base_body(), "max_tokens", json!(512)), 0),
        ),
        ("max_completion_tokens instead", {
            let mut body = base_body();
            body.as_object_mut().map(|o| o.remove("max_tokens"));
            ResponseCache::key(OPENAI, &with(body, "max_completion_tokens", json!(256)), 0)
        }),
        (
            "seed",
            ResponseCache::key(OPENAI, &with(base_body(), "seed", json!(7654321)), 0),
        ),
        (
            "stop",
            ResponseCache::key(OPENAI, &with(base_body(), "stop", json!(["\n\n"])), 0),
        ),
        (
            "response_format",
            ResponseCache::key(
                OPENAI,
                &with(
                    base_body(),
                    "response_format",
                    json!({"type": "json_object"}),
                ),
                0,
            ),
        ),
        (
            "extra_body field",
            ResponseCache::key(OPENAI, &with(base_body(), "top_k", json!(20)), 0),
        ),
    ];
    let distinct: BTreeSet<&str> = variants.iter().map(|(_, key)| key.as_str()).collect();
    assert_eq!(
        distinct.len(),
        variants.len(),
        "colliding keys among {:#?}",
        variants
    );
}

#[test]
fn rollouts_without_a_seed_get_distinct_keys() {
    let mut body = base_body();
    body.as_object_mut().map(|o| o.remove("seed"));
    let keys: BTreeSet<String> = (0..16)
        .map(|rollout| ResponseCache::key(OPENAI, &body, rollout))
        .collect();
    assert_eq!(keys.len(), 16);
}
