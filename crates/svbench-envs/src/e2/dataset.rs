//! E2 dataset loading (spec E2 §8.2, §8.4): JSONL files of project rows or
//! upstream build/hub/env rows, split filtering, row hashes, and the live
//! relabelling of `oracle=live`.
//!
//! Accepted rows (each validated when loaded, errors naming the line):
//! - project rows: `question` (the config), `info.violations`,
//!   `info.labelled_namespaces`, `meta.lang`, `meta.split`;
//! - upstream build/hub rows: `question` or `prompt` (the config),
//!   `info.violations`, `meta.lang`; labelled {kube-linter, semgrep} for
//!   k8s and {semgrep} for tf;
//! - upstream env rows: `question`, `answer` (JSON text with an `oracle`
//!   list and `fixture_type`).
//!
//! `--dataset embedded` is the committed corpus (`datasets/e2/*.jsonl`,
//! compiled in); `synthetic:SEED:N` generates N rows of the requested split
//! with the seeded generator (`generate::generate_split`), exactly the rows
//! `svbench data gen e2 --seed SEED -n N --split SPLIT` writes.

use std::collections::HashMap;
use std::path::PathBuf;

use rand::seq::SliceRandom;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use svbench_core::canonical::{sha256_hex, to_canonical_string, RowHasher};
use svbench_core::example::{
    base_example_id, dedupe_ids, json_type, parse_jsonl, row_split, DatasetError,
};
use svbench_core::Example;
use svbench_scan::{Deadline, Limits, NodeBudget};

use super::env::{E2Env, LangFilter};
use super::oracle::{oracle_from_row, row_lang};
use super::Lang;

/// The splits of project corpora.
pub const SPLITS: [&str; 3] = ["train", "dev", "test"];

/// The embedded corpus, one file per split (`svbench data gen e2`, seed 42).
pub const EMBEDDED: [(&str, &str); 3] = [
    ("train", include_str!("../../../../datasets/e2/train.jsonl")),
    ("dev", include_str!("../../../../datasets/e2/dev.jsonl")),
    ("test", include_str!("../../../../datasets/e2/test.jsonl")),
];

pub use crate::kit::dataset::{DataProvenance, DatasetSpec};

/// A loaded E2 dataset with its provenance.
#[derive(Debug, Clone)]
pub struct LoadedDataset {
    /// Examples of the split in source order (`index` = position).
    pub examples: Vec<Example>,
    /// Where the rows came from; `split_rows` counts the split as loaded
    /// (before [`LoadedDataset::select`]), `selected_sha256` equals
    /// `dataset_sha256` until [`LoadedDataset::select`] runs, and `warnings`
    /// name renamed duplicate ids.
    pub provenance: DataProvenance,
    /// Canonical text of each example's source row, parallel to `examples`.
    rows: Vec<String>,
}

impl LoadedDataset {
    /// Keeps the examples `keep` accepts (the `lang` argument), then — as
    /// E1 does — optionally shuffles them with ChaCha8 seeded by `seed` and
    /// takes the first `max_examples`; re-indexes them in evaluation order
    /// and sets `provenance.selected_sha256`.
    ///
    /// # Errors
    /// `max_examples == Some(0)` and an empty selection.
    pub fn select(
        &mut self,
        keep: impl Fn(&Example) -> bool,
        max_examples: Option<usize>,
        shuffle: bool,
        seed: u64,
    ) -> Result<(), DatasetError> {
        let mut order: Vec<usize> = (0..self.examples.len())
            .filter(|&i| keep(&self.examples[i]))
            .collect();
        if shuffle {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            order.shuffle(&mut rng);
        }
        if let Some(n) = max_examples {
            if n == 0 {
                return Err(DatasetError::Selection(
                    "-n must be a positive integer".into(),
                ));
            }
            order.truncate(n);
        }
        if order.is_empty() {
            return Err(DatasetError::Selection(format!(
                "no rows left in split `{}` after the lang filter",
                self.provenance.split
            )));
        }
        let mut examples: Vec<Option<Example>> = std::mem::take(&mut self.examples)
            .into_iter()
            .map(Some)
            .collect();
        let mut rows: Vec<Option<String>> = std::mem::take(&mut self.rows)
            .into_iter()
            .map(Some)
            .collect();
        let mut selected = String::new();
        for (index, &i) in order.iter().enumerate() {
            let mut example = examples[i].take().expect("each index once");
            example.index = index;
            self.examples.push(example);
            let row = rows[i].take().expect("each index once");
            selected.push_str(&row);
            selected.push('\n');
            self.rows.push(row);
        }
        self.provenance.selected_sha256 = sha256_hex(selected.as_bytes());
        Ok(())
    }
}

