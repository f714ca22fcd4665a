//! E2's registry entry: everything the CLI, the API, the server and Python
//! need to know about E2, declared once.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use svbench_core::canonical::sha256_hex;
use svbench_core::example::DatasetError;
use svbench_scan::scan::ScanConfigError;

use super::dataset::{self, DatasetSpec};
use super::env::{
    E2Args, E2Env, E2EnvError, OracleMode, ARG_NAMES, DEFAULT_BUDGETS, PATH_ARG_NAMES,
};
use crate::environment::EnvKind;
use crate::policy::{Policy, PolicyError};
use crate::registry::{
    self, BuiltinInfo, ConfigureError, Configured, DataRequest, EnvEntry, EnvFacts, EnvSetup,
    RewardFacts, SamplingDefaults, SelectedData,
};
use crate::registry::{TeacherInfo, TrainingDefaults};

/// E2's default sampling: 4,096 tokens per call, no temperature sent.
pub const SAMPLING: SamplingDefaults = SamplingDefaults {
    max_tokens: 4096,
    temperature: None,
};

/// E2 in the registry.
pub static ENTRY: EnvEntry = EnvEntry {
    identity: &svbench_core::identity::CONFIG_VERIFICATION,
    version: super::VERSION,
    kind: EnvKind::Tool,
    splits: &dataset::SPLITS,
    default_split: "test",
    profiles: super::reward::PROFILES,
    builtins: &[
        BuiltinInfo {
            name: "oracle",
            summary: "the item's oracle findings (upper bound)",
        },
        BuiltinInfo {
            name: "tool-only",
            summary: "runs the analyzers through the tools and reports what they find",
        },
        BuiltinInfo {
            name: "replay:FILE",
            summary: "replays the assistant messages recorded in a results file",
        },
    ],
    default_policy: None,
    generators: &[&super::generate::GENERATOR],
    importer: None,
    bench: Some(&super::bench::BENCH),
    arg_names: &ARG_NAMES,
    path_arg_names: &PATH_ARG_NAMES,
    budgets: DEFAULT_BUDGETS,
    sampling: SAMPLING,
    training: TrainingDefaults {
        teachers: &[
            TeacherInfo {
                name: "partial-analyzers",
                policy: "oracle",
                partial: true,
                summary: "a seeded share of the analyzers' findings (weak)",
            },
            TeacherInfo {
                name: "analyzers",
                policy: "oracle",
                partial: false,
                summary: "the analyzers' findings",
            },
        ],
        // The student answers from the configuration in the prompt.
        student_args: &[("include_tools", "false")],
        findings: Some("violations"),
        analysis: Some("svbench.train.findings"),
    },
    cheap_scoring: false,
    inline_question: Some(
        "E2 scores against the configuration under audit: give `question` (the config text) \
         with `answer`, or an `example_id`",
    ),
    args_schema,
    configure,
    open,
    builtin,
    args_record,
    report: &crate::e2::report::plugin::REPORT,
};

fn args_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "include_tools": {"type": "boolean", "default": true},
            "oracle": {"enum": ["dataset", "live"], "default": "dataset"},
            "oracle_patch": {"type": "boolean", "default": false},
            "lang": {"enum": ["k8s", "tf", "all"], "default": "all"},
            "policy_dirs": {"type": "array", "items": {"type": "string"}, "default": []},
            "kube_linter_checks": {"type": "string", "default": "default",
                "description": "default, all or a comma list of kube-linter checks"},
            "backend": {"enum": ["native", "external", "crosscheck"], "default": "native"},
            "semgrep_config": {"type": "string"},
            "show_catalog": {"type": "boolean", "default": true},
            "max_findings_per_result": {"type": "integer", "minimum": 1, "default": 200},
        },
        "additionalProperties": false,
    })
}

fn args_record(pairs: &[String]) -> Result<BTreeMap<String, Value>, ConfigureError> {
    let args = E2Args::parse(pairs).map_err(|e| ConfigureError::Invalid(e.to_string()))?;
    Ok(args.to_record())
}

fn configure(setup: &EnvSetup<'_>) -> Result<Configured, ConfigureError> {
    let args = E2Args::parse(setup.env_args).map_err(|e| ConfigureError::Invalid(e.to_string()))?;
    let budgets = registry::budgets(&ENTRY, setup)?;
    let mut env =
        E2Env::new(setup.profile(), setup.reward_overrides, args).map_err(|e| match e {
            E2EnvError::Scan(ScanConfigError::Policies(_)) | E2EnvError::Backend { .. } => {
                ConfigureError::Files(e.to_string())
            }
            e => ConfigureError::Invalid(e.to_string()),
        })?;
    env.set_budgets(budgets);
    // The default prompt is per item (it lists the item's labelled
    // namespaces); only an override has one hash.
    let system_prompt_sha256 = setup
        .system_prompt
        .as_ref()
        .map(|text| sha256_hex(text.as_bytes()));
    if let Some(text) = &setup.system_prompt {
        env.set_system_prompt(text.clone());
    }
    // `{backend, version}` per namespace as the tools run it.
    let analyzer_versions = env.analyzers().versions_record();
    let include_tools = env.args().include_tools;
    let facts = EnvFacts {
        system_prompt_sha256,
        env_args: env.args().to_record(),
        include_tools,
        tool_versions: if include_tools {
            analyzer_versions.clone()
        } else {
            BTreeMap::new()
        },
        env_provenance: BTreeMap::from([
            ("analyzer_versions".to_string(), json!(analyzer_versions)),
            ("oracle".to_string(), json!(env.args().oracle.as_str())),
        ]),
    };
    let rewards = RewardFacts {
        profile: env.rewards().name(),
        weights: env.rewards().weights(),
        config_hash: env.rewards().config_hash(),
        params: env.rewards().params.clone(),
    };
    Ok(Configured::new(&ENTRY, env, rewards, budgets, facts))
}

/// The configured E2 instance (its language filter, live oracle, builtins).
fn e2(configured: &Configured) -> &E2Env {
    configured
        .concrete::<E2Env>()
        .expect("E2's entry configures E2 instances only")
}

fn open(configured: &Configured, req: &DataRequest) -> Result<SelectedData, DatasetError> {
    let env = e2(configured);
    let spec = DatasetSpec::parse(&req.dataset)?;
    let mut loaded = dataset::load(&spec, req.split.as_deref())?;
    loaded.select(
        dataset::lang_filter(env.args().lang),
        req.max_examples,
        req.shuffle,
        req.seed,
    )?;
    if env.args().oracle == OracleMode::Live {
        // Items the oracle cannot label become per-sample errors when scored.
        dataset::relabel_live(&mut loaded.examples, env);
    }
    Ok(SelectedData {
        examples: Arc::new(loaded.examples),
        provenance: loaded.provenance,
    })
}

fn builtin(name: &str, configured: &Configured) -> Result<Box<dyn Policy>, PolicyError> {
    super::policy::builtin(name, e2(configured))
}
