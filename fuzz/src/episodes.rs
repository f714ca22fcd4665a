//! Episodes driven step by step as `svbench serve` drives them (through
//! `svbench_api::Session` with the server's memory limits), with the steps
//! multiplied: the same message, or each of a list in turn, stepped up to
//! `N` times in one episode of the environment's first example, with a
//! turn limit and tool budget of 1,000.
//!
//! Input: a header line `ENV N` (any environment name; `N` steps, at most
//! 64), then the JSON body: one assistant message, or a list of them
//! (stepped in turn, round robin).
//!
//! Invariants beyond "no panic": the bytes the episode holds never pass its
//! budget, which is proportional to the input (the prompt and example, plus
//! 16 × the input's size); a refused step leaves the episode as it was
//! (bytes, turn, transcript); an accepted step holds at least its message
//! and tool results (the count is not an undercount: the held bytes are at
//! least the base plus every stored message's size); a message over the
//! per-step limit (4 × the input) is `payload_too_large`; no step answers
//! `internal`.

use std::sync::Arc;

use serde_json::Value;
use svbench_api::envs::{EnvConfig, EnvId};
use svbench_api::session::{value_bytes, Session, SessionLimits};
use svbench_api::ErrorCode;

/// Steps per input at most (each E2 tool call scans a manifest).
const MAX_STEPS: usize = 64;

/// One input: header line and JSON body.
pub fn run(data: &[u8]) {
    let Some(text) = crate::utf8(data) else {
        return;
    };
    let (header, body) = crate::split_line(text);
    let mut words = header.split_whitespace();
    let env = words.next().unwrap_or("e1");
    let steps = words
        .next()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .min(MAX_STEPS);
    let Ok(body) = serde_json::from_str::<Value>(body) else {
        return;
    };
    let messages: Vec<Value> = match body {
        Value::Array(items) if !items.is_empty() => items,
        Value::Array(_) => return,
        one => vec![one],
    };
    let Ok(id) = EnvId::resolve(env) else {
        return;
    };
    let config = EnvConfig {
        max_turns: Some(1000),
        tool_budget: Some(1000),
        ..EnvConfig::default()
    };
    let Ok(configured) = crate::service().configured(id, &config) else {
        return;
    };
    let Ok(data) = crate::service().split(&configured, id.default_split()) else {
        return;
    };
    let Ok(example) = data.by_index(0) else {
        return;
    };
    let fresh = Session::start(Arc::clone(&configured), example.clone());
    let base = fresh.held_bytes();
    let limits = SessionLimits {
        max_message_bytes: 4 * data_len(text),
        max_bytes: base + 16 * data_len(text),
    };
    let Ok(mut session) = fresh.with_limits(limits) else {
        panic!("a fresh episode is within a budget of its own base");
    };
    for i in 0..steps {
        if session.done() {
            break;
        }
        let message = &messages[i % messages.len()];
        let before = (
            session.held_bytes(),
            session.turn(),
            session.transcript().len(),
        );
        match session.step(message) {
            Ok(outcome) => {
                assert_eq!(outcome.done, session.done());
                let grown = session.held_bytes() - before.0;
                let stored: usize = session.transcript()[before.2..]
                    .iter()
                    .map(value_bytes)
                    .sum();
                assert!(
                    grown >= stored,
                    "held grew by {grown} bytes, the step stored {stored}"
                );
            }
            Err(e) => {
                assert!(
                    e.code != ErrorCode::Internal,
                    "a step answered 500 internal: {}",
                    e.message
                );
                assert_eq!(
                    (
                        session.held_bytes(),
                        session.turn(),
                        session.transcript().len()
                    ),
                    before,
                    "a refused step ({}) changed the episode",
                    e.code
                );
                if e.code == ErrorCode::EpisodeTooLarge {
                    assert_eq!(e.details["limit"], limits.max_bytes);
                }
            }
        }
        assert!(
            session.held_bytes() <= limits.max_bytes,
            "the episode holds {} bytes, over its budget of {} (base {base}, input {} bytes)",
            session.held_bytes(),
            limits.max_bytes,
            text.len()
        );
        let stored: usize = session.transcript().iter().map(value_bytes).sum();
        assert!(
            session.held_bytes() >= base + stored,
            "held {} < base {base} + stored {stored}",
            session.held_bytes()
        );
    }
}

/// The input size the budgets are proportional to (at least 1 KiB, so a
/// tiny input still has room for a tool result or a reward).
fn data_len(text: &str) -> usize {
    text.len().max(1024)
}
