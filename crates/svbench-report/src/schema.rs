//! JSON Schemas of the run artifacts, generated from the Rust types
//! (harness §4.3) and committed under `docs/schemas/`.

use schemars::JsonSchema;
use serde_json::Value;
use svbench_core::compare::Comparison;
use svbench_core::identity::EnvIdentity;
use svbench_core::manifest::RunManifest;
use svbench_core::record::{ResultRecord, RunMetadata};
use svbench_core::summary::Summary;

use crate::scoreboard::EnvBoard;

/// Artifacts with a generated schema.
pub const SCHEMA_NAMES: [&str; 6] = [
    "summary",
    "metadata",
    "result",
    "manifest",
    "scoreboard",
    "compare",
];

/// The environments with a scoreboard, whose entry types make up the
/// scoreboard's schema.
pub type Boards<'a> = &'a [(&'static EnvIdentity, &'static dyn EnvBoard)];

/// The schema of an artifact by name (see [`SCHEMA_NAMES`]); `boards` are
/// the environments whose entries a scoreboard holds.
pub fn schema(name: &str, boards: Boards<'_>) -> Option<Value> {
    match name {
        "summary" => Some(generate::<Summary>()),
        "metadata" => Some(generate::<RunMetadata>()),
        "result" => Some(generate::<ResultRecord>()),
        "manifest" => Some(generate::<RunManifest>()),
        "scoreboard" => Some(scoreboard(boards)),
        "compare" => Some(generate::<Comparison>()),
        _ => None,
    }
}

/// The schema as committed: pretty JSON with a trailing newline.
pub fn schema_text(name: &str, boards: Boards<'_>) -> Option<String> {
    let v = schema(name, boards)?;
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
fn scoreboard(boards: Boards<'_>) -> Value {
    let mut defs = serde_json::Map::new();
    let mut any_of = Vec::new();
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
