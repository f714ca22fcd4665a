//! E4's own arguments (`--env-arg K=V`, spec §1.2). Unknown keys are errors.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use svbench_mail::EmailLimits;

use crate::kit::args::{parse_bool, split_pair};

/// Argument names, as `--env-arg` takes them.
pub const ARG_NAMES: [&str; 5] = [
    "evidence_max_items",
    "evidence_min_chars",
    "evidence_max_chars",
    "body_max_chars",
    "show_cost_table",
];

/// Longest rendered body an argument may ask for (the rendering keeps at
/// most this many characters of any email).
const BODY_MAX_CHARS_LIMIT: usize = 1_000_000;
/// Most evidence items an argument may allow.
const EVIDENCE_ITEMS_LIMIT: usize = 100;

/// Why E4's `--env-arg` pairs were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum E4ArgsError {
    /// A pair without `=`.
    #[error("environment argument `{0}` is not of the form KEY=VALUE")]
    NotAPair(String),
    /// A key E4 does not know.
    #[error("unknown E4 environment argument `{0}` (known: {known})", known = ARG_NAMES.join(", "))]
    UnknownKey(String),
    /// A count that is not an integer within its bounds.
    #[error("environment argument {key}={value:?}: expected an integer in [{lo}, {hi}]")]
    NotACount {
        /// The argument.
        key: String,
        /// The value as given (trimmed).
        value: String,
        /// Smallest value allowed.
        lo: usize,
        /// Largest value allowed.
        hi: usize,
    },
    /// A flag that is not a boolean.
    #[error("environment argument {key}={value:?}: expected true or false")]
    NotABool {
        /// The argument.
        key: String,
        /// The value as given (trimmed).
        value: String,
    },
    /// `evidence_min_chars` above `evidence_max_chars`.
    #[error("evidence_min_chars ({min}) is larger than evidence_max_chars ({max})")]
    MinAboveMax {
        /// `evidence_min_chars`.
        min: usize,
        /// `evidence_max_chars`.
        max: usize,
    },
}

/// E4's arguments with their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct E4Args {
    /// Most evidence items scored (10).
    pub evidence_max_items: usize,
    /// Fewest characters of an item (4).
    pub evidence_min_chars: usize,
    /// Most characters of an item (200).
    pub evidence_max_chars: usize,
    /// Where the rendered body is cut (6,000); rows must have been rendered
    /// with the same value.
    pub body_max_chars: usize,
    /// Show the decision costs in the prompt (true).
    pub show_cost_table: bool,
}

impl Default for E4Args {
    fn default() -> Self {
        Self {
            evidence_max_items: 10,
            evidence_min_chars: 4,
            evidence_max_chars: 200,
            body_max_chars: EmailLimits::default().body_max_chars,
            show_cost_table: true,
        }
    }
}

