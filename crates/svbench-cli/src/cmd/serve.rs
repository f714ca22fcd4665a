//! `svbench serve`: flags to a [`svbench_serve::ServeConfig`], then serve
//! until SIGINT/SIGTERM.

use std::time::Duration;

use anyhow::Context;
use clap::Args;
use svbench_api::envs::{EnvId, ALL};
use svbench_serve::{ServeConfig, Server};

use super::GlobalArgs;
use crate::exit;

/// Arguments of `svbench serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the bound address is
    /// printed on stdout).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Environments to serve, comma-separated names or aliases [default: all].
    #[arg(long, value_name = "LIST")]
    pub envs: Option<String>,
    /// Live episodes at most; more resets get 503 capacity_exhausted.
    #[arg(long, default_value_t = 1024)]
    pub max_episodes: usize,
    /// Seconds an episode may idle (refreshed by each step) before it is dropped.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub episode_ttl: f64,
    /// Seconds a request may take before it is answered 504 timeout.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub request_timeout: f64,
    /// Request body limit in bytes; larger bodies get 413.
    #[arg(long, default_value_t = 2 * 1024 * 1024, value_name = "BYTES")]
    pub max_body: usize,
    /// Seconds to let in-flight requests finish after SIGINT/SIGTERM.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub shutdown_grace: f64,
    /// Name of an environment variable holding a bearer token required on
    /// every route but /healthz and /readyz.
    #[arg(long, value_name = "VAR")]
    pub auth_token_env: Option<String>,
    /// Worker threads of the async runtime [default: one per core].
    #[arg(long, hide = true)]
    pub threads: Option<usize>,
}

fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| exit::usage(format!("--{flag} must be a positive number of seconds")))
}

/// The server configuration the flags ask for.
pub fn config(args: &ServeArgs) -> anyhow::Result<ServeConfig> {
    let envs = match &args.envs {
        None => ALL.to_vec(),
        Some(list) => {
            let mut envs = Vec::new();
            for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let id = EnvId::resolve(name).map_err(|e| exit::usage(e.message))?;
                if !envs.contains(&id) {
                    envs.push(id);
                }
            }
            if envs.is_empty() {
                return Err(exit::usage("--envs names no environment"));
            }
            envs
        }
    };
    let auth_token = match &args.auth_token_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(t) if !t.is_empty() => Some(t),
            _ => {
                return Err(exit::with_hint(
                    exit::USAGE,
                    format!("--auth-token-env {var}: the variable is unset or empty"),
                    format!("export {var}=<token> before starting the server"),
                ))
            }
        },
    };
    if args.max_episodes == 0 || args.max_body == 0 {
        return Err(exit::usage(
            "--max-episodes and --max-body must be positive",
        ));
    }
    Ok(ServeConfig {
        envs,
        max_episodes: args.max_episodes,
        episode_ttl: seconds("episode-ttl", args.episode_ttl)?,
        request_timeout: seconds("request-timeout", args.request_timeout)?,
        max_body: args.max_body,
        shutdown_grace: Duration::try_from_secs_f64(args.shutdown_grace).map_err(|_| {
            exit::usage("--shutdown-grace must be a non-negative number of seconds")
        })?,
        auth_token,
        ..ServeConfig::default()
    })
}

/// Runs the command; returns the exit code.
pub fn run(args: ServeArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    let config = config(&args)?;
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if let Some(n) = args.threads {
        builder.worker_threads(n.max(1));
    }
    let runtime = builder.build().context("starting the async runtime")?;
    let served = runtime.block_on(async {
        let server = Server::bind(&args.bind, config).await?;
        let addr = server.local_addr()?;
        // The address on stdout, alone, so scripts and tests can read it.
        println!("http://{addr}");
        eprintln!("svbench serve: listening on http://{addr} (SIGINT/SIGTERM to stop)");
        server.run(svbench_serve::shutdown_signal()).await?;
        eprintln!("svbench serve: stopped");
        anyhow::Ok(())
    });
    // Requests past the grace may still hold blocking workers (a tool
    // call): do not wait for them.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served?;
    Ok(exit::OK)
}
