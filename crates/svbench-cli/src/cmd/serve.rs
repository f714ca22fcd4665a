//! `svbench serve`: flags to a [`svbench_serve::ServeConfig`], then serve
//! until SIGINT/SIGTERM.

use crate::out::outln;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use svbench_api::envs::{self, EnvId};
use svbench_api::FsAccess;
use svbench_serve::{ConnLimits, EpisodeLimits, ServeConfig, Server};

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
    /// The largest max_turns a reset may ask for (more is a 400).
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub max_turns_limit: u32,
    /// The largest tool_budget a reset may ask for (more is a 400).
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub tool_budget_limit: u32,
    /// Largest assistant message one episode step takes, in bytes (more is
    /// a 413 payload_too_large).
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    pub max_message_bytes: usize,
    /// Most bytes one episode holds (prompt, transcript, tool results,
    /// reward); a step that would pass it is a 413 episode_too_large.
    #[arg(long, default_value_t = 8 << 20, value_name = "BYTES")]
    pub max_episode_bytes: usize,
    /// Most bytes all live episodes hold together; when full, ended and idle
    /// episodes are evicted, else resets and steps get 503.
    #[arg(long, default_value_t = 512 << 20, value_name = "BYTES")]
    pub max_total_episode_bytes: usize,
    /// Seconds an episode must have idled before it may be evicted to make
    /// room when the episodes' memory is full.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub evict_idle_after: f64,
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
    /// Seconds a client has to send a complete request head, counted from
    /// when the server starts waiting for it (a new connection, or the end
    /// of the previous response); then the connection is closed.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    pub header_read_timeout: f64,
    /// Seconds a connection may sit with no request in flight and no byte
    /// moving either way (an idle keep-alive connection) before it is closed.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    pub idle_timeout: f64,
    /// Open connections at most. At the cap a new connection takes the slot
    /// of the connection that has waited longest for a request (idle or
    /// slow to send its head); when every slot has a request in flight it
    /// gets a health slot (below), else 503.
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_connections: usize,
    /// Extra connection slots that serve only /healthz, /readyz and
    /// /metrics, used when --max-connections are all busy.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub health_connections: usize,
    /// A directory whose files requests may name in path-valued environment
    /// arguments (E2's policy_dirs, semgrep_config); repeatable. Without it
    /// such arguments are refused: they would read the server's disk.
    #[arg(long, value_name = "DIR")]
    pub allow_policy_dir: Vec<PathBuf>,
    /// Threads of the async runtime, which only move bytes (scoring and
    /// other CPU work runs on a pool of one worker per core) [default: one
    /// per two cores, at least one].
    #[arg(long, hide = true)]
    pub threads: Option<usize>,
}

fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| exit::usage(format!("--{flag} must be a positive number of seconds")))
}

/// The bearer token held by `var` (its value, `None` when unset): refused
/// when unset, empty, whitespace only, or with surrounding whitespace (a
/// client's header value loses it, so such a token could never match).
fn auth_token(var: &str, value: Option<String>) -> anyhow::Result<String> {
    match value {
        Some(t) if !t.is_empty() && t.trim() == t => Ok(t),
        Some(t) if !t.trim().is_empty() => Err(exit::with_hint(
            exit::USAGE,
            format!("--auth-token-env {var}: the token starts or ends with whitespace"),
            format!("export {var}=<token> with no surrounding spaces or newlines"),
        )),
        Some(t) if !t.is_empty() => Err(exit::with_hint(
            exit::USAGE,
            format!("--auth-token-env {var}: the token is only whitespace"),
            format!("export {var}=<token> before starting the server"),
        )),
        _ => Err(exit::with_hint(
            exit::USAGE,
            format!("--auth-token-env {var}: the variable is unset or empty"),
            format!("export {var}=<token> before starting the server"),
        )),
    }
}

/// The server configuration the flags ask for.
pub fn config(args: &ServeArgs) -> anyhow::Result<ServeConfig> {
    let envs = match &args.envs {
        None => envs::all(),
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
        Some(var) => Some(auth_token(var, std::env::var(var).ok())?),
    };
    let fs_access = FsAccess::within(&args.allow_policy_dir)
        .map_err(|e| exit::usage(format!("--allow-policy-dir: {e}")))?;
    if args.max_episodes == 0 || args.max_body == 0 || args.max_connections == 0 {
        return Err(exit::usage(
            "--max-episodes, --max-body and --max-connections must be positive",
        ));
    }
    if args.max_turns_limit == 0
        || args.tool_budget_limit == 0
        || args.max_message_bytes == 0
        || args.max_episode_bytes == 0
    {
        return Err(exit::usage(
            "--max-turns-limit, --tool-budget-limit, --max-message-bytes and \
             --max-episode-bytes must be positive",
        ));
    }
    if args.max_total_episode_bytes < args.max_episode_bytes {
        return Err(exit::usage(
            "--max-total-episode-bytes must be at least --max-episode-bytes",
        ));
    }
    let connections = ConnLimits {
        header_read_timeout: seconds("header-read-timeout", args.header_read_timeout)?,
        idle_timeout: seconds("idle-timeout", args.idle_timeout)?,
        max_connections: args.max_connections,
        health_connections: args.health_connections,
    };
    let episodes = EpisodeLimits {
        max_turns: args.max_turns_limit,
        tool_budget: args.tool_budget_limit,
        max_message_bytes: args.max_message_bytes,
        max_episode_bytes: args.max_episode_bytes,
        max_total_bytes: args.max_total_episode_bytes,
        evict_idle_after: Duration::try_from_secs_f64(args.evict_idle_after).map_err(|_| {
            exit::usage("--evict-idle-after must be a non-negative number of seconds")
        })?,
    };
    Ok(ServeConfig {
        envs,
        max_episodes: args.max_episodes,
        episode_ttl: seconds("episode-ttl", args.episode_ttl)?,
        request_timeout: seconds("request-timeout", args.request_timeout)?,
        max_body: args.max_body,
        episodes,
        shutdown_grace: Duration::try_from_secs_f64(args.shutdown_grace).map_err(|_| {
            exit::usage("--shutdown-grace must be a non-negative number of seconds")
        })?,
        auth_token,
        fs_access,
        connections,
        ..ServeConfig::default()
    })
}

/// Runs the command; returns the exit code.
pub fn run(args: ServeArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    let config = config(&args)?;
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    builder.worker_threads(args.threads.unwrap_or(cores / 2).max(1));
    let runtime = builder.build().context("starting the async runtime")?;
    let served = runtime.block_on(async {
        let server = Server::bind(&args.bind, config).await?;
        let addr = server.local_addr()?;
        // The address on stdout, alone, so scripts and tests can read it.
        outln!("http://{addr}")?;
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

#[cfg(test)]
mod tests {
    use super::auth_token;

    #[test]
    fn whitespace_tokens_are_refused_at_start_up() {
        for bad in [
            None,
            Some(""),
            Some("   "),
            Some("\t\n"),
            Some(" tok"),
            Some("tok\n"),
        ] {
            let err = auth_token("T", bad.map(str::to_owned)).expect_err("refused");
            assert!(err.to_string().contains("--auth-token-env T"), "{err}");
        }
        assert_eq!(
            auth_token("T", Some("s3cret t".into())).expect("ok"),
            "s3cret t"
        );
    }
}
