//! Live episodes: a map of slots, each holding its session behind its own
//! mutex, with idle expiry, a capacity cap, a memory budget (bytes per
//! episode and in all, with idle episodes evicted when it is full), and a
//! bounded memory of dropped ids so a late step learns `episode_expired`
//! rather than `episode_not_found`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use svbench_api::envs::EnvId;
use svbench_api::session::{Session, SessionLimits};
use svbench_api::ErrorCode;

use crate::error::HttpError;

/// Expired ids remembered at most; older ones then answer `episode_not_found`.
const MAX_TOMBSTONES: usize = 65_536;

/// What a client may ask of an episode and what the episodes may hold
/// (flags of `svbench serve`). Defaults bound episode memory to 512 MiB in
/// all, whatever clients send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpisodeLimits {
    /// The largest `max_turns` a reset may ask for (`--max-turns-limit`).
    pub max_turns: u32,
    /// The largest `tool_budget` a reset may ask for (`--tool-budget-limit`).
    pub tool_budget: u32,
    /// The largest assistant message one step takes, in accounted bytes
    /// (`--max-message-bytes`).
    pub max_message_bytes: usize,
    /// The most one episode holds: example, prompt, tools, transcript,
    /// reward (`--max-episode-bytes`).
    pub max_episode_bytes: usize,
    /// The most all live episodes hold together (`--max-total-episode-bytes`).
    pub max_total_bytes: usize,
    /// When the total is full, episodes idle this long may be evicted to
    /// make room, least recently used first (`--evict-idle-after`); ended
    /// and expired episodes go first whatever their idle time.
    pub evict_idle_after: Duration,
}

impl Default for EpisodeLimits {
    fn default() -> Self {
        Self {
            max_turns: 64,
            tool_budget: 64,
            max_message_bytes: 1 << 20,
            max_episode_bytes: 8 << 20,
            max_total_bytes: 512 << 20,
            evict_idle_after: Duration::from_secs(60),
        }
    }
}

impl EpisodeLimits {
    /// The most the episodes may hold for a reset to be taken: 7/8 of the
    /// total, the rest kept for the steps of live episodes.
    #[must_use]
    pub fn reset_bytes(&self) -> usize {
        self.max_total_bytes - self.max_total_bytes / 8
    }

    /// The per-session part.
    #[must_use]
    pub fn session(&self) -> SessionLimits {
        SessionLimits {
            max_message_bytes: self.max_message_bytes,
            max_bytes: self.max_episode_bytes,
        }
    }
}

/// One live episode.
#[derive(Debug)]
pub struct Slot {
    /// Episode id.
    pub id: String,
    /// Its environment.
    pub env: EnvId,
    /// Its example.
    pub example_id: String,
    /// The session; a step holds the lock for its whole run, so a second
    /// concurrent step finds it taken (`episode_busy`).
    pub session: Arc<tokio::sync::Mutex<Session>>,
    // Milliseconds since the store's epoch of the last use: expiry is
    // `last_used + ttl`, refreshed at the start and the end of every step.
    last_used_ms: AtomicU64,
    turn: AtomicU32,
    done: AtomicBool,
    // Bytes the session holds as of its last finished step (counted in the
    // store's total while the slot is live).
    bytes: AtomicUsize,
    live: AtomicBool,
    // Creation order: breaks ties between equal last-use times.
    seq: u64,
}

impl Slot {
    /// Bytes the episode holds (as of its last finished step).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Whether the slot is still in the store (not deleted, expired or
    /// evicted).
    #[must_use]
    pub fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    /// Model turns so far (as of the last finished step).
    #[must_use]
    pub fn turn(&self) -> u32 {
        self.turn.load(Ordering::Relaxed)
    }

    /// Whether the episode has ended (as of the last finished step).
    #[must_use]
    pub fn done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    /// Records a finished step.
    pub fn record_step(&self, turn: u32, done: bool) {
        self.turn.store(turn, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
    }
}

#[derive(Debug, Default)]
struct Tombstones {
    order: VecDeque<String>,
    ids: HashMap<String, Missing>,
}

impl Tombstones {
    fn insert(&mut self, id: String, why: Missing) {
        if self.ids.insert(id.clone(), why).is_none() {
            self.order.push_back(id);
            while self.order.len() > MAX_TOMBSTONES {
                if let Some(old) = self.order.pop_front() {
                    self.ids.remove(&old);
                }
            }
        }
    }
}

/// Why a slot could not be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Never existed, deleted, or forgotten.
    NotFound,
    /// Dropped after idling past the TTL.
    Expired,
    /// Evicted to make room when the episodes' memory was full.
    Evicted,
}

