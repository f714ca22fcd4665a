//! docs/adding-an-environment.md, followed: a tiny environment declared only
//! here (its own identity and registry entry, no edit anywhere else) runs
//! through run preparation and the evaluation loop as `eval` drives them,
//! gets a report, and is served by the API layer.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use svbench_core::env_record::{CompatFields, EnvPart};
use svbench_core::example::DatasetError;
use svbench_core::identity::EnvIdentity;
use svbench_core::record::RunStatus;
use svbench_core::{
    Completion, Example, Message, ParseRecord, ParseStatus, RewardBreakdown, RewardComponent,
};
use svbench_envs::environment::{Budgets, EnvKind, Environment, ScoreError, ScoredAnswer};
use svbench_envs::policy::{Policy, PolicyError};
use svbench_envs::registry::{
    self, BuiltinInfo, ConfigureError, Configured, DataProvenance, DataRequest, EnvEntry, EnvFacts,
    EnvSetup, RewardFacts, SamplingDefaults, SelectedData, TrainingDefaults,
};
use svbench_runner::prepare::{self, BuildFacts, EndpointOptions, RunLabels, RunSpec};

/// A name no benchmark environment has.
static ECHO_ID: EnvIdentity = EnvIdentity {
    name: "sv-env-test-echo",
    short: "t-echo",
    alias: "test-echo",
    executable_reward: true,
};

/// Answer with the row's `answer` string exactly: reward 1, else 0.
struct EchoEnv;

fn final_text(completion: &Completion) -> Option<String> {
    match completion {
        Completion::Text(t) => Some(t.clone()),
        Completion::Messages(m) => m
            .last()
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

impl Environment for EchoEnv {
    fn name(&self) -> &'static str {
        ECHO_ID.name
    }
    fn version(&self) -> &'static str {
        "0.0.1"
    }
    fn kind(&self) -> EnvKind {
        EnvKind::SingleTurn
    }
    fn default_budgets(&self) -> Budgets {
        ECHO.budgets
    }
    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        vec![
            Message::system("Repeat the word."),
            Message::user(example.question.clone()),
        ]
    }
    fn score(
        &self,
        example: &Example,
        completion: &Completion,
    ) -> Result<ScoredAnswer, ScoreError> {
        let text = final_text(completion);
        let right = text.as_deref() == example.answer.as_str();
        Ok(ScoredAnswer {
            parse: ParseRecord {
                status: if text.is_some() {
                    ParseStatus::Valid
                } else {
                    ParseStatus::Invalid
                },
                reason: None,
                format_ok: None,
            },
            parsed: Some(EnvPart::of(json!({"text": text}))),
            reward: RewardBreakdown::weighted(
                "v1",
                vec![RewardComponent {
                    name: "exact",
                    weight: 1.0,
                    value: f64::from(u8::from(right)),
                }],
            ),
            compat: CompatFields::default(),
        })
    }
}

/// `builtin:oracle`: the reference answer.
struct EchoOracle;

impl Policy for EchoOracle {
    fn name(&self) -> &str {
        "oracle"
    }
    fn respond(
        &self,
        example: &Example,
        _: usize,
        _: &[Message],
    ) -> Result<Completion, svbench_core::record::SampleError> {
        Ok(Completion::assistant_text(
            example.answer.as_str().unwrap_or_default(),
        ))
    }
}

static ECHO: EnvEntry = EnvEntry {
    identity: &ECHO_ID,
    version: "0.0.1",
    kind: EnvKind::SingleTurn,
    splits: &["test"],
    default_split: "test",
    profiles: &["v1"],
    builtins: &[BuiltinInfo {
        name: "oracle",
        summary: "the reference answer",
    }],
    default_policy: Some("oracle"),
    generators: &[],
    importer: None,
    bench: None,
    arg_names: &[],
    path_arg_names: &[],
    budgets: Budgets {
        max_turns: 1,
        tool_budget: 0,
    },
    sampling: SamplingDefaults {
        max_tokens: 16,
        temperature: None,
    },
    training: TrainingDefaults::NONE,
    cheap_scoring: true,
    inline_question: None,
    args_schema: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
    configure: echo_configure,
    open: echo_open,
    builtin: echo_builtin,
    args_record: |pairs| registry::no_args(&ECHO, pairs),
    report: &svbench_report::plugin::GenericReport,
};

fn echo_configure(setup: &EnvSetup<'_>) -> Result<Configured, ConfigureError> {
    registry::no_args(&ECHO, setup.env_args)?;
    if setup.profile() != "v1" {
        return Err(ConfigureError::Invalid(format!(
            "unknown reward profile `{}`",
            setup.profile()
        )));
    }
    let budgets = registry::budgets(&ECHO, setup)?;
    let rewards = RewardFacts {
        profile: "v1",
        weights: vec![("exact", 1.0)],
        config_hash: "sha256:echo".into(),
        params: BTreeMap::new(),
    };
    Ok(Configured::new(
        &ECHO,
        EchoEnv,
        rewards,
        budgets,
        EnvFacts::default(),
    ))
}

const WORDS: [&str; 3] = ["alpha", "bravo", "charlie"];

