//! The E2 environment (spec E2 §2, §5, §6): prompt, tools, and one scoring
//! path that runs every completion through both parsers and both reward
//! profiles and records the evidence.
//!
//! Patch verification happens here, at scoring time, once per path: the
//! `v1` path applies the v1-parsed patch strictly ([`apply_patch`]), checks
//! preservation and re-scans the original and patched texts natively,
//! restricted to the labelled namespaces. The `upstream` path (spec §5.1)
//! applies the upstream-parsed patch leniently like GNU `patch`
//! ([`apply_upstream`]), without preservation check, and re-scans with the
//! primary analyzer only; its outcome is `parsed.upstream_patch`.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::e2::report::record::{
    DetectionRecord, E2Compat, E2DetectionRecord, E2Parsed, E2RewardsRecord, E2UpstreamRewards,
    E2V1Rewards, PatchKind, RuleFinding, UpstreamPatchRecord as UpstreamPatchEntry, V1PatchRecord,
    ViolationEntry,
};
use serde_json::{json, Map, Value};
use svbench_core::env_record::{CompatFields, EnvPart, ParseStatusRecord};
use svbench_core::extract::{completion_text, upstream_fence, ParseMode};
use svbench_core::reward_config::RewardConfigError;
use svbench_core::{Completion, Example, Message, ParseRecord, ParseStatus};
use svbench_scan::external::{ExternalBackends, ExternalTool, ProbeError};
use svbench_scan::patch::lenient::apply_upstream_within;
use svbench_scan::patch::{
    apply_patch_within, PatchKind as ScanPatchKind, PatchOutcome, PatchStatus, PatchStop,
};
use svbench_scan::scan::{ScanConfigError, ScanOptions, Scanner, ToolSelection};
use svbench_scan::{kube_linter, semgrep, Limits, NodeBudget};

use super::ids::Catalogue;
use super::oracle::{oracle_from_row, row_lang};
use super::parse::parse_completion;
use super::prompt::{initial_messages, system_prompt, user_message, PromptContext};
use super::reward::{
    score_upstream, score_v1, Detection, E2Rewards, PatchEvaluation, Profile, UpstreamPatch,
    UpstreamScore, V1Answer, V1Params, V1Score,
};
use super::tools::{file_type, tool_specs, Analyzers, Backend, E2Episode, OracleError};
use super::{E2Parse, Lang, NormalizedId, Oracle, OracleViolation, Severity, Tool};
use crate::environment::{
    Budgets, Deadline, EnvKind, Environment, Episode, ScoreError, ScoredAnswer, TimeBudgetExceeded,
};

/// The YAML node budgets of scoring one request: every read of the
/// configuration's documents (the live oracle's scan, the JSON Patch
/// applier, the original side of the preservation check, the re-scan of the
/// original) draws from `config`, every read of a patched file's (the
/// preservation check, the re-scans, the upstream path's object count) from
/// `patched`. Each is [`Limits::file_nodes`] of the bytes it answers for —
/// the question, and the question and completion together — so a request
/// costs in proportion to its size however many times its documents are
/// read; and a patch that exhausts its own budget fails as `too_large`
/// instead of voiding the sample.
#[derive(Debug)]
pub struct RequestNodes {
    /// Reads of the configuration under audit.
    pub config: NodeBudget,
    /// Reads of the patched files the completion's patches produce.
    pub patched: NodeBudget,
}

impl RequestNodes {
    /// The budgets of scoring `completion` against `config`.
    #[must_use]
    pub fn new(config: &str, completion: &Completion) -> RequestNodes {
        let completion_bytes: usize = match completion {
            Completion::Text(text) => text.len(),
            Completion::Messages(messages) => messages
                .iter()
                .filter_map(|m| m.get("content").and_then(Value::as_str))
                .map(str::len)
                .sum(),
        };
        let limits = Limits::default();
        RequestNodes {
            config: NodeBudget::for_input(&limits, config.len()),
            patched: NodeBudget::for_input(&limits, config.len().saturating_add(completion_bytes)),
        }
    }

    /// Why a patch whose patched file exhausted its budget is `too_large`.
    fn patched_reason(&self) -> String {
        format!(
            "reading the patched file's documents would build more than {} YAML nodes in all (its node budget: one per byte of question and completion, at least 1,000,000 and at most 2,000,000)",
            self.patched.limit()
        )
    }
}

/// Default turn and tool limits (spec E2 §2.1; harness §1.1).
pub const DEFAULT_BUDGETS: Budgets = Budgets {
    max_turns: 5,
    tool_budget: 3,
};

/// Default total time budget of one score: scoring re-scans the config (and
/// the patched config), each scan also bounded by the scanner's per-file
/// budget ([`svbench_scan::scan::DEFAULT_TIME_BUDGET`]). Real configs score in
/// milliseconds; this bounds what a hostile config or patch can cost.
pub const DEFAULT_SCORE_BUDGET: Duration = Duration::from_secs(60);

/// Where an item's oracle comes from (`oracle` argument, spec E2 §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OracleMode {
    /// The row's stored labels.
    #[default]
    Dataset,
    /// A re-scan of the config (native, or the binaries with
    /// `backend=external`); labelled namespaces are those with rules for
    /// the file type (k8s: all three; tf: opa).
    Live,
}

impl OracleMode {
    /// `dataset` or `live`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            OracleMode::Dataset => "dataset",
            OracleMode::Live => "live",
        }
    }
}

/// Which items to keep (`lang` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LangFilter {
    /// Kubernetes items only.
    K8s,
    /// Terraform items only.
    Tf,
    /// Both.
    #[default]
    All,
}

/// kube-linter check selection (`kube_linter_checks` argument).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum KubeLinterChecks {
    /// The default-enabled checks.
    #[default]
    Default,
    /// Every implemented check.
    All,
    /// Exactly these checks.
    List(Vec<String>),
}

