//! THE registry of environments. Each environment declares itself once, as an
//! [`EnvEntry`] in its own module (`e1::ENTRY`, `e2::ENTRY`); `eval`, `data`,
//! `bench`, `envs`, the API layer, the server and the Python package find
//! environments here and never spell their names.
//!
//! An entry is a table: identity (from [`svbench_core::identity`]), version,
//! kind, splits, builtin policies, generators (the kit's
//! [`GeneratorEntry`]: split rows, a corpus directory, a manifest's
//! reproduction), default budgets and sampling,
//! reward profiles, the environment's own arguments, its importer and
//! benchmark (the kit's [`ImporterEntry`] and [`BenchEntry`]), and four functions:
//! configure an instance, open a dataset for it, build a builtin policy for
//! it, and canonicalise its arguments.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use svbench_core::example::DatasetError;
use svbench_core::identity::EnvIdentity;
use svbench_core::ExampleSet;

use crate::environment::{Budgets, EnvKind, Environment};
pub use crate::kit::bench::BenchEntry;
pub use crate::kit::dataset::DataProvenance;
pub use crate::kit::generate::GeneratorEntry;
pub use crate::kit::import::ImporterEntry;
pub use crate::kit::training::{TeacherInfo, TrainingDefaults};
use crate::policy::{Policy, PolicyError};
use svbench_report::plugin::{Registered, ReportPlugin};

/// Sampling defaults of an environment: token limit per model call and
/// temperature (`None`: not sent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplingDefaults {
    /// `--max-tokens` default.
    pub max_tokens: u32,
    /// `--temperature` default.
    pub temperature: Option<f64>,
}

/// A builtin policy as catalogues list it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinInfo {
    /// `builtin:<name>` (`replay:FILE` stands for the replay family).
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
}

/// Builds a builtin policy (name without `builtin:`) for a configured instance.
pub type BuildPolicy = fn(&str, &Configured) -> Result<Box<dyn Policy>, PolicyError>;

/// The environment's arguments as metadata records them, from `K=V` pairs.
pub type ArgsRecord = fn(&[String]) -> Result<BTreeMap<String, Value>, ConfigureError>;

/// One environment, declared once.
pub struct EnvEntry {
    /// Names and aliases.
    pub identity: &'static EnvIdentity,
    /// Recorded as `env_version`.
    pub version: &'static str,
    /// Episode kind.
    pub kind: EnvKind,
    /// Splits of the embedded dataset.
    pub splits: &'static [&'static str],
    /// The split used when none is named.
    pub default_split: &'static str,
    /// Reward profiles, default first.
    pub profiles: &'static [&'static str],
    /// Builtin policies.
    pub builtins: &'static [BuiltinInfo],
    /// The builtin `eval` runs without `--model`, if the environment has one.
    pub default_policy: Option<&'static str>,
    /// Dataset generators (`svbench data gen`), the default first.
    pub generators: &'static [&'static GeneratorEntry],
    /// Importers of other formats (`svbench data import`), if any.
    pub importer: Option<&'static ImporterEntry>,
    /// Its benchmark (`svbench bench`), if any.
    pub bench: Option<&'static BenchEntry>,
    /// The environment's own argument names (`--env-arg K=V`).
    pub arg_names: &'static [&'static str],
    /// The arguments among `arg_names` that name files on the machine that
    /// configures the environment.
    pub path_arg_names: &'static [&'static str],
    /// Default turn and tool limits.
    pub budgets: Budgets,
    /// Default sampling.
    pub sampling: SamplingDefaults,
    /// SFT teachers and student arguments for `svbench.train`.
    pub training: TrainingDefaults,
    /// Scoring costs microseconds (no analyzers): servers run it in place
    /// instead of moving it to a blocking thread.
    pub cheap_scoring: bool,
    /// When scoring against an inline reference needs the row's `question`
    /// too, what to tell a caller who left it out.
    pub inline_question: Option<&'static str>,
    /// JSON schema of the environment's own arguments.
    pub args_schema: fn() -> Value,
    /// Builds a configured instance.
    pub configure: fn(&EnvSetup<'_>) -> Result<Configured, ConfigureError>,
    /// Loads, validates and selects rows for a configured instance.
    pub open: fn(&Configured, &DataRequest) -> Result<SelectedData, DatasetError>,
    /// Builds a builtin policy (name without `builtin:`) for a configured instance.
    pub builtin: BuildPolicy,
    /// The environment's arguments as recorded in metadata (`env_args`),
    /// from `K=V` pairs; also validates them.
    pub args_record: ArgsRecord,
    /// What the environment contributes to its runs' reports (its records,
    /// metrics and sections); [`GenericReport`] for none of its own.
    ///
    /// [`GenericReport`]: svbench_report::plugin::GenericReport
    pub report: &'static dyn ReportPlugin,
}

