//! When the response cache is read and written (harness §2.5, `--cache-mode`).

use std::fmt;
use std::str::FromStr;

/// How a request uses the response cache.
///
/// Serialised (and parsed) as `auto`, `read-write`, `read-only`, `write-only`
/// or `off`, the spellings of `--cache-mode` and `svbench.toml`'s
/// `cache_mode`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMode {
    /// The default: `read-write` for requests sent with `temperature` exactly
    /// 0, `off` for all others, including requests that send no temperature
    /// (reasoning models), whose answers are not meant to be deterministic.
    #[default]
    Auto,
    /// Serve hits from the cache and store new successes.
    ReadWrite,
    /// Serve hits from the cache; never store.
    ReadOnly,
    /// Always ask the endpoint; store its successes (refreshes the cache).
    WriteOnly,
    /// Never touch the cache (`--no-cache`).
    Off,
}

impl CacheMode {
    /// Every mode, in the order of the `--cache-mode` help text.
    pub const ALL: [CacheMode; 5] = [
        CacheMode::Auto,
        CacheMode::ReadWrite,
        CacheMode::ReadOnly,
        CacheMode::WriteOnly,
        CacheMode::Off,
    ];

    /// The flag spelling: `auto`, `read-write`, `read-only`, `write-only`, `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheMode::Auto => "auto",
            CacheMode::ReadWrite => "read-write",
            CacheMode::ReadOnly => "read-only",
            CacheMode::WriteOnly => "write-only",
            CacheMode::Off => "off",
        }
    }

    /// Whether a request whose body carried `temperature_sent` (`None` when
    /// the body has no `temperature`) may be answered from the cache.
    pub fn reads(self, temperature_sent: Option<f64>) -> bool {
        match self {
            CacheMode::Auto => is_zero(temperature_sent),
            CacheMode::ReadWrite | CacheMode::ReadOnly => true,
            CacheMode::WriteOnly | CacheMode::Off => false,
        }
    }

    /// Whether the well-formed response to a request whose body carried
    /// `temperature_sent` may be stored in the cache.
    pub fn writes(self, temperature_sent: Option<f64>) -> bool {
        match self {
            CacheMode::Auto => is_zero(temperature_sent),
            CacheMode::ReadWrite | CacheMode::WriteOnly => true,
            CacheMode::ReadOnly | CacheMode::Off => false,
        }
    }
}

/// `auto`'s test: the request sent a temperature and it is exactly 0.
fn is_zero(temperature_sent: Option<f64>) -> bool {
    matches!(temperature_sent, Some(t) if t == 0.0)
}

impl fmt::Display for CacheMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--cache-mode` value that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown cache mode `{0}` (expected one of: auto, read-write, read-only, write-only, off)")]
pub struct ParseCacheModeError(pub String);

impl FromStr for CacheMode {
    type Err = ParseCacheModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CacheMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == s)
            .ok_or_else(|| ParseCacheModeError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip_through_from_str_display_and_serde() {
        for mode in CacheMode::ALL {
            assert_eq!(mode.as_str().parse::<CacheMode>(), Ok(mode));
            assert_eq!(mode.to_string(), mode.as_str());
            let json = serde_json::to_value(mode).expect("serialises");
            assert_eq!(json, serde_json::Value::from(mode.as_str()));
            assert_eq!(serde_json::from_value::<CacheMode>(json).ok(), Some(mode));
        }
        assert_eq!(CacheMode::default(), CacheMode::Auto);
    }

    #[test]
    fn unknown_spellings_are_rejected_with_the_valid_ones_listed() {
        for bad in [
            "",
            "Auto",
            "readwrite",
            "read_write",
            "on",
            "no-cache",
            " off",
        ] {
            let err = bad.parse::<CacheMode>().expect_err(bad);
            assert_eq!(err.0, bad);
            assert!(err
                .to_string()
                .contains("read-write, read-only, write-only, off"));
        }
    }
}
