//! Report plugins: what an environment contributes to its runs' reports.
//!
//! The report's reader and summary builder know no environment. Each
//! environment implements [`EnvReport`] (how a record's environment part is
//! reduced while reading, accumulated over the metric records, resampled by
//! the shared bootstrap and finished into its metrics) and registers it
//! beside its registry entry. The report finds the plugin by the run's
//! environment as `metadata.json` names it ([`PluginLookup`]), never by
//! looking at a record's keys; an environment without a plugin gets the
//! generic summary ([`GenericReport`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};
use svbench_core::identity::EnvIdentity;
use svbench_core::metrics::BootstrapConfig;
use svbench_core::summary::{
    GenericMetrics, HeadlineMetric, RewardStats, Summary, SummaryCounts, Validity,
};
use svbench_core::ParseStatus;

use crate::build::BuildNotes;
use crate::error::ReportError;
use crate::html::{Outcome, SampleView};
use crate::plots::Plot;
use crate::read::{EnvFields, LeanRun, LoadedRecords, LoadedRun, RecordView, RunInfo};

/// Statistics an environment adds to each resample of the shared bootstrap
/// (the summary's mean reward is the one after them).
pub const ENV_STATS: usize = 7;

/// A registered environment as the report sees it: its names (the short id
/// and reward source a run manifest records) and its report plugin.
pub type Registered = (&'static EnvIdentity, &'static dyn ReportPlugin);

/// Finds a registered environment by its canonical name.
pub type PluginLookup = fn(&str) -> Option<Registered>;

/// What a metric record carries besides its sample.
#[derive(Debug, Clone, Copy)]
pub struct RecordKeys<'a> {
    /// Fingerprint of the example id; `None` when the id is empty.
    pub example: Option<[u64; 2]>,
    /// The environment's grouping keys ([`EnvReport::groups`]).
    pub groups: [Option<&'a str>; 2],
}

/// An environment's accumulator as the shared bootstrap resamples it: items
/// are the metric records in the order [`EnvReport::push`] received them.
pub trait Resample {
    /// Starts a resample.
    fn clear(&mut self);
    /// Adds item `item` once more to the resample.
    fn add(&mut self, item: usize);
    /// The resample's statistics (NaN where undefined or unused).
    fn stats(&self) -> [f64; ENV_STATS];
}

/// What [`EnvReport::finish`] reads and may add to.
#[derive(Debug)]
pub struct FinishContext<'a> {
    /// The run's facts.
    pub info: &'a RunInfo,
    /// The reward profile whose records are in the metrics.
    pub profile: Option<&'a str>,
    /// Record counts.
    pub counts: &'a SummaryCounts,
    /// How the numbers came about.
    pub notes: &'a BuildNotes,
    /// Total rewards of the metric records that have one, in order.
    pub rewards: &'a [f64],
    /// Component values of the metric records, by name.
    pub components: &'a BTreeMap<String, Vec<f64>>,
    /// The summary's reward statistics.
    pub reward: &'a RewardStats,
    /// The shared bootstrap's intervals of the environment's statistics
    /// (`None` without a resample).
    pub intervals: Option<[[f64; 2]; ENV_STATS]>,
    /// Bootstrap settings (for intervals the environment draws itself).
    pub bootstrap: BootstrapConfig,
    /// `validity`, whose `strict` entries the environment fills.
    pub validity: &'a mut Validity,
    /// The summary's warnings.
    pub warnings: &'a mut Vec<String>,
}

/// What an environment contributes to `summary.json`: its own types,
/// serialised ([`EnvSummary::new`] and the builders).
#[derive(Debug, Clone)]
pub struct EnvSummary {
    /// `metrics`.
    pub metrics: Value,
    /// `upstream_compat`.
    pub upstream_compat: Option<Value>,
    /// `headline`.
    pub headline: Vec<HeadlineMetric>,
    /// The top-level objects of upstream's shape the environment adds
    /// among upstream's fields (after `metadata`), in order.
    pub upstream_extensions: Map<String, Value>,
    /// The top-level objects the environment adds, in order.
    pub extensions: Map<String, Value>,
}

/// One of the environment's summary types as JSON.
///
/// # Panics
/// When the type does not serialise, which a derived `Serialize` of structs
/// with text keys never does: such a type is a bug.
fn to_json<T: Serialize + ?Sized>(value: &T) -> Value {
    match serde_json::to_value(value) {
        Ok(v) => v,
        Err(e) => panic!(
            "an environment's summary type ({}) does not serialise: {e}",
            std::any::type_name::<T>()
        ),
    }
}

