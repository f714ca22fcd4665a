//! The package's exceptions and the mapping of svbench-api error codes onto
//! them (harness §7).

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::PyErr;
use svbench_api::{ApiError, ErrorCode};

create_exception!(
    svbench._native,
    UnknownArgumentError,
    PyTypeError,
    "An argument name the environment does not accept."
);
create_exception!(
    svbench._native,
    DatasetError,
    PyValueError,
    "A dataset or split that is missing, unreadable or malformed."
);
create_exception!(
    svbench._native,
    ScoringError,
    PyValueError,
    "A completion or reference that cannot be scored."
);

/// Errors of configuring an environment or loading its data.
pub fn config_error(e: ApiError) -> PyErr {
    match e.code {
        ErrorCode::DatasetError | ErrorCode::UnknownSplit => DatasetError::new_err(e.message),
        _ => PyValueError::new_err(e.message),
    }
}

/// Errors of scoring a completion or running a step.
pub fn scoring_error(e: ApiError) -> PyErr {
    match e.code {
        ErrorCode::DatasetError | ErrorCode::UnknownSplit => DatasetError::new_err(e.message),
        _ => ScoringError::new_err(e.message),
    }
}
