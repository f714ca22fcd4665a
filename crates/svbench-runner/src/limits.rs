//! Per-profile rate limiting (harness §2.4): a GCRA limiter for requests per
//! minute, a token bucket for tokens per minute, a profile-wide pause after a
//! `429`, and a concurrency cap.
//!
//! One [`ProfileLimiter`] exists per endpoint profile and process: every
//! sample and every run that talks to the profile shares it through
//! [`LimiterRegistry`]. All waiting uses [`tokio::time`], so tests can run on
//! tokio's paused clock.
//!
//! Both rate limiters work by *reservation*: a caller takes the next free slot
//! (or the tokens it needs) under a short lock and then sleeps outside the
//! lock until its slot comes. Callers are therefore served in arrival order
//! and nobody spins.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The limits of one endpoint profile; `None` means unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Requests per minute (every attempt counts).
    pub requests_per_minute: Option<u32>,
    /// Tokens per minute, charged `ceil(prompt_chars / 4) + max_tokens` up
    /// front and corrected from reported usage.
    pub tokens_per_minute: Option<u64>,
    /// Requests in flight at once, across every run of the process.
    pub max_concurrency: Option<usize>,
}

/// Effective sample concurrency: `min(--concurrency, profile.max_concurrency)`,
/// never below 1.
pub fn effective_concurrency(requested: usize, profile_max: Option<usize>) -> usize {
    let c = match profile_max {
        Some(m) => requested.min(m),
        None => requested,
    };
    c.max(1)
}

/// Token estimate charged before a request: `ceil(prompt_chars / 4) + max_tokens`.
pub fn estimate_tokens(prompt_chars: usize, max_tokens: u32) -> u64 {
    (prompt_chars as u64).div_ceil(4) + u64::from(max_tokens)
}

/// Generic cell rate algorithm with a burst of one: requests are spaced at
/// least `interval` apart.
#[derive(Debug)]
struct Gcra {
    interval: Duration,
    /// Theoretical arrival time of the next request.
    tat: Option<Instant>,
}

impl Gcra {
    fn new(per_minute: u32) -> Self {
        let interval = Duration::from_secs(60) / per_minute.max(1);
        Self {
            interval,
            tat: None,
        }
    }

    /// Reserves the next slot at or after `now` and returns it.
    fn reserve(&mut self, now: Instant) -> Instant {
        let slot = match self.tat {
            Some(tat) if tat > now => tat,
            _ => now,
        };
        self.tat = Some(slot + self.interval);
        slot
    }
}

/// Token bucket that may go into debt: a charge larger than the balance is
/// taken at once and the caller waits until the refill has paid the debt.
#[derive(Debug)]
struct TokenBucket {
    capacity: f64,
    /// Tokens per second.
    rate: f64,
    balance: f64,
    updated: Option<Instant>,
}

impl TokenBucket {
    fn new(per_minute: u64) -> Self {
        let capacity = per_minute.max(1) as f64;
        Self {
            capacity,
            rate: capacity / 60.0,
            balance: capacity,
            updated: None,
        }
    }

    fn refill(&mut self, now: Instant) {
        if let Some(last) = self.updated {
            let dt = now.saturating_duration_since(last).as_secs_f64();
            self.balance = (self.balance + dt * self.rate).min(self.capacity);
        }
        self.updated = Some(now);
    }

    /// Charges `tokens` and returns how long the caller must wait.
    fn charge(&mut self, tokens: u64, now: Instant) -> Duration {
        self.refill(now);
        self.balance -= tokens as f64;
        if self.balance >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.balance / self.rate)
        }
    }

    /// Returns `refund` tokens (negative: charges more).
    fn adjust(&mut self, refund: f64, now: Instant) {
        self.refill(now);
        self.balance = (self.balance + refund).min(self.capacity);
    }
}

/// The shared limiter of one endpoint profile.
#[derive(Debug)]
pub struct ProfileLimiter {
    profile: String,
    limits: Limits,
    gcra: Option<Mutex<Gcra>>,
    tokens: Option<Mutex<TokenBucket>>,
    pause_until: Mutex<Option<Instant>>,
    slots: Option<Arc<Semaphore>>,
}

/// What a request holds while it is in flight: a concurrency slot and its
/// token charge. Dropping it frees the slot and keeps the whole up-front
/// charge (failed attempts stay charged: providers often count them);
/// [`Permit::settle`] corrects the charge from reported usage.
#[derive(Debug)]
pub struct Permit {
    limiter: Arc<ProfileLimiter>,
    charged: u64,
    slot: Option<OwnedSemaphorePermit>,
}

