//! Helpers shared by checks: per-container iteration and small predicates.

use crate::k8s::decode::IntOrString;
use crate::k8s::types::{Container, PodSpec};
use crate::k8s::K8sObject;

use super::registry::Diagnostic;

/// Runs `f` on every container (init, regular, ephemeral) of a
/// deployment-like object's pod spec, collecting its diagnostics; non-DL
/// objects yield nothing.
pub(crate) fn per_container(
    object: &K8sObject,
    mut f: impl FnMut(&PodSpec, &Container) -> Option<String>,
) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    spec.all_containers()
        .filter_map(|c| {
            f(spec, c).map(|msg| Diagnostic::container(line_of(c.line, object), &c.name, msg))
        })
        .collect()
}

/// [`per_container`] for checks about one field: `f` also gives the line of
/// the offending field when the container (or pod) writes it, `None` when the
/// finding is about a missing field (the container's line is used).
pub(crate) fn per_container_at(
    object: &K8sObject,
    mut f: impl FnMut(&PodSpec, &Container) -> Option<(Option<usize>, String)>,
) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    spec.all_containers()
        .filter_map(|c| {
            f(spec, c).map(|(field, msg)| {
                let line = field.unwrap_or_else(|| line_of(c.line, object));
                Diagnostic::container(line, &c.name, msg)
            })
        })
        .collect()
}

/// A node line, falling back to the object's line for absent (defaulted)
/// structs whose line is 0.
pub(crate) fn line_of(line: usize, object: &K8sObject) -> usize {
    if line == 0 {
        object.line
    } else {
        line
    }
}

/// Go's `strings.EqualFold` for the ASCII-dominated words checks compare
/// (`Unmasked`, `NodePort`, `default`): simple Unicode case folding, with
/// the folds Go adds beyond lowercasing (`ſ` ~ `s`; the Kelvin sign
/// lowercases to `k` already).
pub(crate) fn equal_fold(a: &str, b: &str) -> bool {
    fn fold(c: char) -> char {
        if c == 'ſ' {
            return 's';
        }
        let mut lower = c.to_lowercase();
        match (lower.next(), lower.next()) {
            (Some(l), None) => l,
            _ => c,
        }
    }
    a.chars().count() == b.chars().count()
        && a.chars().zip(b.chars()).all(|(x, y)| fold(x) == fold(y))
}

/// Why an int-or-string is not a number or an integer percentage.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IntOrPercentError {
    /// A string without a trailing `%` (`"50"`, `"abc"`).
    #[error("{0:?} is neither a number nor a percentage")]
    NotAPercentage(String),
    /// A `%` string whose digits are not an integer (`"1.5%"`).
    #[error("{0:?} is not an integer percentage")]
    NotAnInteger(String),
}

/// apimachinery's `intstr.GetScaledValueFromIntOrPercent`: a number as is,
/// or `"<int>%"` of `total` rounded up or down (through `float64`, as Go
/// does).
///
/// # Errors
/// [`IntOrPercentError`] when the value is a string that is not an integer
/// percentage (`"50"`, `"1.5%"`, `"abc"`).
pub(crate) fn scaled_int_or_percent(
    value: &IntOrString,
    total: i64,
    round_up: bool,
) -> Result<i64, IntOrPercentError> {
    let text = match value {
        IntOrString::Int(i) => return Ok(i64::from(*i)),
        IntOrString::Str(s) => s,
    };
    let Some(digits) = text.strip_suffix('%') else {
        return Err(IntOrPercentError::NotAPercentage(text.clone()));
    };
    // strconv.Atoi: optional sign, ASCII digits, 64-bit range.
    let percent: i64 = digits
        .parse()
        .map_err(|_| IntOrPercentError::NotAnInteger(text.clone()))?;
    #[allow(clippy::cast_precision_loss)]
    let scaled = percent as f64 * total as f64 / 100.0;
    #[allow(clippy::cast_possible_truncation)]
    let rounded = if round_up {
        scaled.ceil()
    } else {
        scaled.floor()
    } as i64;
    Ok(rounded)
}

/// Renders an int-or-string for messages: a number bare, a string quoted.
pub(crate) fn show_int_or_string(value: &IntOrString) -> String {
    match value {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::Str(s) => format!("{s:?}"),
    }
}

/// Whether two objects are in the same namespace, compared as raw strings
/// (absent is `""`, not `"default"`; spec E2 §1.4).
pub(crate) fn same_namespace(a: &K8sObject, b: &K8sObject) -> bool {
    a.metadata.namespace_raw() == b.metadata.namespace_raw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_or_percent_errors_keep_their_messages() {
        let scaled = |s: &str| scaled_int_or_percent(&IntOrString::Str(s.into()), 10, true);
        assert_eq!(scaled("50%"), Ok(5));
        assert_eq!(
            scaled("50").unwrap_err().to_string(),
            "\"50\" is neither a number nor a percentage"
        );
        assert_eq!(
            scaled("1.5%").unwrap_err().to_string(),
            "\"1.5%\" is not an integer percentage"
        );
    }
}