/// The E2 environment arguments (`--env-arg`, spec E2 §2.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct E2Args {
    /// Offer the tools (default true).
    pub include_tools: bool,
    /// Oracle mode (default dataset).
    pub oracle: OracleMode,
    /// `builtin:oracle` also submits the row's stored patch (`info.patch`).
    pub oracle_patch: bool,
    /// Items kept by [`E2Env::filter_lang`].
    pub lang: LangFilter,
    /// User Rego policy directories.
    pub policy_dirs: Vec<PathBuf>,
    /// kube-linter checks.
    pub kube_linter_checks: KubeLinterChecks,
    /// List the labelled namespaces' rule ids in the prompt (default true).
    pub show_catalog: bool,
    /// Findings per tool result (default 200).
    pub max_findings_per_result: usize,
    /// Analyzers of the tools and the live oracle (default native, §1.8).
    pub backend: Backend,
    /// Local semgrep rule file or directory for the external semgrep
    /// (required with `backend=external|crosscheck`: registry rule sets
    /// need the network).
    pub semgrep_config: Option<PathBuf>,
    /// Where external binaries are looked up, in `PATH` syntax; `None` is
    /// the process's `PATH`. Not an `--env-arg`: set by embedders and tests.
    pub external_search_path: Option<OsString>,
    /// Hard timeout of each external run; `None` keeps upstream's (30 s
    /// kube-linter, 60 s semgrep, 15 s opa). Not an `--env-arg`.
    pub external_timeout: Option<Duration>,
}

impl Default for E2Args {
    fn default() -> Self {
        Self {
            include_tools: true,
            oracle: OracleMode::Dataset,
            oracle_patch: false,
            lang: LangFilter::All,
            policy_dirs: Vec::new(),
            kube_linter_checks: KubeLinterChecks::Default,
            show_catalog: true,
            max_findings_per_result: 200,
            backend: Backend::Native,
            semgrep_config: None,
            external_search_path: None,
            external_timeout: None,
        }
    }
}

/// The argument names E2 accepts.
pub const ARG_NAMES: [&str; 10] = [
    "include_tools",
    "oracle",
    "oracle_patch",
    "lang",
    "policy_dirs",
    "kube_linter_checks",
    "backend",
    "semgrep_config",
    "show_catalog",
    "max_findings_per_result",
];

/// The arguments that name paths on the machine running the environment
/// (read when it is configured). Callers configuring an environment on
/// behalf of someone else (`svbench serve`) refuse or confine them.
pub const PATH_ARG_NAMES: [&str; 2] = ["policy_dirs", "semgrep_config"];

/// Why an E2 environment could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum E2EnvError {
    /// An argument E2 does not have.
    #[error("unknown E2 environment argument `{0}` (known: {known})", known = ARG_NAMES.join(", "))]
    UnknownArg(String),
    /// A `--env-arg` not of the form `K=V`.
    #[error("environment argument `{0}` is not of the form KEY=VALUE")]
    Malformed(String),
    /// A value of the wrong type or outside the allowed set.
    #[error("environment argument {key}={value:?}: expected {expected}")]
    BadValue {
        /// Argument.
        key: String,
        /// Value given.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// A supported setting this build does not implement.
    #[error("{0} is not implemented in this build")]
    NotImplemented(String),
    /// The analyzers could not be configured.
    #[error("cannot configure the analyzers: {0}")]
    Scan(#[from] ScanConfigError),
    /// A requested external backend cannot run (never a fallback to native).
    #[error("backend={backend}: {source}")]
    Backend {
        /// `external` or `crosscheck`.
        backend: &'static str,
        /// The missing binary or unusable semgrep rules.
        source: ProbeError,
    },
    /// `backend=external|crosscheck` without `semgrep_config`: the external
    /// semgrep needs a local rule file (registry rule sets need the network,
    /// and the binary is never swapped for the native namespace).
    #[error(
        "backend={0} needs a local semgrep rule file: pass --env-arg semgrep_config=PATH \
         (registry rule sets need the network)"
    )]
    SemgrepConfigRequired(&'static str),
    /// The reward profile or config is invalid.
    #[error(transparent)]
    Reward(#[from] RewardConfigError),
}

fn parse_bool(key: &str, value: &str) -> Result<bool, E2EnvError> {
    crate::kit::args::parse_bool(value).ok_or_else(|| E2EnvError::BadValue {
        key: key.into(),
        value: value.into(),
        expected: "true or false",
    })
}

impl E2Args {
    /// Parses `KEY=VALUE` strings (`--env-arg`), later keys winning.
    ///
    /// # Errors
    /// Unknown keys, malformed pairs and bad values.
    pub fn parse<S: AsRef<str>>(pairs: &[S]) -> Result<Self, E2EnvError> {
        let mut args = Self::default();
        for pair in pairs {
            let pair = pair.as_ref();
            let (key, value) = crate::kit::args::split_pair(pair)
                .ok_or_else(|| E2EnvError::Malformed(pair.to_string()))?;
            args.set(key, value)?;
        }
        Ok(args)
    }

    /// Sets one argument.
    ///
    /// # Errors
    /// As [`E2Args::parse`].
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), E2EnvError> {
        let bad = |expected| E2EnvError::BadValue {
            key: key.into(),
            value: value.into(),
            expected,
        };
        match key {
            "include_tools" => self.include_tools = parse_bool(key, value)?,
            "oracle_patch" => self.oracle_patch = parse_bool(key, value)?,
            "show_catalog" => self.show_catalog = parse_bool(key, value)?,
            "oracle" => {
                self.oracle = match value {
                    "dataset" => OracleMode::Dataset,
                    "live" => OracleMode::Live,
                    _ => return Err(bad("dataset or live")),
                }
            }
            "lang" => {
                self.lang = match value {
                    "k8s" => LangFilter::K8s,
                    "tf" => LangFilter::Tf,
                    "all" => LangFilter::All,
                    _ => return Err(bad("k8s, tf or all")),
                }
            }
            "policy_dirs" => {
                self.policy_dirs = value
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from)
                    .collect();
            }
            "kube_linter_checks" => {
                self.kube_linter_checks = match value {
                    "default" => KubeLinterChecks::Default,
                    "all" => KubeLinterChecks::All,
                    list => {
                        let names: Vec<String> = list
                            .split(',')
                            .map(str::trim)
                            .filter(|s| !s.is_empty())
                            .map(|s| s.strip_prefix("kube-linter/").unwrap_or(s).to_string())
                            .collect();
                        if names.is_empty() {
                            return Err(bad("default, all or a comma list of kube-linter checks"));
                        }
                        KubeLinterChecks::List(names)
                    }
                }
            }
            "backend" => {
                self.backend = match value {
                    "native" => Backend::Native,
                    "external" => Backend::External,
                    "crosscheck" => Backend::Crosscheck,
                    _ => return Err(bad("native, external or crosscheck")),
                }
            }
            "semgrep_config" => {
                self.semgrep_config = (!value.is_empty()).then(|| PathBuf::from(value));
            }
            "max_findings_per_result" => {
                self.max_findings_per_result = value
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad("a positive integer"))?;
            }
            other => return Err(E2EnvError::UnknownArg(other.to_string())),
        }
        Ok(())
    }

    /// The effective arguments, as recorded in `metadata.json` `env_args`
    /// (`semgrep_config` only when set; the search path and timeout are not
    /// arguments).
    #[must_use]
    pub fn to_record(&self) -> BTreeMap<String, Value> {
        let checks = match &self.kube_linter_checks {
            KubeLinterChecks::Default => json!("default"),
            KubeLinterChecks::All => json!("all"),
            KubeLinterChecks::List(l) => json!(l.join(",")),
        };
        let lang = match self.lang {
            LangFilter::K8s => "k8s",
            LangFilter::Tf => "tf",
            LangFilter::All => "all",
        };
        let mut record = BTreeMap::from([
            ("include_tools".into(), json!(self.include_tools)),
            ("oracle".into(), json!(self.oracle.as_str())),
            ("oracle_patch".into(), json!(self.oracle_patch)),
            ("lang".into(), json!(lang)),
            (
                "policy_dirs".into(),
                json!(self
                    .policy_dirs
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()),
            ),
            ("kube_linter_checks".into(), checks),
            ("backend".into(), json!(self.backend.as_str())),
            ("show_catalog".into(), json!(self.show_catalog)),
            (
                "max_findings_per_result".into(),
                json!(self.max_findings_per_result),
            ),
        ]);
        if let Some(rules) = &self.semgrep_config {
            record.insert("semgrep_config".into(), json!(rules.display().to_string()));
        }
        record
    }

    /// The external binaries of `backend=external|crosscheck`, probed once
    /// (all three namespaces: the tools offer all three); `None` for native.
    ///
    /// # Errors
    /// No `semgrep_config` ([`E2EnvError::SemgrepConfigRequired`]); a
    /// missing binary or unusable semgrep rules ([`E2EnvError::Backend`]);
    /// kube-linter checks other than the default
    /// set ([`E2EnvError::NotImplemented`]: the binary would run its own
    /// defaults).
    fn probe_external(&self, scanner: &Scanner) -> Result<Option<ExternalBackends>, E2EnvError> {
        if self.backend == Backend::Native {
            return Ok(None);
        }
        if self.kube_linter_checks != KubeLinterChecks::Default {
            return Err(E2EnvError::NotImplemented(format!(
                "backend={} with kube_linter_checks other than `default`",
                self.backend.as_str()
            )));
        }
        if self.semgrep_config.is_none() {
            return Err(E2EnvError::SemgrepConfigRequired(self.backend.as_str()));
        }
        let tools: Vec<ExternalTool> = Tool::ALL
            .into_iter()
            .map(|tool| {
                let mut external = ExternalTool::new(tool);
                if let Some(path) = &self.external_search_path {
                    external = external.with_search_path(path.clone());
                }
                if let Some(timeout) = self.external_timeout {
                    external = external.with_timeout(timeout);
                }
                external
            })
            .collect();
        ExternalBackends::probe(&tools, self.semgrep_config.as_deref(), scanner.opa())
            .map(Some)
            .map_err(|source| E2EnvError::Backend {
                backend: self.backend.as_str(),
                source,
            })
    }
}