impl EnvSummary {
    /// Metrics alone, nothing else.
    #[must_use]
    pub fn new<M: Serialize + ?Sized>(metrics: &M) -> Self {
        EnvSummary {
            metrics: to_json(metrics),
            upstream_compat: None,
            headline: Vec::new(),
            upstream_extensions: Map::new(),
            extensions: Map::new(),
        }
    }

    /// With `upstream_compat`.
    #[must_use]
    pub fn upstream_compat<U: Serialize + ?Sized>(mut self, compat: &U) -> Self {
        self.upstream_compat = Some(to_json(compat));
        self
    }

    /// With `headline`.
    #[must_use]
    pub fn headline(mut self, headline: Vec<HeadlineMetric>) -> Self {
        self.headline = headline;
        self
    }

    /// With the top-level object `key` among upstream's fields (after
    /// `metadata` and those added before it).
    #[must_use]
    pub fn upstream_extension<T: Serialize + ?Sized>(mut self, key: &str, value: &T) -> Self {
        self.upstream_extensions
            .insert(key.to_string(), to_json(value));
        self
    }

    /// With the top-level object `key` (after those added before it).
    #[must_use]
    pub fn extension<T: Serialize + ?Sized>(mut self, key: &str, value: &T) -> Self {
        self.extensions.insert(key.to_string(), to_json(value));
        self
    }
}

/// How an environment's records become its metrics and plots.
pub trait EnvReport: EnvSections + 'static {
    /// The record fields the environment reads as its own types (its
    /// `parsed` object, its compatibility fields).
    type Fields: EnvFields;
    /// A record's environment part, reduced on a parsing thread.
    type Sample: Send;
    /// The environment's accumulator over the metric records.
    type Acc: Resample;
    /// What the environment's plots draw besides the summary.
    type PlotData;

    /// Parse status of a record that has no `parse` object.
    fn status_without_parse(&self, _r: &RecordView<Self::Fields>) -> ParseStatus {
        ParseStatus::Valid
    }

    /// Two grouping keys of a record, interned while reading.
    fn groups(&self, _r: &RecordView<Self::Fields>) -> [Option<String>; 2] {
        [None, None]
    }

    /// Reduces a record to its sample once the shared columns have taken
    /// theirs (its `reward_profile` and `rewards` are then empty).
    fn reduce(&self, r: RecordView<Self::Fields>, errored: bool) -> Self::Sample;

    /// An empty accumulator.
    fn start(&self, info: &RunInfo, profile: Option<&str>) -> Self::Acc;

    /// Sees the sample of an errored record.
    fn errored(&self, _acc: &mut Self::Acc, _sample: &Self::Sample) {}

    /// Adds a metric record (scored, of the run's profile); `false` when it
    /// has no usable gold answer.
    fn push(&self, acc: &mut Self::Acc, sample: Self::Sample, keys: RecordKeys<'_>) -> bool;

    /// The warning for `n` metric records without a usable gold answer.
    fn unusable_gold(&self, n: u64) -> String {
        format!("{n} scored record(s) have no usable gold answer and are not in the metrics")
    }

    /// The environment's part of the summary, and what its plots draw.
    fn finish(&self, acc: Self::Acc, ctx: &mut FinishContext<'_>) -> (EnvSummary, Self::PlotData);

    /// The environment's own plots (before the reward, component and
    /// latency histograms every report has).
    fn plots(&self, _data: &Self::PlotData, _summary: &Summary) -> Vec<Plot> {
        Vec::new()
    }

    /// A scored record's values of [`EnvSections::compare_metrics`], given
    /// to `add` (averaged over an example's rollouts).
    fn compare_record(
        &self,
        _info: &RunInfo,
        _r: &RecordView<Self::Fields>,
        _add: &mut dyn FnMut(&str, f64),
    ) {
    }
}

/// What an environment shows in `report.md` and `report.html` beyond its
/// metrics: object-safe, so the report calls it through the registry's
/// [`ReportPlugin`]. Every method has the generic environment's behaviour
/// as its default.
pub trait EnvSections: Sync {
    /// `report.md`'s metric sections.
    fn markdown(&self, out: &mut String, _summary: &Summary) {
        out.push_str("## Metrics\n\nThis report version computes no environment-specific metrics for this environment; see the reward section.\n\n");
    }

    /// The label of a run that answers with the oracle itself (it bounds
    /// what a perfect answer scores; it is not a baseline).
    fn policy_label(&self, _summary: &Summary) -> Option<String> {
        None
    }

    /// Whether `report.md`'s validity table lists the strict figures
    /// (`false` when the environment's sections show them instead).
    fn strict_in_validity(&self) -> bool {
        true
    }

    /// The grading rule's name in `report.html`'s data (`other`: none).
    fn grading_name(&self) -> &'static str {
        "other"
    }

    /// How `report.html` files a sample that neither errored nor failed to
    /// parse.
    fn grade(&self, _sample: &SampleView<'_>) -> Outcome {
        Outcome::Scored
    }

    /// `report.html`'s legend of the outcomes.
    fn legend(&self) -> &'static str {
        "Outcomes: error — the sample errored (no reward); invalid — parse status invalid or \
         no_answer; scored — every other sample (this environment has no correct/wrong rule; \
         see the reward)."
    }

    /// The predicted label and stated confidence a sample's list row shows
    /// beside the gold answer; `None` for an environment without labels.
    fn predicted_label(&self, _sample: &SampleView<'_>) -> Option<(String, Option<f64>)> {
        None
    }

    /// A field of the environment's own added to a sample's transcript
    /// (key, JSON text).
    fn sample_extra(&self, _sample: &SampleView<'_>) -> Option<(&'static str, String)> {
        None
    }

    /// `[min, max]` of each reward component by profile, as the
    /// environment's scoring defines them (the summary's reward range).
    fn component_bounds(&self) -> svbench_core::reward::ProfileBounds {
        &[]
    }

    /// JSON Schemas of the environment's parts of the run artifacts (the
    /// summary's and the result records' schemas are composed of them).
    fn schemas(&self) -> EnvSchemas {
        EnvSchemas::default()
    }

    /// The environment's scoreboard (`svbench scoreboard --env`), if it has
    /// one.
    fn board(&self) -> Option<&dyn crate::scoreboard::EnvBoard> {
        None
    }

    /// `compare`'s metrics of the environment, in report order (each
    /// defined per example by [`EnvReport::compare_record`]).
    fn compare_metrics(&self) -> &'static [&'static str] {
        &[]
    }

    /// The caption of `report.html`'s metrics table, which the environment
    /// may edit (flattened `metrics`: path, value).
    fn metrics_caption(
        &self,
        _summary: &Summary,
        _metrics: &mut [(String, String)],
    ) -> &'static str {
        "Metrics"
    }
}

