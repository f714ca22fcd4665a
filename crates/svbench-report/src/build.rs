//! Building `summary.json` from a loaded run (harness §4.1, §4.2).

use std::collections::BTreeMap;

use svbench_core::metrics::{
    bootstrap, max, mean, min, percentile, population_std, BootstrapConfig,
};
use svbench_core::record::{RunStatus, Usage};
use svbench_core::summary::{
    BootstrapSettings, ComponentStats, LatencyStats, RewardStats, Summary, SummaryCounts,
    SummaryMetadata, Validity, METRICS_VERSION, SUMMARY_SCHEMA_VERSION,
};
use svbench_core::ParseStatus;

use crate::plugin::{EnvReport, FinishContext, RecordKeys, Resample, ENV_STATS};
use crate::read::lean::NONE;
use crate::read::LeanRun;

/// Facts about how the summary was computed that the Markdown report states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildNotes {
    /// The reward profile whose records entered the metrics.
    pub profile_used: Option<String>,
    /// Scored records per recorded reward profile (empty name = unrecorded).
    pub profiles: BTreeMap<String, u64>,
    /// Scored records left out because another profile scored them.
    pub excluded_other_profile: u64,
    /// Scored records without a usable gold label.
    pub unusable_gold: u64,
    /// Lines replaced by a later line with the same key.
    pub superseded: usize,
}

/// The per-record values behind the summary, handed to the plots so that
/// they draw exactly what the summary counted without collecting it again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SummaryValues {
    /// Total rewards of the scored records of the summary's profile.
    pub rewards: Vec<f64>,
    /// Component values of the same records, by component name.
    pub components: BTreeMap<String, Vec<f64>>,
    /// Recorded latencies of every record.
    pub latencies: Vec<f64>,
}

