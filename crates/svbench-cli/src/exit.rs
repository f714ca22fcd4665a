//! Exit codes (harness §1) and how errors map onto them.

use std::fmt;

/// Success.
pub const OK: u8 = 0;
/// Internal or I/O error.
pub const INTERNAL: u8 = 1;
/// Usage or configuration error.
pub const USAGE: u8 = 2;
/// Input data error.
pub const DATA: u8 = 3;
/// Run aborted.
pub const ABORTED: u8 = 4;
/// Refused: the runs given to `compare` do not match.
pub const REFUSED: u8 = 5;
/// Check failed.
pub const CHECK_FAILED: u8 = 6;
/// Interrupted; the run is resumable.
pub const INTERRUPTED: u8 = 130;

/// An error that carries its exit code and an optional hint.
#[derive(Debug)]
pub struct Coded {
    /// Exit code.
    pub code: u8,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub hint: Option<String>,
}

impl fmt::Display for Coded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Coded {}

/// A usage error (exit 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code: USAGE,
        message: message.into(),
        hint: None,
    })
}

/// An input-data error (exit 3).
pub fn data(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code: DATA,
        message: message.into(),
        hint: None,
    })
}

/// An error with a code and no hint.
pub fn with_code(code: u8, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code,
        message: message.into(),
        hint: None,
    })
}

/// An error with a code and a hint.
pub fn with_hint(code: u8, message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code,
        message: message.into(),
        hint: Some(hint.into()),
    })
}

/// The exit code for an error: the first [`Coded`] in its chain, else 1.
pub fn code_for(err: &anyhow::Error) -> u8 {
    err.chain()
        .find_map(|e| e.downcast_ref::<Coded>())
        .map(|c| c.code)
        .unwrap_or(INTERNAL)
}

/// The hint attached to an error, if any.
pub fn hint_for(err: &anyhow::Error) -> Option<&str> {
    err.chain()
        .find_map(|e| e.downcast_ref::<Coded>())
        .and_then(|c| c.hint.as_deref())
}
