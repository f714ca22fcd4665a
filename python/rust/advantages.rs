//! Advantage helpers (harness §7.4): thin wrappers over
//! `svbench_core::advantage`, so Python, Rust and `score_batch` agree.
//! Python's `None` is a value that does not apply (the `*_partial` forms,
//! which give the plain forms' bits when nothing is `None`).

use std::collections::BTreeMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use svbench_core::advantage::{self, AdvantageError, Grouping, Norm};

fn bad(e: AdvantageError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn grouping<'a>(group_size: Option<usize>, group_ids: Option<&'a [i64]>) -> PyResult<Grouping<'a>> {
    match (group_size, group_ids) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "give either group_size or group_ids, not both",
        )),
        (Some(g), None) => Ok(Grouping::Contiguous(g)),
        (None, Some(ids)) => Ok(Grouping::Ids(ids)),
        (None, None) => Err(PyValueError::new_err("give group_size or group_ids")),
    }
}

/// GRPO: per-group standardised totals (`None`: no reward, advantage 0).
#[pyfunction]
#[pyo3(signature = (rewards, group_size=None, group_ids=None, eps=advantage::DEFAULT_EPS, ddof=0))]
pub fn grpo(
    py: Python<'_>,
    rewards: Vec<Option<f64>>,
    group_size: Option<usize>,
    group_ids: Option<Vec<i64>>,
    eps: f64,
    ddof: u32,
) -> PyResult<Vec<f64>> {
    py.detach(|| {
        let g = grouping(group_size, group_ids.as_deref())?;
        advantage::grpo_partial(&rewards, &g, Norm { eps, ddof }).map_err(bad)
    })
}

/// Component-normalised: each component standardised per group, then weighted.
#[pyfunction]
#[pyo3(signature = (components, weights, group_size=None, group_ids=None, eps=advantage::DEFAULT_EPS, ddof=0))]
pub fn component_normalized(
    py: Python<'_>,
    components: BTreeMap<String, Vec<Option<f64>>>,
    weights: BTreeMap<String, f64>,
    group_size: Option<usize>,
    group_ids: Option<Vec<i64>>,
    eps: f64,
    ddof: u32,
) -> PyResult<Vec<f64>> {
    py.detach(|| {
        let g = grouping(group_size, group_ids.as_deref())?;
        advantage::component_normalized_partial(&components, &weights, &g, Norm { eps, ddof })
            .map_err(bad)
    })
}

/// GDPO-style: component-normalised, then standardised over the batch.
#[pyfunction]
#[pyo3(signature = (components, weights, group_size=None, group_ids=None, eps=advantage::DEFAULT_EPS, ddof=0))]
pub fn gdpo(
    py: Python<'_>,
    components: BTreeMap<String, Vec<Option<f64>>>,
    weights: BTreeMap<String, f64>,
    group_size: Option<usize>,
    group_ids: Option<Vec<i64>>,
    eps: f64,
    ddof: u32,
) -> PyResult<Vec<f64>> {
    py.detach(|| {
        let g = grouping(group_size, group_ids.as_deref())?;
        advantage::gdpo_partial(&components, &weights, &g, Norm { eps, ddof }).map_err(bad)
    })
}