/// Builds the summary of a run with at least one record; `None` otherwise.
///
/// The run's per-record columns are consumed as the summary takes what it
/// needs (each is freed once read), so the run reads as having no record
/// afterwards; the values the plots draw are returned instead.
pub fn build_summary<P: EnvReport>(
    run: &mut LeanRun,
    plugin: &P,
    samples: Vec<P::Sample>,
    cfg: BootstrapConfig,
    timestamp: String,
) -> Option<(Summary, BuildNotes, SummaryValues, P::PlotData)> {
    let info = &run.info;
    let lr = &mut run.records;
    if lr.is_empty() {
        return None;
    }
    let n_records = lr.len();
    let order = std::mem::take(&mut lr.order);
    // Samples are taken out by position, each once.
    let mut samples: Vec<Option<P::Sample>> = samples.into_iter().map(Some).collect();
    let mut warnings = lr.warnings.clone();
    let mut notes = BuildNotes {
        superseded: lr.superseded,
        ..BuildNotes::default()
    };

    let mut counts = SummaryCounts {
        records: n_records as u64,
        ..SummaryCounts::default()
    };
    let mut usage = Usage::default();
    for c in &lr.calls {
        add_usage(&mut usage, &c.usage);
        counts.cached_requests += c.cached;
    }
    // Every recorded latency (the plot's values); the summary's are the
    // finite ones, the same values unless a recorded one overflowed.
    let mut all_latencies = Vec::with_capacity(n_records);
    let mut errors_by_kind: BTreeMap<String, u64> = BTreeMap::new();
    // Counted per interned id, named once at the end.
    let mut by_error: BTreeMap<u32, u64> = BTreeMap::new();
    let mut by_profile: BTreeMap<u32, u64> = BTreeMap::new();
    // Errored records, shown to the environment's accumulator once it exists.
    let mut errored_samples = Vec::new();
    for &p in &order {
        counts.truncated += u64::from(lr.truncated(p));
        if let Some(l) = lr.latency_ms(p) {
            all_latencies.push(l);
        }
        let tags = lr.tags(p);
        if tags.error != NONE {
            counts.errored += 1;
            *by_error.entry(tags.error).or_default() += 1;
            errored_samples.push(p);
            continue;
        }
        counts.scored += 1;
        match lr.status(p) {
            ParseStatus::Valid => counts.valid += 1,
            ParseStatus::LabelOnly => counts.label_only += 1,
            ParseStatus::Invalid => counts.invalid += 1,
            ParseStatus::NoAnswer => counts.no_answer += 1,
        }
        *by_profile.entry(tags.profile).or_default() += 1;
    }
    lr.release_latency();
    let latencies = if all_latencies.iter().all(|l| l.is_finite()) {
        None
    } else {
        Some(
            all_latencies
                .iter()
                .copied()
                .filter(|l| l.is_finite())
                .collect::<Vec<f64>>(),
        )
    };
    for (id, n) in by_error {
        let kind = match lr.text(id) {
            Some("") | None => "unknown",
            Some(k) => k,
        };
        *errors_by_kind.entry(kind.to_string()).or_default() += n;
    }
    for (id, n) in by_profile {
        let p = lr.text(id).unwrap_or("");
        *notes.profiles.entry(p.to_string()).or_default() += n;
    }

    // Never average across reward profiles: the run's profile decides.
    let profile = info.reward_profile.clone().or_else(|| {
        notes
            .profiles
            .iter()
            .filter(|(p, _)| !p.is_empty())
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(p, _)| p.clone())
    });
    notes.profile_used = profile.clone();
    let mut acc = plugin.start(info, profile.as_deref());
    for p in errored_samples {
        if let Some(s) = samples.get(p).and_then(Option::as_ref) {
            plugin.errored(&mut acc, s);
        }
    }
    // The records behind the metrics: scored and of the run's profile (or
    // without a recorded one), in report order.
    let mut metric_records = Vec::new();
    for &p in &order {
        if lr.is_errored(p) {
            continue;
        }
        let rp = lr.profile(p);
        if rp.is_empty() || Some(rp) == profile.as_deref() {
            metric_records.push(p);
        } else {
            notes.excluded_other_profile += 1;
        }
    }
    drop(order);

    // Each column is read once and then freed.
    let mut items = Items::default();
    let mut rewards = Vec::new();
    for &p in &metric_records {
        let x = lr.reward.get(p).copied().unwrap_or(f64::NAN);
        items.reward.push(x);
        if !x.is_nan() {
            rewards.push(x);
        }
    }
    lr.release_reward();
    let mut components: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for &p in &metric_records {
        for (k, v) in lr.components(p) {
            if let Some(v) = v {
                match components.get_mut(k) {
                    Some(list) => list.push(v),
                    None => {
                        components.insert(k.to_string(), vec![v]);
                    }
                }
            }
        }
    }
    lr.release_components();

    // Bootstrap units: contiguous runs of items of one example.
    let mut units = Units::default();
    for &p in &metric_records {
        let tags = lr.tags(p);
        let keys = RecordKeys {
            example: lr.example(p),
            groups: tags.groups.map(|g| lr.text(g)),
        };
        let usable = match samples.get_mut(p).and_then(Option::take) {
            Some(s) => plugin.push(&mut acc, s, keys),
            None => false,
        };
        notes.unusable_gold += u64::from(!usable);
        units.push(lr.example(p));
    }
    drop(samples);
    drop(metric_records);
    lr.release_records();
    let (env_intervals, reward_ci) = shared_bootstrap(&items, &mut acc, &units.starts, cfg);
    drop(units);
    let reward_ci = reward_ci.filter(|_| !rewards.is_empty());

    let named: Vec<String> = notes
        .profiles
        .iter()
        .map(|(p, n)| format!("{}: {n}", if p.is_empty() { "(unrecorded)" } else { p }))
        .collect();
    let distinct = notes.profiles.keys().filter(|p| !p.is_empty()).count();
    if distinct > 1 || notes.excluded_other_profile > 0 {
        warnings.push(format!(
            "records were scored under more than one reward profile ({}); metrics and reward statistics use only records of profile `{}` and leave out {} other scored record(s)",
            named.join(", "),
            profile.as_deref().unwrap_or("?"),
            notes.excluded_other_profile
        ));
    }
    if notes.unusable_gold > 0 {
        warnings.push(plugin.unusable_gold(notes.unusable_gold));
    }
    match info.status {
        Some(RunStatus::Completed) | None => {}
        Some(s) => warnings.push(format!(
            "the run is not complete (status {}): metrics cover the {} record(s) present",
            status_name(s),
            n_records
        )),
    }
    if counts.scored == 0 {
        warnings.push(format!(
            "no sample was scored ({} record(s), all errored): metrics take their edge-case values",
            counts.records
        ));
    }

    let mut reward = reward_stats(&rewards, &components, reward_ci);
    reward.range = profile.as_deref().and_then(|p| {
        let bounds = svbench_core::reward::bounds_of(plugin.component_bounds(), p);
        svbench_core::reward::total_range(bounds, &info.reward_weights)
    });
    let latencies: &[f64] = latencies.as_deref().unwrap_or(&all_latencies);

    let mut validity = Validity {
        parse_failure_rate: rate(counts.invalid, counts.scored),
        no_answer_rate: rate(counts.no_answer, counts.scored),
        error_rate: rate(counts.errored, counts.records),
        strict: BTreeMap::new(),
    };

    let (env, plot_data) = plugin.finish(
        acc,
        &mut FinishContext {
            info,
            profile: profile.as_deref(),
            counts: &counts,
            notes: &notes,
            rewards: &rewards,
            components: &components,
            reward: &reward,
            intervals: env_intervals,
            bootstrap: cfg,
            validity: &mut validity,
            warnings: &mut warnings,
        },
    );

    let summary = Summary {
        environment: info.environment.clone(),
        version: METRICS_VERSION.to_string(),
        run_id: info.run_id.clone(),
        timestamp,
        model: info.model.clone(),
        dataset: info.dataset.clone(),
        n_examples: counts.records,
        metrics: env.metrics,
        headline: env.headline,
        metadata: SummaryMetadata {
            git_sha: info.git_commit.clone(),
            env_version: info.env_version.clone(),
            python_version: None,
            verifiers_version: None,
            seed: info.seed,
            baseline_name: info.baseline_name.clone(),
            baseline_type: info.baseline_type.clone(),
            system_prompt_file: info.system_prompt_file.clone(),
            few_shot: info.few_shot,
        },
        schema_version: SUMMARY_SCHEMA_VERSION.to_string(),
        svbench_version: env!("CARGO_PKG_VERSION").to_string(),
        run_status: info.status,
        run_started_at: info.started_at.clone(),
        run_finished_at: info.finished_at.clone(),
        split: info.split.clone(),
        dataset_sha256: info.dataset_sha256.clone(),
        selected_sha256: info.selected_sha256.clone(),
        results_sha256: run.records.sha256.clone(),
        reward_profile: profile,
        reward_config_hash: info.reward_config_hash.clone(),
        counts,
        validity,
        upstream_compat: env.upstream_compat,
        reward,
        usage,
        latency_ms: LatencyStats {
            mean: finite(mean(latencies)),
            p50: finite(percentile(latencies, 0.5)),
            p90: finite(percentile(latencies, 0.9)),
            p99: finite(percentile(latencies, 0.99)),
        },
        errors_by_kind,
        warnings,
        bootstrap: BootstrapSettings {
            resamples: cfg.resamples as u64,
            seed: cfg.seed,
        },
        upstream_extensions: env.upstream_extensions,
        extensions: env.extensions,
    };
    let values = SummaryValues {
        rewards,
        components,
        latencies: all_latencies,
    };
    Some((summary, notes, values, plot_data))
}

