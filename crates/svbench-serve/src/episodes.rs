//! Live episodes: a map of slots, each holding its session behind its own
//! mutex, with idle expiry, a capacity cap, and a bounded memory of expired
//! ids so a late step learns `episode_expired` rather than `episode_not_found`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use svbench_api::envs::EnvId;
use svbench_api::session::Session;
use svbench_api::ErrorCode;

use crate::error::HttpError;

/// Expired ids remembered at most; older ones then answer `episode_not_found`.
const MAX_TOMBSTONES: usize = 65_536;

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
}

impl Slot {
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
    ids: HashSet<String>,
}

impl Tombstones {
    fn insert(&mut self, id: String) {
        if self.ids.insert(id.clone()) {
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
        }
    }
}

/// The episode store.
#[derive(Debug)]
pub struct Episodes {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    tombstones: Mutex<Tombstones>,
    max: usize,
    ttl: Duration,
    epoch: Instant,
    epoch_wall: SystemTime,
    next: AtomicU64,
    ids: RandomState,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Episodes {
    /// An empty store.
    #[must_use]
    pub fn new(max: usize, ttl: Duration) -> Self {
        Self {
            slots: Mutex::new(HashMap::new()),
            tombstones: Mutex::new(Tombstones::default()),
            max,
            ttl,
            epoch: Instant::now(),
            epoch_wall: SystemTime::now(),
            next: AtomicU64::new(0),
            ids: RandomState::new(),
        }
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
        lock(&self.slots).len()
    }

    /// Adds a session; `capacity_exhausted` when `max` are held.
    ///
    /// # Errors
    /// `capacity_exhausted`.
    pub fn insert(&self, env: EnvId, session: Session) -> Result<Arc<Slot>, HttpError> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        // Unguessable enough that ids cannot be enumerated; unique through
        // the counter.
        let id = format!("ep_{:016x}{:06x}", self.ids.hash_one(n), n & 0xff_ffff);
        let slot = Arc::new(Slot {
            id: id.clone(),
            env,
            example_id: session.example().id.clone(),
            session: Arc::new(tokio::sync::Mutex::new(session)),
            last_used_ms: AtomicU64::new(self.now_ms()),
            turn: AtomicU32::new(0),
            done: AtomicBool::new(false),
        });
        let mut slots = lock(&self.slots);
        if slots.len() >= self.max {
            return Err(HttpError::api(
                ErrorCode::CapacityExhausted,
                format!(
                    "{} live episodes (the --max-episodes cap): finish or delete one, or retry later",
                    slots.len()
                ),
            ));
        }
        slots.insert(id, Arc::clone(&slot));
        Ok(slot)
    }

    /// A live slot, refreshing its idle clock when `touch`.
    ///
    /// # Errors
    /// [`Missing`] as an error answer.
    pub fn get(&self, id: &str, touch: bool) -> Result<Arc<Slot>, Missing> {
        let now = self.now_ms();
        let slot = {
            let slots = lock(&self.slots);
            slots.get(id).cloned()
        };
        let Some(slot) = slot else {
            return Err(if lock(&self.tombstones).ids.contains(id) {
                Missing::Expired
            } else {
                Missing::NotFound
            });
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
        let mut slots = lock(&self.slots);
        // Re-check under the map lock: a step may have touched it meanwhile.
        if !self.is_expired(slot, now) {
            return false;
        }
        if slots.remove(&slot.id).is_some() {
            lock(&self.tombstones).insert(slot.id.clone());
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
        if let Some(slot) = lock(&self.slots).remove(id) {
            return Ok(slot);
        }
        Err(if lock(&self.tombstones).ids.contains(id) {
            Missing::Expired
        } else {
            Missing::NotFound
        })
    }

    /// Drops every idle slot past its TTL; returns the dropped ones.
    pub fn sweep(&self) -> Vec<Arc<Slot>> {
        let now = self.now_ms();
        let candidates: Vec<Arc<Slot>> = lock(&self.slots)
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
        let mut slots = lock(&self.slots);
        let n = slots.len();
        slots.clear();
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
