//! `svbench._native`: the compiled half of the `svbench` Python package
//! (harness §7). Everything is delegated to `svbench-api`, the layer the
//! HTTP server also calls, so a score from Python equals `eval`'s to the
//! last bit. Scoring, tool calls and advantages release the GIL.

mod advantages;
mod convert;
mod env;
mod errors;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add(
        "UnknownArgumentError",
        py.get_type::<errors::UnknownArgumentError>(),
    )?;
    m.add("DatasetError", py.get_type::<errors::DatasetError>())?;
    m.add("ScoringError", py.get_type::<errors::ScoringError>())?;
    m.add_class::<env::PyEnv>()?;
    m.add_class::<env::PySession>()?;
    m.add_class::<env::PyToolCalls>()?;
    m.add_function(wrap_pyfunction!(advantages::grpo, m)?)?;
    m.add_function(wrap_pyfunction!(advantages::component_normalized, m)?)?;
    m.add_function(wrap_pyfunction!(advantages::gdpo, m)?)?;
    let envs = svbench_api::envs::all();
    m.add(
        "ENVIRONMENTS",
        envs.iter().map(|id| id.name()).collect::<Vec<_>>(),
    )?;
    // Every accepted spelling → canonical name, so Python resolves names
    // from the registry instead of a table of its own.
    let names: std::collections::BTreeMap<&str, &str> = envs
        .iter()
        .flat_map(|id| {
            std::iter::once(id.name())
                .chain(id.aliases())
                .map(move |spelling| (spelling, id.name()))
        })
        .collect();
    m.add("ENVIRONMENT_NAMES", names)?;
    m.add("TRAINING", convert::to_py(py, &training(&envs)?)?)?;
    Ok(())
}

/// Each environment's training defaults as `svbench.train` reads them:
/// `{name: {teachers: [{name, policy, partial, summary}], student_args: {K: V},
/// findings, analysis}}`.
fn training(envs: &[svbench_api::envs::EnvId]) -> PyResult<serde_json::Value> {
    let mut out = serde_json::Map::new();
    for id in envs {
        let t = id.entry().training;
        let teachers: Vec<_> = t
            .teachers
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "policy": t.policy,
                    "partial": t.partial,
                    "summary": t.summary,
                })
            })
            .collect();
        let mut args = serde_json::Map::new();
        for (key, value) in t.student_args {
            let value = serde_json::from_str(value).map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "{}: student argument {key}: {e}",
                    id.name()
                ))
            })?;
            args.insert((*key).to_string(), value);
        }
        out.insert(
            id.name().to_string(),
            serde_json::json!({
                "teachers": teachers,
                "student_args": args,
                "findings": t.findings,
                "analysis": t.analysis,
            }),
        );
    }
    Ok(serde_json::Value::Object(out))
}