fn status_name(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Running => "running",
        RunStatus::Completed => "completed",
        RunStatus::Aborted => "aborted",
        RunStatus::Interrupted => "interrupted",
    }
}

fn add_usage(total: &mut Usage, u: &Usage) {
    total.prompt_tokens += u.prompt_tokens;
    total.completion_tokens += u.completion_tokens;
    total.reasoning_tokens += u.reasoning_tokens;
    total.total_tokens += u.total_tokens;
    total.requests += u.requests;
    total.cached_requests += u.cached_requests;
}

/// `num / den`; `None` when `den` is 0.
pub fn rate(num: u64, den: u64) -> Option<f64> {
    svbench_core::metrics::ratio(num, den)
}

fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|x| x.is_finite())
}

/// Bootstrap units: contiguous runs of equal keys, given one key per item
/// in order; a missing (empty) key is its own unit.
struct Units<K> {
    /// The first item of each unit.
    starts: Vec<usize>,
    last: Option<K>,
    n: usize,
}

impl<K> Default for Units<K> {
    fn default() -> Self {
        Units {
            starts: Vec::new(),
            last: None,
            n: 0,
        }
    }
}

impl<K: PartialEq> Units<K> {
    fn push(&mut self, key: Option<K>) {
        if self.n == 0 || key.is_none() || key != self.last {
            self.starts.push(self.n);
        }
        self.last = key;
        self.n += 1;
    }
}