impl Permit {
    /// Replaces the up-front token charge by the usage the endpoint reported
    /// (`prompt_tokens + completion_tokens`) and frees the concurrency slot.
    pub fn settle(mut self, used_tokens: u64) {
        self.slot.take();
        if let Some(bucket) = &self.limiter.tokens {
            let refund = self.charged as f64 - used_tokens as f64;
            lock(bucket).adjust(refund, Instant::now());
        }
    }

    /// Tokens charged up front.
    pub fn charged(&self) -> u64 {
        self.charged
    }
}

impl ProfileLimiter {
    /// A limiter for `profile` with these limits.
    pub fn new(profile: impl Into<String>, limits: Limits) -> Self {
        Self {
            profile: profile.into(),
            limits,
            gcra: limits.requests_per_minute.map(|r| Mutex::new(Gcra::new(r))),
            tokens: limits
                .tokens_per_minute
                .map(|t| Mutex::new(TokenBucket::new(t))),
            pause_until: Mutex::new(None),
            slots: limits
                .max_concurrency
                .map(|n| Arc::new(Semaphore::new(n.max(1)))),
        }
    }

    /// A limiter that never waits (except for `429` pauses).
    pub fn unlimited(profile: impl Into<String>) -> Self {
        Self::new(profile, Limits::default())
    }

    /// Profile name.
    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// Configured limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether `tokens_per_minute` is limited (callers skip counting prompt
    /// characters otherwise).
    pub fn limits_tokens(&self) -> bool {
        self.tokens.is_some()
    }

    /// Pauses the whole profile until `until` (a `429` with `Retry-After`).
    /// A later pause already in force is kept.
    pub fn pause_until(&self, until: Instant) {
        let mut p = lock(&self.pause_until);
        if p.is_none_or(|cur| cur < until) {
            *p = Some(until);
        }
    }

    /// End of the current pause, if one is in force.
    pub fn paused_until(&self) -> Option<Instant> {
        let p = *lock(&self.pause_until);
        p.filter(|t| *t > Instant::now())
    }

    async fn wait_pause(&self) {
        while let Some(until) = self.paused_until() {
            tokio::time::sleep_until(until).await;
        }
    }

    /// Waits for a concurrency slot, any profile pause, a request slot and
    /// `tokens` of token budget, in that order, and returns the permit.
    pub async fn acquire(self: &Arc<Self>, tokens: u64) -> Permit {
        let slot = match &self.slots {
            Some(sem) => Arc::clone(sem).acquire_owned().await.ok(),
            None => None,
        };
        self.wait_pause().await;
        if let Some(gcra) = &self.gcra {
            let slot_at = lock(gcra).reserve(Instant::now());
            tokio::time::sleep_until(slot_at).await;
        }
        let charged = match &self.tokens {
            Some(bucket) => {
                let wait = lock(bucket).charge(tokens, Instant::now());
                if !wait.is_zero() {
                    tokio::time::sleep(wait).await;
                }
                tokens
            }
            None => 0,
        };
        // A 429 may have arrived while this request waited for its slot.
        self.wait_pause().await;
        Permit {
            limiter: Arc::clone(self),
            charged,
            slot,
        }
    }
}

/// Process-wide map from profile name to its limiter, so that concurrent
/// samples and successive runs share one limiter per profile.
#[derive(Debug, Default)]
pub struct LimiterRegistry {
    limiters: Mutex<HashMap<String, Arc<ProfileLimiter>>>,
}

impl LimiterRegistry {
    /// An empty registry (tests; the CLI uses [`LimiterRegistry::global`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// The registry of this process.
    pub fn global() -> &'static LimiterRegistry {
        static GLOBAL: OnceLock<LimiterRegistry> = OnceLock::new();
        GLOBAL.get_or_init(LimiterRegistry::new)
    }

    /// The limiter of `profile`, created with `limits` on first use. Later
    /// calls return the same limiter whatever limits they pass (one
    /// configuration file is loaded per process).
    pub fn get(&self, profile: &str, limits: Limits) -> Arc<ProfileLimiter> {
        let mut map = lock(&self.limiters);
        Arc::clone(
            map.entry(profile.to_string())
                .or_insert_with(|| Arc::new(ProfileLimiter::new(profile, limits))),
        )
    }
}

