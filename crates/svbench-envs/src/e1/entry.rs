//! E1's registry entry: everything the CLI, the API, the server and Python
//! need to know about E1, declared once.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use svbench_core::canonical::sha256_hex;
use svbench_core::example::DatasetError;

use super::dataset::{self, DatasetSpec, SelectionRequest, SplitRequest};
use super::env::E1Env;
use crate::environment::{Budgets, EnvKind};
use crate::policy::{Policy, PolicyError};
use crate::registry::{
    self, BuiltinInfo, ConfigureError, Configured, DataProvenance, DataRequest, EnvEntry, EnvFacts,
    EnvSetup, RewardFacts, SamplingDefaults, SelectedData,
};
use crate::registry::{TeacherInfo, TrainingDefaults};

/// E1's default sampling: temperature 0.2, 2,048 tokens per call.
pub const SAMPLING: SamplingDefaults = SamplingDefaults {
    max_tokens: 2048,
    temperature: Some(0.2),
};

/// E1 in the registry.
pub static ENTRY: EnvEntry = EnvEntry {
    identity: &svbench_core::identity::NETWORK_LOGS,
    version: super::VERSION,
    kind: EnvKind::SingleTurn,
    splits: &dataset::SPLITS,
    default_split: "test",
    profiles: super::reward::PROFILES,
    builtins: &[
        BuiltinInfo {
            name: "heuristic",
            summary: "keyword and port rules over the log line (the default policy)",
        },
        BuiltinInfo {
            name: "oracle",
            summary: "the gold label with confidence 1.0 (upper bound)",
        },
        BuiltinInfo {
            name: "replay:FILE",
            summary: "replays the completions recorded in a results file",
        },
    ],
    default_policy: Some("heuristic"),
    generators: &[&super::generate::GENERATOR],
    importer: Some(&super::import::IMPORTER),
    bench: Some(&super::bench::BENCH),
    arg_names: &[],
    path_arg_names: &[],
    budgets: Budgets {
        max_turns: 1,
        tool_budget: 0,
    },
    sampling: SAMPLING,
    training: TrainingDefaults {
        teachers: &[
            TeacherInfo {
                name: "heuristic",
                policy: "heuristic",
                partial: false,
                summary: "the keyword and port rules of `builtin:heuristic` (weak)",
            },
            TeacherInfo {
                name: "oracle",
                policy: "oracle",
                partial: false,
                summary: "the gold label",
            },
        ],
        student_args: &[],
        findings: None,
        analysis: Some("svbench.train.behaviour"),
    },
    cheap_scoring: true,
    inline_question: None,
    args_schema,
    configure,
    open,
    builtin,
    args_record,
    report: &crate::e1::report::plugin::REPORT,
};

fn args_schema() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn args_record(pairs: &[String]) -> Result<BTreeMap<String, Value>, ConfigureError> {
    registry::no_args(&ENTRY, pairs)
}

fn configure(setup: &EnvSetup<'_>) -> Result<Configured, ConfigureError> {
    args_record(setup.env_args)?;
    // Refuses a tool budget too: E1 offers no tools.
    let budgets = registry::budgets(&ENTRY, setup)?;
    let mut env = E1Env::new(setup.profile(), setup.reward_overrides)
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
    // The cost matrix the report's v1 cost metrics use, recorded with the run.
    let costs = env.rewards.v1_constants().costs;
    let facts = EnvFacts {
        system_prompt_sha256: Some(sha256_hex(env.system_prompt.as_bytes())),
        env_provenance: BTreeMap::from([(
            "cost_matrix_v1".to_string(),
            json!({
                "cost_fp": costs.cost_fp,
                "cost_fn": costs.cost_fn,
                "cost_abstain": costs.cost_abstain,
            }),
        )]),
        ..EnvFacts::default()
    };
    Ok(Configured::new(&ENTRY, env, rewards, budgets, facts))
}

fn open(_: &Configured, req: &DataRequest) -> Result<SelectedData, DatasetError> {
    let spec = DatasetSpec::parse(&req.dataset)?;
    let mut rows = dataset::open(
        &spec,
        &SplitRequest(req.split.clone()),
        &SelectionRequest {
            max_examples: req.max_examples,
            shuffle: req.shuffle,
            seed: req.seed,
        },
    )?;
    // The rows keep their split name and hashes for `ExampleSet`; metadata
    // takes the warnings.
    let provenance = DataProvenance {
        warnings: std::mem::take(&mut rows.provenance.warnings),
        ..rows.provenance.clone()
    };
    Ok(SelectedData {
        examples: Arc::new(rows),
        provenance,
    })
}

fn builtin(name: &str, _: &Configured) -> Result<Box<dyn Policy>, PolicyError> {
    super::policy::builtin(name)
}