impl std::fmt::Debug for EnvEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvEntry")
            .field("name", &self.identity.name)
            .finish_non_exhaustive()
    }
}

/// Entries are statics: one entry, one environment.
impl PartialEq for EnvEntry {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for EnvEntry {}

impl EnvEntry {
    /// Canonical name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.identity.name
    }

    /// Builtin policy names, as `builtin:<name>` takes them.
    #[must_use]
    pub fn builtin_names(&self) -> Vec<&'static str> {
        self.builtins.iter().map(|b| b.name).collect()
    }

    /// Generator names, as `data gen --generator` takes them.
    #[must_use]
    pub fn generator_names(&self) -> Vec<&'static str> {
        self.generators.iter().map(|g| g.name).collect()
    }

    /// Checks a builtin policy name without building it (nothing is read).
    ///
    /// # Errors
    /// [`PolicyError::Unknown`] listing the available builtins.
    pub fn check_builtin(&self, name: &str) -> Result<(), PolicyError> {
        let known = self
            .builtins
            .iter()
            .any(|b| match b.name.strip_suffix("FILE") {
                Some(prefix) => name.starts_with(prefix),
                None => b.name == name,
            });
        if known {
            Ok(())
        } else {
            Err(self.unknown_builtin(name))
        }
    }

    /// The error for a builtin this environment does not have.
    #[must_use]
    pub fn unknown_builtin(&self, name: &str) -> PolicyError {
        PolicyError::Unknown {
            name: name.to_string(),
            env: self.name().to_string(),
            available: self.builtin_names().join(", "),
        }
    }

    /// The `K=V` pairs that reproduce the arguments recorded in a run's
    /// metadata (`env_args`, which also holds the common settings).
    #[must_use]
    pub fn recorded_arg_pairs(&self, env_args: &BTreeMap<String, Value>) -> Vec<String> {
        self.arg_names
            .iter()
            .filter_map(|key| {
                let value = match env_args.get(*key)? {
                    Value::String(s) => s.clone(),
                    Value::Array(items) => items
                        .iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                        .collect::<Vec<_>>()
                        .join(","),
                    other => other.to_string(),
                };
                Some(format!("{key}={value}"))
            })
            .collect()
    }
}

/// Every environment this build runs, in catalogue order.
pub static REGISTRY: &[&EnvEntry] = &[
    #[cfg(feature = "e1")]
    &crate::e1::entry::ENTRY,
    #[cfg(feature = "e2")]
    &crate::e2::entry::ENTRY,
    #[cfg(feature = "e4")]
    &crate::e4::entry::ENTRY,
    #[cfg(feature = "test-env")]
    &crate::echo::entry::ENTRY,
];

/// Why a name does not resolve to a runnable environment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// A benchmark environment this build does not include yet.
    #[error("environment `{name}` ({canonical}) is not built yet")]
    Planned {
        /// As given.
        name: String,
        /// Its canonical name.
        canonical: &'static str,
    },
    /// No environment has this name.
    #[error("unknown environment `{name}` (known: {known})")]
    Unknown {
        /// As given.
        name: String,
        /// The runnable environments' spellings.
        known: String,
    },
}