/// Locks a mutex; a poisoned lock still holds consistent limiter state (every
/// critical section is a few arithmetic steps), so recover its contents.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_concurrency_is_the_minimum() {
        assert_eq!(effective_concurrency(8, None), 8);
        assert_eq!(effective_concurrency(8, Some(4)), 4);
        assert_eq!(effective_concurrency(2, Some(16)), 2);
        assert_eq!(effective_concurrency(0, Some(0)), 1);
    }

    #[test]
    fn token_estimate_rounds_up() {
        assert_eq!(estimate_tokens(0, 10), 10);
        assert_eq!(estimate_tokens(1, 10), 11);
        assert_eq!(estimate_tokens(8, 0), 2);
        assert_eq!(estimate_tokens(9, 0), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn gcra_spaces_requests_one_second_apart_at_60_rpm() {
        let limiter = Arc::new(ProfileLimiter::new(
            "p",
            Limits {
                requests_per_minute: Some(60),
                ..Limits::default()
            },
        ));
        let start = Instant::now();
        let mut times = Vec::new();
        for _ in 0..4 {
            let p = limiter.acquire(0).await;
            times.push(Instant::now() - start);
            drop(p);
        }
        assert_eq!(times[0], Duration::ZERO);
        for w in times.windows(2) {
            assert!(w[1] - w[0] >= Duration::from_secs(1), "{times:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn gcra_spacing_holds_for_concurrent_callers() {
        let limiter = Arc::new(ProfileLimiter::new(
            "p",
            Limits {
                requests_per_minute: Some(60),
                ..Limits::default()
            },
        ));
        let start = Instant::now();
        let mut handles = Vec::new();
        for _ in 0..5 {
            let l = Arc::clone(&limiter);
            handles.push(tokio::spawn(async move {
                let _p = l.acquire(0).await;
                Instant::now() - start
            }));
        }
        let mut times = Vec::new();
        for h in handles {
            times.push(h.await.expect("task"));
        }
        times.sort();
        for w in times.windows(2) {
            assert!(w[1] - w[0] >= Duration::from_secs(1), "{times:?}");
        }
        assert!(times[4] >= Duration::from_secs(4));
    }

    #[tokio::test(start_paused = true)]
    async fn gcra_does_not_save_up_idle_time() {
        let limiter = Arc::new(ProfileLimiter::new(
            "p",
            Limits {
                requests_per_minute: Some(60),
                ..Limits::default()
            },
        ));
        drop(limiter.acquire(0).await);
        tokio::time::sleep(Duration::from_secs(10)).await;
        let t0 = Instant::now();
        drop(limiter.acquire(0).await);
        drop(limiter.acquire(0).await);
        assert!(Instant::now() - t0 >= Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn token_bucket_waits_for_refill_and_settles_from_usage() {
        let limiter = Arc::new(ProfileLimiter::new(
            "p",
            Limits {
                tokens_per_minute: Some(600), // 10 tokens/s
                ..Limits::default()
            },
        ));
        let start = Instant::now();
        let p = limiter.acquire(600).await;
        assert_eq!(Instant::now() - start, Duration::ZERO);
        assert_eq!(p.charged(), 600);
        // Only 100 were used: 500 come back at once.
        p.settle(100);
        let p = limiter.acquire(500).await;
        assert_eq!(Instant::now() - start, Duration::ZERO);
        p.settle(500);
        // The bucket is empty: 100 tokens take 10 s.
        let t0 = Instant::now();
        drop(limiter.acquire(100).await);
        let waited = Instant::now() - t0;
        assert!(
            waited >= Duration::from_secs(10) && waited < Duration::from_millis(10_100),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn pause_blocks_every_caller_until_it_passes() {
        let limiter = Arc::new(ProfileLimiter::unlimited("p"));
        let start = Instant::now();
        limiter.pause_until(start + Duration::from_secs(7));
        // A shorter pause does not shorten the current one.
        limiter.pause_until(start + Duration::from_secs(2));
        let mut handles = Vec::new();
        for _ in 0..3 {
            let l = Arc::clone(&limiter);
            handles.push(tokio::spawn(async move {
                drop(l.acquire(0).await);
                Instant::now() - start
            }));
        }
        for h in handles {
            assert!(h.await.expect("task") >= Duration::from_secs(7));
        }
        assert!(limiter.paused_until().is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn max_concurrency_caps_permits_in_flight() {
        let limiter = Arc::new(ProfileLimiter::new(
            "p",
            Limits {
                max_concurrency: Some(2),
                ..Limits::default()
            },
        ));
        let a = limiter.acquire(0).await;
        let _b = limiter.acquire(0).await;
        let l = Arc::clone(&limiter);
        let third = tokio::spawn(async move { drop(l.acquire(0).await) });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!third.is_finished());
        drop(a);
        third.await.expect("third permit after a slot frees");
    }

    #[test]
    fn registry_shares_one_limiter_per_profile() {
        let reg = LimiterRegistry::new();
        let a = reg.get("openai", Limits::default());
        let b = reg.get(
            "openai",
            Limits {
                requests_per_minute: Some(5),
                ..Limits::default()
            },
        );
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &reg.get("local", Limits::default())));
    }
}
