//! The server's request bodies, parsed and dispatched as `svbench serve`
//! does (without sockets): `POST /v1/envs/{env}/score`, `…/score_batch`,
//! `…/episodes` (reset) and `/v1/episodes/{id}/step`, through the same
//! `Service` and `Session` the routes call.
//!
//! Input: a header line `ROUTE ENV` (`score`, `batch`, `reset` or `step`;
//! any environment name, resolved as the route resolves it), then the JSON
//! body. A `step` body is stepped (up to three times) in an episode of the
//! environment's first example.
//!
//! Invariants: no panic; a rejected request is a client error, never
//! `internal` (HTTP 500); every score is finite and its total is
//! Σ weight × value; responses serialise to JSON.
//!
//! Environment arguments that read the disk or run programs
//! (`policy_dirs`, `semgrep_config`, a non-native `backend`) are not
//! fuzzed: the server refuses them unless its operator allowed them.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};
use svbench_api::envs::{EnvConfig, EnvId};
use svbench_api::score::{ScoreRequest, ScoreResponse};
use svbench_api::service::{ResetRequest, ScoreBatchRequest};
use svbench_api::session::Session;
use svbench_api::{ApiError, ErrorCode};

/// Mirror of the body of `POST /v1/episodes/{id}/step`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepRequest {
    message: Value,
}

/// One input: header line and JSON body.
pub fn run(data: &[u8]) {
    let Some(text) = crate::utf8(data) else {
        return;
    };
    let (header, body) = crate::split_line(text);
    let mut words = header.split_whitespace();
    let route = words.next().unwrap_or("");
    let env = words.next().unwrap_or("e1");
    let result = match route {
        "score" => {
            let Ok(req) = serde_json::from_str::<ScoreRequest>(body) else {
                return;
            };
            if touches_host(req.env_args.as_ref()) {
                return;
            }
            crate::service()
                .score(env, &req)
                .map(|r| check_response(&r))
        }
        "batch" => {
            let Ok(req) = serde_json::from_str::<ScoreBatchRequest>(body) else {
                return;
            };
            if req.items.iter().any(|i| touches_host(i.env_args.as_ref())) {
                return;
            }
            crate::service().score_batch(env, &req).map(|r| {
                assert_eq!(r.results.len(), req.items.len());
                r.results.iter().for_each(check_response);
                if let Some(a) = &r.advantages {
                    assert_eq!(a.len(), req.items.len());
                    assert!(a.iter().all(|x| x.is_finite()), "advantages {a:?}");
                }
                serde_json::to_string(&r).expect("batch response serialises");
            })
        }
        "reset" => {
            let Ok(req) = serde_json::from_str::<ResetRequest>(body) else {
                return;
            };
            if touches_host(req.env_args()) {
                return;
            }
            reset(env, req).map(|s| {
                assert!(!s.done());
                assert_eq!(s.turn(), 0);
            })
        }
        "step" => {
            let Ok(req) = serde_json::from_str::<StepRequest>(body) else {
                return;
            };
            step(env, &req.message)
        }
        _ => return,
    };
    if let Err(e) = result {
        assert!(
            e.code != ErrorCode::Internal,
            "a request answered 500 internal: {}",
            e.message
        );
    }
}

/// Whether the arguments would make the server read its disk or run a
/// program (refused over HTTP unless allowed at start-up).
fn touches_host(args: Option<&Map<String, Value>>) -> bool {
    args.is_some_and(|m| {
        m.contains_key("policy_dirs")
            || m.contains_key("semgrep_config")
            || m.get("backend")
                .is_some_and(|b| b.as_str() != Some("native"))
    })
}

/// The reset route's work, as the route does it.
fn reset(env: &str, req: ResetRequest) -> Result<Session, ApiError> {
    crate::service().start_episode(EnvId::resolve(env)?, req)
}

/// The step route's work, on a fresh episode of the first example.
fn step(env: &str, message: &Value) -> Result<(), ApiError> {
    let id = EnvId::resolve(env)?;
    let configured = crate::service().configured(id, &EnvConfig::default())?;
    let data = crate::service().split(&configured, id.default_split())?;
    let example = data.by_index(0)?.clone();
    let mut session = Session::start(Arc::clone(&configured), example);
    for _ in 0..3 {
        if session.done() {
            break;
        }
        let outcome = session.step(message)?;
        assert_eq!(outcome.done, session.done());
        if let Some(r) = &outcome.reward {
            check_response(r);
        }
        for m in &outcome.messages {
            serde_json::to_string(m).expect("step message serialises");
        }
    }
    Ok(())
}

/// A score response is finite, its total is its weighted sum, and it
/// serialises.
pub fn check_response(r: &ScoreResponse) {
    assert!(r.reward.is_finite(), "total reward {}", r.reward);
    let mut sum = 0.0;
    let mut scale = 0.0;
    for (name, value) in &r.rewards {
        let weight = r.weights.get(name).copied().unwrap_or_else(|| {
            panic!("component {name} has no weight");
        });
        assert!(
            value.is_finite() && weight.is_finite(),
            "{name} = {value} × {weight}"
        );
        sum += weight * value;
        scale += (weight * value).abs();
    }
    assert!(
        (sum - r.reward).abs() <= 1e-9 * scale.max(1.0),
        "total {} is not Σ weight × value = {sum} ({:?})",
        r.reward,
        r.rewards
    );
    serde_json::to_string(r).expect("score response serialises");
}
