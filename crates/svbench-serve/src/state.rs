//! What every handler shares: the API service, the configuration, the
//! episode store, metrics, readiness and the catalogue.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use svbench_api::envs::EnvId;
use svbench_api::{ApiError, ErrorCode, Service};
use tokio::sync::watch;

use crate::episodes::Episodes;
use crate::error::HttpError;
use crate::metrics::Metrics;
use crate::pool::{JobError, WorkerPool};
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
    // CPU jobs (scoring, rows, resets, steps): one worker per core. More
    // only adds threads that contend for the allocator and the analyzers.
    // A job holds its worker until it ends, even when its request has timed
    // out meanwhile.
    pool: WorkerPool,
    // Test hook: episode work waits while this is false (see `hold_episode_work`).
    gate: watch::Sender<bool>,
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
            pool: WorkerPool::new(turns),
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

    /// Runs CPU work on the worker pool once a worker is free (FIFO, one
    /// job per core). The worker is held by the job itself, so a request
    /// that timed out or whose client went away frees it only when the work
    /// has really ended (scoring honours the request's deadline); a job whose
    /// request went away before it started is skipped.
    ///
    /// # Errors
    /// `internal` if the job panicked or the pool has stopped.
    pub async fn run_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HttpError> {
        self.pool.run(f).await.map_err(|e| match e {
            JobError::Panicked => HttpError::internal("a worker job panicked"),
            JobError::Stopped => HttpError::internal("the worker pool is shut down"),
        })
    }

    /// Test hook: while held, every job on the worker pool waits on its
    /// blocking thread, holding its turn, before it starts: tests saturate
    /// the pool deterministically.
    pub fn hold_blocking_work(&self) {
        self.pool.gate().set(true);
    }

    /// Test hook: lets held blocking jobs go on.
    pub fn release_blocking_work(&self) {
        self.pool.gate().set(false);
    }

    /// Test hook: blocking jobs waiting at the hold now.
    #[must_use]
    pub fn paused_blocking_work(&self) -> usize {
        self.pool.gate().waiting()
    }

    /// Jobs the worker pool runs at once.
    #[must_use]
    pub fn worker_turns(&self) -> usize {
        self.pool.threads()
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
