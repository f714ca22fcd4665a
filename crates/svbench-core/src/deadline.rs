//! A total time budget for a piece of work (one scan, one score).
//!
//! A per-call limit (the Rego engine's per-policy execution limit, say)
//! bounds one evaluation, not a file: a file with thousands of blocks runs
//! thousands of evaluations. A [`Deadline`] is carried through the whole piece
//! of work instead — read between analyzers, documents, messages and blocks,
//! inside long loops, and handed to engines as the limit of each call (the
//! smaller of their own limit and the time left) — so that when a caller's
//! budget runs out the work itself stops with [`TimeBudgetExceeded`], not only
//! the caller's wait. The config analyzers (`svbench-scan`), the mail parser
//! (`svbench-mail`) and every environment's scoring take the same type.
//!
//! ```
//! use std::time::Duration;
//! use svbench_core::deadline::Deadline;
//!
//! let deadline = Deadline::after(Duration::from_secs(5));
//! assert!(deadline.check().is_ok());
//! assert!(Deadline::after(Duration::ZERO).check().is_err());
//! assert!(Deadline::NONE.check().is_ok());
//! ```

use std::time::{Duration, Instant};

/// The time budget of a piece of work ran out before it finished; what it had
/// computed so far is dropped (a partial scan is not a result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the {:.3} s time budget was exceeded", budget.as_secs_f64())]
pub struct TimeBudgetExceeded {
    /// The budget that was given.
    pub budget: Duration,
}

/// When a piece of work must end, and the budget that gave that instant (for
/// the error message); [`Deadline::NONE`] never ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    end: Option<(Instant, Duration)>,
}

impl Default for Deadline {
    fn default() -> Self {
        Deadline::NONE
    }
}

impl Deadline {
    /// No time budget.
    pub const NONE: Deadline = Deadline { end: None };

    /// A budget of `budget` from now.
    #[must_use]
    pub fn after(budget: Duration) -> Deadline {
        Deadline::at(Instant::now() + budget, budget)
    }

    /// A budget of `budget` from now, or none for `None`.
    #[must_use]
    pub fn after_opt(budget: Option<Duration>) -> Deadline {
        budget.map_or(Deadline::NONE, Deadline::after)
    }

    /// Ends at `instant`; `budget` is what the error names (e.g. the request
    /// timeout that `instant` was computed from).
    #[must_use]
    pub fn at(instant: Instant, budget: Duration) -> Deadline {
        Deadline {
            end: Some((instant, budget)),
        }
    }

    /// The earlier of the two (a score's budget inside a request's).
    #[must_use]
    pub fn min(self, other: Deadline) -> Deadline {
        match (self.end, other.end) {
            (Some(a), Some(b)) => Deadline {
                end: Some(if b.0 < a.0 { b } else { a }),
            },
            (Some(_), None) => self,
            (None, _) => other,
        }
    }

    /// The budget this deadline was made from; `None` for [`Deadline::NONE`].
    #[must_use]
    pub fn budget(&self) -> Option<Duration> {
        self.end.map(|(_, budget)| budget)
    }

    /// Time left (zero once passed); `None` for [`Deadline::NONE`].
    #[must_use]
    pub fn remaining(&self) -> Option<Duration> {
        self.end
            .map(|(end, _)| end.saturating_duration_since(Instant::now()))
    }

    /// Whether the deadline has passed.
    #[must_use]
    pub fn expired(&self) -> bool {
        self.remaining().is_some_and(|left| left.is_zero())
    }

    /// `Err` once the deadline has passed.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] naming the budget.
    pub fn check(&self) -> Result<(), TimeBudgetExceeded> {
        match self.end {
            Some((end, budget)) if Instant::now() >= end => Err(TimeBudgetExceeded { budget }),
            _ => Ok(()),
        }
    }

    /// The error this deadline produces when it has passed (for work that
    /// found out another way, e.g. a regorus timer set from [`Self::remaining`]).
    #[must_use]
    pub fn exceeded(&self) -> TimeBudgetExceeded {
        TimeBudgetExceeded {
            budget: self.budget().unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_takes_the_earlier_end_and_its_budget() {
        let long = Deadline::after(Duration::from_secs(60));
        let short = Deadline::after(Duration::from_secs(1));
        assert_eq!(long.min(short).budget(), Some(Duration::from_secs(1)));
        assert_eq!(short.min(long).budget(), Some(Duration::from_secs(1)));
        assert_eq!(Deadline::NONE.min(short), short);
        assert_eq!(short.min(Deadline::NONE), short);
        assert_eq!(Deadline::NONE.remaining(), None);
    }

    #[test]
    fn a_passed_deadline_fails_its_check_with_the_budget() {
        let passed = Deadline::at(Instant::now(), Duration::from_millis(250));
        assert!(passed.expired());
        assert_eq!(
            passed.check(),
            Err(TimeBudgetExceeded {
                budget: Duration::from_millis(250)
            })
        );
        assert_eq!(
            passed.check().unwrap_err().to_string(),
            "the 0.250 s time budget was exceeded"
        );
    }
}
