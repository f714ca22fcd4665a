//! `svbench serve` (harness §6): an axum server over `svbench-api` —
//! environment catalogue, dataset rows, stateless scoring, and multi-turn
//! episodes kept in memory — with health, readiness and Prometheus metrics.
//!
//! [`Server::bind`] then [`Server::run`]; tests use [`Server::state`] for
//! the live-episode count and the episode-work hold hook.

pub mod body;
pub mod conn;
pub mod episodes;
pub mod error;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod pool;
pub mod routes;
pub mod state;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use svbench_api::envs::{self, EnvId};
use svbench_api::FsAccess;
use tokio::net::TcpListener;

pub use conn::{ConnLimits, ConnStats};
pub use episodes::EpisodeLimits;
pub use error::HttpError;
pub use state::AppState;

/// The server's settings (the flags of `svbench serve`).
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Environments served.
    pub envs: Vec<EnvId>,
    /// Live episodes at most (`capacity_exhausted` beyond).
    pub max_episodes: usize,
    /// Idle time after which an episode is dropped.
    pub episode_ttl: Duration,
    /// Time limit of one request (`timeout` beyond).
    pub request_timeout: Duration,
    /// Request body size limit in bytes (`payload_too_large` beyond).
    pub max_body: usize,
    /// Budgets a reset may ask for and the memory episodes may hold.
    pub episodes: EpisodeLimits,
    /// How long shutdown waits for in-flight requests.
    pub shutdown_grace: Duration,
    /// Bearer token required on all routes but the health ones.
    pub auth_token: Option<String>,
    /// How often idle episodes are swept (10 s; tests go faster).
    pub sweep_interval: Duration,
    /// Header-read and idle timeouts, connection cap.
    pub connections: ConnLimits,
    /// Which server paths requests' environment arguments may name
    /// (`policy_dirs`, `semgrep_config`): none by default, or those inside
    /// the directories of `--allow-policy-dir`.
    pub fs_access: FsAccess,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            envs: envs::all(),
            max_episodes: 1024,
            episode_ttl: Duration::from_secs(600),
            request_timeout: Duration::from_secs(30),
            max_body: 2 * 1024 * 1024,
            episodes: EpisodeLimits::default(),
            shutdown_grace: Duration::from_secs(30),
            auth_token: None,
            sweep_interval: Duration::from_secs(10),
            fs_access: FsAccess::default(),
            connections: ConnLimits::default(),
        }
    }
}

/// Errors of starting and running the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot bind {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Accepting connections failed.
    #[error("server failed: {0}")]
    Serve(#[source] std::io::Error),
    /// The server task panicked.
    #[error("server task failed: {0}")]
    Task(String),
    /// Built-in data failed to load (a bug).
    #[error("cannot load the environments: {0}")]
    Load(#[source] svbench_api::ApiError),
}

/// The router over a state: every route of §6, JSON errors for everything.
pub fn router(state: Arc<AppState>) -> Router {
    use routes as r;
    let max_body = state.config.max_body;
    Router::new()
        .route("/healthz", get(r::healthz))
        .route("/readyz", get(r::readyz))
        .route("/metrics", get(r::metrics))
        .route("/v1/openapi.json", get(r::openapi))
        .route("/v1/envs", get(r::list_envs))
        .route("/v1/envs/{env}", get(r::get_env))
        .route("/v1/envs/{env}/splits/{split}/rows", get(r::rows))
        .route(
            "/v1/envs/{env}/splits/{split}/rows/{index}",
            get(r::one_row),
        )
        .route("/v1/envs/{env}/score", post(r::score))
        .route("/v1/envs/{env}/score_batch", post(r::score_batch))
        .route("/v1/envs/{env}/episodes", post(r::reset))
        .route("/v1/episodes/{id}/step", post(r::step))
        .route(
            "/v1/episodes/{id}",
            get(r::get_episode).delete(r::delete_episode),
        )
        .fallback(middleware::not_found)
        .method_not_allowed_fallback(middleware::method_not_allowed)
        // Last added runs first: metrics see every answer, 401s included.
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            middleware::timeout,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            middleware::auth,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            middleware::content_length,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            middleware::metrics,
        ))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

/// A bound server, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    state: Arc<AppState>,
}

impl Server {
    /// Binds the address (port 0 picks a free port).
    ///
    /// # Errors
    /// [`ServeError::Bind`].
    pub async fn bind(addr: &str, config: ServeConfig) -> Result<Self, ServeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: addr.to_string(),
                source,
            })?;
        Ok(Self {
            listener,
            state: Arc::new(AppState::new(config)),
        })
    }

    /// The bound address.
    ///
    /// # Errors
    /// When the socket has no local address (not after a successful bind).
    pub fn local_addr(&self) -> Result<SocketAddr, ServeError> {
        self.listener.local_addr().map_err(ServeError::Serve)
    }

    /// The shared state (live episodes, metrics, test hooks).
    #[must_use]
    pub fn state(&self) -> Arc<AppState> {
        Arc::clone(&self.state)
    }

    /// Serves until `shutdown` resolves, then stops accepting, closes every
    /// connection with no request in flight, waits up to the shutdown grace
    /// for the requests in flight, and drops every episode.
    ///
    /// # Errors
    /// [`ServeError::Serve`], [`ServeError::Task`], [`ServeError::Load`].
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), ServeError> {
        let state = self.state;
        let loader = {
            let st = Arc::clone(&state);
            tokio::task::spawn_blocking(move || st.load())
        };
        let sweeper = tokio::spawn(sweep_loop(Arc::clone(&state)));
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let app = router(Arc::clone(&state));
        let served = conn::serve(
            self.listener,
            app,
            state.config.connections,
            Arc::clone(&state.connections),
            stop_rx,
        );
        let mut server = tokio::spawn(served);
        let mut loader = Some(loader);
        let outcome = tokio::select! {
            r = &mut server => Some(r),
            () = shutdown => None,
            Some(Ok(Err(e))) = async { match loader.take() { Some(l) => Some(l.await), None => None } } => {
                stop_tx.send_replace(true);
                server.abort();
                sweeper.abort();
                return Err(ServeError::Load(e));
            }
        };
        let result = match outcome {
            Some(r) => r
                .map_err(|e| ServeError::Task(e.to_string()))?
                .map_err(ServeError::Serve),
            None => {
                stop_tx.send_replace(true);
                match tokio::time::timeout(state.config.shutdown_grace, &mut server).await {
                    Ok(r) => r
                        .map_err(|e| ServeError::Task(e.to_string()))?
                        .map_err(ServeError::Serve),
                    Err(_) => {
                        // Grace is over: stop waiting for stragglers.
                        server.abort();
                        Ok(())
                    }
                }
            }
        };
        sweeper.abort();
        for _ in 0..state.episodes.clear() {
            state.metrics.eviction("shutdown");
        }
        result
    }
}

/// Drops idle episodes every sweep interval.
async fn sweep_loop(state: Arc<AppState>) {
    let mut tick = tokio::time::interval(state.config.sweep_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        for slot in state.episodes.sweep() {
            state.metrics.eviction("ttl");
            state.metrics.episode(slot.env.name(), "expired");
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
