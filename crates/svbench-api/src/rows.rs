//! Dataset splits as callers see them: rows with the exact prompt `eval`
//! sends, looked up by index or example id.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use svbench_core::Example;
use svbench_envs::e1::dataset as e1_dataset;
use svbench_envs::e2::dataset as e2_dataset;
use svbench_envs::e2::env::OracleMode;

use crate::envs::{Configured, EnvId};
use crate::error::{ApiError, ErrorCode};

/// Which rows to load: the `eval` flags of the same names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataRequest {
    /// `embedded` (default), a JSONL path or `synthetic:SEED:N`.
    pub dataset: String,
    /// Split name.
    pub split: String,
    /// Keep at most this many rows.
    pub max_examples: Option<usize>,
    /// Seeded shuffle before truncation.
    pub shuffle: bool,
    /// Shuffle seed.
    pub seed: u64,
}

impl DataRequest {
    /// All rows of an embedded split, in source order.
    #[must_use]
    pub fn embedded(split: &str) -> Self {
        Self {
            dataset: "embedded".into(),
            split: split.into(),
            max_examples: None,
            shuffle: false,
            seed: 0,
        }
    }
}

/// A loaded split.
#[derive(Debug)]
pub struct SplitData {
    /// Split name.
    pub split: String,
    /// Canonical hash of the split's rows (before selection).
    pub dataset_sha256: String,
    /// Rows in evaluation order (`index` = position).
    pub examples: Vec<Example>,
    /// Loader warnings.
    pub warnings: Vec<String>,
    by_id: HashMap<String, usize>,
}

impl SplitData {
    /// The example with this id.
    #[must_use]
    pub fn by_id(&self, id: &str) -> Option<&Example> {
        self.by_id.get(id).map(|&i| &self.examples[i])
    }

    /// The example at this index.
    ///
    /// # Errors
    /// `unknown_example` when out of range.
    pub fn by_index(&self, index: usize) -> Result<&Example, ApiError> {
        self.examples.get(index).ok_or_else(|| {
            ApiError::new(
                ErrorCode::UnknownExample,
                format!(
                    "row {index} is out of range: split `{}` has {} rows",
                    self.split,
                    self.examples.len()
                ),
            )
        })
    }
}

/// Loads a split for a configured environment (E2's `lang` filter and live
/// oracle apply, as in `eval`).
///
/// # Errors
/// `unknown_split` for a split the data does not have, `dataset_error` for
/// unreadable or malformed data (naming the line).
pub fn load_split(configured: &Configured, req: &DataRequest) -> Result<SplitData, ApiError> {
    let id = configured.id;
    if req.dataset == "embedded" && !id.splits().contains(&req.split.as_str()) {
        return Err(unknown_split(id, &req.split));
    }
    let (examples, split, dataset_sha256, warnings) = match id {
        EnvId::E1 => {
            let spec = e1_dataset::DatasetSpec::parse(&req.dataset).map_err(dataset_error)?;
            let loaded = e1_dataset::load(
                &spec,
                &e1_dataset::SplitRequest(Some(req.split.clone())),
                &e1_dataset::SelectionRequest {
                    max_examples: req.max_examples,
                    shuffle: req.shuffle,
                    seed: req.seed,
                },
            )
            .map_err(dataset_error)?;
            (
                loaded.examples,
                loaded.split,
                loaded.dataset_sha256,
                loaded.warnings,
            )
        }
        EnvId::E2 => {
            let env = configured.e2.as_ref().ok_or_else(|| {
                ApiError::new(ErrorCode::Internal, "E2 configured without its instance")
            })?;
            let spec = e2_dataset::DatasetSpec::parse(&req.dataset).map_err(dataset_error)?;
            let mut loaded = e2_dataset::load(&spec, Some(&req.split)).map_err(dataset_error)?;
            loaded
                .select(
                    e2_dataset::lang_filter(env.args().lang),
                    req.max_examples,
                    req.shuffle,
                    req.seed,
                )
                .map_err(dataset_error)?;
            if env.args().oracle == OracleMode::Live {
                // Items the oracle cannot label become scoring errors.
                e2_dataset::relabel_live(&mut loaded.examples, env);
            }
            (
                loaded.examples,
                loaded.split,
                loaded.dataset_sha256,
                loaded.warnings,
            )
        }
    };
    let by_id = examples
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    Ok(SplitData {
        split,
        dataset_sha256,
        examples,
        warnings,
        by_id,
    })
}

fn dataset_error(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::DatasetError, e.to_string())
}

/// `unknown_split`, listing the splits.
#[must_use]
pub fn unknown_split(id: EnvId, split: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownSplit,
        format!(
            "{} has no split `{split}` (splits: {})",
            id.name(),
            id.splits().join(", ")
        ),
    )
}

/// A row as `GET .../rows` returns it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Row {
    /// Position in the split.
    pub index: usize,
    /// Stable example id.
    pub example_id: String,
    /// Exactly the messages `eval` sends first.
    pub prompt: Value,
    /// The reference answer (`null` unless asked for).
    pub answer: Value,
    /// Row metadata.
    pub info: Value,
}

/// A row of an example, with the prompt of a configured environment.
#[must_use]
pub fn row(configured: &Configured, example: &Example, include_answer: bool) -> Row {
    let prompt =
        serde_json::to_value(configured.env.initial_messages(example)).unwrap_or(Value::Null);
    Row {
        index: example.index,
        example_id: example.id.clone(),
        prompt,
        answer: if include_answer {
            example.answer.clone()
        } else {
            Value::Null
        },
        info: example.info_value(),
    }
}
