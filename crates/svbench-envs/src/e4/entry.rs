//! E4's registry entry: everything the CLI, the API, the server and Python
//! need to know about E4, declared once.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use svbench_core::canonical::sha256_hex;
use svbench_core::example::DatasetError;
use svbench_mail::{IndicatorSet, RENDER_VERSION};

use super::args::{E4Args, ARG_NAMES};
use super::dataset::{self, DatasetSpec, SelectionRequest, SplitRequest};
use super::env::E4Env;
use super::policy::{E4OraclePolicy, IndicatorsPolicy};
use crate::environment::{Budgets, EnvKind};
use crate::policy::{Policy, PolicyError, ReplayPolicy};
use crate::registry::{
    BuiltinInfo, ConfigureError, Configured, DataProvenance, DataRequest, EnvEntry, EnvFacts,
    EnvSetup, RewardFacts, SamplingDefaults, SelectedData,
};
use crate::registry::{TeacherInfo, TrainingDefaults};

/// E4's default sampling: temperature 0.2, 2,048 tokens per call.
pub const SAMPLING: SamplingDefaults = SamplingDefaults {
    max_tokens: 2048,
    temperature: Some(0.2),
};

/// E4 in the registry.
pub static ENTRY: EnvEntry = EnvEntry {
    identity: &svbench_core::identity::PHISHING_DETECTION,
    version: super::VERSION,
    kind: EnvKind::SingleTurn,
    splits: &dataset::SPLITS,
    default_split: "test",
    profiles: super::reward::PROFILES,
    builtins: &[
        BuiltinInfo {
            name: "indicators",
            summary: "the indicator extractor with weighted categories and the cost thresholds (the default policy)",
        },
        BuiltinInfo {
            name: "oracle",
            summary: "the gold label, confidence 1.0 and the gold evidence spans (upper bound)",
        },
        BuiltinInfo {
            name: "replay:FILE",
            summary: "replays the completions recorded in a results file",
        },
    ],
    default_policy: Some("indicators"),
    generators: &[&super::generate::GENERATOR],
    importer: Some(&super::import::IMPORTER),
    bench: Some(&super::bench::BENCH),
    arg_names: &ARG_NAMES,
    path_arg_names: &[],
    budgets: Budgets {
        max_turns: 1,
        tool_budget: 0,
    },
    sampling: SAMPLING,
    training: TrainingDefaults {
        teachers: &[
            TeacherInfo {
                name: "indicators",
                policy: "indicators",
                partial: false,
                summary: "the indicator extractor of `builtin:indicators` (weak)",
            },
            TeacherInfo {
                name: "oracle",
                policy: "oracle",
                partial: false,
                summary: "the gold label and evidence spans",
            },
        ],
        student_args: &[],
        findings: None,
        analysis: None,
    },
    cheap_scoring: true,
    inline_question: Some(
        "E4 grounds evidence in the email: give `question` (the rendered email) with `answer`, \
         or an `example_id`",
    ),
    args_schema: E4Args::schema,
    configure,
    open,
    builtin,
    args_record,
    report: &crate::e4::report::plugin::REPORT,
};

fn args_record(pairs: &[String]) -> Result<BTreeMap<String, Value>, ConfigureError> {
    Ok(E4Args::parse(pairs)
        .map_err(|e| ConfigureError::Invalid(e.to_string()))?
        .to_record())
}

fn configure(setup: &EnvSetup<'_>) -> Result<Configured, ConfigureError> {
    let args = E4Args::parse(setup.env_args).map_err(|e| ConfigureError::Invalid(e.to_string()))?;
    // Refuses a tool budget too: E4 offers no tools.
    let budgets = crate::registry::budgets(&ENTRY, setup)?;
    let mut env = E4Env::new(setup.profile(), setup.reward_overrides, args)
        .map_err(|e| ConfigureError::Invalid(e.to_string()))?;
    if let Some(text) = &setup.system_prompt {
        env.set_system_prompt(text.clone());
    }
    let rewards = RewardFacts {
        profile: env.rewards.name(),
        weights: env.rewards.weights(),
        config_hash: env.rewards.config_hash(),
        params: env.rewards.params.clone(),
    };
    let set = IndicatorSet::builtin();
    let facts = EnvFacts {
        system_prompt_sha256: Some(sha256_hex(env.system_prompt.as_bytes())),
        env_args: args.to_record(),
        env_provenance: BTreeMap::from([
            (
                "indicators_sha256".to_string(),
                json!(set.indicators_sha256()),
            ),
            ("brands_sha256".to_string(), json!(set.brands_sha256())),
            ("render_version".to_string(), json!(RENDER_VERSION)),
            // The cost matrix the report's v1 cost metrics use.
            ("cost_matrix_v1".to_string(), cost_matrix_v1(&env)),
        ]),
        ..EnvFacts::default()
    };
    Ok(Configured::new(&ENTRY, env, rewards, budgets, facts))
}

/// The run's v1 triage costs as metadata records them.
fn cost_matrix_v1(env: &E4Env) -> Value {
    let v1 = env.rewards.v1_constants();
    json!({
        "cost_fp": v1.costs.cost_fp,
        "cost_fn": v1.costs.cost_fn,
        "cost_abstain": v1.costs.cost_abstain,
        "cost_amb_phishing": v1.cost_amb_phishing,
        "cost_amb_legitimate": v1.cost_amb_legitimate,
    })
}

fn open(configured: &Configured, req: &DataRequest) -> Result<SelectedData, DatasetError> {
    let limits = configured
        .concrete::<E4Env>()
        .map(|env| env.args.limits())
        .unwrap_or_default();
    let spec = DatasetSpec::parse(&req.dataset)?;
    let mut rows = dataset::open(
        &spec,
        &SplitRequest(req.split.clone()),
        &SelectionRequest {
            max_examples: req.max_examples,
            shuffle: req.shuffle,
            seed: req.seed,
        },
        &limits,
    )?;
    let provenance = DataProvenance {
        warnings: std::mem::take(&mut rows.provenance.warnings),
        ..rows.provenance.clone()
    };
    Ok(SelectedData {
        examples: Arc::new(rows),
        provenance,
    })
}

fn builtin(name: &str, configured: &Configured) -> Result<Box<dyn Policy>, PolicyError> {
    let env = configured
        .concrete::<E4Env>()
        .ok_or_else(|| ENTRY.unknown_builtin(name))?;
    match name {
        "indicators" => Ok(Box::new(IndicatorsPolicy::new(env))),
        "oracle" => Ok(Box::new(E4OraclePolicy)),
        _ => match name.strip_prefix("replay:") {
            Some(file) => Ok(Box::new(ReplayPolicy::load(std::path::Path::new(file))?)),
            None => Err(ENTRY.unknown_builtin(name)),
        },
    }
}
