//! JSON Schemas of the run artifacts, generated from the Rust types
//! (harness §4.3) and committed under `docs/schemas/`.

use schemars::JsonSchema;
use serde_json::{json, Map, Value};
use svbench_core::compare::Comparison;
use svbench_core::identity::EnvIdentity;
use svbench_core::manifest::RunManifest;
use svbench_core::record::{ResultRecord, RunMetadata};
use svbench_core::summary::{GenericMetrics, Summary};

use crate::plugin::{EnvSchemas, Registered};

/// Artifacts with a generated schema.
pub const SCHEMA_NAMES: [&str; 6] = [
    "summary",
    "metadata",
    "result",
    "manifest",
    "scoreboard",
    "compare",
];

/// The environments whose parts the artifacts' schemas are composed of
/// (each environment's own types, and its scoreboard entry).
pub type Envs<'a> = &'a [Registered];

/// The schema of an artifact by name (see [`SCHEMA_NAMES`]), composed of
/// the environments' parts.
pub fn schema(name: &str, envs: Envs<'_>) -> Option<Value> {
    match name {
        "summary" => Some(summary(envs)),
        "metadata" => Some(generate::<RunMetadata>()),
        "result" => Some(result(envs)),
        "manifest" => Some(generate::<RunManifest>()),
        "scoreboard" => Some(scoreboard(envs)),
        "compare" => Some(generate::<Comparison>()),
        _ => None,
    }
}

/// The schema as committed: pretty JSON with a trailing newline.
pub fn schema_text(name: &str, envs: Envs<'_>) -> Option<String> {
    let v = schema(name, envs)?;
    let mut s = serde_json::to_string_pretty(&v).ok()?;
    s.push('\n');
    Some(s)
}

fn generate<T: JsonSchema>() -> Value {
    let schema = schemars::schema_for!(T);
    schema.to_value()
}

/// A scoreboard: an array whose items are any environment's entry, each
/// entry type under `$defs` by its name.
fn scoreboard(envs: Envs<'_>) -> Value {
    let mut defs = serde_json::Map::new();
    let mut any_of = Vec::new();
    let boards = envs
        .iter()
        .filter_map(|(identity, plugin)| Some((identity, plugin.board()?)));
    for (identity, board) in boards {
        let Value::Object(mut entry) = board.entry_schema() else {
            continue;
        };
        entry.remove("$schema");
        if let Some(Value::Object(inner)) = entry.remove("$defs") {
            defs.extend(inner);
        }
        let name = entry
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or(identity.short)
            .to_string();
        any_of.push(serde_json::json!({
            "$ref": format!("#/$defs/{name}"),
            "description": format!("{} (`{}`).", identity.short.to_uppercase(), identity.name),
        }));
        defs.insert(name, Value::Object(entry));
    }
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Scoreboard",
        "description": "A scoreboard file: one entry per run, sorted by (baseline, model, dataset, run_id). The board's environment decides the entry's type.",
        "type": "array",
        "items": { "anyOf": any_of },
        "$defs": defs,
    })
}

/// Adds an environment's schema to `defs` (its own `$defs` merged in) and
/// returns a reference to it, described as the environment's.
fn add_def(defs: &mut Map<String, Value>, identity: &EnvIdentity, schema: &Value) -> Value {
    let description = format!("{} (`{}`).", identity.short.to_uppercase(), identity.name);
    add_named_def(defs, identity.short, schema, description)
}

/// Adds a schema to `defs` under its title (else `fallback`) and returns a
/// reference to it with `description`.
fn add_named_def(
    defs: &mut Map<String, Value>,
    fallback: &str,
    schema: &Value,
    description: String,
) -> Value {
    let mut schema = schema.clone();
    let name = schema
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or(fallback)
        .to_string();
    if let Value::Object(obj) = &mut schema {
        obj.remove("$schema");
        if let Some(Value::Object(inner)) = obj.remove("$defs") {
            defs.extend(inner);
        }
    }
    defs.insert(name.clone(), schema);
    json!({
        "$ref": format!("#/$defs/{name}"),
        "description": description,
    })
}

/// The environments' schemas of one part, as references in `defs`.
fn alternatives(
    envs: Envs<'_>,
    defs: &mut Map<String, Value>,
    part: impl Fn(&EnvSchemas) -> Option<Value>,
) -> Vec<Value> {
    envs.iter()
        .filter_map(|(identity, plugin)| Some(add_def(defs, identity, &part(&plugin.schemas())?)))
        .collect()
}

/// Replaces `properties.<key>` by any of `alternatives` (keeping its
/// description), `null` allowed when `nullable`.
fn set_alternatives(schema: &mut Value, key: &str, mut alternatives: Vec<Value>, nullable: bool) {
    let Some(prop) = schema.pointer_mut(&format!("/properties/{key}")) else {
        return;
    };
    if nullable {
        alternatives.push(json!({"type": "null"}));
    }
    let description = prop.get("description").cloned();
    let mut composed = json!({ "anyOf": alternatives });
    if let Some(d) = description {
        composed["description"] = d;
    }
    *prop = composed;
}

/// `Summary` with `metrics`, `upstream_compat` and the environments'
/// top-level objects composed of the environments' types.
fn summary(envs: Envs<'_>) -> Value {
    let mut schema = generate::<Summary>();
    let mut defs = take_defs(&mut schema);
    let mut metrics = alternatives(envs, &mut defs, |s| s.metrics.clone());
    metrics.push(add_named_def(
        &mut defs,
        "GenericMetrics",
        &generate::<GenericMetrics>(),
        "An environment without a report plugin of its own.".to_string(),
    ));
    set_alternatives(&mut schema, "metrics", metrics, false);
    let upstream = alternatives(envs, &mut defs, |s| s.upstream_compat.clone());
    set_alternatives(&mut schema, "upstream_compat", upstream, true);
    let mut keys: Vec<&'static str> = Vec::new();
    for (_, plugin) in envs {
        for (key, _) in plugin.schemas().extensions {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    for key in keys {
        let found = alternatives(envs, &mut defs, |s| {
            s.extensions
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
        });
        schema["properties"][key] = json!({
            "anyOf": found,
            "description": "An object the environment adds at the top level.",
        });
    }
    schema["$defs"] = Value::Object(defs);
    schema
}

/// `ResultRecord` with `parsed` and the compatibility fields composed of
/// the environments' types.
fn result(envs: Envs<'_>) -> Value {
    let mut schema = generate::<ResultRecord>();
    let mut defs = take_defs(&mut schema);
    let parsed = alternatives(envs, &mut defs, |s| s.parsed.clone());
    set_alternatives(&mut schema, "parsed", parsed, true);
    // The compatibility fields sit at the top level: each environment's
    // object schema is one way the record may look.
    let compat = alternatives(envs, &mut defs, |s| s.compat.clone());
    if let Value::Object(obj) = &mut schema {
        obj.remove("anyOf");
        obj.remove("allOf");
        if !compat.is_empty() {
            let mut ways = compat;
            ways.push(
                json!({"description": "No compatibility fields (errored samples, other writers)."}),
            );
            obj.insert("anyOf".into(), Value::Array(ways));
        }
    }
    schema["$defs"] = Value::Object(defs);
    schema
}

/// A schema's `$defs`, taken out of it.
fn take_defs(schema: &mut Value) -> Map<String, Value> {
    match schema.as_object_mut().and_then(|o| o.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    }
}