/// Loads the rows of `spec` in `split` (`None`: not given on the command
/// line — rows with splits default to `test`, rows without load whole).
///
/// # Errors
/// Unreadable files, malformed rows (naming the line), unknown splits, a
/// split requested from rows that carry none, an empty selection.
pub fn load(spec: &DatasetSpec, split: Option<&str>) -> Result<LoadedDataset, DatasetError> {
    match spec {
        DatasetSpec::File(path) => {
            let bytes = crate::kit::rows::read_bounded(path, crate::kit::rows::MAX_ROW_BYTES)?;
            let file_sha256 = Some(sha256_hex(&bytes));
            let text = String::from_utf8(bytes).map_err(|e| {
                let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                DatasetError::Row {
                    path: path.clone(),
                    line: upto.iter().filter(|b| **b == b'\n').count() + 1,
                    message: "invalid UTF-8".to_string(),
                }
            })?;
            let mut loaded = load_text(&text, path.clone(), split)?;
            loaded.provenance.file_sha256 = file_sha256;
            Ok(loaded)
        }
        DatasetSpec::Embedded => {
            let split = split.unwrap_or("test");
            if split == "all" {
                let text: String = EMBEDDED.iter().map(|(_, t)| *t).collect();
                return load_text(&text, PathBuf::from("embedded:e2"), Some("all"));
            }
            match EMBEDDED.iter().find(|(name, _)| *name == split) {
                Some((name, text)) => load_text(
                    text,
                    PathBuf::from(format!("embedded:e2/{name}.jsonl")),
                    Some(name),
                ),
                None => Err(DatasetError::Selection(format!(
                    "unknown split `{split}` (E2 splits: train, dev, test, all)"
                ))),
            }
        }
        DatasetSpec::Synthetic { seed, n } => {
            use super::generate::{generate_split, GenConfig, GenError, Split};
            let split_name = split.unwrap_or("test");
            if split_name == "all" {
                return Err(DatasetError::Selection(
                    "synthetic:SEED:N generates one split; choose --split train, dev or test"
                        .to_string(),
                ));
            }
            let parsed: Split = split_name
                .parse()
                .map_err(|e: GenError| DatasetError::Selection(e.to_string()))?;
            let rows = generate_split(&GenConfig::default(), *seed, parsed, *n)
                .map_err(|e| DatasetError::Selection(format!("synthetic:{seed}:{n}: {e}")))?;
            let mut text = String::new();
            for row in rows {
                text.push_str(&row.to_string());
                text.push('\n');
            }
            load_text(
                &text,
                PathBuf::from(format!("synthetic:{seed}:{n}")),
                Some(split_name),
            )
        }
    }
}

