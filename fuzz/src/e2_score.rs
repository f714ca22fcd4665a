//! The E2 scorer end to end: a completion scored against an embedded
//! example, through the same `Service` as `eval`'s replay, the server and
//! the Python bindings (answer parsing, id normalisation, patch
//! application, re-scan, preservation, reward).
//!
//! Input: a header line `PROFILE EXAMPLE_ID [json]` (`v1` or `upstream`; an
//! id of E2's embedded test split, else its first example; `json` reads the
//! completion as a JSON string or message list), then the completion.
//!
//! Invariants: no panic; a string completion always scores (never an
//! error); every component and the total are finite, and the total is
//! Σ weight × value; the score finishes within `-timeout`.

use std::sync::OnceLock;

use serde_json::Value;
use svbench_api::envs::{EnvConfig, EnvId};
use svbench_api::score::ScoreRequest;
use svbench_api::Service;

/// The service and the ids of E2's embedded test split.
pub fn fixture() -> &'static (Service, Vec<String>) {
    static FIXTURE: OnceLock<(Service, Vec<String>)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let service = Service::new();
        let configured = service
            .configured(
                EnvId::resolve("e2").expect("E2 is registered"),
                &EnvConfig::default(),
            )
            .expect("E2 configures");
        let ids = service
            .split(&configured, "test")
            .expect("E2 test split loads")
            .examples
            .iter()
            .map(|e| e.id.clone())
            .collect();
        (service, ids)
    })
}

/// One input: header line and completion.
pub fn run(data: &[u8]) {
    let Some(text) = crate::utf8(data) else {
        return;
    };
    let (service, ids) = fixture();
    let (header, body) = crate::split_line(text);
    let mut words = header.split_whitespace();
    let profile = match words.next() {
        Some("upstream") => "upstream",
        _ => "v1",
    };
    let id = words
        .next()
        .filter(|w| ids.iter().any(|i| i == w))
        .unwrap_or(&ids[0]);
    let json_completion = words.next() == Some("json");
    let completion = if json_completion {
        match serde_json::from_str::<Value>(body) {
            Ok(v) => v,
            Err(_) => return,
        }
    } else {
        Value::String(body.to_owned())
    };
    let req = ScoreRequest {
        example_id: Some(id.to_owned()),
        completion,
        reward_profile: Some(profile.to_owned()),
        ..ScoreRequest::default()
    };
    match service.score("e2", &req) {
        Ok(resp) => crate::api_body::check_response(&resp),
        Err(e) => assert!(
            json_completion,
            "a string completion did not score: {:?} {}",
            e.code, e.message
        ),
    }
}
