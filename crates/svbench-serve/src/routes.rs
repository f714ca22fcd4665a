//! The route handlers of §6. Each resolves its environment among the served
//! ones, calls `svbench-api`, and answers JSON. Every piece of work that
//! reads a split or scores (scores, batches, rows, resets, steps) runs on
//! the bounded worker pool ([`AppState::run_blocking`]) with the request's
//! deadline, so the async threads stay free for health checks and metrics,
//! which never wait for a turn.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use svbench_api::envs::EnvConfig;
use svbench_api::rows::row;
use svbench_api::score::ScoreRequest;
use svbench_api::service::{ResetRequest, ScoreBatchRequest};
use svbench_api::session::{value_bytes, Session, StepOutcome};
use svbench_api::{ApiError, Deadline, ErrorCode};

use crate::body::{JsonBody, JsonBytes, Params, QueryParams};
use crate::error::HttpError;
use crate::state::AppState;

type AppResult = Result<Response, HttpError>;
type St = State<Arc<AppState>>;

/// Rows per page at most.
pub const MAX_ROWS_LIMIT: usize = 1000;

/// `GET /healthz`.
pub async fn healthz() -> Response {
    Json(json!({"status": "ok"})).into_response()
}

/// `GET /readyz`: 200 once the catalogue and splits are loaded.
pub async fn readyz(State(state): St) -> Response {
    if state.is_ready() {
        Json(json!({"status": "ready"})).into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "loading"})),
        )
            .into_response()
    }
}

/// `GET /metrics`.
pub async fn metrics(State(state): St) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state
            .metrics
            .render(state.episodes.live(), state.episodes.total_bytes()),
    )
        .into_response()
}

async fn catalog(state: &Arc<AppState>) -> Result<Vec<Value>, HttpError> {
    if state.is_ready() {
        return Ok(state.catalog()?.to_vec());
    }
    let st = Arc::clone(state);
    Ok(state
        .run_blocking(move || st.catalog().map(<[Value]>::to_vec))
        .await??)
}

/// `GET /v1/openapi.json`.
pub async fn openapi() -> Response {
    Json(crate::openapi::document()).into_response()
}

/// `GET /v1/envs`.
pub async fn list_envs(State(state): St) -> AppResult {
    Ok(Json(json!({"envs": catalog(&state).await?})).into_response())
}

/// `GET /v1/envs/{env}`.
pub async fn get_env(State(state): St, Params(env): Params<String>) -> AppResult {
    let id = state.env(&env)?;
    let pos = state
        .config
        .envs
        .iter()
        .position(|e| *e == id)
        .ok_or_else(|| HttpError::internal("served environment missing from the catalogue"))?;
    let entry = catalog(&state)
        .await?
        .into_iter()
        .nth(pos)
        .ok_or_else(|| HttpError::internal("served environment missing from the catalogue"))?;
    Ok(Json(entry).into_response())
}

/// Query of `GET .../rows`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowsQuery {
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    include_answer: Option<bool>,
}

/// `GET /v1/envs/{env}/splits/{split}/rows`.
pub async fn rows(
    State(state): St,
    Params((env, split)): Params<(String, String)>,
    QueryParams(q): QueryParams<RowsQuery>,
) -> AppResult {
    let id = state.env(&env)?;
    let offset = q.offset.unwrap_or(0);
    let limit = q.limit.unwrap_or(100);
    if limit > MAX_ROWS_LIMIT {
        return Err(HttpError::bad_request(format!(
            "limit {limit} is over the maximum of {MAX_ROWS_LIMIT}"
        )));
    }
    let include_answer = q.include_answer.unwrap_or(false);
    let service = Arc::clone(&state.service);
    let body = state
        .run_blocking(move || -> Result<Value, HttpError> {
            let configured = service.configured(id, &EnvConfig::default())?;
            let data = service.split(&configured, &split)?;
            let rows: Vec<_> = data
                .examples
                .iter()
                .skip(offset)
                .take(limit)
                .map(|e| row(&configured, e, include_answer))
                .collect();
            Ok(json!({
                "env": id.name(),
                "split": data.split,
                "dataset_sha256": data.dataset_sha256,
                "total": data.examples.len(),
                "offset": offset,
                "rows": rows,
            }))
        })
        .await??;
    Ok(Json(body).into_response())
}

