//! Counters and histograms of §6, written in the Prometheus text format by
//! hand: a handful of series does not need a metrics crate.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Upper bounds (seconds) of the latency histograms: 100 µs to 30 s, since
/// E1 scores in microseconds and an E2 tool call can take seconds.
const BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    10.0, 30.0,
];

#[derive(Debug, Default, Clone)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, seconds: f64) {
        if let Some(i) = BUCKETS.iter().position(|b| seconds <= *b) {
            self.counts[i] += 1;
        }
        self.count += 1;
        self.sum += seconds;
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (bound, n) in BUCKETS.iter().zip(self.counts) {
            cumulative += n;
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}",
            self.count
        );
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

#[derive(Debug, Default)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    duration: Histogram,
}

#[derive(Debug, Default)]
struct Inner {
    // Keyed by the matched route pattern, so the label set stays bounded.
    routes: HashMap<String, RouteStats>,
    episodes: BTreeMap<(String, &'static str), u64>,
    evictions: BTreeMap<&'static str, u64>,
    scores: BTreeMap<(String, String), u64>,
    tool_calls: BTreeMap<(String, String, bool), u64>,
    tool_duration: BTreeMap<(String, String), Histogram>,
}

/// The server's metrics.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One HTTP request answered.
    pub fn request(&self, route: &str, status: u16, elapsed: Duration) {
        let mut inner = self.lock();
        let stats = match inner.routes.get_mut(route) {
            Some(s) => s,
            None => inner.routes.entry(route.to_string()).or_default(),
        };
        *stats.by_status.entry(status).or_default() += 1;
        stats.duration.observe(elapsed.as_secs_f64());
    }

    /// An episode created or ended (`outcome`: created, done, truncated,
    /// deleted, expired).
    pub fn episode(&self, env: &str, outcome: &'static str) {
        *self
            .lock()
            .episodes
            .entry((env.to_string(), outcome))
            .or_default() += 1;
    }

    /// An episode dropped by the server (`reason`: ttl, shutdown).
    pub fn eviction(&self, reason: &'static str) {
        *self.lock().evictions.entry(reason).or_default() += 1;
    }

    /// `n` completions scored.
    pub fn scores(&self, env: &str, profile: &str, n: u64) {
        let mut inner = self.lock();
        match inner
            .scores
            .get_mut(&(env.to_string(), profile.to_string()))
        {
            Some(c) => *c += n,
            None => {
                inner
                    .scores
                    .insert((env.to_string(), profile.to_string()), n);
            }
        }
    }

    /// One tool call executed.
    pub fn tool_call(&self, env: &str, tool: &str, ok: bool, seconds: f64) {
        let mut inner = self.lock();
        *inner
            .tool_calls
            .entry((env.to_string(), tool.to_string(), ok))
            .or_default() += 1;
        inner
            .tool_duration
            .entry((env.to_string(), tool.to_string()))
            .or_default()
            .observe(seconds);
    }

    /// The exposition text (`live` = episodes held now, `bytes` = what
    /// they hold).
    #[must_use]
    pub fn render(&self, live: usize, bytes: usize) -> String {
        let inner = self.lock();
        let mut out = String::with_capacity(4096);
        out.push_str("# HELP svbench_http_requests_total HTTP requests answered, by route pattern and status.\n# TYPE svbench_http_requests_total counter\n");
        let mut routes: Vec<_> = inner.routes.iter().collect();
        routes.sort_by(|a, b| a.0.cmp(b.0));
        for (route, stats) in &routes {
            for (status, n) in &stats.by_status {
                let _ = writeln!(
                    out,
                    "svbench_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP svbench_http_request_duration_seconds Time from request to response head, by route pattern.\n# TYPE svbench_http_request_duration_seconds histogram\n");
        for (route, stats) in &routes {
            stats.duration.write(
                &mut out,
                "svbench_http_request_duration_seconds",
                &format!("route=\"{}\"", escape(route)),
            );
        }
        out.push_str("# HELP svbench_live_episodes Episodes held in memory.\n# TYPE svbench_live_episodes gauge\n");
        let _ = writeln!(out, "svbench_live_episodes {live}");
        out.push_str("# HELP svbench_episode_bytes Bytes the live episodes hold (accounted), with the grants of running steps.\n# TYPE svbench_episode_bytes gauge\n");
        let _ = writeln!(out, "svbench_episode_bytes {bytes}");
        out.push_str("# HELP svbench_episodes_total Episodes by environment and outcome (created, done, truncated, deleted, expired, evicted).\n# TYPE svbench_episodes_total counter\n");
        for ((env, outcome), n) in &inner.episodes {
            let _ = writeln!(
                out,
                "svbench_episodes_total{{env=\"{}\",outcome=\"{outcome}\"}} {n}",
                escape(env)
            );
        }
        out.push_str("# HELP svbench_episode_evictions_total Episodes dropped by the server, by reason.\n# TYPE svbench_episode_evictions_total counter\n");
        for (reason, n) in &inner.evictions {
            let _ = writeln!(
                out,
                "svbench_episode_evictions_total{{reason=\"{reason}\"}} {n}"
            );
        }
        out.push_str("# HELP svbench_scores_total Completions scored (score, score_batch items, finished episodes).\n# TYPE svbench_scores_total counter\n");
        for ((env, profile), n) in &inner.scores {
            let _ = writeln!(
                out,
                "svbench_scores_total{{env=\"{}\",profile=\"{}\"}} {n}",
                escape(env),
                escape(profile)
            );
        }
        out.push_str("# HELP svbench_tool_calls_total Tool calls executed in episodes.\n# TYPE svbench_tool_calls_total counter\n");
        for ((env, tool, ok), n) in &inner.tool_calls {
            let _ = writeln!(
                out,
                "svbench_tool_calls_total{{env=\"{}\",tool=\"{}\",ok=\"{ok}\"}} {n}",
                escape(env),
                escape(tool)
            );
        }
        out.push_str("# HELP svbench_tool_duration_seconds Wall time of tool calls.\n# TYPE svbench_tool_duration_seconds histogram\n");
        for ((env, tool), h) in &inner.tool_duration {
            h.write(
                &mut out,
                "svbench_tool_duration_seconds",
                &format!("env=\"{}\",tool=\"{}\"", escape(env), escape(tool)),
            );
        }
        out
    }
}

/// Label values escaped as the text format requires.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
