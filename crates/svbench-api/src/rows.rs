//! Dataset splits as callers see them: rows with the exact prompt `eval`
//! sends, looked up by index or example id.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use svbench_core::Example;
use svbench_envs::registry;

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
    let id = EnvId::from(configured.entry);
    if req.dataset == "embedded" && !id.splits().contains(&req.split.as_str()) {
        return Err(unknown_split(id, &req.split));
    }
    let selected = (configured.entry.open)(
        configured,
        &registry::DataRequest {
            dataset: req.dataset.clone(),
            split: Some(req.split.clone()),
            max_examples: req.max_examples,
            shuffle: req.shuffle,
            seed: req.seed,
        },
    )
    .map_err(dataset_error)?;
    let examples = (0..selected.examples.len())
        .map(|i| selected.examples.example(i))
        .collect::<Result<Vec<_>, _>>()
        .map_err(dataset_error)?;
    let by_id = examples
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    let provenance = selected.provenance;
    Ok(SplitData {
        split: provenance.split,
        dataset_sha256: provenance.dataset_sha256,
        examples,
        warnings: provenance.warnings,
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
