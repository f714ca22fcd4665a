//! `t-echo`'s registry entry: its data (generated words), builtins,
//! generator and benchmark.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use svbench_core::canonical::sha256_hex;
use svbench_core::example::DatasetError;
use svbench_core::{Completion, Example};

use super::{EchoEnv, IDENTITY, VERSION};
use crate::environment::{Budgets, EnvKind, Environment};
use crate::kit::bench::{BenchEntry, BenchError, BenchOut, BenchRequest};
use crate::kit::generate::{GenFailure, GeneratedCorpus, GeneratorEntry, Regenerated};
use crate::policy::{Policy, PolicyError};
use crate::registry::{
    self, BuiltinInfo, ConfigureError, Configured, DataProvenance, DataRequest, EnvEntry, EnvFacts,
    EnvSetup, RewardFacts, SamplingDefaults, SelectedData, TeacherInfo, TrainingDefaults,
};

/// Rows of the embedded split.
const ROWS: usize = 24;
/// Seed of the embedded split.
const SEED: u64 = 0;

/// `t-echo` in the registry.
pub static ENTRY: EnvEntry = EnvEntry {
    identity: &IDENTITY,
    version: VERSION,
    kind: EnvKind::SingleTurn,
    splits: &["test"],
    default_split: "test",
    profiles: &["v1"],
    builtins: &[
        BuiltinInfo {
            name: "oracle",
            summary: "the word itself (upper bound)",
        },
        BuiltinInfo {
            name: "shout",
            summary: "the word in capitals (always wrong)",
        },
    ],
    default_policy: Some("oracle"),
    generators: &[&GENERATOR],
    importer: None,
    bench: Some(&BENCH),
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
    training: TrainingDefaults {
        teachers: &[TeacherInfo {
            name: "oracle",
            policy: "oracle",
            partial: false,
            summary: "the word itself",
        }],
        student_args: &[],
        findings: None,
        analysis: None,
    },
    cheap_scoring: true,
    inline_question: None,
    args_schema: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
    configure,
    open,
    builtin,
    args_record: |pairs| registry::no_args(&ENTRY, pairs),
    report: &super::report::REPORT,
};

fn configure(setup: &EnvSetup<'_>) -> Result<Configured, ConfigureError> {
    registry::no_args(&ENTRY, setup.env_args)?;
    if setup.profile() != "v1" {
        return Err(ConfigureError::Invalid(format!(
            "unknown reward profile `{}` (t-echo has `v1`)",
            setup.profile()
        )));
    }
    let budgets = registry::budgets(&ENTRY, setup)?;
    let rewards = RewardFacts {
        profile: "v1",
        weights: vec![("exact", 1.0)],
        config_hash: format!("sha256:{}", sha256_hex(b"t-echo v1: exact 1.0")),
        params: BTreeMap::new(),
    };
    Ok(Configured::new(
        &ENTRY,
        EchoEnv,
        rewards,
        budgets,
        EnvFacts::default(),
    ))
}

fn example(index: usize, row: &Value) -> Example {
    Example {
        index,
        id: row["id"].as_str().unwrap_or_default().to_string(),
        split: Some("test".into()),
        question: row["question"].as_str().unwrap_or_default().to_string(),
        answer: row["answer"].clone(),
        info: serde_json::value::to_raw_value(&row["info"]).expect("a JSON value"),
    }
}

fn open(_: &Configured, req: &DataRequest) -> Result<SelectedData, DatasetError> {
    if req.dataset != "embedded" {
        return Err(DatasetError::Selection(format!(
            "t-echo has only its embedded rows, not `{}`",
            req.dataset
        )));
    }
    if let Some(split) = req.split.as_deref().filter(|s| *s != "test") {
        return Err(DatasetError::Selection(format!(
            "t-echo has no split `{split}` (it has `test`)"
        )));
    }
    let mut order: Vec<usize> = (0..ROWS).collect();
    if req.shuffle {
        // A seeded rotation: enough for a test environment's selection.
        order.rotate_left((req.seed as usize) % ROWS);
    }
    order.truncate(req.max_examples.unwrap_or(ROWS).min(ROWS));
    let examples: Vec<Example> = order
        .iter()
        .enumerate()
        .map(|(index, &i)| example(index, &super::row(SEED, i)))
        .collect();
    let ids: Vec<&str> = examples.iter().map(|e| e.id.as_str()).collect();
    Ok(SelectedData {
        provenance: DataProvenance {
            split: "test".into(),
            split_rows: ROWS,
            dataset_sha256: sha256_hex(format!("t-echo {SEED} {ROWS}").as_bytes()),
            selected_sha256: sha256_hex(ids.join("\n").as_bytes()),
            file_sha256: None,
            warnings: Vec::new(),
        },
        examples: Arc::new(examples),
    })
}

fn builtin(name: &str, _: &Configured) -> Result<Box<dyn Policy>, PolicyError> {
    match name {
        "oracle" => Ok(Box::new(super::Oracle)),
        "shout" => Ok(Box::new(super::Shout)),
        other => Err(ENTRY.unknown_builtin(other)),
    }
}

/// `svbench data gen t-echo`: the words, seeded.
pub static GENERATOR: GeneratorEntry = GeneratorEntry {
    name: "sv-synth-t-echo",
    default_seed: SEED,
    split_rows,
    corpus,
    regenerate,
};

fn split_rows(seed: u64, split: &str, n: Option<usize>) -> Result<Vec<Value>, GenFailure> {
    if split != "test" {
        return Err(GenFailure::Usage(format!(
            "t-echo has no split `{split}` (it has `test`)"
        )));
    }
    Ok((0..n.unwrap_or(ROWS))
        .map(|i| super::row(seed, i))
        .collect())
}

fn corpus(seed: u64) -> Result<GeneratedCorpus, GenFailure> {
    let mut text = String::new();
    for row in split_rows(seed, "test", None)? {
        text.push_str(&row.to_string());
        text.push('\n');
    }
    Ok(GeneratedCorpus {
        files: vec![("test.jsonl".to_string(), text)],
        notes: Vec::new(),
    })
}

fn regenerate(_manifest: &str) -> Result<Regenerated, GenFailure> {
    Err(GenFailure::Manifest(
        "t-echo writes no manifest: regenerate it with `svbench data gen t-echo --seed N`"
            .to_string(),
    ))
}

/// `svbench bench t-echo`: scoring.
pub static BENCH: BenchEntry = BenchEntry {
    summary: "scoring",
    max_items: None,
    large: None,
    corpus: None,
    whole_stack: None,
    run: bench,
};

fn bench(req: &BenchRequest, out: BenchOut<'_>) -> Result<(), BenchError> {
    let examples: Vec<Example> = (0..ROWS)
        .map(|i| example(i, &super::row(SEED, i)))
        .collect();
    let answers = [
        Completion::assistant_text("alpha"),
        Completion::assistant_text("x"),
    ];
    let mut total = 0.0;
    let start = Instant::now();
    for i in 0..req.items {
        let scored = EchoEnv
            .score(&examples[i % ROWS], &answers[i % 2])
            .map_err(|e| BenchError::Setup(e.to_string()))?;
        total += scored.reward.total;
    }
    let secs = start.elapsed().as_secs_f64();
    out(&format!(
        "t-echo scoring: {} answers in {secs:.3} s = {:.0} answers/s (checksum {total:.1})",
        req.items,
        req.items as f64 / secs
    ))?;
    Ok(())
}
