//! Label selectors with apimachinery semantics (`LabelSelectorAsSelector`,
//! `labels.Selector.Matches`), including the validation that makes a
//! selector "invalid" for the checks that report it.

use std::collections::BTreeMap;

use crate::k8s::decode::k8s_struct;

/// Labels of an object or pod template.
pub type Labels = BTreeMap<String, String>;

k8s_struct! {
    /// A `metav1.LabelSelector`.
    pub struct LabelSelector {
        /// `matchLabels`: equality requirements.
        match_labels: Labels = "matchLabels",
        /// `matchExpressions`: set-based requirements.
        match_expressions: Vec<LabelSelectorRequirement> = "matchExpressions",
    }
}

k8s_struct! {
    /// One `matchExpressions` entry.
    pub struct LabelSelectorRequirement {
        /// The label key.
        key: String = "key",
        /// `In`, `NotIn`, `Exists` or `DoesNotExist` (case-sensitive).
        operator: String = "operator",
        /// Values for `In` / `NotIn`.
        values: Vec<String> = "values",
    }
}

/// Why a selector is invalid (apimachinery's wording).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A `matchExpressions` operator other than the four known ones.
    #[error("{0:?} is not a valid label selector operator")]
    UnknownOperator(String),
    /// `In` / `NotIn` without values.
    #[error("values: for 'in', 'notin' operators, values set can't be empty (key {key:?})")]
    MissingValues {
        /// The requirement's key.
        key: String,
    },
    /// `Exists` / `DoesNotExist` with values.
    #[error("values: values set must be empty for exists and does not exist (key {key:?})")]
    UnexpectedValues {
        /// The requirement's key.
        key: String,
    },
    /// An equality requirement without exactly one value.
    #[error("exact-match compatibility requires one single value")]
    NotOneValue,
    /// A key that is not a qualified name.
    #[error("key: invalid value {0:?}: not a qualified name")]
    InvalidKey(String),
    /// A value that is not a label value.
    #[error("values[0]: invalid value {0:?}: not a valid label value")]
    InvalidValue(String),
}

/// A validated selector, ready to match label sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// A nil selector: matches nothing.
    Nothing,
    /// All requirements must hold (empty = matches everything).
    Requirements(Vec<Requirement>),
}

/// One validated requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    op: Operator,
    values: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Equals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl LabelSelector {
    /// Whether neither `matchLabels` nor `matchExpressions` has an entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// `metav1.LabelSelectorAsSelector`: validates every requirement.
    ///
    /// # Errors
    /// A description of the first invalid key, value or expression.
    pub fn to_selector(&self) -> Result<Selector, SelectorError> {
        let mut reqs = Vec::new();
        for (k, v) in &self.match_labels {
            reqs.push(Requirement::new(k, Operator::Equals, vec![v.clone()])?);
        }
        for expr in &self.match_expressions {
            let op = match expr.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => return Err(SelectorError::UnknownOperator(other.to_owned())),
            };
            reqs.push(Requirement::new(&expr.key, op, expr.values.clone())?);
        }
        Ok(Selector::Requirements(reqs))
    }
}

/// Converts an optional selector: absent is [`Selector::Nothing`].
///
/// # Errors
/// As [`LabelSelector::to_selector`].
pub fn selector_of(selector: Option<&LabelSelector>) -> Result<Selector, SelectorError> {
    selector.map_or(Ok(Selector::Nothing), LabelSelector::to_selector)
}

/// A plain `map[string]string` selector (Service, ReplicationController).
///
/// # Errors
/// As [`LabelSelector::to_selector`].
pub fn selector_from_map(map: &Labels) -> Result<Selector, SelectorError> {
    LabelSelector {
        match_labels: map.clone(),
        ..LabelSelector::default()
    }
    .to_selector()
}

impl Requirement {
    fn new(key: &str, op: Operator, values: Vec<String>) -> Result<Requirement, SelectorError> {
        validate_qualified_name(key)?;
        match op {
            Operator::In | Operator::NotIn if values.is_empty() => {
                return Err(SelectorError::MissingValues {
                    key: key.to_owned(),
                })
            }
            Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
                return Err(SelectorError::UnexpectedValues {
                    key: key.to_owned(),
                })
            }
            Operator::Equals if values.len() != 1 => return Err(SelectorError::NotOneValue),
            _ => {}
        }
        for v in &values {
            validate_label_value(v)?;
        }
        Ok(Requirement {
            key: key.to_owned(),
            op,
            values,
        })
    }

    fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(&self.key);
        match self.op {
            Operator::Equals | Operator::In => value.is_some_and(|v| self.values.contains(v)),
            Operator::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
        }
    }
}

impl Selector {
    /// Whether the label set satisfies the selector.
    #[must_use]
    pub fn matches(&self, labels: &Labels) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::Requirements(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?` of at most 63 characters.
fn is_label_name(s: &str) -> bool {
    let b = s.as_bytes();
    let ends_ok = |c: Option<&u8>| c.is_some_and(u8::is_ascii_alphanumeric);
    !b.is_empty()
        && b.len() <= 63
        && ends_ok(b.first())
        && ends_ok(b.last())
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A DNS-1123 subdomain of at most 253 characters.
fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253
        && !s.is_empty()
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            let alnum =
                |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
            alnum(b.first())
                && alnum(b.last())
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

fn validate_qualified_name(key: &str) -> Result<(), SelectorError> {
    let name = match key.split_once('/') {
        None => key,
        Some((prefix, name)) => {
            if name.contains('/') || !is_dns_subdomain(prefix) {
                return Err(SelectorError::InvalidKey(key.to_owned()));
            }
            name
        }
    };
    if is_label_name(name) {
        Ok(())
    } else {
        Err(SelectorError::InvalidKey(key.to_owned()))
    }
}

fn validate_label_value(value: &str) -> Result<(), SelectorError> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err(SelectorError::InvalidValue(value.to_owned()))
    }
}
