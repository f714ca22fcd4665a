//! What every handler shares: the API service, the configuration, the
//! episode store, metrics, readiness and the catalogue.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use serde_json::Value;
use svbench_api::envs::EnvId;
use svbench_api::{ApiError, ErrorCode, Service};
use tokio::sync::watch;

use crate::episodes::Episodes;
use crate::error::HttpError;
use crate::metrics::Metrics;
use crate::{ConnStats, ServeConfig};

/// Shared server state.
#[derive(Debug)]
pub struct AppState {
    /// The scoring and data layer.
    pub service: Arc<Service>,
    /// The server's configuration.
    pub config: ServeConfig,
    /// Live episodes.
    pub episodes: Episodes,
    /// Metrics.
    pub metrics: Metrics,
    /// Open, refused and timed-out connections.
    pub connections: Arc<ConnStats>,
    ready: AtomicBool,
    catalog: OnceLock<Result<Vec<Value>, ApiError>>,
    // Jobs on blocking threads at once (scoring, rows, resets, steps): one
    // per core. More only adds threads that contend for the allocator and
    // the analyzers. A job holds its permit until it ends, even when its
    // request has timed out meanwhile.
    cpu: Arc<tokio::sync::Semaphore>,
    // Test hook: episode work waits while this is false (see `hold_episode_work`).
    gate: watch::Sender<bool>,
    // Test hook: blocking jobs wait while this is true, holding their permit
    // (see `hold_blocking_work`).
    blocking_gate: Arc<BlockingGate>,
    turns: usize,
}

/// A gate blocking threads wait at (test hook).
#[derive(Debug, Default)]
struct BlockingGate {
    closed: Mutex<bool>,
    opened: Condvar,
    waiting: AtomicUsize,
}

impl BlockingGate {
    fn set(&self, closed: bool) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = closed;
        self.opened.notify_all();
    }

    fn wait(&self) {
        let mut closed = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        if !*closed {
            return;
        }
        self.waiting.fetch_add(1, Ordering::AcqRel);
        while *closed {
            closed = self
                .opened
                .wait(closed)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

impl AppState {
    /// State for a configuration.
    #[must_use]
    pub fn new(config: ServeConfig) -> Self {
        let turns = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Self {
            service: Arc::new(Service::with_fs_access(config.fs_access.clone())),
            episodes: Episodes::new(config.max_episodes, config.episode_ttl, config.episodes),
            metrics: Metrics::default(),
            connections: Arc::new(ConnStats::default()),
            ready: AtomicBool::new(false),
            catalog: OnceLock::new(),
            gate: watch::Sender::new(true),
            cpu: Arc::new(tokio::sync::Semaphore::new(turns)),
            blocking_gate: Arc::new(BlockingGate::default()),
            turns,
            config,
        }
    }

    /// Whether the catalogue and every served split are loaded.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Loads the catalogue (and with it every served split) and marks the
    /// server ready. Blocking: run it off the async runtime.
    ///
    /// # Errors
    /// Only on bugs (embedded data or built-in configs that fail to load).
    pub fn load(&self) -> Result<(), ApiError> {
        let catalog = self.catalog();
        if catalog.is_ok() {
            self.ready.store(true, Ordering::Release);
        }
        catalog.map(|_| ())
    }

    /// The catalogue entries of the served environments. Blocking the first
    /// time.
    ///
    /// # Errors
    /// As [`Service::env_info`].
    pub fn catalog(&self) -> Result<&[Value], ApiError> {
        self.catalog
            .get_or_init(|| {
                self.config
                    .envs
                    .iter()
                    .map(|id| {
                        let info = self.service.env_info(*id)?;
                        serde_json::to_value(info)
                            .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
                    })
                    .collect()
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }

    /// Resolves an environment name among the served ones.
    ///
    /// # Errors
    /// `unknown_env`.
    pub fn env(&self, name: &str) -> Result<EnvId, HttpError> {
        let id = EnvId::resolve(name)?;
        if self.config.envs.contains(&id) {
            Ok(id)
        } else {
            Err(HttpError::api(
                ErrorCode::UnknownEnv,
                format!(
                    "environment `{name}` is not served here (served: {})",
                    self.config
                        .envs
                        .iter()
                        .map(|e| e.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
    }

    /// Runs CPU work on a blocking thread once a turn is free (FIFO, one
    /// job per core). The turn is held by the job itself, so a request that
    /// timed out or whose client went away frees it only when the work has
    /// really ended (scoring honours the request's deadline); the work's
    /// own result and the locks it holds are dropped there.
    ///
    /// # Errors
    /// `internal` if the job panicked.
    pub async fn run_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HttpError> {
        let permit = Arc::clone(&self.cpu)
            .acquire_owned()
            .await
            .map_err(|_| HttpError::internal("the worker pool is shut down"))?;
        self.spawn_blocking_with(permit, f).await
    }

    /// Runs `f` on a blocking thread that holds `permit` until it ends.
    pub(crate) async fn spawn_blocking_with<T: Send + 'static>(
        &self,
        permit: tokio::sync::OwnedSemaphorePermit,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HttpError> {
        let gate = Arc::clone(&self.blocking_gate);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            gate.wait();
            f()
        })
        .await
        .map_err(|e| HttpError::internal(format!("worker failed: {e}")))
    }

    /// A turn on the worker pool, waited for in FIFO order.
    ///
    /// # Errors
    /// Never in practice: the semaphore is never closed.
    pub async fn cpu_permit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, HttpError> {
        Arc::clone(&self.cpu)
            .acquire_owned()
            .await
            .map_err(|_| HttpError::internal("the worker pool is shut down"))
    }

    /// Test hook: while held, every job on the worker pool waits on its
    /// blocking thread, holding its turn, before it starts: tests saturate
    /// the pool deterministically.
    pub fn hold_blocking_work(&self) {
        self.blocking_gate.set(true);
    }

    /// Test hook: lets held blocking jobs go on.
    pub fn release_blocking_work(&self) {
        self.blocking_gate.set(false);
    }

    /// Test hook: blocking jobs waiting at the hold now.
    #[must_use]
    pub fn paused_blocking_work(&self) -> usize {
        self.blocking_gate.waiting.load(Ordering::Acquire)
    }

    /// Jobs the worker pool runs at once.
    #[must_use]
    pub fn worker_turns(&self) -> usize {
        self.turns
    }

    /// Test hook: while held, episode resets and steps pause after taking
    /// their episode's lock (a reset before storing its episode), so tests
    /// can make a request slow deterministically.
    pub fn hold_episode_work(&self) {
        self.gate.send_replace(false);
    }

    /// Test hook: lets paused episode work go on.
    pub fn release_episode_work(&self) {
        self.gate.send_replace(true);
    }

    /// Test hook: requests paused by [`Self::hold_episode_work`] now.
    #[must_use]
    pub fn paused_episode_work(&self) -> usize {
        self.gate.receiver_count()
    }

    /// Waits while episode work is held (immediately when it is not).
    pub(crate) async fn episode_gate(&self) {
        if *self.gate.borrow() {
            return;
        }
        let mut rx = self.gate.subscribe();
        // The sender lives as long as the state, so this cannot fail.
        let _ = rx.wait_for(|open| *open).await;
    }
}