/// JSON Schemas of an environment's parts of the run artifacts (each made
/// with [`EnvSchemas::of`] from the environment's types); `None` where the
/// environment writes no such part.
#[derive(Debug, Clone, Default)]
pub struct EnvSchemas {
    /// The summary's `metrics`.
    pub metrics: Option<Value>,
    /// The summary's `upstream_compat`.
    pub upstream_compat: Option<Value>,
    /// The summary's top-level objects the environment adds, by key.
    pub extensions: Vec<(&'static str, Value)>,
    /// A result record's `parsed`.
    pub parsed: Option<Value>,
    /// A result record's compatibility fields (an object schema whose
    /// properties are the top-level keys).
    pub compat: Option<Value>,
}

impl EnvSchemas {
    /// The schema of type `T`.
    #[must_use]
    pub fn of<T: schemars::JsonSchema>() -> Value {
        schemars::schema_for!(T).to_value()
    }
}

/// The object-safe face of an [`EnvReport`], as registries hold it.
pub trait ReportPlugin: EnvSections {
    /// Reads the run in `dir` (whose metadata is `info`) and builds its
    /// summary and (unless `no_plots`) its plots; `None` when the run has
    /// no record. The run is returned with its per-record columns consumed.
    ///
    /// # Errors
    /// Reading `results.jsonl` failed.
    fn summarize(
        &self,
        dir: &Path,
        info: RunInfo,
        opts: &SummaryOptions,
    ) -> Result<(LeanRun, Option<Summarized>), ReportError>;

