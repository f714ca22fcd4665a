//! Failure classification and backoff (harness §2.4).
//!
//! - **Retryable:** connection errors, attempt timeouts, HTTP 408, 409, 425,
//!   429, 500, 502, 503, 504, 529, and malformed responses.
//! - **Sample error:** any other 4xx (a 400 about the context length gets
//!   kind `context_length`) and any other status.
//! - **Fatal:** 401, 403, 404 — the run aborts (exit 4).
//!
//! Retry `n` (1-based) waits `uniform(0, min(60 s, 1 s·2^(n−1)))`, raised to
//! the server's `Retry-After` when that is longer; a `Retry-After` above
//! 300 s fails the sample as `rate_limited` instead. At most 6 retries
//! (7 attempts). A `429` carrying `Retry-After` also pauses the whole profile
//! ([`crate::limits::ProfileLimiter::pause_until`]) for that long; one without
//! it only backs off its own sample.
//!
//! Kinds recorded when a sample ends on a retryable failure: `rate_limited`
//! (429s, and any `Retry-After` above the limit), `http_status` (5xx etc.),
//! `timeout`, `connection`, `malformed_response`; `retryable` is true.

use std::time::{Duration, SystemTime};

use rand::Rng;

/// How a failed attempt is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureClass {
    /// Try again after a backoff.
    Retryable,
    /// Record the error on the sample; no retry.
    Sample,
    /// Record the error and abort the run.
    Fatal,
}

/// Classifies an HTTP status that is not a success. Returns the class and
/// the `SampleError` kind to record if the sample ends with it.
pub fn classify_status(status: u16, body: &[u8]) -> (FailureClass, &'static str) {
    match status {
        401 | 403 | 404 => (FailureClass::Fatal, "http_status"),
        429 => (FailureClass::Retryable, "rate_limited"),
        408 | 409 | 425 | 500 | 502 | 503 | 504 | 529 => (FailureClass::Retryable, "http_status"),
        400 if mentions_context_length(body) => (FailureClass::Sample, "context_length"),
        _ => (FailureClass::Sample, "http_status"),
    }
}

/// Whether an error body says the prompt exceeded the context window
/// (OpenAI `context_length_exceeded`, vLLM "maximum context length", …).
pub fn mentions_context_length(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&body[..body.len().min(64 * 1024)]).to_ascii_lowercase();
    [
        "context_length",
        "context length",
        "context window",
        "maximum context",
        "too many tokens",
        "reduce the length",
        "prompt is too long",
    ]
    .iter()
    .any(|needle| text.contains(needle))
}

/// The retry policy; [`RetryPolicy::default`] is the specified one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Backoff ceiling of the first retry.
    pub base: Duration,
    /// Largest backoff ceiling.
    pub cap: Duration,
    /// A `Retry-After` above this fails the sample as `rate_limited`.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 6,
            base: Duration::from_secs(1),
            cap: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(300),
        }
    }
}

/// What to do after a retryable failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Sleep this long, then try again.
    Wait(Duration),
    /// Retries are used up.
    Exhausted,
    /// The server asked to wait longer than the policy allows.
    RetryAfterTooLong(Duration),
}

impl RetryPolicy {
    /// Upper bound of the jittered backoff before retry `n` (1-based):
    /// `min(cap, base·2^(n−1))`.
    pub fn ceiling(&self, retry: u32) -> Duration {
        let factor = 1u32 << retry.saturating_sub(1).min(30);
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// Jittered backoff before retry `n`: uniform in `[0, ceiling(n)]`.
    pub fn backoff(&self, retry: u32, rng: &mut impl Rng) -> Duration {
        let ceiling = self.ceiling(retry);
        if ceiling.is_zero() {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(rng.gen_range(0.0..=ceiling.as_secs_f64()))
    }

    /// Decision after attempt number `attempts` (1-based) failed retryably,
    /// with the server's `Retry-After` if it sent one.
    pub fn decide(
        &self,
        attempts: u32,
        retry_after: Option<Duration>,
        rng: &mut impl Rng,
    ) -> RetryDecision {
        if let Some(ra) = retry_after.filter(|ra| *ra > self.max_retry_after) {
            return RetryDecision::RetryAfterTooLong(ra);
        }
        if attempts > self.max_retries {
            return RetryDecision::Exhausted;
        }
        let jitter = self.backoff(attempts, rng);
        RetryDecision::Wait(retry_after.map_or(jitter, |ra| ra.max(jitter)))
    }
}

/// Parses a `Retry-After` value: delay seconds (a non-negative number) or an
/// HTTP date, relative to `now` (a date in the past means zero). `None` when
/// it is neither.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if v.is_empty() {
        return None;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Duration::from_secs(
            v.parse::<u64>().unwrap_or(u64::MAX / 4),
        ));
    }
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn status_classes() {
        for s in [401, 403, 404] {
            assert_eq!(classify_status(s, b"").0, FailureClass::Fatal, "{s}");
        }
        for s in [408, 409, 425, 429, 500, 502, 503, 504, 529] {
            assert_eq!(classify_status(s, b"").0, FailureClass::Retryable, "{s}");
        }
        assert_eq!(
            classify_status(429, b""),
            (FailureClass::Retryable, "rate_limited")
        );
        for s in [400, 402, 405, 413, 422, 451, 501, 505, 300] {
            assert_eq!(
                classify_status(s, b""),
                (FailureClass::Sample, "http_status"),
                "{s}"
            );
        }
        let body = br#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#;
        assert_eq!(
            classify_status(400, body),
            (FailureClass::Sample, "context_length")
        );
        assert_eq!(
            classify_status(400, b"bad field"),
            (FailureClass::Sample, "http_status")
        );
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after("-1", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("", now), None);
        let future = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(&future, now),
            Some(Duration::from_secs(30))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(parse_retry_after(&past, now), Some(Duration::ZERO));
        assert!(parse_retry_after("99999999999999999999999", now).is_some());
    }

    #[test]
    fn backoff_ceilings_double_up_to_the_cap() {
        let p = RetryPolicy::default();
        let secs: Vec<u64> = (1..=8).map(|n| p.ceiling(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(p.ceiling(1000), Duration::from_secs(60));
    }

    #[test]
    fn backoff_stays_within_bounds_and_is_jittered() {
        let p = RetryPolicy::default();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in 1..=7 {
            let draws: Vec<Duration> = (0..200).map(|_| p.backoff(n, &mut rng)).collect();
            assert!(draws.iter().all(|d| *d <= p.ceiling(n)), "retry {n}");
            let distinct: std::collections::BTreeSet<_> = draws.iter().collect();
            assert!(distinct.len() > 100, "retry {n} not jittered");
        }
    }

    #[test]
    fn decisions() {
        let p = RetryPolicy::default();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // Retry-After is a lower bound.
        match p.decide(1, Some(Duration::from_secs(7)), &mut rng) {
            RetryDecision::Wait(d) => assert_eq!(d, Duration::from_secs(7)),
            other => panic!("{other:?}"),
        }
        // Above 300 s: give up at once, even on the first attempt.
        assert_eq!(
            p.decide(1, Some(Duration::from_secs(301)), &mut rng),
            RetryDecision::RetryAfterTooLong(Duration::from_secs(301))
        );
        assert!(matches!(
            p.decide(6, None, &mut rng),
            RetryDecision::Wait(_)
        ));
        assert_eq!(p.decide(7, None, &mut rng), RetryDecision::Exhausted);
    }
}