impl E4Args {
    /// Parses `KEY=VALUE` pairs, later pairs winning.
    ///
    /// # Errors
    /// [`E4ArgsError`] naming the first pair refused, or the bounds that
    /// contradict each other.
    pub fn parse<S: AsRef<str>>(pairs: &[S]) -> Result<Self, E4ArgsError> {
        let mut args = Self::default();
        for pair in pairs {
            let pair = pair.as_ref();
            let (key, value) =
                split_pair(pair).ok_or_else(|| E4ArgsError::NotAPair(pair.to_string()))?;
            args.set(key, value)?;
        }
        if args.evidence_min_chars > args.evidence_max_chars {
            return Err(E4ArgsError::MinAboveMax {
                min: args.evidence_min_chars,
                max: args.evidence_max_chars,
            });
        }
        Ok(args)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), E4ArgsError> {
        let count = |lo: usize, hi: usize| {
            value
                .parse::<usize>()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| E4ArgsError::NotACount {
                    key: key.to_string(),
                    value: value.to_string(),
                    lo,
                    hi,
                })
        };
        match key {
            "evidence_max_items" => self.evidence_max_items = count(1, EVIDENCE_ITEMS_LIMIT)?,
            "evidence_min_chars" => self.evidence_min_chars = count(1, 1000)?,
            "evidence_max_chars" => self.evidence_max_chars = count(1, 10_000)?,
            "body_max_chars" => self.body_max_chars = count(100, BODY_MAX_CHARS_LIMIT)?,
            "show_cost_table" => {
                self.show_cost_table = parse_bool(value).ok_or_else(|| E4ArgsError::NotABool {
                    key: key.to_string(),
                    value: value.to_string(),
                })?
            }
            other => return Err(E4ArgsError::UnknownKey(other.to_string())),
        }
        Ok(())
    }

    /// The rendering limits these arguments imply.
    pub fn limits(&self) -> EmailLimits {
        EmailLimits {
            body_max_chars: self.body_max_chars,
            ..EmailLimits::default()
        }
    }

    /// As run metadata records them (`env_args`).
    pub fn to_record(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            (
                "evidence_max_items".to_string(),
                json!(self.evidence_max_items),
            ),
            (
                "evidence_min_chars".to_string(),
                json!(self.evidence_min_chars),
            ),
            (
                "evidence_max_chars".to_string(),
                json!(self.evidence_max_chars),
            ),
            ("body_max_chars".to_string(), json!(self.body_max_chars)),
            ("show_cost_table".to_string(), json!(self.show_cost_table)),
        ])
    }

    /// The JSON schema of the arguments.
    pub fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "evidence_max_items": {"type": "integer", "minimum": 1, "maximum": EVIDENCE_ITEMS_LIMIT, "default": 10},
                "evidence_min_chars": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 4},
                "evidence_max_chars": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 200},
                "body_max_chars": {"type": "integer", "minimum": 100, "maximum": BODY_MAX_CHARS_LIMIT, "default": 6000},
                "show_cost_table": {"type": "boolean", "default": true},
            },
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_overrides_and_refusals() {
        let a = E4Args::parse::<&str>(&[]).unwrap();
        assert_eq!(a, E4Args::default());
        let a = E4Args::parse(&["evidence_max_items=5", "show_cost_table=false"]).unwrap();
        assert_eq!((a.evidence_max_items, a.show_cost_table), (5, false));
        for bad in [
            "colour=red",
            "evidence_max_items=0",
            "evidence_max_items=x",
            "show_cost_table=maybe",
            "no_equals",
            "body_max_chars=99999999",
        ] {
            assert!(E4Args::parse(&[bad]).is_err(), "{bad}");
        }
        assert!(E4Args::parse(&["evidence_min_chars=50", "evidence_max_chars=10"]).is_err());
    }

    #[test]
    fn refusals_keep_their_messages() {
        for (pairs, message) in [
            (
                &["no_equals"][..],
                "environment argument `no_equals` is not of the form KEY=VALUE",
            ),
            (
                &["colour=red"],
                "unknown E4 environment argument `colour` (known: evidence_max_items, \
                 evidence_min_chars, evidence_max_chars, body_max_chars, show_cost_table)",
            ),
            (
                &["evidence_max_items=0"],
                "environment argument evidence_max_items=\"0\": expected an integer in [1, 100]",
            ),
            (
                &["show_cost_table=maybe"],
                "environment argument show_cost_table=\"maybe\": expected true or false",
            ),
            (
                &["evidence_min_chars=50", "evidence_max_chars=10"],
                "evidence_min_chars (50) is larger than evidence_max_chars (10)",
            ),
        ] {
            assert_eq!(E4Args::parse(pairs).unwrap_err().to_string(), message);
        }
        assert_eq!(
            E4Args::parse(&["body_max_chars=x"]),
            Err(E4ArgsError::NotACount {
                key: "body_max_chars".into(),
                value: "x".into(),
                lo: 100,
                hi: BODY_MAX_CHARS_LIMIT,
            })
        );
    }
}
