//! JSON Schemas of the run artifacts, generated from the Rust types
//! (harness §4.3) and committed under `docs/schemas/`.

use schemars::JsonSchema;
use serde_json::Value;
use svbench_core::compare::Comparison;
use svbench_core::manifest::RunManifest;
use svbench_core::record::{ResultRecord, RunMetadata};
use svbench_core::scoreboard::Scoreboard;
use svbench_core::summary::Summary;

/// Artifacts with a generated schema.
pub const SCHEMA_NAMES: [&str; 6] = [
    "summary",
    "metadata",
    "result",
    "manifest",
    "scoreboard",
    "compare",
];

/// The schema of an artifact by name (see [`SCHEMA_NAMES`]).
pub fn schema(name: &str) -> Option<Value> {
    match name {
        "summary" => Some(generate::<Summary>()),
        "metadata" => Some(generate::<RunMetadata>()),
        "result" => Some(generate::<ResultRecord>()),
        "manifest" => Some(generate::<RunManifest>()),
        "scoreboard" => Some(generate::<Scoreboard>()),
        "compare" => Some(generate::<Comparison>()),
        _ => None,
    }
}

/// The schema as committed: pretty JSON with a trailing newline.
pub fn schema_text(name: &str) -> Option<String> {
    let v = schema(name)?;
    let mut s = serde_json::to_string_pretty(&v).ok()?;
    s.push('\n');
    Some(s)
}

fn generate<T: JsonSchema>() -> Value {
    let schema = schemars::schema_for!(T);
    schema.to_value()
}