/// Loads JSONL text; `origin` names it in errors (a path, or
/// `embedded:e2/<file>`).
///
/// # Errors
/// As [`load`].
pub fn load_text(
    text: &str,
    origin: PathBuf,
    split: Option<&str>,
) -> Result<LoadedDataset, DatasetError> {
    let rows = parse_jsonl(text, &origin)?;
    let row_error = |line: usize, message: String| DatasetError::Row {
        path: origin.clone(),
        line,
        message,
    };
    let mut validated = Vec::with_capacity(rows.len());
    let mut explicit_ids: HashMap<String, usize> = HashMap::new();
    for raw in rows {
        let line = raw.line;
        let (question, row) = validate_row(raw.value).map_err(|m| row_error(line, m))?;
        check_id(&row, line, &mut explicit_ids).map_err(|m| row_error(line, m))?;
        validated.push((line, question, row));
    }
    let any_split = validated.iter().any(|(_, _, r)| row_split(r).is_some());
    let split_name = match (split, any_split) {
        (Some(s), _) => s.to_string(),
        (None, true) => "test".to_string(),
        (None, false) => "all".to_string(),
    };
    if split_name != "all" && !SPLITS.contains(&split_name.as_str()) {
        return Err(DatasetError::Selection(format!(
            "unknown split `{split_name}` (E2 splits: train, dev, test, all)"
        )));
    }
    let mut members = Vec::new();
    // Rows per split, in order of first appearance, to say what the file
    // has when the requested split is empty.
    let mut present: Vec<(String, usize)> = Vec::new();
    for (line, question, row) in validated {
        if split_name != "all" {
            match row_split(&row) {
                Some(s) if s == split_name => {}
                Some(s) => {
                    match present.iter_mut().find(|(p, _)| p == s) {
                        Some((_, n)) => *n += 1,
                        None => present.push((s.to_string(), 1)),
                    }
                    continue;
                }
                None => {
                    return Err(row_error(
                        line,
                        format!(
                            "row has no `meta.split` but split `{split_name}` was requested; \
                             use --split all"
                        ),
                    ))
                }
            }
        }
        members.push((line, question, row));
    }
    if members.is_empty() {
        return Err(DatasetError::EmptySplit {
            path: origin,
            split: split_name,
            present,
        });
    }
    let mut hasher = RowHasher::new();
    let mut canonical = Vec::with_capacity(members.len());
    for (_, _, row) in &members {
        hasher.push(row);
        canonical.push(to_canonical_string(row));
    }
    let (ids, warnings) = dedupe_ids(members.iter().map(|(_, _, r)| base_example_id(r)));
    let mut examples = Vec::with_capacity(members.len());
    for (index, ((line, question, row), id)) in members.into_iter().zip(ids).enumerate() {
        let split = row_split(&row).map_or_else(|| split_name.clone(), str::to_string);
        let Value::Object(mut map) = row else {
            unreachable!("validated rows are objects")
        };
        // The config is `question`, or `prompt` on rows without one.
        if map.shift_remove("question").is_none() {
            map.shift_remove("prompt");
        }
        let answer = map.shift_remove("answer").unwrap_or(Value::Null);
        let info = RawValue::from_string(Value::Object(map).to_string())
            .map_err(|e| row_error(line, format!("cannot keep row metadata: {e}")))?;
        examples.push(Example {
            index,
            id,
            split: Some(split),
            question,
            answer,
            info,
        });
    }
    let dataset_sha256 = hasher.finish();
    Ok(LoadedDataset {
        provenance: DataProvenance {
            split: split_name,
            split_rows: examples.len(),
            selected_sha256: dataset_sha256.clone(),
            dataset_sha256,
            file_sha256: None,
            warnings,
        },
        examples,
        rows: canonical,
    })
}

/// The id rules of E2 rows (docs/e2.md, Datasets): an `id`, when
/// present, is a non-empty string or a number, and no two rows of a file
/// share one (an error naming both lines — upstream's `meta.hash`-derived
/// ids are exempt and get `~n`, harness §0); project rows (those with
/// `meta.split` or `info.labelled_namespaces`) must carry an `id`.
fn check_id(row: &Value, line: usize, seen: &mut HashMap<String, usize>) -> Result<(), String> {
    let id = match row.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(format!(
                "field `id` has the wrong type: expected a non-empty string, found {}",
                json_type(other)
            ))
        }
        None => {
            let project = row.pointer("/meta/split").is_some()
                || row.pointer("/info/labelled_namespaces").is_some();
            if project {
                return Err(
                    "missing field `id` (project rows, those with `meta.split` or \
                            `info.labelled_namespaces`, must carry one)"
                        .into(),
                );
            }
            return Ok(());
        }
    };
    if let Some(first) = seen.get(&id) {
        return Err(format!("duplicate id `{id}`: line {first} has it too"));
    }
    seen.insert(id, line);
    Ok(())
}

