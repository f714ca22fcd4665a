//! `GET /v1/openapi.json`: an OpenAPI 3.1 description of the routes whose
//! request and response schemas are generated from the very types the
//! handlers (de)serialise; the few bodies built ad hoc (row pages, episode
//! status, errors) are described here by hand.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{json, Map, Value};
use svbench_api::envs::EnvInfo;
use svbench_api::rows::Row;
use svbench_api::score::{ScoreRequest, ScoreResponse};
use svbench_api::service::{ResetRequest, ScoreBatchRequest, ScoreBatchResponse};
use svbench_api::session::ToolInteraction;

use crate::routes::StepRequest;

fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Value {
    generator.subschema_for::<T>().to_value()
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

fn ok(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": json_content(schema)})
}

fn error_ref() -> Value {
    json!({"$ref": "#/components/responses/Error"})
}

fn param(name: &str, location: &str, schema: Value, required: bool) -> Value {
    json!({"name": name, "in": location, "required": required, "schema": schema})
}

/// The document.
#[must_use]
pub fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .into_generator();
    let score_req = schema::<ScoreRequest>(&mut generator);
    let score_resp = schema::<ScoreResponse>(&mut generator);
    let batch_req = schema::<ScoreBatchRequest>(&mut generator);
    let batch_resp = schema::<ScoreBatchResponse>(&mut generator);
    let env_info = schema::<EnvInfo>(&mut generator);
    let row = schema::<Row>(&mut generator);
    let reset_req = schema::<ResetRequest>(&mut generator);
    let step_req = schema::<StepRequest>(&mut generator);
    let tool_interaction = schema::<ToolInteraction>(&mut generator);
    let mut schemas: Map<String, Value> = generator.take_definitions(true);
    schemas.insert(
        "ErrorBody".into(),
        json!({"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["code", "message", "details"],
        "properties": {
            "code": {"type": "string", "enum": [
                "bad_request", "invalid_env_args", "unauthorized", "unknown_env", "unknown_split",
                "unknown_example", "episode_not_found", "episode_busy", "episode_done",
                "episode_expired", "payload_too_large", "episode_too_large", "dataset_error", "internal",
                "capacity_exhausted", "timeout", "not_found", "method_not_allowed"]},
            "message": {"type": "string"},
            "details": {}
        }}}}),
    );
    let env_p = param("env", "path", json!({"type": "string"}), true);
    let split_p = param("split", "path", json!({"type": "string"}), true);
    let id_p = param("id", "path", json!({"type": "string"}), true);
    let errors = |codes: &[&str]| -> Map<String, Value> {
        codes
            .iter()
            .map(|c| ((*c).to_string(), error_ref()))
            .collect()
    };
    let with = |mut base: Map<String, Value>, code: &str, resp: Value| {
        base.insert(code.to_string(), resp);
        Value::Object(base)
    };
    let episode_status = json!({"type": "object", "properties": {
        "episode_id": {"type": "string"}, "env": {"type": "string"}, "example_id": {"type": "string"},
        "turn": {"type": "integer"}, "done": {"type": "boolean"}, "expires_at": {"type": "string"}}});
    let reset_resp = json!({"type": "object", "properties": {
        "episode_id": {"type": "string"}, "example_id": {"type": "string"},
        "observation": {"type": "object", "properties": {"messages": {"type": "array"}}},
        "tools": {"type": "array"}, "max_turns": {"type": "integer"}, "tool_budget": {"type": "integer"},
        "expires_at": {"type": "string"}}});
    let step_resp = json!({"type": "object", "properties": {
        "observation": {"type": "object", "properties": {"messages": {"type": "array"}}},
        "done": {"type": "boolean"}, "turn": {"type": "integer"}, "truncated": {"type": "boolean"},
        "tool_interactions": {"type": "array", "items": tool_interaction},
        "reward": score_resp.clone()},
        "required": ["observation", "done", "turn", "truncated", "tool_interactions"]});
    let page = json!({"type": "object", "properties": {
        "env": {"type": "string"}, "split": {"type": "string"}, "dataset_sha256": {"type": "string"},
        "total": {"type": "integer"}, "offset": {"type": "integer"},
        "rows": {"type": "array", "items": row.clone()}}});
    let common = ["400", "401", "404", "413", "500", "504"];
    json!({
        "openapi": "3.1.0",
        "info": {"title": "svbench serve", "version": env!("CARGO_PKG_VERSION"),
            "description": "Catalogue, dataset rows, stateless scoring and episodes of svbench environments."},
        "paths": {
            "/healthz": {"get": {"responses": {"200": ok("alive", json!({"type": "object"}))}}},
            "/readyz": {"get": {"responses": {"200": ok("loaded", json!({"type": "object"})),
                "503": ok("still loading", json!({"type": "object"}))}}},
            "/metrics": {"get": {"responses": {"200": {"description": "Prometheus text exposition",
                "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
            "/v1/openapi.json": {"get": {"responses": {"200": ok("this document", json!({"type": "object"}))}}},
            "/v1/envs": {"get": {"responses": with(errors(&["401"]), "200",
                ok("every served environment", json!({"type": "object", "properties": {"envs": {"type": "array", "items": env_info.clone()}}})))}},
            "/v1/envs/{env}": {"get": {"parameters": [env_p.clone()],
                "responses": with(errors(&["401", "404"]), "200", ok("one environment", env_info))}},
            "/v1/envs/{env}/splits/{split}/rows": {"get": {
                "parameters": [env_p.clone(), split_p.clone(),
                    param("offset", "query", json!({"type": "integer", "minimum": 0}), false),
                    param("limit", "query", json!({"type": "integer", "minimum": 0, "maximum": 1000}), false),
                    param("include_answer", "query", json!({"type": "boolean"}), false)],
                "responses": with(errors(&["400", "401", "404"]), "200", ok("a page of rows", page))}},
            "/v1/envs/{env}/splits/{split}/rows/{index}": {"get": {
                "parameters": [env_p.clone(), split_p, param("index", "path", json!({"type": "integer"}), true),
                    param("include_answer", "query", json!({"type": "boolean"}), false)],
                "responses": with(errors(&["400", "401", "404"]), "200", ok("one row", row))}},
            "/v1/envs/{env}/score": {"post": {"parameters": [env_p.clone()],
                "requestBody": {"required": true, "content": json_content(score_req)},
                "responses": with(errors(&common), "200", ok("the score", score_resp))}},
            "/v1/envs/{env}/score_batch": {"post": {"parameters": [env_p.clone()],
                "requestBody": {"required": true, "content": json_content(batch_req)},
                "responses": with(errors(&common), "200", ok("scores and advantages", batch_resp))}},
            "/v1/envs/{env}/episodes": {"post": {"parameters": [env_p],
                "requestBody": {"required": true, "content": json_content(reset_req)},
                "responses": with(errors(&["400", "401", "404", "413", "500", "503", "504"]), "201", ok("a new episode", reset_resp))}},
            "/v1/episodes/{id}/step": {"post": {"parameters": [id_p.clone()],
                "requestBody": {"required": true, "content": json_content(step_req)},
                "responses": with(errors(&["400", "401", "404", "409", "410", "413", "500", "504"]), "200", ok("the step", step_resp))}},
            "/v1/episodes/{id}": {
                "get": {"parameters": [id_p.clone()],
                    "responses": with(errors(&["401", "404", "410"]), "200", ok("episode status", episode_status))},
                "delete": {"parameters": [id_p],
                    "responses": with(errors(&["401", "404", "410"]), "204", json!({"description": "dropped"}))}}
        },
        "components": {
            "schemas": schemas,
            "responses": {"Error": {"description": "an error", "content": json_content(json!({"$ref": "#/components/schemas/ErrorBody"}))}},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                "description": "required on every route but /healthz and /readyz when the server runs with --auth-token-env"}}
        }
    })
}