impl Missing {
    /// The error answer.
    #[must_use]
    pub fn error(self, id: &str) -> HttpError {
        match self {
            Missing::NotFound => {
                HttpError::api(ErrorCode::EpisodeNotFound, format!("no episode `{id}`"))
            }
            Missing::Expired => HttpError::api(
                ErrorCode::EpisodeExpired,
                format!("episode `{id}` idled past its TTL and was dropped"),
            ),
            Missing::Evicted => HttpError::api(
                ErrorCode::EpisodeExpired,
                format!(
                    "episode `{id}` was evicted to make room for others: the server's episode \
                     memory (--max-total-episode-bytes) was full and it had ended or idled past \
                     --evict-idle-after"
                ),
            ),
        }
    }
}

/// The episode store.
#[derive(Debug)]
pub struct Episodes {
    inner: Mutex<Inner>,
    tombstones: Mutex<Tombstones>,
    max: usize,
    ttl: Duration,
    limits: EpisodeLimits,
    epoch: Instant,
    epoch_wall: SystemTime,
    next: AtomicU64,
    ids: RandomState,
}

#[derive(Debug, Default)]
struct Inner {
    slots: HashMap<String, Arc<Slot>>,
    // Bytes of every live slot plus the grants of the steps running now;
    // never over `limits.max_total_bytes`.
    total: usize,
}

impl Inner {
    fn remove(&mut self, id: &str) -> Option<Arc<Slot>> {
        let slot = self.slots.remove(id)?;
        slot.live.store(false, Ordering::Release);
        self.total = self.total.saturating_sub(slot.bytes());
        Some(slot)
    }
}

/// Bytes set aside from the total for one running step; given back (less
/// what the step kept) by [`Episodes::settle`].
#[derive(Debug)]
#[must_use = "a grant is given back by `Episodes::settle`"]
pub struct Grant {
    bytes: usize,
}

