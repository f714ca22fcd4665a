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
    Ok(())
}