/// The scan options of the arguments, and the enabled kube-linter checks.
fn scan_options(args: &E2Args) -> Result<(ScanOptions, Vec<String>), E2EnvError> {
    let defaults: Vec<String> = kube_linter::catalogue()
        .iter()
        .filter(|r| r.tier.enabled_by_default())
        .map(|r| r.id.to_string())
        .collect();
    let mut options = ScanOptions {
        tools: ToolSelection::default(),
        policy_dirs: args.policy_dirs.clone(),
        ..ScanOptions::default()
    };
    let enabled = match &args.kube_linter_checks {
        KubeLinterChecks::Default => defaults,
        KubeLinterChecks::All => {
            let all: Vec<String> = kube_linter::implemented_checks()
                .into_iter()
                .map(str::to_string)
                .collect();
            options.include = all.iter().map(|c| format!("kube-linter/{c}")).collect();
            all
        }
        KubeLinterChecks::List(list) => {
            options.include = list.iter().map(|c| format!("kube-linter/{c}")).collect();
            options.exclude = defaults
                .iter()
                .filter(|d| !list.contains(d))
                .map(|c| format!("kube-linter/{c}"))
                .collect();
            list.clone()
        }
    };
    Ok((options, enabled))
}

/// Everything about one item the episode and the scoring need.
#[derive(Debug, Clone)]
pub struct E2Item {
    /// Language (workspace name, file type).
    pub lang: Lang,
    /// The config text (the workspace file).
    pub config: String,
    /// Oracle: labelled namespaces and entries.
    pub oracle: Oracle,
}

/// E2 configured with a reward profile and environment arguments.
#[derive(Debug, Clone)]
pub struct E2Env {
    rewards: E2Rewards,
    args: E2Args,
    analyzers: Arc<Analyzers>,
    catalogue: Arc<Catalogue>,
    /// Enabled rules per namespace with catalogue severities (prompt listing).
    enabled_rules: Vec<(Tool, Vec<(String, Severity)>)>,
    budgets: Budgets,
    system_prompt_override: Option<String>,
    /// Total time budget of one score ([`DEFAULT_SCORE_BUDGET`]).
    score_budget: Option<Duration>,
}

impl E2Env {
    /// E2 with reward profile `profile` (`v1` or `upstream`), an optional
    /// reward override file `(text, origin)` and environment arguments.
    ///
    /// # Errors
    /// Invalid reward settings, arguments or analyzer configuration.
    pub fn new(
        profile: &str,
        reward_config: Option<(&str, &str)>,
        args: E2Args,
    ) -> Result<Self, E2EnvError> {
        let rewards = E2Rewards::load(profile, reward_config)?;
        Self::with_rewards(rewards, args)
    }

