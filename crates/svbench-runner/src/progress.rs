//! The progress bar on stderr: done/total, rate, ETA, running mean reward,
//! errors, and the client's retry and rate-limit counts.

use std::io::IsTerminal;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress of one run; silent when disabled or when stderr is not a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
    extra: Option<StatsNote>,
    reward_sum: f64,
    scored: u64,
    errors: u64,
}

/// Extra counters shown after the mean reward (e.g. `retries 3 429s 1`).
pub type StatsNote = Arc<dyn Fn() -> String + Send + Sync>;

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("scored", &self.scored)
            .field("errors", &self.errors)
            .finish()
    }
}

impl Progress {
    /// A bar for `total` samples with `done` already finished (resume).
    pub fn new(
        enabled: bool,
        label: &str,
        total: u64,
        done: u64,
        extra: Option<StatsNote>,
    ) -> Self {
        let show = enabled && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} {per_sec} eta {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(label.to_string());
            bar.set_position(done);
            bar
        });
        Self {
            bar,
            extra,
            reward_sum: 0.0,
            scored: 0,
            errors: 0,
        }
    }

    /// One sample finished, with its reward (None if errored).
    pub fn sample_done(&mut self, reward: Option<f64>) {
        match reward {
            Some(r) => {
                self.reward_sum += r;
                self.scored += 1;
            }
            None => self.errors += 1,
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
            let mean = if self.scored > 0 {
                self.reward_sum / self.scored as f64
            } else {
                0.0
            };
            let extra = self
                .extra
                .as_ref()
                .map(|f| format!(" {}", f()))
                .unwrap_or_default();
            bar.set_message(format!(
                "mean reward {mean:.4} errors {}{extra}",
                self.errors
            ));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