fn echo_open(_: &Configured, req: &DataRequest) -> Result<SelectedData, DatasetError> {
    if req.dataset != "embedded" {
        return Err(DatasetError::Selection(format!(
            "unknown dataset `{}`",
            req.dataset
        )));
    }
    let n = req.max_examples.unwrap_or(WORDS.len()).min(WORDS.len());
    let examples: Vec<Example> = WORDS[..n]
        .iter()
        .enumerate()
        .map(|(index, word)| Example {
            index,
            id: format!("echo-{index}"),
            split: Some("test".into()),
            question: (*word).to_string(),
            answer: json!(word),
            info: serde_json::value::to_raw_value(&json!({})).expect("an object"),
        })
        .collect();
    Ok(SelectedData {
        examples: Arc::new(examples),
        provenance: DataProvenance {
            split: "test".into(),
            split_rows: WORDS.len(),
            dataset_sha256: "echo".into(),
            selected_sha256: format!("echo-{n}"),
            file_sha256: None,
            warnings: Vec::new(),
        },
    })
}

fn echo_builtin(name: &str, _: &Configured) -> Result<Box<dyn Policy>, PolicyError> {
    match name {
        "oracle" => Ok(Box::new(EchoOracle)),
        other => Err(ECHO.unknown_builtin(other)),
    }
}

fn spec() -> RunSpec {
    RunSpec {
        entry: &ECHO,
        env_args: Vec::new(),
        max_turns: ECHO.budgets.max_turns,
        tool_budget: ECHO.budgets.tool_budget,
        model: "builtin:oracle".into(),
        dataset: "embedded".into(),
        split: None,
        num_examples: None,
        shuffle: false,
        seed: 42,
        rollouts: 1,
        reward_profile: "v1".into(),
        reward_config: None,
        system_prompt_file: None,
        few_shot: 0,
    }
}

#[test]
fn an_environment_declared_only_here_runs_through_eval_and_report() {
    let out = tempfile::tempdir().unwrap();
    let spec = spec();
    let prepared = prepare::prepare(&spec, &EndpointOptions::default()).unwrap();
    let now = chrono::Utc::now();
    let (dir, run_id) =
        prepare::new_run_dir(out.path(), &ECHO, &prepared.agent.slug, Some("r1"), now).unwrap();
    let metadata = prepare::new_metadata(
        &spec,
        &prepared,
        run_id,
        now,
        &BuildFacts::default(),
        &RunLabels::default(),
    );
    assert_eq!(metadata.environment, "sv-env-test-echo");
    assert_eq!(metadata.num_examples, 3);
    let plan = svbench_runner::EvalPlan {
        env: Arc::clone(&prepared.configured.env),
        agent: prepared.agent.agent.clone(),
        examples: Arc::clone(&prepared.examples),
        metadata,
        run_dir: dir.clone(),
        resume: false,
        settings: svbench_runner::RunSettings {
            rollouts_per_example: 1,
            max_consecutive_errors: 3,
            progress: false,
            retry_errors: false,
            concurrency: 1,
            budgets: ECHO.budgets,
            sample_timeout: Some(Duration::from_secs(30)),
            label: "oracle".into(),
            stats: None,
            interrupt_grace: svbench_runner::eval::INTERRUPT_GRACE,
        },
        interrupt: Arc::new(AtomicBool::new(false)),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(svbench_runner::run_eval(plan)).unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(outcome.counts.completed, 3);

    svbench_report::report_run(
        &dir,
        &svbench_report::ReportOptions::new(svbench_envs::registry::report_plugin),
    )
    .unwrap();
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["environment"], "sv-env-test-echo", "{summary}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("sv-env-test-echo"), "{report}");
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 3);
    for line in results.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["reward"], 1.0, "{r}");
        assert_eq!(r["rewards"]["exact"], 1.0, "{r}");
    }
}

#[test]
fn an_environment_declared_only_here_is_served_by_the_api() {
    let id = svbench_api::envs::EnvId::from(&ECHO);
    let configured = svbench_api::envs::configure(id, &Default::default()).unwrap();
    let split = svbench_api::rows::load_split(
        &configured,
        &svbench_api::rows::DataRequest::embedded("test"),
    )
    .unwrap();
    assert_eq!(split.examples.len(), 3);
    let row = svbench_api::rows::row(&configured, &split.examples[1], false);
    assert_eq!(row.prompt[1]["content"], "bravo");
    let right = svbench_api::score::score_json(
        &configured,
        &split.examples[1],
        Some("echo-1"),
        &json!("bravo"),
    )
    .unwrap();
    assert_eq!(right.reward, 1.0);
    let wrong = svbench_api::score::score_json(
        &configured,
        &split.examples[1],
        Some("echo-1"),
        &json!("alpha"),
    )
    .unwrap();
    assert_eq!(wrong.reward, 0.0);
    let err = svbench_api::envs::configure(
        id,
        &svbench_api::envs::EnvConfig {
            env_args: serde_json::from_value(json!({"k": "v"})).unwrap(),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        err.message.contains("no environment-specific arguments"),
        "{}",
        err.message
    );
}