/// What each metric-bearing record contributes to a bootstrap resample
/// beyond the environment's own items: its total reward.
#[derive(Default)]
struct Items {
    /// Total reward, NaN if none.
    reward: Vec<f64>,
}

/// One bootstrap over examples for every interval of the summary: the
/// environment's statistics ([`Resample`]) and the mean reward, all from
/// the same resamples. Returns the environment's raw intervals and the
/// mean reward's (when finite).
fn shared_bootstrap<R: Resample>(
    items: &Items,
    env: &mut R,
    unit_starts: &[usize],
    cfg: BootstrapConfig,
) -> (Option<[[f64; 2]; ENV_STATS]>, Option<[f64; 2]>) {
    let n_items = items.reward.len();
    // With one record per example (the usual case) units are the records.
    let singletons = unit_starts.len() == n_items;
    let unit = |u: usize| unit_starts[u]..unit_starts.get(u + 1).copied().unwrap_or(n_items);
    let intervals = bootstrap(unit_starts.len(), cfg, |indices| {
        env.clear();
        let (mut sum, mut n) = (0.0, 0u64);
        let mut add = |i: usize| {
            env.add(i);
            let reward = items.reward[i];
            if !reward.is_nan() {
                sum += reward;
                n += 1;
            }
        };
        if singletons {
            indices.iter().for_each(|&u| add(u));
        } else {
            for &u in indices {
                unit(u).for_each(&mut add);
            }
        }
        // A resample without any reward has no mean; NaN sorts last and
        // only matters if rewards are rare, where the interval is then null.
        let mean = if n == 0 { f64::NAN } else { sum / n as f64 };
        let mut out = [f64::NAN; ENV_STATS + 1];
        out[..ENV_STATS].copy_from_slice(&env.stats());
        out[ENV_STATS] = mean;
        out
    });
    match intervals {
        Some(all) => {
            let mut env_ci = [[f64::NAN; 2]; ENV_STATS];
            env_ci.copy_from_slice(&all[..ENV_STATS]);
            let r = all[ENV_STATS];
            (Some(env_ci), r.iter().all(|x| x.is_finite()).then_some(r))
        }
        None => (None, None),
    }
}

fn reward_stats(
    rewards: &[f64],
    components: &BTreeMap<String, Vec<f64>>,
    ci: Option<[f64; 2]>,
) -> RewardStats {
    let (lo, hi) = match ci {
        Some([lo, hi]) => (Some(lo), Some(hi)),
        None => (None, None),
    };
    RewardStats {
        n: rewards.len() as u64,
        mean: finite(mean(rewards)),
        std: finite(population_std(rewards)),
        min: finite(min(rewards)),
        max: finite(max(rewards)),
        range: None,
        ci95_low: finite(lo),
        ci95_high: finite(hi),
        components: components
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    ComponentStats {
                        n: v.len() as u64,
                        mean: finite(mean(v)),
                        std: finite(population_std(v)),
                        min: finite(min(v)),
                        max: finite(max(v)),
                    },
                )
            })
            .collect(),
    }
}

/// Upstream-named numbers must be numbers: a non-finite value (only possible
/// from absurd recorded confidences) becomes 0.0 with a warning.
pub fn guard(name: &str, v: &mut f64, warnings: &mut Vec<String>) {
    if !v.is_finite() {
        warnings.push(format!(
            "{name} was not a finite number and is written as 0.0"
        ));
        *v = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_group_contiguous_keys() {
        let mut u = Units::default();
        for k in ["a", "a", "b", "", "", "c"] {
            u.push((!k.is_empty()).then_some(k));
        }
        assert_eq!(u.starts, vec![0, 2, 3, 4, 5]);
        assert!(Units::<&str>::default().starts.is_empty());
    }
}
