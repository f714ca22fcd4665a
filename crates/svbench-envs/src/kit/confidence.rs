//! The confidence rules E1 defines and E4 reuses (E1 §2.2 and §2.3, E4 §5.1
//! and §7.2), kept here so that each environment builds without the other.

use svbench_core::json::python::{py_float, PyValue};
use svbench_core::json::strict::Value;

/// Python `float(confidence)` as upstream reads it (E1 §2.2, shared with
/// E4 §7.2): `None` when the key is absent or `null`, or `float()` raises
/// (lists, dicts, non-numeric strings, integers too large for a float).
pub fn upstream_confidence_float(raw: Option<&PyValue<'_>>) -> Option<f64> {
    match raw {
        None | Some(PyValue::None) => None,
        Some(v) => py_float(v).ok(),
    }
}

/// `v1`'s confidence rule (E1 §2.3 step 7, shared with E4 §5.1): a finite
/// JSON number within [0, 1], or the LabelOnly reason code.
///
/// # Errors
/// `confidence_missing`, `confidence_non_finite`, `confidence_out_of_range`
/// or `confidence_not_number`.
pub fn v1_confidence(raw: Option<&Value<'_>>) -> Result<f64, &'static str> {
    match raw {
        None | Some(Value::Null) => Err("confidence_missing"),
        Some(Value::Number(n)) if !n.is_finite() => Err("confidence_non_finite"),
        // `+ 0.0` turns -0.0 into 0.0.
        Some(Value::Number(n)) if (0.0..=1.0).contains(&n.value) => Ok(n.value + 0.0),
        Some(Value::Number(_)) => Err("confidence_out_of_range"),
        Some(_) => Err("confidence_not_number"),
    }
}