    /// E2 with already-loaded rewards.
    ///
    /// # Errors
    /// Invalid arguments or analyzer configuration.
    pub fn with_rewards(rewards: E2Rewards, args: E2Args) -> Result<Self, E2EnvError> {
        let (options, kube_linter_enabled) = scan_options(&args)?;
        let scanner = Scanner::new(&options)?;
        let external = args.probe_external(&scanner)?;
        let catalogue = if args.policy_dirs.is_empty() {
            Catalogue::builtin().clone()
        } else {
            Catalogue::with_opa(scanner.opa())
        };
        let severity =
            |tool: Tool, rule: &str| catalogue.severity(tool, rule).unwrap_or(Severity::Med);
        let mut kube: Vec<(String, Severity)> = kube_linter_enabled
            .iter()
            .map(|r| (r.clone(), severity(Tool::KubeLinter, r)))
            .collect();
        kube.sort();
        let semgrep_rules: Vec<(String, Severity)> = semgrep::catalogue()
            .iter()
            .filter(|r| r.tier.enabled_by_default())
            .map(|r| (r.id.to_string(), r.severity))
            .collect();
        let mut opa_rules: Vec<(String, Severity)> = scanner
            .opa_rules()
            .into_iter()
            .map(|r| (r.id, r.severity))
            .collect();
        opa_rules.sort();
        let enabled_rules = vec![
            (Tool::KubeLinter, kube),
            (Tool::Semgrep, semgrep_rules),
            (Tool::Opa, opa_rules),
        ];
        let analyzers = match external {
            Some(external) => Analyzers::with_external(scanner, args.backend, external),
            None => Analyzers::new(scanner),
        };
        Ok(Self {
            rewards,
            args,
            analyzers: Arc::new(analyzers),
            catalogue: Arc::new(catalogue),
            enabled_rules,
            budgets: DEFAULT_BUDGETS,
            system_prompt_override: None,
            score_budget: Some(DEFAULT_SCORE_BUDGET),
        })
    }

    /// The active reward profile.
    #[must_use]
    pub fn rewards(&self) -> &E2Rewards {
        &self.rewards
    }

    /// The environment arguments.
    #[must_use]
    pub fn args(&self) -> &E2Args {
        &self.args
    }

    /// The id catalogue (normalisation and severities).
    #[must_use]
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// The shared analyzers (tools and scoring scans).
    #[must_use]
    pub fn analyzers(&self) -> &Arc<Analyzers> {
        &self.analyzers
    }

    /// The turn and tool limits the prompt states (`--max-turns`,
    /// `--tool-budget`); the runner enforces them.
    pub fn set_budgets(&mut self, budgets: Budgets) {
        self.budgets = budgets;
    }

    /// Sets the total time budget of one score (the live oracle's scan and
    /// the patch re-scans together); `None` leaves only the per-file scan
    /// budget and a caller's deadline ([`Environment::score_within`]).
    pub fn set_score_budget(&mut self, budget: Option<Duration>) {
        self.score_budget = budget;
    }

    /// The total time budget of one score.
    #[must_use]
    pub fn score_budget(&self) -> Option<Duration> {
        self.score_budget
    }

    /// Replaces the system prompt of every item (`--system-prompt-file`).
    pub fn set_system_prompt(&mut self, prompt: String) {
        self.system_prompt_override = Some(prompt);
    }

    /// Keeps the items of the `lang` argument, re-indexed in order.
    #[must_use]
    pub fn filter_lang(&self, examples: Vec<Example>) -> Vec<Example> {
        let keep = |lang: Lang| match self.args.lang {
            LangFilter::All => true,
            LangFilter::K8s => lang == Lang::K8s,
            LangFilter::Tf => lang == Lang::Tf,
        };
        examples
            .into_iter()
            .filter(|e| keep(row_lang(&row_of(e))))
            .enumerate()
            .map(|(index, mut e)| {
                e.index = index;
                e
            })
            .collect()
    }

    /// The labelled namespaces live mode uses for a language.
    #[must_use]
    pub fn live_namespaces(lang: Lang) -> BTreeSet<Tool> {
        match lang {
            Lang::K8s => Tool::ALL.into_iter().collect(),
            Lang::Tf => BTreeSet::from([Tool::Opa]),
        }
    }

    /// The live oracle of a config: one entry per finding of the
    /// namespaces that have rules for its type, with project severities —
    /// native findings, or the binaries' with `backend=external`
    /// (`crosscheck` labels natively).
    ///
    /// # Errors
    /// The config cannot be labelled ([`OracleError`]: an external run that
    /// failed, a scan error, the time budget): never "clean".
    pub fn live_oracle(&self, lang: Lang, config: &str) -> Result<Oracle, OracleError> {
        self.live_oracle_within(lang, config, &Deadline::NONE)
    }

    /// [`E2Env::live_oracle`] that stops by `deadline`.
    ///
    /// # Errors
    /// As [`E2Env::live_oracle`].
    pub fn live_oracle_within(
        &self,
        lang: Lang,
        config: &str,
        deadline: &Deadline,
    ) -> Result<Oracle, OracleError> {
        let nodes = NodeBudget::for_input(&Limits::default(), config.len());
        self.live_oracle_budgeted(lang, config, deadline, &nodes)
    }

