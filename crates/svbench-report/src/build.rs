//! Building `summary.json` from a loaded run (harness §4.1, §4.2).

use std::collections::BTreeMap;

use svbench_core::metrics::{
    bootstrap, max, mean, min, percentile, population_std, BootstrapConfig,
};
use svbench_core::record::{RunStatus, Usage};
use svbench_core::summary::{
    BootstrapSettings, ComponentStats, E1Ci95, E1Metrics, GenericMetrics, LatencyStats,
    RewardStats, Summary, SummaryCounts, SummaryMetadata, SummaryMetrics, UpstreamCompat, Validity,
    METRICS_VERSION, SUMMARY_SCHEMA_VERSION,
};
use svbench_core::ParseStatus;

use crate::e1::ci::{to_ci95, E1Classes};
use crate::e1::{self, E1Input};
use crate::e2::E2Input;
use crate::e4::E4Input;
use crate::read::lean::NONE;
use crate::read::{LeanRun, E1_NAME, E2_NAME, E4_NAME};

/// Facts about how the summary was computed that the Markdown report states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildNotes {
    /// The reward profile whose records entered the metrics.
    pub profile_used: Option<String>,
    /// Scored records per recorded reward profile (empty name = unrecorded).
    pub profiles: BTreeMap<String, u64>,
    /// Scored records left out because another profile scored them.
    pub excluded_other_profile: u64,
    /// Scored records without a usable gold label (E1, E4).
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
    /// E1 samples of the same records (E1 runs only).
    pub e1_samples: Vec<crate::e1::E1Sample>,
    /// E4 rows of the same records (E4 runs only).
    pub e4_samples: Vec<crate::e4::E4Sample>,
}

