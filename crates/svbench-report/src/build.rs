//! Building `summary.json` from a loaded run (harness §4.1, §4.2).

use std::collections::BTreeMap;
use std::ops::Range;

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
use crate::read::{LeanRun, E1_NAME, E2_NAME};

/// Facts about how the summary was computed that the Markdown report states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildNotes {
    /// The reward profile whose records entered the metrics.
    pub profile_used: Option<String>,
    /// Scored records per recorded reward profile (empty name = unrecorded).
    pub profiles: BTreeMap<String, u64>,
    /// Scored records left out because another profile scored them.
    pub excluded_other_profile: u64,
    /// Scored records without a usable gold label (E1).
    pub unusable_gold: u64,
    /// Lines replaced by a later line with the same key.
    pub superseded: usize,
}

/// Builds the summary of a run with at least one record; `None` otherwise.
pub fn build_summary(
    run: &LeanRun,
    cfg: BootstrapConfig,
    timestamp: String,
) -> Option<(Summary, BuildNotes)> {
    let lr = &run.records;
    let recs = &lr.records;
    if recs.is_empty() {
        return None;
    }
    let info = &run.info;
    let is_e1 = info.environment == E1_NAME;
    let is_e2 = info.environment == E2_NAME;
    let mut warnings = run.records.warnings.clone();
    let mut notes = BuildNotes {
        superseded: run.records.superseded,
        ..BuildNotes::default()
    };

    let mut counts = SummaryCounts {
        records: recs.len() as u64,
        ..SummaryCounts::default()
    };
    let mut usage = Usage::default();
    let mut latencies = Vec::with_capacity(recs.len());
    let mut errors_by_kind: BTreeMap<String, u64> = BTreeMap::new();
    // Counted per interned id, named once at the end.
    let mut by_error: BTreeMap<u32, u64> = BTreeMap::new();
    let mut by_profile: BTreeMap<u32, u64> = BTreeMap::new();
    for r in recs {
        if let Some(c) = lr.calls(r) {
            add_usage(&mut usage, &c.usage);
            counts.cached_requests += c.cached;
        }
        counts.truncated += u64::from(r.truncated);
        if let Some(l) = r.latency_ms().filter(|l| l.is_finite()) {
            latencies.push(l);
        }
        if r.is_errored() {
            counts.errored += 1;
            *by_error.entry(r.error).or_default() += 1;
            continue;
        }
        counts.scored += 1;
        match r.status {
            ParseStatus::Valid => counts.valid += 1,
            ParseStatus::LabelOnly => counts.label_only += 1,
            ParseStatus::Invalid => counts.invalid += 1,
            ParseStatus::NoAnswer => counts.no_answer += 1,
        }
        *by_profile.entry(r.profile).or_default() += 1;
    }
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
    let in_profile = |r: &crate::read::Lean| {
        let p = lr.profile(r);
        p.is_empty() || Some(p) == profile.as_deref()
    };

    let mut rewards = Vec::new();
    let mut components: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut e1_input = E1Input::default();
    let mut e2_input = E2Input::default();
    let mut e2_records = 0u64;
    // What each metric-bearing record contributes to a bootstrap resample.
    let mut items = Items::default();
    let mut item_keys: Vec<Option<[u64; 2]>> = Vec::new();
    // The example of the last E1 sample (units of rollouts of one example).
    let mut last_e1: Option<[u64; 2]> = None;
    for r in recs.iter().filter(|r| !r.is_errored()) {
        if !in_profile(r) {
            notes.excluded_other_profile += 1;
            continue;
        }
        let mut class = NO_CLASS;
        if let Some(x) = r.reward() {
            rewards.push(x);
        }
        for (k, v) in lr.components(r) {
            if let Some(v) = v {
                components.entry(k).or_default().push(v);
            }
        }
        if is_e1 {
            match r.e1 {
                Some(Some(s)) => {
                    class = items.classes.class_of(&s);
                    let same = r.example().is_some() && r.example() == last_e1;
                    last_e1 = r.example();
                    e1_input.push_unit(s, same, lr.text(r.source), lr.text(r.scenario));
                }
                _ => notes.unusable_gold += 1,
            }
        }
        let mut item = Item::new(r.reward(), class);
        if is_e2 {
            if let Some(full) = lr.full(r) {
                let e2 = e2_input.add(full);
                item.headline = e2.f1_weighted;
                item.patch_provided = e2.patch_provided;
                item.patch_applied = e2.patch_applied;
                e2_records += 1;
            }
        }
        items.item.push(item);
        item_keys.push(r.example());
    }
    let ci = shared_bootstrap(&items, &units(&item_keys), is_e1, cfg);
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
    if notes.unusable_gold > 0 {
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
            recs.len()
        )),
    }
    if counts.scored == 0 {
        warnings.push(format!(
            "no sample was scored ({} record(s), all errored): metrics take their edge-case values",
            counts.records
        ));
    }

    let reward = reward_stats(&rewards, &components, reward_ci);

    let mut validity = Validity {
        parse_failure_rate: rate(counts.invalid, counts.scored),
        no_answer_rate: rate(counts.no_answer, counts.scored),
        error_rate: rate(counts.errored, counts.records),
        strict: BTreeMap::new(),
    };

    let (metrics, upstream_compat, e1, e2) = if is_e1 {
        let matrix = e1::cost_matrix(profile.as_deref(), &info.reward_params);
        let mut rep = e1::e1_report_with_ci(&e1_input, matrix, e1_ci);
        let t = rep.tally;
        validity.strict.insert(
            "accuracy_strict".to_string(),
            rate(t.tp + t.tn, t.scored() + counts.errored),
        );
        guard_e1(&mut rep.metrics, "metrics", &mut warnings);
        guard_e1_upstream(&mut rep.upstream, &mut warnings);
        guard_e1_summary(&mut rep.e1, &mut warnings);
        (
            SummaryMetrics::E1(rep.metrics),
            Some(UpstreamCompat::E1(rep.upstream)),
            Some(rep.e1),
            None,
        )
    } else if is_e2 {
        let label = (info.baseline_type.as_deref() == Some("oracle"))
            .then(|| svbench_core::ORACLE_LABEL.to_string());
        let e2_ci = (e2_records > 0).then_some((ci.headline, ci.patch_success));
        let mut rep = e2_input.finish(e2_ci, label);
        // Errored samples enter as empty predictions: F1 0 each.
        let f1 = rep.metrics.finding_quality.f1_weighted;
        validity.strict.insert(
            "f1_weighted_strict".to_string(),
            rate(e2_records, e2_records + counts.errored).map(|share| f1 * share),
        );
        guard_e2(&mut rep.metrics, &mut warnings);
        (
            SummaryMetrics::E2(rep.metrics),
            None,
            None,
            Some((rep.severity_breakdown, rep.e2)),
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
        (SummaryMetrics::Generic(generic), None, None, None)
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
            mean: finite(mean(&latencies)),
            p50: finite(percentile(&latencies, 0.5)),
            p90: finite(percentile(&latencies, 0.9)),
            p99: finite(percentile(&latencies, 0.99)),
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
    Some((summary, notes))
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

/// Contiguous runs of equal keys; a missing (empty) key is its own unit.
fn units<K: PartialEq>(keys: &[Option<K>]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        match out.last_mut() {
            Some(r) if k.is_some() && keys[r.start] == *k => r.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

const NO_CLASS: u32 = u32::MAX;

/// What one metric-bearing record contributes to a bootstrap resample.
#[derive(Debug, Clone, Copy)]
struct Item {
    /// Total reward, NaN if none.
    reward: f64,
    /// E1 class, [`NO_CLASS`] if none.
    class: u32,
    /// Per-record headline value (E2 `f1_weighted`), NaN if none.
    headline: f64,
    /// E2: the record provided a patch.
    patch_provided: bool,
    /// E2: the provided patch applied.
    patch_applied: bool,
}

impl Item {
    fn new(reward: Option<f64>, class: u32) -> Item {
        Item {
            reward: reward.unwrap_or(f64::NAN),
            class,
            headline: f64::NAN,
            patch_provided: false,
            patch_applied: false,
        }
    }
}

/// The records' bootstrap contributions and the E1 classes they index.
#[derive(Default)]
struct Items {
    classes: E1Classes,
    item: Vec<Item>,
}

/// Intervals of one shared bootstrap; `None` where undefined.
#[derive(Debug, Clone, Default)]
struct SharedCi {
    e1: Option<E1Ci95>,
    reward: Option<[f64; 2]>,
    /// E2 `f1_weighted`.
    headline: Option<[f64; 2]>,
    /// E2 `patch_success_rate` (applied / provided; 0 with none provided).
    patch_success: Option<[f64; 2]>,
}

/// One bootstrap over examples for every interval of the summary: E1's
/// accuracy, F1, ECE and Brier (when `is_e1`), the mean reward, and E2's
/// mean per-record `f1_weighted` and patch success rate, all from the same
/// resamples.
fn shared_bootstrap(
    items: &Items,
    units: &[Range<usize>],
    is_e1: bool,
    cfg: BootstrapConfig,
) -> SharedCi {
    let mut counts = vec![0u32; items.classes.len()];
    // With one record per example (the usual case) units are the records.
    let singletons = units.len() == items.item.len();
    let intervals = bootstrap(units.len(), cfg, |indices| {
        counts.iter_mut().for_each(|c| *c = 0);
        let (mut sum, mut n) = (0.0, 0u64);
        let (mut h_sum, mut h_n) = (0.0, 0u64);
        let (mut provided, mut applied) = (0u64, 0u64);
        let mut add = |it: &Item| {
            if it.class != NO_CLASS {
                counts[it.class as usize] += 1;
            }
            if !it.reward.is_nan() {
                sum += it.reward;
                n += 1;
            }
            if !it.headline.is_nan() {
                h_sum += it.headline;
                h_n += 1;
            }
            provided += u64::from(it.patch_provided);
            applied += u64::from(it.patch_applied);
        };
        if singletons {
            indices.iter().for_each(|&u| add(&items.item[u]));
        } else {
            for &u in indices {
                items.item[units[u].clone()].iter().for_each(&mut add);
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
        [a, f, e, b, mean(sum, n), mean(h_sum, h_n), success]
    });
    let finite = |r: [f64; 2]| r.iter().all(|x| x.is_finite()).then_some(r);
    match intervals {
        Some([a, f, e, b, r, h, p]) => SharedCi {
            e1: is_e1.then(|| to_ci95([a, f, e, b])),
            reward: finite(r),
            headline: finite(h),
            patch_success: finite(p),
        },
        None => SharedCi::default(),
    }
}

fn reward_stats(
    rewards: &[f64],
    components: &BTreeMap<&str, Vec<f64>>,
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
fn guard(name: &str, v: &mut f64, warnings: &mut Vec<String>) {
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
        let keys: Vec<Option<&str>> = ["a", "a", "b", "", "", "c"]
            .iter()
            .map(|k| (!k.is_empty()).then_some(*k))
            .collect();
        assert_eq!(units(&keys), vec![0..2, 2..3, 3..4, 4..5, 5..6]);
        assert!(units::<&str>(&[]).is_empty());
    }
}