    /// Reads the run in `dir` in full for `compare`, giving each record's
    /// environment metrics ([`EnvReport::compare_record`]) to `add`
    /// (record position, metric, value); the records are returned without
    /// their environment part.
    ///
    /// # Errors
    /// Reading the run failed.
    fn load_for_compare(
        &self,
        dir: &Path,
        add: &mut dyn FnMut(usize, &str, f64),
    ) -> Result<LoadedRun, ReportError>;
}

/// How [`ReportPlugin::summarize`] computes.
#[derive(Debug, Clone)]
pub struct SummaryOptions {
    /// Require complete svbench artifacts.
    pub strict: bool,
    /// Bootstrap settings.
    pub bootstrap: BootstrapConfig,
    /// Written as `timestamp`.
    pub timestamp: String,
    /// Compute no plot.
    pub no_plots: bool,
}

/// A summary with how it came about and its plots.
pub type Summarized = (Summary, BuildNotes, Vec<Plot>);

impl<P: EnvReport> ReportPlugin for P {
    fn summarize(
        &self,
        dir: &Path,
        info: RunInfo,
        opts: &SummaryOptions,
    ) -> Result<(LeanRun, Option<Summarized>), ReportError> {
        let (records, samples) =
            crate::read::lean::read_lean(&dir.join("results.jsonl"), opts.strict, self)?;
        let mut run = LeanRun {
            dir: dir.to_path_buf(),
            info,
            records,
        };
        let built = crate::build::build_summary(
            &mut run,
            self,
            samples,
            opts.bootstrap,
            opts.timestamp.clone(),
        )
        .map(|(summary, notes, values, data)| {
            let mut plots = Vec::new();
            if !opts.no_plots {
                plots = self.plots(&data, &summary);
                drop(data);
                plots.extend(crate::plots::common::plots(&values, &summary));
            }
            (summary, notes, plots)
        });
        Ok((run, built))
    }

    fn load_for_compare(
        &self,
        dir: &Path,
        add: &mut dyn FnMut(usize, &str, f64),
    ) -> Result<LoadedRun, ReportError> {
        let run = crate::read::load_run::<P::Fields>(dir, false)?;
        let LoadedRecords {
            records,
            sha256,
            file_present,
            superseded,
            warnings,
        } = run.records;
        let records = records
            .into_iter()
            .enumerate()
            .map(|(pos, r)| {
                if !r.is_errored() {
                    self.compare_record(&run.info, &r, &mut |name, v| add(pos, name, v));
                }
                r.split().0
            })
            .collect();
        Ok(LoadedRun {
            dir: run.dir,
            info: run.info,
            records: LoadedRecords {
                records,
                sha256,
                file_present,
                superseded,
                warnings,
            },
        })
    }
}

/// The plugin of an environment without one: `metrics` holds the mean
/// reward and component means, with a warning saying so.
#[derive(Debug, Clone, Copy, Default)]
pub struct GenericReport;

/// No statistic of its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoStats;

impl Resample for NoStats {
    fn clear(&mut self) {}
    fn add(&mut self, _item: usize) {}
    fn stats(&self) -> [f64; ENV_STATS] {
        [f64::NAN; ENV_STATS]
    }
}

impl EnvSections for GenericReport {}

impl EnvReport for GenericReport {
    type Fields = ();
    type Sample = ();
    type Acc = NoStats;
    type PlotData = ();

    fn reduce(&self, _r: RecordView, _errored: bool) {}

    fn start(&self, _info: &RunInfo, _profile: Option<&str>) -> NoStats {
        NoStats
    }

    fn push(&self, _acc: &mut NoStats, _sample: (), _keys: RecordKeys<'_>) -> bool {
        true
    }

    fn finish(&self, _acc: NoStats, ctx: &mut FinishContext<'_>) -> (EnvSummary, ()) {
        ctx.warnings.push(format!(
            "environment-specific metrics of `{}` are not computed by this report version; `metrics` holds the mean reward and component means",
            ctx.info.environment
        ));
        let metrics = GenericMetrics {
            reward: ctx.reward.mean,
            components: ctx
                .reward
                .components
                .iter()
                .map(|(k, v)| (k.clone(), v.mean))
                .collect(),
        };
        (EnvSummary::new(&metrics), ())
    }
}

/// The plugin `lookup` finds for `environment`, or [`GenericReport`].
#[must_use]
pub fn plugin_for(lookup: PluginLookup, environment: &str) -> &'static dyn ReportPlugin {
    lookup(environment).map_or(&GenericReport, |(_, plugin)| plugin)
}