    /// [`E2Env::live_oracle_within`] whose scan draws from `nodes`, the node
    /// budget of the whole request ([`E2Env::request_budget`]).
    ///
    /// # Errors
    /// As [`E2Env::live_oracle`].
    pub fn live_oracle_budgeted(
        &self,
        lang: Lang,
        config: &str,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<Oracle, OracleError> {
        let namespaces = Self::live_namespaces(lang);
        let violations = self
            .analyzers
            .oracle_findings_within(lang, config, &namespaces, deadline, nodes)?
            .iter()
            .map(|f| OracleViolation {
                id: f.full_id(),
                severity: f.severity,
            })
            .collect();
        Ok(Oracle {
            namespaces,
            violations,
        })
    }

    /// Reads an example: language, config and oracle (per the oracle mode),
    /// within the scoring time budget ([`E2Env::set_score_budget`]).
    ///
    /// # Errors
    /// A dataset-mode row without a usable label list; in live mode, a
    /// config the oracle could not label (a per-sample error, never clean).
    pub fn item(&self, example: &Example) -> Result<E2Item, ScoreError> {
        self.item_within(example, &Deadline::after_opt(self.score_budget))
    }

    /// [`E2Env::item`] that stops by `deadline`.
    ///
    /// # Errors
    /// As [`E2Env::item`]; [`crate::environment::ScoreErrorKind::TimeBudgetExceeded`] when the
    /// live oracle's scan ran past `deadline`.
    pub fn item_within(
        &self,
        example: &Example,
        deadline: &Deadline,
    ) -> Result<E2Item, ScoreError> {
        let nodes = NodeBudget::for_input(&Limits::default(), example.question.len());
        self.item_budgeted(example, deadline, &nodes)
    }

    /// [`E2Env::item_within`] whose live oracle's scan draws from `nodes`,
    /// the node budget of the whole request ([`E2Env::request_budget`]).
    ///
    /// # Errors
    /// As [`E2Env::item_within`].
    pub fn item_budgeted(
        &self,
        example: &Example,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<E2Item, ScoreError> {
        let row = row_of(example);
        let lang = row_lang(&row);
        let config = example.question.clone();
        let oracle = match self.args.oracle {
            OracleMode::Dataset => oracle_from_row(&row).map_err(|e| {
                ScoreError::reference(&example.id, format!("cannot read the oracle: {e}"))
            })?,
            OracleMode::Live => match self.live_oracle_budgeted(lang, &config, deadline, nodes) {
                Ok(oracle) => oracle,
                Err(OracleError::TimeBudget(e)) => {
                    return Err(ScoreError::time_budget(&example.id, e))
                }
                Err(e) => {
                    return Err(ScoreError::reference(
                        &example.id,
                        format!("cannot compute the live oracle: {e}"),
                    ))
                }
            },
        };
        Ok(E2Item {
            lang,
            config,
            oracle,
        })
    }

    /// The labelled namespaces of an example (what the prompt names); for a
    /// row whose labels cannot be read, what upstream's builder ran.
    #[must_use]
    pub fn labelled_namespaces(&self, example: &Example) -> (Lang, BTreeSet<Tool>) {
        let row = row_of(example);
        let lang = row_lang(&row);
        let namespaces = match self.args.oracle {
            OracleMode::Live => Self::live_namespaces(lang),
            OracleMode::Dataset => match oracle_from_row(&row) {
                Ok(o) => o.namespaces,
                Err(_) => match lang {
                    Lang::K8s => BTreeSet::from([Tool::KubeLinter, Tool::Semgrep]),
                    Lang::Tf => BTreeSet::from([Tool::Semgrep]),
                },
            },
        };
        (lang, namespaces)
    }

    /// The system prompt of an example.
    #[must_use]
    pub fn system_prompt(&self, example: &Example) -> String {
        if let Some(p) = &self.system_prompt_override {
            return p.clone();
        }
        let (lang, labelled) = self.labelled_namespaces(example);
        system_prompt(&PromptContext {
            lang,
            labelled: &labelled,
            include_tools: self.args.include_tools,
            tool_budget: self.budgets.tool_budget,
            max_turns: self.budgets.max_turns,
            catalogue: self.args.show_catalog.then_some(&self.enabled_rules[..]),
        })
    }

    /// The v1 parameters used for the v1 components (the active profile's
    /// constants, or the built-in ones when `upstream` is active).
    fn v1_params(&self) -> V1Params {
        match self.rewards.profile {
            Profile::V1(p) => p,
            Profile::Upstream => V1Params::default(),
        }
    }

    /// Scores one completion of an item: both parsers, both profiles; the
    /// re-scans of the patch paths stop by `deadline`.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when a re-scan ran past `deadline` (or the
    /// scanner's own per-file budget).
    pub fn score_item(
        &self,
        item: &E2Item,
        completion: &Completion,
        deadline: &Deadline,
    ) -> Result<E2Score, TimeBudgetExceeded> {
        let nodes = RequestNodes::new(&item.config, completion);
        self.score_item_budgeted(item, completion, deadline, &nodes)
    }

    /// [`E2Env::score_item`] whose YAML reads draw from the request's node
    /// budgets ([`RequestNodes`]). A patched file that exhausts its budget
    /// makes the patch `too_large` (a failed patch, scored); when the
    /// configuration's budget runs out (see [`NodeBudget::exceeded`]) the
    /// score is no evidence of anything and [`Environment::score_within`]
    /// reports an error instead.
    ///
    /// # Errors
    /// As [`E2Env::score_item`].
    pub fn score_item_budgeted(
        &self,
        item: &E2Item,
        completion: &Completion,
        deadline: &Deadline,
        nodes: &RequestNodes,
    ) -> Result<E2Score, TimeBudgetExceeded> {
        let no_answer = has_pending_tool_calls(completion);
        let (v1_parse, up_parse) = if no_answer {
            (E2Parse::NoAnswer, E2Parse::NoAnswer)
        } else {
            (
                parse_completion(completion, ParseMode::V1),
                parse_completion(completion, ParseMode::Upstream),
            )
        };
        let namespaces = &item.oracle.namespaces;
        let tool_messages = tool_message_contents(completion);

        // v1 patch path: strict apply, preservation, native re-scans.
        let v1_patch_text = match &v1_parse {
            E2Parse::Valid { answer, .. } => answer.patch.clone(),
            _ => None,
        };
        let mut outcome = match v1_patch_text.as_deref() {
            Some(patch) => Some(apply_patch_within(
                item.lang.workspace_name(),
                &item.config,
                patch,
                file_type(item.lang),
                deadline,
                &nodes.config,
                &nodes.patched,
            )?),
            None => None,
        };
        let evaluation = match &mut outcome {
            Some(outcome) => {
                let before = self.analyzers.ids_within(
                    item.lang,
                    &item.config,
                    namespaces,
                    deadline,
                    &nodes.config,
                )?;
                let mut stopped = None;
                let evaluation =
                    PatchEvaluation::from_outcome(outcome, before.clone(), |patched| {
                        self.analyzers
                            .ids_within(item.lang, patched, namespaces, deadline, &nodes.patched)
                            .unwrap_or_else(|e| {
                                stopped = Some(e);
                                BTreeSet::new()
                            })
                    });
                // A re-scan that did not finish is no evidence about the patch.
                if let Some(e) = stopped {
                    return Err(e);
                }
                if outcome.status == PatchStatus::Applied && nodes.patched.exceeded() {
                    // The re-scan of the patched file stopped at its node
                    // budget: no findings is not "fixed", the patch is too
                    // large to verify.
                    *outcome = PatchOutcome {
                        status: PatchStatus::TooLarge,
                        kind: outcome.kind,
                        reason: Some(nodes.patched_reason()),
                        patched: None,
                    };
                    PatchEvaluation::from_outcome(outcome, before, |_| BTreeSet::new())
                } else {
                    evaluation
                }
            }
            None => PatchEvaluation::NotGiven,
        };
        let catalogue = &self.catalogue;
        let v1_answer =
            V1Answer::from_parse(&v1_parse, |id| catalogue.normalize(id), evaluation.clone());
        let v1 = score_v1(
            &self.v1_params(),
            &item.oracle,
            v1_answer.as_ref(),
            &|tool, rule| catalogue.severity(tool, rule),
        );

        // Upstream patch path: lenient apply, primary re-scan, no
        // preservation check.
        let upstream_patch = self.upstream_patch(item, &up_parse, deadline, nodes)?;
        let upstream = score_upstream(
            item.lang,
            &item.oracle.violations,
            &up_parse,
            &upstream_patch.patch,
            &tool_messages,
        );

        Ok(E2Score {
            no_answer,
            v1_parse,
            up_parse,
            v1_answer,
            outcome,
            evaluation,
            v1,
            upstream,
            upstream_patch,
        })
    }

    /// The `upstream` profile's patch path (spec E2 §5.1) on the
    /// upstream-parsed answer's patch.
    fn upstream_patch(
        &self,
        item: &E2Item,
        up_parse: &E2Parse,
        deadline: &Deadline,
        nodes: &RequestNodes,
    ) -> Result<UpstreamPatchRecord, TimeBudgetExceeded> {
        let text = match up_parse {
            E2Parse::Valid { answer, .. } => answer.patch.as_deref().unwrap_or(""),
            E2Parse::Invalid { .. } | E2Parse::NoAnswer => "",
        };
        let record = |status, reason: Option<String>, patch| {
            Ok(UpstreamPatchRecord {
                status,
                reason,
                patch,
            })
        };
        if text.trim().is_empty() {
            return record("none", None, UpstreamPatch::NotApplied);
        }
        let patched = match apply_upstream_within(&item.config, text, deadline) {
            Ok(patched) => patched,
            Err(PatchStop::TimeBudget(e)) => return Err(e),
            Err(PatchStop::Failed(f)) if f.status == PatchStatus::None => {
                return record("none", Some(f.reason), UpstreamPatch::NotApplied)
            }
            // A size bound of the applier (not upstream's, which had only
            // the machine's): scored as a failed patch, recorded apart.
            Err(PatchStop::Failed(f)) if f.status == PatchStatus::TooLarge => {
                return record("too_large", Some(f.reason), UpstreamPatch::NotApplied)
            }
            Err(PatchStop::Failed(f)) => {
                return record("failed", Some(f.reason), UpstreamPatch::NotApplied)
            }
        };
        let after = match item.lang {
            Lang::K8s => {
                // Upstream's kube-linter adapter parsed the binary's JSON
                // report; with no valid object kube-linter prints none, the
                // adapter raised and the eval harness scored rca 0. A
                // document that merely fails to decode drops its findings.
                let objects = self.analyzers.k8s_objects_within(&patched, &nodes.patched);
                if nodes.patched.exceeded() {
                    return record(
                        "too_large",
                        Some(nodes.patched_reason()),
                        UpstreamPatch::NotApplied,
                    );
                }
                if objects == 0 {
                    return record(
                        "adapter_error",
                        Some(
                            "the patched file holds no valid Kubernetes object: upstream's \
                             kube-linter adapter raised (reward_config_auditing 0)"
                                .into(),
                        ),
                        UpstreamPatch::AdapterError,
                    );
                }
                let after = self.analyzers.ids_within(
                    Lang::K8s,
                    &patched,
                    &BTreeSet::from([Tool::KubeLinter]),
                    deadline,
                    &nodes.patched,
                )?;
                if nodes.patched.exceeded() {
                    // Stopped at the budget: no findings is not "fixed".
                    return record(
                        "too_large",
                        Some(nodes.patched_reason()),
                        UpstreamPatch::NotApplied,
                    );
                }
                after
            }
            // The primary tool for Terraform is semgrep. Upstream re-scanned
            // a temporary file without a `.tf` suffix, on which semgrep
            // selects no Terraform rules (and the native semgrep namespace
            // has none at all): the re-scan is always empty, so every oracle
            // id counts as fixed. Reproduced, not scanned.
            Lang::Tf => BTreeSet::new(),
        };
        record("applied", None, UpstreamPatch::Applied { after })
    }

    /// Builds the record parts of a score.
    #[must_use]
    pub fn scored_answer(
        &self,
        item: &E2Item,
        completion: &Completion,
        score: &E2Score,
    ) -> ScoredAnswer {
        let active_parse = match self.rewards.profile {
            Profile::V1(_) => &score.v1_parse,
            Profile::Upstream => &score.up_parse,
        };
        ScoredAnswer {
            parse: parse_record(active_parse),
            parsed: Some(EnvPart::of(self.parsed(item, score))),
            reward: self.rewards.select(&score.v1, &score.upstream).clone(),
            compat: CompatFields::of(self.compat(item, completion, score)),
        }
    }

    fn with_severity(&self, id: &NormalizedId) -> RuleFinding {
        RuleFinding {
            id: id.full_id(),
            severity: self.catalogue.weight_severity(id).as_str().to_string(),
        }
    }

    fn full_id_entry(&self, id: &str) -> RuleFinding {
        let severity = id
            .split_once('/')
            .and_then(|(t, r)| self.catalogue.severity(Tool::parse(t)?, r))
            .unwrap_or(Severity::Med);
        RuleFinding {
            id: id.to_string(),
            severity: severity.as_str().to_string(),
        }
    }

    fn full_id_entries<'a>(&self, ids: impl IntoIterator<Item = &'a String>) -> Vec<RuleFinding> {
        ids.into_iter().map(|id| self.full_id_entry(id)).collect()
    }

    /// The `parsed` object (spec E2 §6).
    fn parsed(&self, item: &E2Item, s: &E2Score) -> E2Parsed {
        let namespaces = &item.oracle.namespaces;
        let oracle: BTreeSet<&str> = item
            .oracle
            .violations
            .iter()
            .map(|v| v.id.as_str())
            .filter(|id| {
                id.split_once('/')
                    .and_then(|(t, _)| Tool::parse(t))
                    .is_some_and(|t| namespaces.contains(&t))
            })
            .collect();
        let (scored, ignored): (BTreeSet<&NormalizedId>, BTreeSet<&NormalizedId>) = s
            .v1_answer
            .iter()
            .flat_map(|a| a.ids.iter())
            .partition(|id| id.tool().is_none_or(|t| namespaces.contains(&t)));
        let (status, reason, format_ok, format_reason, skipped, confidence) = match &s.v1_parse {
            E2Parse::Valid {
                answer,
                format_ok,
                format_reason,
                skipped_items,
            } => (
                "valid",
                None,
                *format_ok,
                *format_reason,
                *skipped_items,
                answer.confidence,
            ),
            E2Parse::Invalid { reason } => ("invalid", Some(*reason), false, None, 0, None),
            E2Parse::NoAnswer => ("no_answer", Some("turn_limit"), false, None, 0, None),
        };
        let (up_status, up_reason) = match &s.up_parse {
            E2Parse::Valid { .. } => ("valid", None),
            E2Parse::Invalid { reason } => ("invalid", Some(*reason)),
            E2Parse::NoAnswer => ("no_answer", Some("turn_limit")),
        };
        let (before, after) = match &s.evaluation {
            PatchEvaluation::Applied { before, after } => (
                Some(self.full_id_entries(before)),
                Some(self.full_id_entries(after)),
            ),
            _ => (None, None),
        };
        let v1_patch = V1PatchRecord {
            status: s.evaluation.status().to_string(),
            kind: s.outcome.as_ref().and_then(|o| o.kind).map(|k| match k {
                ScanPatchKind::UnifiedDiff => PatchKind::UnifiedDiff,
                ScanPatchKind::JsonPatch => PatchKind::JsonPatch,
            }),
            reason: s.outcome.as_ref().and_then(|o| o.reason.clone()),
            before,
            after,
            fixed: s.v1.patch.fixed,
            new: s.v1.patch.new,
            value: s.v1.patch.value,
        };
        let upstream_patch = UpstreamPatchEntry {
            status: s.upstream_patch.status.to_string(),
            reason: s.upstream_patch.reason.clone(),
            after: match &s.upstream_patch.patch {
                UpstreamPatch::Applied { after } => Some(self.full_id_entries(after)),
                _ => None,
            },
            bonus: s.upstream.patch_bonus,
        };
        let component = |b: &svbench_core::RewardBreakdown, name: &str| {
            b.components
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.value)
        };
        let (v1, up) = (&s.v1.breakdown, &s.upstream.breakdown);
        E2Parsed {
            lang: lang_name(item.lang).to_string(),
            fixture_path: item.lang.workspace_name().to_string(),
            labelled_namespaces: namespaces.iter().map(|t| t.as_str().to_string()).collect(),
            oracle_mode: self.args.oracle.as_str().to_string(),
            oracle: oracle.iter().map(|id| self.full_id_entry(id)).collect(),
            prediction: scored.iter().map(|id| self.with_severity(id)).collect(),
            prediction_ignored: ignored.iter().map(|id| self.with_severity(id)).collect(),
            clean: s.v1.clean,
            parse_status: status.to_string(),
            parse_reason: reason.map(str::to_string),
            format_ok,
            format_reason: format_reason.map(str::to_string),
            skipped_items: skipped as u64,
            confidence,
            upstream_parse: ParseStatusRecord {
                status: up_status.to_string(),
                reason: up_reason.map(str::to_string),
            },
            v1_patch,
            upstream_patch,
            rewards: E2RewardsRecord {
                v1: E2V1Rewards {
                    detection: component(v1, "detection"),
                    patch: component(v1, "patch"),
                    format: component(v1, "format"),
                    total: Some(v1.total),
                },
                upstream: E2UpstreamRewards {
                    reward_config_auditing: component(up, "reward_config_auditing"),
                    format_reward: component(up, "format_reward"),
                    tool_observation_reward: component(up, "tool_observation_reward"),
                    total: Some(up.total),
                },
            },
            detection: E2DetectionRecord {
                v1: Some(detection_record(&s.v1.detection)),
                upstream: s.upstream.detection.as_ref().map(detection_record),
                upstream_tool_observation: s.upstream.tool_detection.as_ref().map(detection_record),
            },
        }
    }

