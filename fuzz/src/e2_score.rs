//! The E2 scorer end to end (and, through [`run_env`], any environment's):
//! a completion scored against an embedded example, through the same
//! `Service` as `eval`'s replay, the server and the Python bindings (answer
//! parsing, id normalisation, patch application, re-scan, preservation,
//! reward).
//!
//! Input: a header line `PROFILE EXAMPLE_ID [json]` (`v1` or `upstream`; an
//! id of the embedded test split, else its first example; `json` reads the
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

/// The service and the ids of an environment's embedded test split.
pub fn fixture(env: &str) -> (&'static Service, &'static [String]) {
    static SERVICE: OnceLock<Service> = OnceLock::new();
    static IDS: OnceLock<std::sync::Mutex<std::collections::HashMap<String, &'static [String]>>> =
        OnceLock::new();
    let service = SERVICE.get_or_init(Service::new);
    let mut ids = IDS
        .get_or_init(Default::default)
        .lock()
        .expect("not poisoned");
    let ids = *ids.entry(env.to_owned()).or_insert_with(|| {
        let configured = service
            .configured(
                EnvId::resolve(env).expect("the environment is registered"),
                &EnvConfig::default(),
            )
            .expect("the environment configures");
        let list: Vec<String> = service
            .split(&configured, "test")
            .expect("the test split loads")
            .examples
            .iter()
            .map(|e| e.id.clone())
            .collect();
        Box::leak(list.into_boxed_slice())
    });
    (service, ids)
}

/// One input: header line and completion.
pub fn run(data: &[u8]) {
    run_env("e2", data);
}

/// One input for environment `env` (its short id): header line and completion.
pub fn run_env(env: &str, data: &[u8]) {
    let Some(text) = crate::utf8(data) else {
        return;
    };
    let (service, ids) = fixture(env);
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
    match service.score(env, &req) {
        Ok(resp) => crate::api_body::check_response(&resp),
        Err(e) => assert!(
            json_completion,
            "a string completion did not score: {:?} {}",
            e.code, e.message
        ),
    }
}