/// Query of `GET .../rows/{index}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowQuery {
    #[serde(default)]
    include_answer: Option<bool>,
}

/// `GET /v1/envs/{env}/splits/{split}/rows/{index}`.
pub async fn one_row(
    State(state): St,
    Params((env, split, index)): Params<(String, String, String)>,
    QueryParams(q): QueryParams<RowQuery>,
) -> AppResult {
    let id = state.env(&env)?;
    let index: usize = index.parse().map_err(|_| {
        HttpError::bad_request(format!("row index `{index}` is not a non-negative integer"))
    })?;
    let include_answer = q.include_answer.unwrap_or(false);
    let service = Arc::clone(&state.service);
    // The split may load here (the first request after start-up): off the
    // async threads.
    let body = state
        .run_blocking(move || -> Result<Value, HttpError> {
            let configured = service.configured(id, &EnvConfig::default())?;
            let data = service.split(&configured, &split)?;
            let example = data.by_index(index)?;
            serde_json::to_value(row(&configured, example, include_answer))
                .map_err(|e| HttpError::internal(e.to_string()))
        })
        .await??;
    Ok(Json(body).into_response())
}

/// Scoring stops at `--request-timeout` (counted from the handler's start),
/// so a request answered 504 does not keep a scoring slot busy afterwards.
fn request_deadline(state: &AppState) -> Deadline {
    let limit = state.config.request_timeout;
    Deadline::at(Instant::now() + limit, limit)
}

/// `POST /v1/envs/{env}/score`.
pub async fn score(State(state): St, Params(env): Params<String>, body: JsonBytes) -> AppResult {
    let id = state.env(&env)?;
    let deadline = request_deadline(&state);
    json_job(&state, body, move |st, req: ScoreRequest| {
        let scored = st.service.score_within(id.name(), &req, deadline)?;
        st.metrics.scores(id.name(), &scored.reward_profile, 1);
        Ok(scored)
    })
    .await
}

/// `POST /v1/envs/{env}/score_batch`.
pub async fn score_batch(
    State(state): St,
    Params(env): Params<String>,
    body: JsonBytes,
) -> AppResult {
    let id = state.env(&env)?;
    let deadline = request_deadline(&state);
    json_job(&state, body, move |st, req: ScoreBatchRequest| {
        let scored = st.service.score_batch_within(id.name(), &req, deadline)?;
        for r in &scored.results {
            st.metrics.scores(id.name(), &r.reward_profile, 1);
        }
        Ok(scored)
    })
    .await
}

/// Runs `work` on the request's parsed body on the worker pool and answers
/// its value as JSON. Every score goes through here, E1 too: a score's cost
/// follows its input (E4 reads the whole email), so none runs on the async
/// threads. The body is parsed and the answer written on the worker as
/// well (both grow with the input); the body comes back to be freed here,
/// on the thread that allocated it, which glibc's allocator does cheaply.
async fn json_job<Req, Out>(
    state: &Arc<AppState>,
    body: JsonBytes,
    work: impl FnOnce(&AppState, Req) -> Result<Out, HttpError> + Send + 'static,
) -> AppResult
where
    Req: serde::de::DeserializeOwned,
    Out: serde::Serialize,
{
    let st = Arc::clone(state);
    let (answer, body) = state
        .run_blocking(move || {
            let answer = body
                .parse()
                .and_then(|req| work(&st, req))
                .and_then(|out| json_bytes(&out));
            (answer, body)
        })
        .await?;
    drop(body);
    Ok(json_response(answer?))
}

/// A value as a JSON body.
fn json_bytes<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, HttpError> {
    serde_json::to_vec(value).map_err(|e| HttpError::internal(format!("writing the answer: {e}")))
}