/// The runnable environment `name` spells (canonical name, short id or alias).
///
/// # Errors
/// [`LookupError::Planned`] for an environment that is not built yet,
/// [`LookupError::Unknown`] otherwise.
pub fn find(name: &str) -> Result<&'static EnvEntry, LookupError> {
    if let Some(entry) = REGISTRY.iter().find(|e| e.identity.is_named(name)) {
        return Ok(entry);
    }
    match svbench_core::identity::lookup(name) {
        Some(id) => Err(LookupError::Planned {
            name: name.to_string(),
            canonical: id.name,
        }),
        None => Err(LookupError::Unknown {
            name: name.to_string(),
            known: known_names(),
        }),
    }
}

/// The environment with canonical name `name` and its report plugin, as
/// `svbench report` looks them up ([`svbench_report::plugin::PluginLookup`]).
#[must_use]
pub fn report_plugin(name: &str) -> Option<Registered> {
    REGISTRY
        .iter()
        .find(|e| e.identity.name == name)
        .map(|e| (e.identity, e.report))
}

/// `e1/network-logs/sv-env-network-logs, …` for messages.
#[must_use]
pub fn known_names() -> String {
    REGISTRY
        .iter()
        .map(|e| {
            let [name, short, alias] = e.identity.spellings();
            format!("{short}/{alias}/{name}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How to configure an instance: what `eval`'s flags, an API request or
/// Python keyword arguments say.
#[derive(Debug, Clone, Default)]
pub struct EnvSetup<'a> {
    /// Reward profile (`None`: the default, `v1`).
    pub reward_profile: Option<&'a str>,
    /// Reward-config overrides: TOML text and where it came from.
    pub reward_overrides: Option<(&'a str, &'a str)>,
    /// The environment's own arguments as `K=V` pairs (later pairs win).
    pub env_args: &'a [String],
    /// Turn limit (`None`: the default).
    pub max_turns: Option<u32>,
    /// Tool budget (`None`: the default).
    pub tool_budget: Option<u32>,
    /// Replaces the system prompt.
    pub system_prompt: Option<String>,
}

impl EnvSetup<'_> {
    /// The reward profile asked for.
    #[must_use]
    pub fn profile(&self) -> &str {
        self.reward_profile.unwrap_or("v1")
    }
}

/// Why an instance could not be configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigureError {
    /// An argument, reward profile, reward config or budget the
    /// environment refuses.
    #[error("{0}")]
    Invalid(String),
    /// Files a path argument names could not be loaded; the message can
    /// quote them, so servers keep it to their log.
    #[error("{0}")]
    Files(String),
}

/// What metadata records about a configured instance beyond its rewards.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvFacts {
    /// Hash of the system prompt when one prompt serves every row.
    pub system_prompt_sha256: Option<String>,
    /// The environment's own arguments, recorded after the common settings.
    pub env_args: BTreeMap<String, Value>,
    /// Whether tools are offered.
    pub include_tools: bool,
    /// Tool backends and versions, when tools are offered.
    pub tool_versions: BTreeMap<String, Value>,
    /// Environment-specific provenance (analyzer versions, oracle mode).
    pub env_provenance: BTreeMap<String, Value>,
}

/// A configured environment with the facts callers record and report.
pub struct Configured {
    /// Which environment.
    pub entry: &'static EnvEntry,
    /// The environment.
    pub env: Arc<dyn Environment>,
    /// Active profile name.
    pub profile: &'static str,
    /// Components and weights of the active profile, in declared order.
    pub weights: Vec<(String, f64)>,
    /// `reward_config_hash` of the effective config.
    pub config_hash: String,
    /// The profile's effective constants.
    pub reward_params: BTreeMap<String, Value>,
    /// Turn and tool limits of an episode.
    pub budgets: Budgets,
    /// What metadata records.
    pub facts: EnvFacts,
    /// The concrete environment, for the entry's own functions.
    concrete: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured")
            .field("env", &self.entry.name())
            .field("profile", &self.profile)
            .field("config_hash", &self.config_hash)
            .finish_non_exhaustive()
    }
}

