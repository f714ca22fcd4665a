//! The route handlers of §6. Each resolves its environment among the served
//! ones, calls `svbench-api`, and answers JSON; CPU work (scoring that can
//! scan configs, tool calls, bulk rows) runs on blocking threads so the
//! runtime keeps answering.

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
use svbench_api::session::{Session, StepOutcome};
use svbench_api::{Deadline, ErrorCode};

use crate::body::{JsonBody, Params, QueryParams};
use crate::error::HttpError;
use crate::state::AppState;

type AppResult = Result<Response, HttpError>;
type St = State<Arc<AppState>>;

/// Rows per page at most.
pub const MAX_ROWS_LIMIT: usize = 1000;

/// Runs CPU work on a blocking thread. If the client goes away the work
/// still finishes there and drops what it holds (an episode lock included).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, HttpError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| HttpError::internal(format!("worker failed: {e}")))
}

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
        state.metrics.render(state.episodes.live()),
    )
        .into_response()
}

async fn catalog(state: &Arc<AppState>) -> Result<Vec<Value>, HttpError> {
    if state.is_ready() {
        return Ok(state.catalog()?.to_vec());
    }
    let st = Arc::clone(state);
    Ok(blocking(move || st.catalog().map(<[Value]>::to_vec)).await??)
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
    let body = blocking(move || -> Result<Value, HttpError> {
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
    let configured = state.service.configured(id, &EnvConfig::default())?;
    let data = state.service.split(&configured, &split)?;
    let example = data.by_index(index)?;
    Ok(Json(row(&configured, example, q.include_answer.unwrap_or(false))).into_response())
}

/// Scoring stops at `--request-timeout` (counted from the handler's start),
/// so a request answered 504 does not keep a scoring slot busy afterwards.
fn request_deadline(state: &AppState) -> Deadline {
    let limit = state.config.request_timeout;
    Deadline::at(Instant::now() + limit, limit)
}

/// `POST /v1/envs/{env}/score`.
pub async fn score(
    State(state): St,
    Params(env): Params<String>,
    JsonBody(req): JsonBody<ScoreRequest>,
) -> AppResult {
    let id = state.env(&env)?;
    // Cheap scoring (E1: microseconds) would cost more in a hop to a
    // blocking thread than the work; analyzers (E2) move off the runtime.
    let scored = if id.entry().cheap_scoring {
        state.service.score(id.name(), &req)?
    } else {
        let service = Arc::clone(&state.service);
        let deadline = request_deadline(&state);
        let _permit = state.cpu_permit().await?;
        blocking(move || service.score_within(id.name(), &req, deadline)).await??
    };
    state.metrics.scores(id.name(), &scored.reward_profile, 1);
    Ok(Json(scored).into_response())
}

/// `POST /v1/envs/{env}/score_batch`.
pub async fn score_batch(
    State(state): St,
    Params(env): Params<String>,
    JsonBody(req): JsonBody<ScoreBatchRequest>,
) -> AppResult {
    let id = state.env(&env)?;
    let service = Arc::clone(&state.service);
    let deadline = request_deadline(&state);
    let _permit = state.cpu_permit().await?;
    let scored = blocking(move || service.score_batch_within(id.name(), &req, deadline)).await??;
    for r in &scored.results {
        state.metrics.scores(id.name(), &r.reward_profile, 1);
    }
    Ok(Json(scored).into_response())
}

/// `POST /v1/envs/{env}/episodes` (reset) → 201.
pub async fn reset(
    State(state): St,
    Params(env): Params<String>,
    JsonBody(req): JsonBody<ResetRequest>,
) -> AppResult {
    let id = state.env(&env)?;
    let service = Arc::clone(&state.service);
    let session = blocking(move || service.start_episode(id, req)).await??;
    state.episode_gate().await;
    let budgets = session.configured().budgets;
    let body = json!({
        "example_id": session.example().id,
        "observation": {"messages": session.prompt()},
        "tools": session.tools(),
        "max_turns": budgets.max_turns,
        "tool_budget": budgets.tool_budget,
    });
    let slot = state.episodes.insert(id, session)?;
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
    state.episode_gate().await;
    let st = Arc::clone(&state);
    let slot_for_work = Arc::clone(&slot);
    // Everything after the step (slot state, metrics) happens on the worker,
    // so it is recorded even when the client has gone.
    let outcome = blocking(move || -> Result<StepOutcome, HttpError> {
        let outcome = guard.step(&req.message)?;
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
