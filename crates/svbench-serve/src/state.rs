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
    // Scoring jobs on blocking threads at once: one per core. More only
    // adds threads that contend for the allocator and the analyzers.
    cpu: tokio::sync::Semaphore,
    // Test hook: episode work waits while this is false (see `hold_episode_work`).
    gate: watch::Sender<bool>,
}

impl AppState {
    /// State for a configuration.
    #[must_use]
    pub fn new(config: ServeConfig) -> Self {
        Self {
            service: Arc::new(Service::with_fs_access(config.fs_access.clone())),
            episodes: Episodes::new(config.max_episodes, config.episode_ttl),
            metrics: Metrics::default(),
            connections: Arc::new(ConnStats::default()),
            ready: AtomicBool::new(false),
            catalog: OnceLock::new(),
            gate: watch::Sender::new(true),
            cpu: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
            ),
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

    /// A turn at scoring on a blocking thread (FIFO, one per core).
    ///
    /// # Errors
    /// Never in practice: the semaphore is never closed.
    pub async fn cpu_permit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, HttpError> {
        self.cpu
            .acquire()
            .await
            .map_err(|_| HttpError::internal("scoring is shut down"))
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