/// The parts of a [`Configured`] that come from the reward profile.
#[derive(Debug, Clone)]
pub struct RewardFacts {
    /// Active profile name.
    pub profile: &'static str,
    /// Components and weights in declared order.
    pub weights: Vec<(&'static str, f64)>,
    /// `reward_config_hash`.
    pub config_hash: String,
    /// Effective constants.
    pub params: BTreeMap<String, Value>,
}

impl Configured {
    /// Wraps a concrete environment `T` (kept for the entry's functions).
    pub fn new<T: Environment + 'static>(
        entry: &'static EnvEntry,
        env: T,
        rewards: RewardFacts,
        budgets: Budgets,
        facts: EnvFacts,
    ) -> Self {
        let env = Arc::new(env);
        Self {
            entry,
            env: Arc::clone(&env) as Arc<dyn Environment>,
            profile: rewards.profile,
            weights: rewards
                .weights
                .into_iter()
                .map(|(n, w)| (n.to_string(), w))
                .collect(),
            config_hash: rewards.config_hash,
            reward_params: rewards.params,
            budgets,
            facts,
            concrete: env,
        }
    }

    /// The concrete environment, when it is a `T`.
    #[must_use]
    pub fn concrete<T: 'static>(&self) -> Option<&T> {
        self.concrete.downcast_ref::<T>()
    }

    /// The concrete environment, shared, when it is a `T`.
    #[must_use]
    pub fn concrete_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        Arc::clone(&self.concrete).downcast::<T>().ok()
    }
}

/// Which rows to load: `eval`'s `--dataset`, `--split`, `-n`, `--shuffle`, `--seed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataRequest {
    /// `embedded`, a JSONL path or `synthetic:SEED:N`.
    pub dataset: String,
    /// Split name; `None`: the environment's rule for an unnamed split.
    pub split: Option<String>,
    /// Keep at most this many distinct examples.
    pub max_examples: Option<usize>,
    /// Seeded shuffle before truncation.
    pub shuffle: bool,
    /// Shuffle (and generator) seed.
    pub seed: u64,
}

/// Selected examples and the provenance metadata records.
pub struct SelectedData {
    /// Built one at a time as a run asks for them.
    pub examples: Arc<dyn ExampleSet>,
    /// Where they came from.
    pub provenance: DataProvenance,
}

impl std::fmt::Debug for SelectedData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelectedData")
            .field("selected", &self.examples.len())
            .field("provenance", &self.provenance)
            .finish()
    }
}

/// Refuses any `K=V` pair, for environments without arguments.
///
/// # Errors
/// [`ConfigureError::Invalid`] naming the first pair.
pub fn no_args(
    entry: &EnvEntry,
    pairs: &[String],
) -> Result<BTreeMap<String, Value>, ConfigureError> {
    match pairs.first() {
        None => Ok(BTreeMap::new()),
        Some(pair) => Err(ConfigureError::Invalid(format!(
            "{} has no environment-specific arguments (got `{pair}`)",
            entry.identity.short.to_ascii_uppercase()
        ))),
    }
}