/// Builds the summary of a run with at least one record; `None` otherwise.
///
/// The run's per-record columns are consumed as the summary takes what it
/// needs (each is freed once read), so the run reads as having no record
/// afterwards; the values the plots draw are returned instead.
pub fn build_summary(
    run: &mut LeanRun,
    cfg: BootstrapConfig,
    timestamp: String,
) -> Option<(Summary, BuildNotes, SummaryValues)> {
    let info = &run.info;
    let lr = &mut run.records;
    if lr.is_empty() {
        return None;
    }
    let n_records = lr.len();
    let order = std::mem::take(&mut lr.order);
    let is_e1 = info.environment == E1_NAME;
    let is_e2 = info.environment == E2_NAME;
    let is_e4 = info.environment == E4_NAME;
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
    // E4: errored records of phishing emails, misses of the strict recall.
    let mut e4_errored_phishing = 0u64;
    for &p in &order {
        counts.truncated += u64::from(lr.truncated(p));
        if let Some(l) = lr.latency_ms(p) {
            all_latencies.push(l);
        }
        let tags = lr.tags(p);
        if tags.error != NONE {
            counts.errored += 1;
            *by_error.entry(tags.error).or_default() += 1;
            if is_e4 {
                let gold = lr.e4(p).map(|s| s.gold);
                e4_errored_phishing += u64::from(gold == Some(crate::e4::Gold::Phishing));
            }
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

    let mut e1_input = E1Input::default();
    let mut e2_input = E2Input::default();
    let mut e2_records = 0u64;
    let mut e4_input = E4Input::default();
    let mut e4_last_example = None;
    // Bootstrap units: contiguous runs of items of one example.
    let mut units = Units::default();
    for &p in &metric_records {
        let mut class = NO_CLASS;
        if is_e1 {
            match lr.e1(p) {
                Some(Some(s)) => {
                    class = items.classes.class_of(&s);
                    let tags = lr.tags(p);
                    e1_input.push_sample(s, lr.text(tags.source), lr.text(tags.scenario));
                }
                _ => notes.unusable_gold += 1,
            }
        }
        items.class.push(class);
        if is_e2 {
            let mut e2_item = E2Item::default();
            if let Some(full) = lr.full(p) {
                let e2 = e2_input.add(full);
                e2_item = E2Item {
                    f1_weighted: e2.f1_weighted,
                    patch_provided: e2.patch_provided,
                    patch_applied: e2.patch_applied,
                    micro: e2.micro.unwrap_or_default(),
                };
                e2_records += 1;
            }
            items.e2.push(e2_item);
        }
        if is_e4 {
            match lr.take_e4(p) {
                Some(s) => {
                    let example = lr.example(p);
                    let same = example.is_some() && example == e4_last_example;
                    e4_input.push(s, same);
                    e4_last_example = example;
                }
                None => notes.unusable_gold += 1,
            }
        }
        units.push(lr.example(p));
    }
    drop(metric_records);
    lr.release_records();
    let ci = shared_bootstrap(&items, &units.starts, is_e1, cfg);
    drop(units);
    let (e1_ci, reward_ci) = (ci.e1, ci.reward);
    let e1_ci = e1_ci.filter(|_| !e1_input.samples.is_empty());
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
    if notes.unusable_gold > 0 && is_e4 {
        warnings.push(format!(
            "{} scored record(s) have no Phishing/Legitimate/Abstain gold label and are not in the E4 metrics",
            notes.unusable_gold
        ));
    } else if notes.unusable_gold > 0 {
        warnings.push(format!(
            "{} scored record(s) have no Malicious/Benign gold answer and are not in the E1 metrics",
            notes.unusable_gold
        ));
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
        svbench_core::reward::total_range(&info.environment, p, &info.reward_weights)
    });
    let latencies: &[f64] = latencies.as_deref().unwrap_or(&all_latencies);

    let mut validity = Validity {
        parse_failure_rate: rate(counts.invalid, counts.scored),
        no_answer_rate: rate(counts.no_answer, counts.scored),
        error_rate: rate(counts.errored, counts.records),
        strict: BTreeMap::new(),
    };

    let (metrics, upstream_compat, e1, e2, headline) = if is_e1 {
        let matrix = e1::cost_matrix(profile.as_deref(), &info.reward_params);
        let mut rep = e1::e1_report_with_ci(&e1_input, matrix, e1_ci);
        let t = rep.tally;
        validity.strict.insert(
            "accuracy_strict".to_string(),
            rate(t.tp + t.tn, t.all() + counts.errored),
        );
        guard_e1(&mut rep.metrics, "metrics", &mut warnings);
        guard_e1_upstream(&mut rep.upstream, &mut warnings);
        guard_e1_summary(&mut rep.e1, &mut warnings);
        let headline = crate::headline::e1(&rep.metrics, &rep.e1);
        (
            SummaryMetrics::E1(rep.metrics),
            Some(UpstreamCompat::E1(rep.upstream)),
            Some(rep.e1),
            None,
            headline,
        )
    } else if is_e2 {
        let label = crate::headline::policy_label(info.baseline_type.as_deref());
        let e2_ci = (e2_records > 0).then_some((ci.micro_f1, ci.f1_weighted, ci.patch_success));
        let mut rep = e2_input.finish(e2_ci, label);
        // Errored samples enter as empty predictions: F1 0 each.
        let f1 = rep.metrics.finding_quality.f1_weighted;
        validity.strict.insert(
            "f1_weighted_strict".to_string(),
            rate(e2_records, e2_records + counts.errored).map(|share| f1 * share),
        );
        guard_e2(&mut rep.metrics, &mut warnings);
        let headline = crate::headline::e2(&rep.e2);
        (
            SummaryMetrics::E2(rep.metrics),
            None,
            None,
            Some((rep.severity_breakdown, rep.e2)),
            headline,
        )
    } else if is_e4 {
        let matrix = crate::e4::cost_matrix(profile.as_deref(), &info.reward_params);
        let e4_ci = crate::e4::ci::ci95(&e4_input.samples, &e4_input.units, cfg);
        let mut rep = crate::e4::e4_report_with_ci(&e4_input, matrix, e4_ci);
        // Unfiltered means, so that an overflow is named in the warnings.
        rep.metrics.reward = mean(&rewards);
        rep.metrics.components = components
            .iter()
            .map(|(k, v)| (k.clone(), mean(v)))
            .collect();
        // Errored emails enter as empty answers: a phishing one is a miss.
        let gold_phishing = &rep.metrics.all.confusion.phishing;
        let all_phishing = gold_phishing.phishing
            + gold_phishing.legitimate
            + gold_phishing.abstain
            + gold_phishing.invalid;
        validity.strict.insert(
            "recall_strict".to_string(),
            rate(gold_phishing.phishing, all_phishing + e4_errored_phishing),
        );
        crate::e4::guard::guard_metrics(&mut rep.metrics, &mut warnings);
        crate::e4::guard::guard_upstream(&mut rep.upstream, &mut warnings);
        let headline = crate::headline::e4(&rep.metrics);
        (
            SummaryMetrics::E4(Box::new(rep.metrics)),
            Some(UpstreamCompat::E4(rep.upstream)),
            None,
            None,
            headline,
        )
    } else {
        warnings.push(format!(
            "environment-specific metrics of `{}` are not computed by this report version; `metrics` holds the mean reward and component means",
            info.environment
        ));
        let generic = GenericMetrics {
            reward: reward.mean,
            components: reward
                .components
                .iter()
                .map(|(k, v)| (k.clone(), v.mean))
                .collect(),
        };
        (
            SummaryMetrics::Generic(generic),
            None,
            None,
            None,
            Vec::new(),
        )
    };
    let (severity_breakdown, e2) = match e2 {
        Some((b, e)) => (Some(b), Some(e)),
        None => (None, None),
    };

    let summary = Summary {
        environment: info.environment.clone(),
        version: METRICS_VERSION.to_string(),
        run_id: info.run_id.clone(),
        timestamp,
        model: info.model.clone(),
        dataset: info.dataset.clone(),
        n_examples: counts.records,
        metrics,
        severity_breakdown,
        headline,
        metadata: SummaryMetadata {
            git_sha: info.git_commit.clone(),
            env_version: info.env_version.clone(),
            python_version: None,
            verifiers_version: None,
            seed: info.seed,
            baseline_name: info.baseline_name.clone(),
            baseline_type: info.baseline_type.clone(),
            system_prompt_file: info.system_prompt_file.clone(),
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
        upstream_compat,
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
        e1,
        e2,
    };
    let values = SummaryValues {
        rewards,
        components,
        latencies: all_latencies,
        e1_samples: e1_input.samples,
        e4_samples: e4_input.samples,
    };
    Some((summary, notes, values))
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

fn rate(num: u64, den: u64) -> Option<f64> {
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

const NO_CLASS: u32 = u32::MAX;

/// What an E2 record contributes to a bootstrap resample.
#[derive(Debug, Clone, Copy)]
struct E2Item {
    /// Per-record upstream `f1_weighted`, NaN if none.
    f1_weighted: f64,
    /// The record provided a patch.
    patch_provided: bool,
    /// The provided patch applied.
    patch_applied: bool,
    /// Finding counts `[tp, fp, fn]` on the v1 sets (pooled for `micro_f1`).
    micro: [u32; 3],
}

impl Default for E2Item {
    fn default() -> Self {
        E2Item {
            f1_weighted: f64::NAN,
            patch_provided: false,
            patch_applied: false,
            micro: [0; 3],
        }
    }
}

/// What each metric-bearing record contributes to a bootstrap resample, as
/// columns (one entry per record), and the E1 classes they index.
#[derive(Default)]
struct Items {
    classes: E1Classes,
    /// Total reward, NaN if none.
    reward: Vec<f64>,
    /// E1 class, [`NO_CLASS`] if none.
    class: Vec<u32>,
    /// E2 contributions (E2 runs only; empty elsewhere).
    e2: Vec<E2Item>,
}

/// Intervals of one shared bootstrap; `None` where undefined.
#[derive(Debug, Clone, Default)]
struct SharedCi {
    e1: Option<E1Ci95>,
    reward: Option<[f64; 2]>,
    /// E2 `micro_f1` (pooled over the resample's findings).
    micro_f1: Option<[f64; 2]>,
    /// E2 `f1_weighted`.
    f1_weighted: Option<[f64; 2]>,
    /// E2 `patch_success_rate` (applied / provided; 0 with none provided).
    patch_success: Option<[f64; 2]>,
}

/// One bootstrap over examples for every interval of the summary: E1's
/// accuracy, F1, ECE and Brier (when `is_e1`), the mean reward, and E2's
/// pooled `micro_f1`, mean per-record `f1_weighted` and patch success
/// rate, all from the same resamples.
fn shared_bootstrap(
    items: &Items,
    unit_starts: &[usize],
    is_e1: bool,
    cfg: BootstrapConfig,
) -> SharedCi {
    let mut counts = vec![0u32; items.classes.len()];
    let n_items = items.class.len();
    // With one record per example (the usual case) units are the records.
    let singletons = unit_starts.len() == n_items;
    let unit = |u: usize| unit_starts[u]..unit_starts.get(u + 1).copied().unwrap_or(n_items);
    let no_e2 = E2Item::default();
    let intervals = bootstrap(unit_starts.len(), cfg, |indices| {
        counts.iter_mut().for_each(|c| *c = 0);
        let (mut sum, mut n) = (0.0, 0u64);
        let (mut h_sum, mut h_n) = (0.0, 0u64);
        let (mut provided, mut applied) = (0u64, 0u64);
        let mut micro = [0u64; 3];
        let mut add = |i: usize| {
            let class = items.class[i];
            if class != NO_CLASS {
                counts[class as usize] += 1;
            }
            let reward = items.reward[i];
            if !reward.is_nan() {
                sum += reward;
                n += 1;
            }
            let e2 = items.e2.get(i).unwrap_or(&no_e2);
            if !e2.f1_weighted.is_nan() {
                h_sum += e2.f1_weighted;
                h_n += 1;
            }
            for (m, c) in micro.iter_mut().zip(e2.micro) {
                *m += u64::from(c);
            }
            provided += u64::from(e2.patch_provided);
            applied += u64::from(e2.patch_applied);
        };
        if singletons {
            indices.iter().for_each(|&u| add(u));
        } else {
            for &u in indices {
                unit(u).for_each(&mut add);
            }
        }
        let [a, f, e, b] = items.classes.stats(&counts);
        // A resample without any reward has no mean; NaN sorts last and
        // only matters if rewards are rare, where the interval is then null.
        let mean = |s: f64, n: u64| if n == 0 { f64::NAN } else { s / n as f64 };
        let success = if provided == 0 {
            0.0
        } else {
            applied as f64 / provided as f64
        };
        // A resample without any finding has no micro F1 (NaN, as above).
        let [tp, fp, fn_] = micro.map(|c| c as f64);
        let micro_f1 = crate::e2::extensions::micro_f1(tp, fp, fn_).unwrap_or(f64::NAN);
        [
            a,
            f,
            e,
            b,
            mean(sum, n),
            mean(h_sum, h_n),
            success,
            micro_f1,
        ]
    });
    let finite = |r: [f64; 2]| r.iter().all(|x| x.is_finite()).then_some(r);
    match intervals {
        Some([a, f, e, b, r, h, p, m]) => SharedCi {
            e1: is_e1.then(|| to_ci95([a, f, e, b])),
            reward: finite(r),
            micro_f1: finite(m),
            f1_weighted: finite(h),
            patch_success: finite(p),
        },
        None => SharedCi::default(),
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
pub(crate) fn guard(name: &str, v: &mut f64, warnings: &mut Vec<String>) {
    if !v.is_finite() {
        warnings.push(format!(
            "{name} was not a finite number and is written as 0.0"
        ));
        *v = 0.0;
    }
}

fn guard_blocks(
    prefix: &str,
    d: &mut svbench_core::summary::E1Detection,
    c: &mut svbench_core::summary::E1Calibration,
    k: &mut svbench_core::summary::E1Cost,
    a: &mut svbench_core::summary::E1Abstention,
    w: &mut Vec<String>,
) {
    let fields: [(&str, &mut f64); 15] = [
        ("detection.tpr", &mut d.tpr),
        ("detection.fpr", &mut d.fpr),
        ("detection.fnr", &mut d.fnr),
        ("detection.precision", &mut d.precision),
        ("detection.f1", &mut d.f1),
        ("detection.accuracy", &mut d.accuracy),
        ("calibration.ece", &mut c.ece),
        ("calibration.brier", &mut c.brier),
        ("cost.fn_cost_weight", &mut k.fn_cost_weight),
        ("cost.fp_cost_weight", &mut k.fp_cost_weight),
        ("cost.total_cost", &mut k.total_cost),
        ("cost.cost_weighted_accuracy", &mut k.cost_weighted_accuracy),
        ("abstention.abstain_rate", &mut a.abstain_rate),
        (
            "abstention.accuracy_non_abstained",
            &mut a.accuracy_non_abstained,
        ),
        ("abstention.aurc", &mut a.aurc),
    ];
    for (name, v) in fields {
        guard(&format!("{prefix}.{name}"), v, w);
    }
}

fn guard_e2(m: &mut svbench_core::summary::E2Metrics, w: &mut Vec<String>) {
    let q = &mut m.finding_quality;
    let p = &mut m.patch;
    let t = &mut m.tool_economy;
    let e = &mut m.episode;
    let fields: [(&str, &mut f64); 20] = [
        ("precision_weighted", &mut q.precision_weighted),
        ("recall_weighted", &mut q.recall_weighted),
        ("f1_weighted", &mut q.f1_weighted),
        ("precision_unweighted", &mut q.precision_unweighted),
        ("recall_unweighted", &mut q.recall_unweighted),
        ("f1_unweighted", &mut q.f1_unweighted),
        (
            "f1_weighted_positive_only",
            &mut q.f1_weighted_positive_only,
        ),
        (
            "f1_unweighted_positive_only",
            &mut q.f1_unweighted_positive_only,
        ),
        ("patch_provided_rate", &mut p.patch_provided_rate),
        ("patch_success_rate", &mut p.patch_success_rate),
        ("patch_fix_rate", &mut p.patch_fix_rate),
        ("mean_violations_fixed", &mut p.mean_violations_fixed),
        (
            "new_violations_introduced",
            &mut p.new_violations_introduced,
        ),
        ("mean_tool_calls", &mut t.mean_tool_calls),
        ("mean_tool_time_ms", &mut t.mean_tool_time_ms),
        ("calls_per_finding", &mut t.calls_per_finding),
        ("format_valid_rate", &mut e.format_valid_rate),
        ("mean_turns", &mut e.mean_turns),
        ("clean_pass_rate", &mut e.clean_pass_rate),
        (
            "false_positive_rate_on_clean",
            &mut e.false_positive_rate_on_clean,
        ),
    ];
    for (name, v) in fields {
        guard(&format!("metrics.{name}"), v, w);
    }
}

fn guard_e1(m: &mut E1Metrics, prefix: &str, w: &mut Vec<String>) {
    guard_blocks(
        prefix,
        &mut m.detection,
        &mut m.calibration,
        &mut m.cost,
        &mut m.abstention,
        w,
    );
}

fn guard_e1_upstream(m: &mut svbench_core::summary::E1UpstreamMetrics, w: &mut Vec<String>) {
    guard_blocks(
        "upstream_compat",
        &mut m.detection,
        &mut m.calibration,
        &mut m.cost,
        &mut m.abstention,
        w,
    );
}

fn guard_extras(prefix: &str, x: &mut svbench_core::summary::E1Extras, w: &mut Vec<String>) {
    guard(&format!("{prefix}.aurc_standard"), &mut x.aurc_standard, w);
    guard(
        &format!("{prefix}.expected_cost_v1"),
        &mut x.expected_cost_v1,
        w,
    );
    guard(
        &format!("{prefix}.expected_utility_v1"),
        &mut x.expected_utility_v1,
        w,
    );
    guard(&format!("{prefix}.invalid_rate"), &mut x.invalid_rate, w);
}

fn guard_e1_summary(e: &mut svbench_core::summary::E1Summary, w: &mut Vec<String>) {
    guard_extras("e1.extras", &mut e.extras, w);
    for (kind, map) in [
        ("source", &mut e.groups.source),
        ("scenario", &mut e.groups.scenario),
    ] {
        for (k, g) in map.iter_mut() {
            let prefix = format!("e1.groups.{kind}.{k}");
            guard_e1(&mut g.metrics, &format!("{prefix}.metrics"), w);
            guard_extras(&format!("{prefix}.extras"), &mut g.extras, w);
        }
    }
    if let Some(ci) = &mut e.ci95 {
        for (name, pair) in [
            ("accuracy", &mut ci.accuracy),
            ("f1", &mut ci.f1),
            ("ece", &mut ci.ece),
            ("brier", &mut ci.brier),
        ] {
            for v in pair.iter_mut() {
                guard(&format!("e1.ci95.{name}"), v, w);
            }
        }
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