/// A 200 answer with a JSON body written already.
fn json_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `POST /v1/envs/{env}/episodes` (reset) → 201.
pub async fn reset(
    State(state): St,
    Params(env): Params<String>,
    JsonBody(req): JsonBody<ResetRequest>,
) -> AppResult {
    let id = state.env(&env)?;
    let limits = state.config.episodes;
    // Refused before anything is configured (or cached) for them.
    within_limit(
        "max_turns",
        req.max_turns(),
        limits.max_turns,
        "--max-turns-limit",
    )?;
    within_limit(
        "tool_budget",
        req.tool_budget(),
        limits.tool_budget,
        "--tool-budget-limit",
    )?;
    let service = Arc::clone(&state.service);
    let session = state
        .run_blocking(move || -> Result<Session, HttpError> {
            let session = service.start_episode(id, req)?;
            // The environment's defaults, when the request named none.
            let budgets = session.configured().budgets;
            within_limit(
                "max_turns",
                Some(budgets.max_turns),
                limits.max_turns,
                "--max-turns-limit",
            )?;
            within_limit(
                "tool_budget",
                Some(budgets.tool_budget),
                limits.tool_budget,
                "--tool-budget-limit",
            )?;
            session
                .with_limits(limits.session())
                .map_err(|e| flagged(e, "--max-episode-bytes"))
        })
        .await??;
    state.episode_gate().await;
    let budgets = session.configured().budgets;
    let body = json!({
        "example_id": session.example().id,
        "observation": {"messages": session.prompt()},
        "tools": session.tools(),
        "max_turns": budgets.max_turns,
        "tool_budget": budgets.tool_budget,
    });
    let (slot, evicted) = state.episodes.insert(id, session)?;
    record_evictions(&state, &evicted);
    state.metrics.episode(id.name(), "created");
    let mut body = body;
    if let Value::Object(m) = &mut body {
        m.insert("episode_id".into(), json!(slot.id));
        m.insert("expires_at".into(), json!(state.episodes.expires_at(&slot)));
    }
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// Body of `POST /v1/episodes/{id}/step`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepRequest {
    /// `{role: "assistant", content, tool_calls?}`.
    message: Value,
}

/// `POST /v1/episodes/{id}/step`.
pub async fn step(
    State(state): St,
    Params(episode_id): Params<String>,
    JsonBody(req): JsonBody<StepRequest>,
) -> AppResult {
    let slot = state
        .episodes
        .get(&episode_id, true)
        .map_err(|m| m.error(&episode_id))?;
    let mut guard = Arc::clone(&slot.session).try_lock_owned().map_err(|_| {
        HttpError::api(
            ErrorCode::EpisodeBusy,
            format!("another step of episode `{episode_id}` is running"),
        )
    })?;
    if guard.done() {
        return Err(HttpError::api(
            ErrorCode::EpisodeDone,
            format!("episode `{episode_id}` has ended"),
        ));
    }
    if !slot.is_live() {
        // Deleted or evicted between the lookup and the lock.
        return Err(state.episodes.missing(&episode_id).error(&episode_id));
    }
    state.episode_gate().await;
    let deadline = request_deadline(&state);
    let st = Arc::clone(&state);
    let slot_for_work = Arc::clone(&slot);
    // Everything from the step's memory grant on (slot state, memory,
    // metrics) happens on the worker, so it is recorded even when the client
    // has gone, and a step still waiting for a worker holds no bytes.
    let outcome = state
        .run_blocking(move || -> Result<StepOutcome, HttpError> {
            // Bytes for the step from the episodes' total (evicting idle
            // episodes when it is full); the step may grow the episode by at
            // most that.
            let (grant, evicted) = st
                .episodes
                .reserve(&slot_for_work, value_bytes(&req.message))?;
            record_evictions(&st, &evicted);
            let limit = guard.held_bytes().saturating_add(grant.bytes());
            let result = guard.step_within(&req.message, deadline, limit);
            st.episodes
                .settle(&slot_for_work, grant, guard.held_bytes());
            let outcome = result.map_err(|e| step_error(&st, e))?;
            slot_for_work.record_step(outcome.turn, outcome.done);
            st.episodes.touch(&slot_for_work);
            record_step_metrics(&st, &guard, &outcome);
            drop(guard);
            Ok(outcome)
        })
        .await??;
    let mut body = json!({
        "observation": {"messages": outcome.messages},
        "done": outcome.done,
        "turn": outcome.turn,
        "truncated": outcome.truncated,
        "tool_interactions": outcome.tool_interactions,
    });
    if let (Some(reward), Value::Object(m)) = (outcome.reward, &mut body) {
        m.insert(
            "reward".into(),
            serde_json::to_value(reward).map_err(|e| HttpError::internal(e.to_string()))?,
        );
    }
    Ok(Json(body).into_response())
}