/// The budgets asked for, defaults filled in; at least one model call, and
/// no tool calls where the environment offers no tools (its default tool
/// budget is 0). Every entry's `configure` calls this, so the CLI, the API
/// and the server refuse alike.
///
/// # Errors
/// [`ConfigureError::Invalid`] for `max_turns = 0`, or a tool budget for an
/// environment without tools.
pub fn budgets(entry: &EnvEntry, setup: &EnvSetup<'_>) -> Result<Budgets, ConfigureError> {
    let budgets = Budgets {
        max_turns: setup.max_turns.unwrap_or(entry.budgets.max_turns),
        tool_budget: setup.tool_budget.unwrap_or(entry.budgets.tool_budget),
    };
    if budgets.max_turns == 0 {
        return Err(ConfigureError::Invalid(
            "max_turns must be at least 1".into(),
        ));
    }
    if entry.budgets.tool_budget == 0 && budgets.tool_budget > 0 {
        return Err(ConfigureError::Invalid(format!(
            "{} has no tools: --tool-budget must be 0",
            entry.identity.short.to_ascii_uppercase()
        )));
    }
    Ok(budgets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_finds_its_entry_and_planned_ones_say_so() {
        for entry in REGISTRY {
            for s in entry.identity.spellings() {
                assert_eq!(find(s).unwrap().name(), entry.name());
            }
        }
        assert!(matches!(find("e3"), Err(LookupError::Planned { .. })));
        assert!(matches!(find("nope"), Err(LookupError::Unknown { .. })));
    }

    #[test]
    fn an_environment_whose_feature_is_off_is_planned() {
        let built = [
            ("e1", cfg!(feature = "e1")),
            ("e2", cfg!(feature = "e2")),
            ("e4", cfg!(feature = "e4")),
        ];
        for (short, on) in built {
            match find(short) {
                Ok(entry) => assert!(on, "{short} found without its feature: {entry:?}"),
                Err(e) => {
                    assert!(!on, "{short} has its feature but is not registered: {e}");
                    assert!(matches!(e, LookupError::Planned { .. }), "{short}: {e}");
                }
            }
        }
    }

    #[cfg(feature = "e1")]
    #[test]
    fn builtin_names_are_checked_against_the_entry() {
        let e1 = find("e1").unwrap();
        assert!(e1.check_builtin("heuristic").is_ok());
        assert!(e1.check_builtin("replay:x.jsonl").is_ok());
        assert!(matches!(
            e1.check_builtin("tool-only"),
            Err(PolicyError::Unknown { .. })
        ));
    }

    #[cfg(all(feature = "e1", feature = "e2"))]
    #[test]
    fn an_environment_without_tools_refuses_a_tool_budget() {
        let e1 = find("e1").unwrap();
        let setup = |tool_budget| EnvSetup {
            tool_budget,
            ..EnvSetup::default()
        };
        assert_eq!(
            budgets(e1, &setup(Some(2))),
            Err(ConfigureError::Invalid(
                "E1 has no tools: --tool-budget must be 0".into()
            ))
        );
        assert_eq!(budgets(e1, &setup(Some(0))).map(|b| b.tool_budget), Ok(0));
        assert!((e1.configure)(&setup(Some(1))).is_err());
        let e2 = find("e2").unwrap();
        assert_eq!(budgets(e2, &setup(Some(5))).map(|b| b.tool_budget), Ok(5));
    }

    /// E1 and E4 record the cost matrix their v1 cost metrics use: the
    /// profile's under `v1` (overrides included), the built-in `v1` costs
    /// under any other profile.
    #[cfg(all(feature = "e1", feature = "e4"))]
    #[test]
    fn cost_matrix_v1_is_recorded_with_the_run() {
        let recorded = |env: &str, profile: &str, overrides: Option<(&str, &str)>| {
            let setup = EnvSetup {
                reward_profile: Some(profile),
                reward_overrides: overrides,
                ..EnvSetup::default()
            };
            let configured = (find(env).unwrap().configure)(&setup).expect("configures");
            configured.facts.env_provenance["cost_matrix_v1"].clone()
        };
        let e1_v1 = recorded("e1", "v1", None);
        assert_eq!(
            e1_v1,
            serde_json::json!({"cost_fp": 0.25, "cost_fn": 1.0, "cost_abstain": 0.15})
        );
        assert_eq!(recorded("e1", "upstream", None), e1_v1);
        let e4_v1 = recorded("e4", "v1", None);
        assert_eq!(recorded("e4", "upstream", None), e4_v1);
        assert_eq!(e4_v1["cost_amb_legitimate"], 0.6);
        let changed = recorded("e4", "v1", Some(("[v1]\ncost_fp = 0.4\n", "test")));
        assert_eq!(changed["cost_fp"], 0.4);
    }

    #[test]
    fn every_importer_declares_well_formed_flags() {
        use crate::kit::import::{Accepts, FlagKind, FlagValue};
        use std::collections::{BTreeMap, BTreeSet};
        // `data import`'s own arguments, which no importer flag may shadow.
        let generic = ["format", "out", "config", "no-progress", "help"];
        let mut kinds: BTreeMap<&str, FlagKind> = BTreeMap::new();
        for entry in REGISTRY {
            let Some(importer) = entry.importer else {
                continue;
            };
            let env = entry.name();
            let formats: BTreeSet<&str> = importer.format_names().into_iter().collect();
            assert!(!formats.is_empty(), "{env}: no formats");
            assert_eq!(
                formats.len(),
                importer.formats.len(),
                "{env}: a format twice"
            );
            let mut names = BTreeSet::new();
            for flag in importer.flags {
                let name = flag.name;
                assert!(names.insert(name), "{env}: --{name} declared twice");
                assert!(
                    !generic.contains(&name),
                    "{env}: --{name} shadows data import's own"
                );
                assert!(
                    !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                    "{env}: --{name} is not a kebab-case name"
                );
                assert!(!flag.help.is_empty(), "{env}: --{name} has no help");
                if let Accepts::Only(only) = flag.accepts {
                    assert!(!only.is_empty(), "{env}: --{name} accepts no format");
                    for f in only {
                        assert!(formats.contains(f), "{env}: --{name} names format `{f}`");
                    }
                }
                if let Some(default) = flag.default {
                    assert!(
                        flag.kind != FlagKind::Switch
                            && FlagValue::parse(name, flag.kind, default).is_ok(),
                        "{env}: --{name}'s default `{default}` does not fit its kind"
                    );
                }
                // `data import` offers the union of every importer's flags:
                // one name, one kind.
                let kind = *kinds.entry(name).or_insert(flag.kind);
                assert_eq!(
                    kind, flag.kind,
                    "{env}: --{name} has another kind elsewhere"
                );
            }
        }
        assert!(!kinds.is_empty(), "no importer declares a flag");
    }

    #[test]
    fn every_bench_hook_is_well_formed() {
        let mut aliases = Vec::new();
        for entry in REGISTRY {
            let Some(bench) = entry.bench else {
                continue;
            };
            let env = entry.name();
            // `bench --help` lists each summary in parentheses after the id.
            assert!(
                !bench.summary.is_empty() && !bench.summary.contains(['(', ')']),
                "{env}: bench summary `{}`",
                bench.summary
            );
            assert_ne!(bench.max_items, Some(0), "{env}: a cap of 0 items");
            if let Some(large) = bench.large {
                // `--large`'s help lists `short: what, default N` per entry.
                assert!(
                    !large.what.is_empty() && !large.what.contains([';', '(', ')']),
                    "{env}: large inputs `{}`",
                    large.what
                );
                aliases.extend(large.alias);
            }
        }
        // The CLI declares each alias once, as a name of `--large`.
        let count = aliases.len();
        aliases.sort_unstable();
        aliases.dedup();
        assert_eq!(aliases.len(), count, "an alias of --large declared twice");
        assert!(
            !aliases.iter().any(|a| a.is_empty() || a.starts_with('-')),
            "{aliases:?}"
        );
    }

    /// The whole-stack benchmarks of `svbench bench` get from an
    /// environment an answer it scores and a run `svbench report` reads.
    #[test]
    fn every_whole_stack_hook_writes_a_run_the_report_reads() {
        for entry in REGISTRY {
            let Some(hook) = entry.bench.and_then(|b| b.whole_stack) else {
                continue;
            };
            let env = entry.name();
            let configured = (entry.configure)(&EnvSetup::default()).unwrap();
            let data = (entry.open)(
                &configured,
                &DataRequest {
                    dataset: "embedded".into(),
                    split: Some(entry.default_split.into()),
                    max_examples: Some(1),
                    shuffle: false,
                    seed: 0,
                },
            )
            .unwrap();
            let example = data.examples.example(0).unwrap();
            let scored = configured
                .env
                .score(
                    &example,
                    &svbench_core::Completion::assistant_text(hook.answer),
                )
                .unwrap();
            assert_eq!(
                scored.parse.status,
                svbench_core::ParseStatus::Valid,
                "{env}: the fake endpoint's answer does not parse"
            );

            let dir = tempfile::tempdir().unwrap();
            (hook.write_run)(dir.path(), 3).unwrap();
            let outcome = svbench_report::report_run(
                dir.path(),
                &svbench_report::ReportOptions {
                    no_plots: true,
                    ..svbench_report::ReportOptions::new(report_plugin)
                },
            )
            .unwrap();
            assert!(outcome.summary_path.is_some(), "{env}: no summary");
            let summary = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
            assert!(
                summary.contains(env),
                "{env}: the summary names another environment"
            );
            let results = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
            assert_eq!(results.lines().count(), 3, "{env}");
        }
    }
}