    /// The upstream compatibility fields (spec E2 §6, harness §3.2).
    fn compat(&self, item: &E2Item, completion: &Completion, s: &E2Score) -> E2Compat {
        let object = if s.no_answer {
            None
        } else {
            report_object(completion)
        };
        let predicted = object
            .as_ref()
            .and_then(|o| o.get("violations"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let patch = object
            .as_ref()
            .and_then(|o| o.get("patch"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        // From the active profile's patch path.
        let after = match (
            &self.rewards.profile,
            &s.evaluation,
            &s.upstream_patch.patch,
        ) {
            (Profile::V1(_), PatchEvaluation::Applied { after, .. }, _)
            | (Profile::Upstream, _, UpstreamPatch::Applied { after }) => Some(after),
            _ => None,
        };
        let entry = |f: RuleFinding| ViolationEntry {
            id: f.id,
            severity: Some(f.severity),
            ..ViolationEntry::default()
        };
        E2Compat {
            valid_json: object.is_some(),
            predicted_violations: predicted,
            oracle_violations: item
                .oracle
                .violations
                .iter()
                .map(|v| ViolationEntry {
                    id: v.id.clone(),
                    severity: Some(v.severity.as_str().to_string()),
                    ..ViolationEntry::default()
                })
                .collect(),
            patch,
            patch_applied: after.is_some(),
            post_patch_violations: after
                .map(|a| self.full_id_entries(a).into_iter().map(entry).collect())
                .unwrap_or_default(),
            fixture_type: lang_name(item.lang).to_string(),
            fixture_path: item.lang.workspace_name().to_string(),
        }
    }
}

fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::K8s => "k8s",
        Lang::Tf => "tf",
    }
}

/// Everything computed for one scored completion.
#[derive(Debug, Clone)]
pub struct E2Score {
    /// The episode ended at the turn limit with tool calls pending.
    pub no_answer: bool,
    /// The v1 parse.
    pub v1_parse: E2Parse,
    /// The upstream parse.
    pub up_parse: E2Parse,
    /// The v1 answer (normalised ids, patch result); `None` without one.
    pub v1_answer: Option<V1Answer>,
    /// The strict patch outcome, when the v1 answer had a patch.
    pub outcome: Option<PatchOutcome>,
    /// The v1 patch evaluation.
    pub evaluation: PatchEvaluation,
    /// The v1 profile's score.
    pub v1: V1Score,
    /// The upstream profile's score.
    pub upstream: UpstreamScore,
    /// The upstream patch path's outcome.
    pub upstream_patch: UpstreamPatchRecord,
}

/// What the `upstream` patch path (spec E2 §5.1) did with the
/// upstream-parsed answer's patch (`parsed.upstream_patch`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamPatchRecord {
    /// `none` (no or empty patch), `applied`, `failed` (did not apply),
    /// `too_large` (refused by a size bound of the applier) or
    /// `adapter_error` (applied, but no valid object was left).
    pub status: &'static str,
    /// Why it failed or raised; `None` otherwise.
    pub reason: Option<String>,
    /// What the upstream reward uses.
    pub patch: UpstreamPatch,
}

fn detection_record(d: &Detection) -> DetectionRecord {
    DetectionRecord {
        tp: d.tp,
        fp: d.fp,
        fn_: d.fn_,
        precision: d.precision,
        recall: d.recall,
        f1: d.f1,
    }
}

/// The `parse` object of a parse outcome.
fn parse_record(parse: &E2Parse) -> ParseRecord {
    match parse {
        E2Parse::Valid {
            format_ok,
            format_reason,
            ..
        } => ParseRecord {
            status: ParseStatus::Valid,
            reason: format_reason.map(str::to_string),
            format_ok: Some(*format_ok),
        },
        E2Parse::Invalid { reason } => ParseRecord {
            status: ParseStatus::Invalid,
            reason: Some((*reason).to_string()),
            format_ok: Some(false),
        },
        E2Parse::NoAnswer => ParseRecord {
            status: ParseStatus::NoAnswer,
            reason: Some("turn_limit".into()),
            format_ok: Some(false),
        },
    }
}

/// The example as a row again (`info` fields plus `answer`), for the oracle
/// and language readers.
fn row_of(example: &Example) -> Value {
    let mut row = example.info_value();
    if let Value::Object(map) = &mut row {
        if !example.answer.is_null() {
            map.insert("answer".into(), example.answer.clone());
        }
    }
    row
}

/// The final assistant message still calls tools: the runner stopped at the
/// turn limit with calls pending (no answer).
fn has_pending_tool_calls(completion: &Completion) -> bool {
    let Completion::Messages(messages) = completion else {
        return false;
    };
    messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .is_some_and(|calls| !calls.is_empty())
}

/// Contents of the `tool` messages of a transcript.
fn tool_message_contents(completion: &Completion) -> Vec<String> {
    let Completion::Messages(messages) = completion else {
        return Vec::new();
    };
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
        .filter_map(|m| m.get("content").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// The report's extraction rule (spec E2 §6): the final text if it is a
/// JSON object, else the first fenced block if it differs from the text and
/// is an object. No schema check.
fn report_object(completion: &Completion) -> Option<Map<String, Value>> {
    let text = completion_text(completion, ParseMode::V1).ok()?;
    let as_object = |t: &str| match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    };
    as_object(&text).or_else(|| {
        let fenced = upstream_fence(&text)?;
        (fenced != text.as_ref())
            .then(|| as_object(fenced))
            .flatten()
    })
}

impl Environment for E2Env {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn version(&self) -> &'static str {
        super::VERSION
    }

    fn kind(&self) -> EnvKind {
        EnvKind::Tool
    }

    fn default_budgets(&self) -> Budgets {
        DEFAULT_BUDGETS
    }

    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        let (lang, labelled) = self.labelled_namespaces(example);
        initial_messages(
            self.system_prompt(example),
            user_message(lang, &labelled, &example.question),
        )
    }