impl Grant {
    /// The bytes granted: the episode may grow by at most this much.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The answer when the episodes' memory is full.
pub(crate) fn memory_full(total: usize, needed: usize, limit: usize, reset: bool) -> HttpError {
    let which = if reset {
        "new episodes may fill 7/8 of --max-total-episode-bytes; the rest is kept for steps"
    } else {
        "--max-total-episode-bytes"
    };
    HttpError::Api(
        svbench_api::ApiError::new(
            ErrorCode::CapacityExhausted,
            format!(
                "the server's episodes hold {total} bytes and {needed} more do not fit in its \
                 limit of {limit} bytes ({which}), even after evicting ended and idle \
                 episodes: finish or delete an episode, or retry later"
            ),
        )
        .with_details(serde_json::json!({"held": total, "needed": needed, "limit": limit})),
    )
}

impl Episodes {
    /// An empty store.
    #[must_use]
    pub fn new(max: usize, ttl: Duration, limits: EpisodeLimits) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            tombstones: Mutex::new(Tombstones::default()),
            max,
            ttl,
            limits,
            epoch: Instant::now(),
            epoch_wall: SystemTime::now(),
            next: AtomicU64::new(0),
            ids: RandomState::new(),
        }
    }

    /// The limits episodes run under.
    #[must_use]
    pub fn limits(&self) -> &EpisodeLimits {
        &self.limits
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// Episodes held now.
    #[must_use]
    pub fn live(&self) -> usize {
        lock(&self.inner).slots.len()
    }

    /// Bytes the live episodes hold now, with the grants of running steps.
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        lock(&self.inner).total
    }

    /// Adds a session; `capacity_exhausted` when `max` are held or its bytes
    /// do not fit in the total (after evicting what may be evicted). The
    /// evicted slots are returned with the new one, for metrics.
    ///
    /// # Errors
    /// `capacity_exhausted`.
    pub fn insert(
        &self,
        env: EnvId,
        session: Session,
    ) -> Result<(Arc<Slot>, Vec<Arc<Slot>>), HttpError> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        // Unguessable enough that ids cannot be enumerated; unique through
        // the counter.
        let id = format!("ep_{:016x}{:06x}", self.ids.hash_one(n), n & 0xff_ffff);
        let bytes = session.held_bytes();
        let slot = Arc::new(Slot {
            id: id.clone(),
            env,
            example_id: session.example().id.clone(),
            session: Arc::new(tokio::sync::Mutex::new(session)),
            last_used_ms: AtomicU64::new(self.now_ms()),
            turn: AtomicU32::new(0),
            done: AtomicBool::new(false),
            bytes: AtomicUsize::new(bytes),
            live: AtomicBool::new(true),
            seq: n,
        });
        let mut inner = lock(&self.inner);
        let mut evicted = Vec::new();
        if inner.slots.len() >= self.max {
            // Only expired and ended episodes make room for a count: an
            // idle one is a client's work in progress.
            evicted = self.evict(
                &mut inner,
                None,
                |inner| inner.slots.len() < self.max,
                false,
            );
            if inner.slots.len() >= self.max {
                self.bury(&evicted);
                return Err(HttpError::api(
                    ErrorCode::CapacityExhausted,
                    format!(
                        "{} live episodes (the --max-episodes cap): finish or delete one, or \
                         retry later",
                        inner.slots.len()
                    ),
                ));
            }
        }
        // New episodes stop short of the total, so that live ones keep
        // room for their steps (their final answers included).
        let limit = self.limits.reset_bytes();
        if inner.total.saturating_add(bytes) > limit {
            evicted.extend(self.evict(
                &mut inner,
                None,
                |inner| inner.total.saturating_add(bytes) <= limit,
                true,
            ));
            if inner.total.saturating_add(bytes) > limit {
                let total = inner.total;
                drop(inner);
                self.bury(&evicted);
                return Err(memory_full(total, bytes, limit, true));
            }
        }
        inner.total += bytes;
        inner.slots.insert(id, Arc::clone(&slot));
        drop(inner);
        self.bury(&evicted);
        Ok((slot, evicted))
    }

    /// Sets aside bytes for a step of `slot`: up to what the episode may
    /// still grow (its own limit less what it holds), at least `needed`
    /// (the step's message), evicting idle episodes when the total is full.
    /// Returns the grant and the evicted slots.
    ///
    /// # Errors
    /// `capacity_exhausted` when not even `needed` bytes can be had.
    pub fn reserve(
        &self,
        slot: &Arc<Slot>,
        needed: usize,
    ) -> Result<(Grant, Vec<Arc<Slot>>), HttpError> {
        let room = self.limits.max_episode_bytes.saturating_sub(slot.bytes());
        // Evict only for what the step surely needs, plus a little for tool
        // results: not for everything the episode might grow to.
        let wanted = room.min(needed.saturating_add(64 << 10));
        let limit = self.limits.max_total_bytes;
        let mut inner = lock(&self.inner);
        let mut evicted = Vec::new();
        if inner.total.saturating_add(wanted) > limit {
            evicted = self.evict(
                &mut inner,
                Some(&slot.id),
                |inner| inner.total.saturating_add(wanted) <= limit,
                true,
            );
        }
        let free = limit.saturating_sub(inner.total);
        if free < needed.min(room) {
            let total = inner.total;
            drop(inner);
            self.bury(&evicted);
            return Err(memory_full(total, needed, limit, false));
        }
        let bytes = room.min(free);
        inner.total += bytes;
        drop(inner);
        self.bury(&evicted);
        Ok((Grant { bytes }, evicted))
    }

    /// Gives a step's grant back, recording what its episode holds now
    /// (at most what it held before plus the grant).
    pub fn settle(&self, slot: &Slot, grant: Grant, held: usize) {
        let mut inner = lock(&self.inner);
        inner.total = inner.total.saturating_sub(grant.bytes);
        if slot.is_live() {
            let before = slot.bytes.swap(held, Ordering::Relaxed);
            inner.total = inner.total.saturating_sub(before).saturating_add(held);
        } else {
            // Deleted while its step ran: its bytes left the total then.
            slot.bytes.store(held, Ordering::Relaxed);
        }
    }

    /// Evicts slots (none locked by a running step, never `keep`) until
    /// `enough` holds: expired ones first, then ended ones, then, when
    /// `idle` is set, those idle at least `evict_idle_after`; least
    /// recently used first within each group.
    fn evict(
        &self,
        inner: &mut Inner,
        keep: Option<&str>,
        enough: impl Fn(&Inner) -> bool,
        idle: bool,
    ) -> Vec<Arc<Slot>> {
        let now = self.now_ms();
        let idle_ms = u64::try_from(self.limits.evict_idle_after.as_millis()).unwrap_or(u64::MAX);
        let mut candidates: Vec<(u8, u64, u64, Arc<Slot>)> = inner
            .slots
            .values()
            .filter(|s| Some(s.id.as_str()) != keep)
            .filter_map(|s| {
                let last = s.last_used_ms.load(Ordering::Relaxed);
                let group = if self.is_expired(s, now) {
                    0
                } else if s.done() {
                    1
                } else if idle && now.saturating_sub(last) >= idle_ms {
                    2
                } else {
                    return None;
                };
                Some((group, last, s.seq, Arc::clone(s)))
            })
            .collect();
        candidates.sort_by_key(|(group, last, seq, _)| (*group, *last, *seq));
        let mut evicted = Vec::new();
        for (_, _, _, slot) in candidates {
            if enough(inner) {
                break;
            }
            // A running step keeps its episode.
            let Ok(_guard) = slot.session.try_lock() else {
                continue;
            };
            if let Some(slot) = inner.remove(&slot.id) {
                evicted.push(slot);
            }
        }
        evicted
    }

    /// Remembers evicted ids (so a late request learns why).
    fn bury(&self, slots: &[Arc<Slot>]) {
        if slots.is_empty() {
            return;
        }
        let now = self.now_ms();
        let mut tombstones = lock(&self.tombstones);
        for slot in slots {
            let why = if self.is_expired(slot, now) {
                Missing::Expired
            } else {
                Missing::Evicted
            };
            tombstones.insert(slot.id.clone(), why);
        }
    }

    /// Why an id names no live slot.
    #[must_use]
    pub fn missing(&self, id: &str) -> Missing {
        lock(&self.tombstones)
            .ids
            .get(id)
            .copied()
            .unwrap_or(Missing::NotFound)
    }

    /// A live slot, refreshing its idle clock when `touch`.
    ///
    /// # Errors
    /// [`Missing`] as an error answer.
    pub fn get(&self, id: &str, touch: bool) -> Result<Arc<Slot>, Missing> {
        let now = self.now_ms();
        let slot = lock(&self.inner).slots.get(id).cloned();
        let Some(slot) = slot else {
            return Err(self.missing(id));
        };
        // Past its TTL but not yet swept: already gone for callers. The
        // sweeper drops it (and counts the eviction) on its next pass. A
        // slot whose step is running is not idle.
        if self.is_expired(&slot, now) && slot.session.try_lock().is_ok() {
            return Err(Missing::Expired);
        }
        if touch {
            self.touch(&slot);
        }
        Ok(slot)
    }

    /// Refreshes a slot's idle clock.
    pub fn touch(&self, slot: &Slot) {
        slot.last_used_ms.store(self.now_ms(), Ordering::Relaxed);
    }

    fn is_expired(&self, slot: &Slot, now: u64) -> bool {
        now.saturating_sub(slot.last_used_ms.load(Ordering::Relaxed)) > self.ttl_ms()
    }

    /// Drops an expired slot unless a step holds it (a running step keeps
    /// its episode alive). Returns whether it was dropped.
    fn evict_if_idle(&self, slot: &Slot, now: u64) -> bool {
        // Held while removing, so no step can start on a slot being dropped.
        let Ok(_guard) = slot.session.try_lock() else {
            return false;
        };
        let mut inner = lock(&self.inner);
        // Re-check under the map lock: a step may have touched it meanwhile.
        if !self.is_expired(slot, now) {
            return false;
        }
        if inner.remove(&slot.id).is_some() {
            lock(&self.tombstones).insert(slot.id.clone(), Missing::Expired);
            true
        } else {
            false
        }
    }

    /// Removes a slot (`DELETE`).
    ///
    /// # Errors
    /// [`Missing`].
    pub fn remove(&self, id: &str) -> Result<Arc<Slot>, Missing> {
        if let Some(slot) = lock(&self.inner).remove(id) {
            return Ok(slot);
        }
        Err(self.missing(id))
    }

    /// Drops every idle slot past its TTL; returns the dropped ones.
    pub fn sweep(&self) -> Vec<Arc<Slot>> {
        let now = self.now_ms();
        let candidates: Vec<Arc<Slot>> = lock(&self.inner)
            .slots
            .values()
            .filter(|s| self.is_expired(s, now))
            .cloned()
            .collect();
        candidates
            .into_iter()
            .filter(|s| self.evict_if_idle(s, now))
            .collect()
    }

    /// Drops every slot (shutdown); returns how many there were.
    pub fn clear(&self) -> usize {
        let mut inner = lock(&self.inner);
        let n = inner.slots.len();
        for slot in inner.slots.values() {
            slot.live.store(false, Ordering::Release);
        }
        inner.slots.clear();
        inner.total = 0;
        n
    }

    /// When a slot expires if left idle, as RFC 3339 UTC.
    #[must_use]
    pub fn expires_at(&self, slot: &Slot) -> String {
        let at = self.epoch_wall
            + Duration::from_millis(slot.last_used_ms.load(Ordering::Relaxed))
            + self.ttl;
        chrono::DateTime::<chrono::Utc>::from(at)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }
}
