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
    m.add_function(wrap_pyfunction!(advantages::grpo, m)?)?;
    m.add_function(wrap_pyfunction!(advantages::component_normalized, m)?)?;
    m.add_function(wrap_pyfunction!(advantages::gdpo, m)?)?;
    m.add(
        "ENVIRONMENTS",
        svbench_api::envs::ALL.map(|id| id.name()).to_vec(),
    )?;
    Ok(())
}