/// A budget a reset asks for, within the server's limit.
fn within_limit(name: &str, asked: Option<u32>, limit: u32, flag: &str) -> Result<(), HttpError> {
    match asked {
        Some(n) if n > limit => Err(HttpError::Api(
            ApiError::bad_request(format!(
                "{name} {n} is over this server's limit of {limit} ({flag}); ask for at most {limit}"
            ))
            .with_details(json!({"field": name, "requested": n, "limit": limit})),
        )),
        _ => Ok(()),
    }
}

/// Names the flag that sets the limit an error is about.
fn flagged(e: ApiError, flag: &str) -> HttpError {
    let message = format!("{} ({flag})", e.message);
    HttpError::Api(ApiError { message, ..e })
}

/// A step's error as answered: over the episode's own budget is 413
/// `episode_too_large`; over what the server's total could grant (the
/// episode's own budget would have allowed it) is 503 `capacity_exhausted`.
fn step_error(state: &AppState, e: ApiError) -> HttpError {
    let limits = &state.config.episodes;
    match e.code {
        ErrorCode::EpisodeTooLarge => {
            let needed = e.details["needed"]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(usize::MAX);
            if needed <= limits.max_episode_bytes {
                crate::episodes::memory_full(
                    state.episodes.total_bytes(),
                    needed.saturating_sub(
                        e.details["held"]
                            .as_u64()
                            .map_or(0, |h| usize::try_from(h).unwrap_or(usize::MAX)),
                    ),
                    limits.max_total_bytes,
                    false,
                )
            } else {
                flagged(e, "--max-episode-bytes")
            }
        }
        ErrorCode::PayloadTooLarge => flagged(e, "--max-message-bytes"),
        _ => e.into(),
    }
}

/// Counts episodes evicted to make room.
fn record_evictions(state: &AppState, evicted: &[Arc<crate::episodes::Slot>]) {
    for slot in evicted {
        state.metrics.eviction("memory");
        state.metrics.episode(slot.env.name(), "evicted");
    }
}

fn record_step_metrics(state: &AppState, session: &Session, outcome: &StepOutcome) {
    let env = session.configured().entry.name();
    // Tool names come from the model: only offered tools get their own
    // label, so the series count stays bounded.
    let offered: HashSet<&str> = session
        .tools()
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .collect();
    for i in &outcome.tool_interactions {
        let tool = if offered.contains(i.tool.as_str()) {
            i.tool.as_str()
        } else {
            "unknown"
        };
        state
            .metrics
            .tool_call(env, tool, i.ok, i.duration_ms / 1000.0);
    }
    if let Some(reward) = &outcome.reward {
        state.metrics.scores(env, &reward.reward_profile, 1);
        let how = if outcome.truncated {
            "truncated"
        } else {
            "done"
        };
        state.metrics.episode(env, how);
    }
}

/// `GET /v1/episodes/{id}`.
pub async fn get_episode(State(state): St, Params(episode_id): Params<String>) -> AppResult {
    let slot = state
        .episodes
        .get(&episode_id, false)
        .map_err(|m| m.error(&episode_id))?;
    Ok(Json(json!({
        "episode_id": slot.id,
        "env": slot.env.name(),
        "example_id": slot.example_id,
        "turn": slot.turn(),
        "done": slot.done(),
        "expires_at": state.episodes.expires_at(&slot),
    }))
    .into_response())
}

/// `DELETE /v1/episodes/{id}` → 204.
pub async fn delete_episode(State(state): St, Params(episode_id): Params<String>) -> AppResult {
    let slot = state
        .episodes
        .remove(&episode_id)
        .map_err(|m| m.error(&episode_id))?;
    state.metrics.episode(slot.env.name(), "deleted");
    Ok(StatusCode::NO_CONTENT.into_response())
}