/// Checks one row: an object with a string config (`question`, else
/// `prompt`, which is then moved to `question`) and a readable oracle.
fn validate_row(row: Value) -> Result<(String, Value), String> {
    let Value::Object(map) = row else {
        return Err("row is not a JSON object".into());
    };
    let question = match (map.get("question"), map.get("prompt")) {
        (Some(Value::String(q)), _) => q.clone(),
        (Some(_), _) => return Err("field `question` is not a string".into()),
        (None, Some(Value::String(p))) => p.clone(),
        (None, Some(_)) => return Err("field `prompt` is not a string".into()),
        (None, None) => return Err("missing field `question` (or `prompt`)".into()),
    };
    if let Some(meta) = map.get("meta") {
        if !meta.is_object() {
            return Err("field `meta` is not an object".into());
        }
    }
    let row = Value::Object(map);
    oracle_from_row(&row).map_err(|e| format!("cannot read the oracle: {e}"))?;
    Ok((question, row))
}

/// The predicate of the `lang` argument for [`LoadedDataset::select`]
/// (the same test as [`E2Env::filter_lang`]).
pub fn lang_filter(filter: LangFilter) -> impl Fn(&Example) -> bool {
    move |example| {
        if filter == LangFilter::All {
            return true;
        }
        let mut row = example.info_value();
        if let Value::Object(map) = &mut row {
            if !example.answer.is_null() {
                map.insert("answer".into(), example.answer.clone());
            }
        }
        let lang = row_lang(&row);
        match filter {
            LangFilter::All => true,
            LangFilter::K8s => lang == Lang::K8s,
            LangFilter::Tf => lang == Lang::Tf,
        }
    }
}

/// `oracle=live` (spec E2 §8.2): replaces each example's stored labels by a
/// re-scan (native, or the binaries with `backend=external`) — `info.violations` (one entry per finding, project
/// severities, `loc` = `file:line`) and `info.labelled_namespaces` (k8s: all
/// three; tf: opa). The environment in live mode computes the same oracle
/// itself; relabelling makes the recorded `info` show it.
///
/// An item the oracle cannot label (an external run that failed, a scan
/// error, the scoring time budget: [`super::tools::OracleError`]) is never
/// labelled clean: its stored labels are removed, `info.oracle_error` says
/// why, and scoring it is a per-sample error (the environment's own live
/// oracle fails the same way). Returns how many items that was.
pub fn relabel_live(examples: &mut [Example], env: &E2Env) -> usize {
    let mut unlabelled = 0;
    for example in examples {
        let mut row = example.info_value();
        let lang = row_lang(&row);
        let namespaces = E2Env::live_namespaces(lang);
        let deadline = Deadline::after_opt(env.score_budget());
        let nodes = NodeBudget::for_input(&Limits::default(), example.question.len());
        let labels = env
            .analyzers()
            .oracle_findings_within(lang, &example.question, &namespaces, &deadline, &nodes)
            .map(|findings| {
                findings
                    .iter()
                    .map(|f| {
                        json!({"tool": f.tool.as_str(), "rule_id": f.rule_id,
                               "severity": f.severity.as_str(), "msg": f.message,
                               "loc": f.location()})
                    })
                    .collect::<Vec<Value>>()
            });
        let Value::Object(map) = &mut row else {
            continue;
        };
        let info = map
            .entry("info")
            .or_insert_with(|| Value::Object(Map::new()));
        if !info.is_object() {
            *info = Value::Object(Map::new());
        }
        if let Value::Object(info) = info {
            match labels {
                Ok(violations) => {
                    info.insert("violations".into(), Value::Array(violations));
                }
                Err(e) => {
                    unlabelled += 1;
                    info.remove("violations");
                    info.insert("oracle_error".into(), json!(e.to_string()));
                }
            }
            info.insert(
                "labelled_namespaces".into(),
                namespaces.iter().map(|t| json!(t.as_str())).collect(),
            );
        }
        // Env rows keep their oracle in `answer`; live labels replace it.
        example.answer = Value::Null;
        if let Ok(raw) = RawValue::from_string(row.to_string()) {
            example.info = raw;
        }
    }
    unlabelled
}