    fn tools(&self) -> Vec<Value> {
        if self.args.include_tools {
            tool_specs()
        } else {
            Vec::new()
        }
    }

    fn start_episode(&self, example: &Example) -> Box<dyn Episode> {
        let (lang, _) = self.labelled_namespaces(example);
        Box::new(E2Episode::new(
            Arc::clone(&self.analyzers),
            lang,
            Arc::from(example.question.as_str()),
            self.args.include_tools,
            self.args.max_findings_per_result,
        ))
    }

    /// Scores within the environment's scoring budget
    /// ([`E2Env::set_score_budget`]).
    fn score(
        &self,
        example: &Example,
        completion: &Completion,
    ) -> Result<ScoredAnswer, ScoreError> {
        self.score_within(example, completion, Deadline::NONE)
    }

    /// The live oracle's scan and the patch re-scans stop at the earlier of
    /// `deadline` and the environment's own scoring budget.
    fn score_within(
        &self,
        example: &Example,
        completion: &Completion,
        deadline: Deadline,
    ) -> Result<ScoredAnswer, ScoreError> {
        let deadline = deadline.min(Deadline::after_opt(self.score_budget));
        let nodes = RequestNodes::new(&example.question, completion);
        let over_budget = || {
            ScoreError::reference(
                &example.id,
                format!(
                    "scoring this request would build more than {} YAML nodes in all from its \
                     configuration (every read of its documents together, aliases expanded; \
                     the node budget is one per byte of the question, at least 1,000,000 and \
                     at most 2,000,000)",
                    nodes.config.limit()
                ),
            )
        };
        let item = match self.item_budgeted(example, &deadline, &nodes.config) {
            Err(_) if nodes.config.exceeded() => return Err(over_budget()),
            other => other?,
        };
        let score = self
            .score_item_budgeted(&item, completion, &deadline, &nodes)
            .map_err(|e| ScoreError::time_budget(&example.id, e))?;
        if nodes.config.exceeded() {
            return Err(over_budget());
        }
        Ok(self.scored_answer(&item, completion, &score))
    }
}
