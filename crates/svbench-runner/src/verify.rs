//! `report --verify`: a run's `results.jsonl` as evidence. Every record is
//! checked against the dataset its run recorded (by hash) and re-scored
//! from its stored transcript through the environment's own scoring path
//! ([`Environment::score`], the one `eval` used); the first record whose
//! row, completion, tool results or score differs from the re-computation
//! is named.
//!
//! What is proven per record:
//! - its `question`, `answer` (the gold), `info` and `split` are those of
//!   the dataset row with its id ([`check_record_row`]);
//! - without an error: `completion` is the transcript's final answer; every
//!   tool message in `completion_messages` is what re-running its call in a
//!   fresh episode returns (same budget rule); and the re-scored `reward`,
//!   every `rewards` component, `reward_profile`, `parse`, `parsed` and the
//!   environment's top-level fields equal the recorded ones;
//! - with an error: it carries no score, and a scoring error (a stored
//!   transcript) still fails to score. An endpoint error (timeout, HTTP)
//!   leaves no transcript, so only its absence of a score is checked.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use svbench_core::compact::StrIndex;
use svbench_core::record::{ResultRecord, RunMetadata};
use svbench_core::{Example, ExampleSet, Message, Role};
use svbench_envs::environment::{run_tool_call, Environment, Episode};
use svbench_envs::registry;

use crate::integrity::{check_record_row, check_results_file, read_selected_ids, IntegrityError};
use crate::prepare::{open_inputs, recorded_spec, PrepareError};
use crate::rollout::{fill_scored, non_finite_score, recorded_completion, scored_completion};

/// Why a run could not be verified at all (as opposed to a record that
/// differs, which is a [`Mismatch`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// `metadata.json` is missing or unreadable.
    #[error("{0}")]
    Metadata(String),
    /// The run's environment is not in this build.
    #[error(
        "{dir}: the run is of environment `{name}`, which this build does not have ({message})"
    )]
    UnknownEnvironment {
        /// Run directory.
        dir: PathBuf,
        /// Recorded environment.
        name: String,
        /// The registry's words.
        message: String,
    },
    /// The recorded inputs (dataset, reward config file, environment
    /// arguments) cannot be opened again.
    #[error("{dir}: cannot open the run's recorded inputs: {source}")]
    Inputs {
        /// Run directory.
        dir: PathBuf,
        /// Why.
        source: PrepareError,
    },
    /// The inputs opened now are not the ones the run recorded.
    #[error(
        "{dir}: the {what} differs from the one the run recorded: run has {recorded}, now \
         {loaded}; re-scoring against other inputs proves nothing"
    )]
    InputsChanged {
        /// Run directory.
        dir: PathBuf,
        /// `dataset rows (dataset_sha256)`, `selected rows (selected_sha256)`,
        /// `reward config (reward_config_hash)`, `reward config file`.
        what: &'static str,
        /// Recorded value.
        recorded: String,
        /// Value now.
        loaded: String,
    },
    /// `results.jsonl` cannot belong to its run (a duplicate, a foreign
    /// record, a damaged line).
    #[error(transparent)]
    Integrity(#[from] IntegrityError),
}

/// The first record that differs from its re-computation.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// 1-based line of `results.jsonl`.
    pub line: usize,
    /// Its example id.
    pub example_id: String,
    /// Its rollout.
    pub rollout_index: usize,
    /// The field that differs (`reward`, `rewards.accuracy`, `question`,
    /// `completion_messages[3]`, …).
    pub field: String,
    /// What the record says.
    pub recorded: String,
    /// What the dataset or the re-computation says.
    pub expected: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "results.jsonl line {} (example `{}`, rollout {}): `{}` differs: recorded {}, {}",
            self.line,
            self.example_id,
            self.rollout_index,
            self.field,
            self.recorded,
            self.expected
        )
    }
}

/// What [`verify_run`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verification {
    /// Records read.
    pub records: usize,
    /// Records re-scored and found equal.
    pub rescored: usize,
    /// Errored records checked (no score; scoring errors still fail).
    pub errored: usize,
    /// The first record that differs, if any (checking stops there).
    pub mismatch: Option<Mismatch>,
}

impl Verification {
    /// Whether every record matched.
    pub fn passed(&self) -> bool {
        self.mismatch.is_none()
    }
}

/// Longest rendering of a value in a [`Mismatch`].
const SHOWN_CHARS: usize = 120;

/// Both values shown; two long strings around where they first differ
/// (`…` marks what is left out), so the difference is visible.
fn shown_pair(a: &Value, b: &Value) -> (String, String) {
    let (Value::String(x), Value::String(y)) = (a, b) else {
        return (shown(a), shown(b));
    };
    let at = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count();
    let window = |t: &str| {
        let start = at.saturating_sub(SHOWN_CHARS / 4);
        let part: String = t.chars().skip(start).take(SHOWN_CHARS).collect();
        let more = t.chars().count() > start + SHOWN_CHARS;
        format!(
            "{}{}{}",
            if start > 0 { "…" } else { "" },
            Value::String(part),
            if more { "…" } else { "" }
        )
    };
    (window(x), window(y))
}

fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= SHOWN_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{cut}… ({} bytes)", text.len())
}

/// Verifies the run in `dir`: opens the dataset and reward config it
/// recorded (refusing when their hashes differ), then checks every record
/// of `results.jsonl` in file order, stopping at the first that differs.
/// Memory: the run's selected ids and one record at a time.
///
/// # Errors
/// [`VerifyError`] when the run cannot be verified at all.
pub fn verify_run(dir: &Path) -> Result<Verification, VerifyError> {
    let meta = read_metadata(dir)?;
    let entry = registry::find(&meta.environment).map_err(|e| VerifyError::UnknownEnvironment {
        dir: dir.to_path_buf(),
        name: meta.environment.clone(),
        message: e.to_string(),
    })?;
    let mut spec = recorded_spec(entry, &meta);
    // The system prompt shapes what the model saw, not how an answer
    // scores; it is not needed (and its file may be gone).
    spec.system_prompt_file = None;
    let inputs = open_inputs(&spec).map_err(|source| VerifyError::Inputs {
        dir: dir.to_path_buf(),
        source,
    })?;
    check_inputs(dir, &meta, &inputs)?;
    let rollouts = meta.rollouts_per_example.max(1);
    let results = dir.join("results.jsonl");
    // Duplicates, foreign records, damaged lines: what the run directory
    // alone proves, before anything is re-scored.
    let selection = read_selected_ids(dir, rollouts)?;
    check_results_file(&results, meta.counts.planned, rollouts, selection.as_ref())?;
    let examples = inputs.selected.examples;
    let env = Arc::clone(&inputs.configured.env);
    let ids: StrIndex = (0..examples.len()).map(|i| examples.id(i)).collect();
    let checker = Checker {
        path: &results,
        env: env.as_ref(),
        examples: examples.as_ref(),
        ids: &ids,
        tool_budget: meta.tool_budget,
    };
    checker.run()
}

fn read_metadata(dir: &Path) -> Result<RunMetadata, VerifyError> {
    let path = dir.join("metadata.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| VerifyError::Metadata(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        VerifyError::Metadata(format!("{} is not valid metadata: {e}", path.display()))
    })
}

/// Refuses inputs that are not the recorded ones.
fn check_inputs(
    dir: &Path,
    meta: &RunMetadata,
    inputs: &crate::prepare::Inputs,
) -> Result<(), VerifyError> {
    let changed = |what, recorded: &str, loaded: &str| {
        (recorded != loaded).then(|| VerifyError::InputsChanged {
            dir: dir.to_path_buf(),
            what,
            recorded: recorded.to_string(),
            loaded: loaded.to_string(),
        })
    };
    let data = &inputs.selected.provenance;
    let file_hash = |f: &Option<svbench_core::record::FileRef>| {
        f.as_ref()
            .map_or_else(|| "none".to_string(), |f| format!("sha256 {}", f.sha256))
    };
    let found = [
        changed(
            "dataset rows (dataset_sha256)",
            &meta.dataset_sha256,
            &data.dataset_sha256,
        ),
        changed(
            "selected rows (selected_sha256)",
            &meta.selected_sha256,
            &data.selected_sha256,
        ),
        changed(
            "reward config file",
            &file_hash(&meta.reward_config_file),
            &file_hash(&inputs.reward_config_file),
        ),
        changed(
            "reward config (reward_config_hash)",
            &meta.reward_config_hash,
            &inputs.configured.config_hash,
        ),
    ];
    match found.into_iter().flatten().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct Checker<'a> {
    path: &'a Path,
    env: &'a dyn Environment,
    examples: &'a dyn ExampleSet,
    ids: &'a StrIndex,
    tool_budget: u32,
}

impl Checker<'_> {
    fn run(&self) -> Result<Verification, VerifyError> {
        let io = |e: std::io::Error| IntegrityError::Io {
            path: self.path.to_path_buf(),
            message: e.to_string(),
        };
        let mut out = Verification::default();
        let file = match std::fs::File::open(self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(io(e).into()),
        };
        let mut reader = BufReader::new(file);
        let mut buf = Vec::new();
        let mut line = 0usize;
        loop {
            buf.clear();
            if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
                break;
            }
            line += 1;
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // `check_results_file` passed: only a torn last line fails here.
            let Ok(record) = serde_json::from_slice::<ResultRecord>(&buf) else {
                break;
            };
            out.records += 1;
            if let Some(m) = self.check(line, &record)? {
                out.mismatch = Some(m);
                break;
            }
            if record.error.is_some() {
                out.errored += 1;
            } else {
                out.rescored += 1;
            }
        }
        Ok(out)
    }

    fn mismatch(
        line: usize,
        record: &ResultRecord,
        field: impl Into<String>,
        recorded: String,
        expected: String,
    ) -> Option<Mismatch> {
        Some(Mismatch {
            line,
            example_id: record.example_id.clone(),
            rollout_index: record.rollout_index,
            field: field.into(),
            recorded,
            expected,
        })
    }

    fn check(&self, line: usize, record: &ResultRecord) -> Result<Option<Mismatch>, VerifyError> {
        let Some(position) = self.ids.get(&record.example_id) else {
            return Ok(Self::mismatch(
                line,
                record,
                "example_id",
                format!("`{}`", record.example_id),
                "no example of the run's dataset selection has this id".into(),
            ));
        };
        let example = self
            .examples
            .example(position)
            .map_err(|e| IntegrityError::Io {
                path: self.path.to_path_buf(),
                message: format!("line {line}: cannot read the dataset example: {e}"),
            })?;
        if let Err(IntegrityError::RowMismatch { field, .. }) =
            check_record_row(self.path, line, record, &example)
        {
            let pick = |r: &ResultRecord| -> Value {
                match field {
                    "question" => Value::String(r.question.clone()),
                    "answer" => r.answer.clone(),
                    "split" => Value::String(r.split.clone()),
                    _ => r.info.clone(),
                }
            };
            let from_row = ResultRecord {
                question: example.question.clone(),
                answer: example.answer.clone(),
                info: example.info_value(),
                split: example.split.clone().unwrap_or_else(|| "all".into()),
                ..ResultRecord::default()
            };
            let (recorded, expected) = shown_pair(&pick(record), &pick(&from_row));
            return Ok(Self::mismatch(
                line,
                record,
                field,
                recorded,
                format!("the dataset row has {expected}"),
            ));
        }
        if record.error.is_some() {
            return Ok(self.check_errored(line, record, &example));
        }
        Ok(self.rescore(line, record, &example))
    }

    /// An errored record carries no score; one with a stored transcript
    /// (a scoring error) must still fail to score.
    fn check_errored(
        &self,
        line: usize,
        record: &ResultRecord,
        example: &Example,
    ) -> Option<Mismatch> {
        if let Some(reward) = record.reward {
            return Self::mismatch(
                line,
                record,
                "reward",
                reward.to_string(),
                "an errored sample has no reward (null)".into(),
            );
        }
        if !record.rewards.is_empty() {
            return Self::mismatch(
                line,
                record,
                "rewards",
                shown(&serde_json::json!(record.rewards)),
                "an errored sample has no reward components".into(),
            );
        }
        if record.completion_messages.is_empty() {
            return None;
        }
        let no_answer = pending_tool_calls(&record.completion_messages);
        match self.env.score(
            example,
            &scored_completion(&record.completion_messages, no_answer),
        ) {
            Err(_) => None,
            Ok(scored) if non_finite_score(&scored).is_some() => None,
            Ok(scored) => Self::mismatch(
                line,
                record,
                "error",
                shown(&serde_json::json!(record.error)),
                format!(
                    "the stored transcript scores without error (reward {})",
                    scored.reward.total
                ),
            ),
        }
    }

    fn rescore(&self, line: usize, record: &ResultRecord, example: &Example) -> Option<Mismatch> {
        let messages = &record.completion_messages;
        if messages.is_empty() {
            return Self::mismatch(
                line,
                record,
                "completion_messages",
                "[]".into(),
                "a scored sample must store its transcript to be re-scored".into(),
            );
        }
        if let Some(m) = self.replay_tools(line, record, example) {
            return Some(m);
        }
        let no_answer = pending_tool_calls(messages);
        let mut expected = record.clone();
        expected.completion = Some(recorded_completion(messages, no_answer));
        match self
            .env
            .score(example, &scored_completion(messages, no_answer))
        {
            Ok(scored) => fill_scored(&mut expected, scored, no_answer),
            Err(e) => {
                return Self::mismatch(
                    line,
                    record,
                    "reward",
                    shown(&serde_json::json!(record.reward)),
                    format!("re-scoring fails: {e}"),
                )
            }
        }
        let (Ok(got), Ok(want)) = (
            serde_json::to_value(record),
            serde_json::to_value(&expected),
        ) else {
            return Self::mismatch(
                line,
                record,
                "record",
                "unserialisable".into(),
                "a record that serialises".into(),
            );
        };
        first_difference(&got, &want).and_then(|(field, a, b)| {
            Self::mismatch(line, record, field, a, format!("re-scored {b}"))
        })
    }

    /// Re-runs every executed tool call of the transcript in a fresh
    /// episode (the budget rule of `eval`) and compares each tool message.
    fn replay_tools(
        &self,
        line: usize,
        record: &ResultRecord,
        example: &Example,
    ) -> Option<Mismatch> {
        let messages = &record.completion_messages;
        let mut episode: Option<Box<dyn Episode>> = None;
        let (mut used, mut turn, mut executed) = (0u32, 0u32, 0u32);
        let mut i = 0;
        while i < messages.len() {
            let message = &messages[i];
            i += 1;
            if role(message) != Some(Role::Assistant) {
                return Self::mismatch(
                    line,
                    record,
                    format!("completion_messages[{}]", i - 1),
                    shown(message),
                    "an assistant message (tool messages follow the call they answer)".into(),
                );
            }
            let calls = message
                .get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let answered = messages[i..]
                .iter()
                .take_while(|m| role(m) == Some(Role::Tool))
                .count();
            // The last turn's calls may be left pending (turn limit): then
            // none is answered.
            let pending_at_end = i + answered == messages.len() && answered == 0;
            if answered != calls.len() && !pending_at_end {
                return Self::mismatch(
                    line,
                    record,
                    format!("completion_messages[{}]", i - 1),
                    format!(
                        "{} tool call(s) answered by {answered} tool message(s)",
                        calls.len()
                    ),
                    "one tool message per executed call".into(),
                );
            }
            for call in calls.iter().take(answered) {
                let ep = episode.get_or_insert_with(|| self.env.start_episode(example));
                let run = run_tool_call(ep.as_mut(), call, turn, &mut used, self.tool_budget);
                executed += 1;
                let stored = &messages[i];
                let replayed = serde_json::to_value(&run.message).unwrap_or(Value::Null);
                if let Some((field, a, b)) = first_difference(stored, &replayed) {
                    return Self::mismatch(
                        line,
                        record,
                        format!("completion_messages[{i}].{field}"),
                        a,
                        format!("re-running the tool call gives {b}"),
                    );
                }
                i += 1;
            }
            turn += 1;
        }
        if record.tool_calls != executed {
            return Self::mismatch(
                line,
                record,
                "tool_calls",
                record.tool_calls.to_string(),
                format!("the transcript executed {executed}"),
            );
        }
        None
    }
}

fn role(message: &Value) -> Option<Role> {
    serde_json::from_value::<Message>(message.clone())
        .ok()
        .map(|m| m.role)
}

/// Whether the sample stopped with tool calls pending, so with no answer:
/// its last assistant message asked for tools (the turn limit came, or a
/// policy had no further turn), as `eval` decided it.
fn pending_tool_calls(messages: &[Value]) -> bool {
    messages
        .iter()
        .rev()
        .find(|m| role(m) == Some(Role::Assistant))
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty())
}

/// Top-level fields compared first, in this order, so a mismatch names the
/// score before bookkeeping.
const FIRST_FIELDS: [&str; 8] = [
    "reward",
    "rewards",
    "reward_profile",
    "completion",
    "parse",
    "parsed",
    "question",
    "answer",
];

/// The first place where `got` and `want` differ: a dotted path, and both
/// values shown. Numbers are equal within a relative 1e-9 (a recorded
/// double reads back exactly; the margin only absorbs platform libm).
fn first_difference(got: &Value, want: &Value) -> Option<(String, String, String)> {
    if let (Value::Object(a), Value::Object(b)) = (got, want) {
        let mut keys: Vec<&String> = FIRST_FIELDS
            .iter()
            .filter_map(|k| {
                a.get_key_value(*k)
                    .or_else(|| b.get_key_value(*k))
                    .map(|(k, _)| k)
            })
            .collect();
        let mut rest: Vec<&String> = a.keys().chain(b.keys()).collect();
        rest.sort();
        rest.dedup();
        keys.extend(
            rest.into_iter()
                .filter(|k| !FIRST_FIELDS.contains(&k.as_str())),
        );
        for k in keys {
            let (x, y) = (
                a.get(k).unwrap_or(&Value::Null),
                b.get(k).unwrap_or(&Value::Null),
            );
            if let Some((path, s, t)) = first_difference(x, y) {
                let path = match path.chars().next() {
                    None => k.clone(),
                    Some('[') => format!("{k}{path}"),
                    Some(_) => format!("{k}.{path}"),
                };
                return Some((path, s, t));
            }
        }
        return None;
    }
    if let (Value::Array(a), Value::Array(b)) = (got, want) {
        if a.len() == b.len() {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some((path, s, t)) = first_difference(x, y) {
                    let path = if path.is_empty() {
                        format!("[{i}]")
                    } else {
                        format!("[{i}].{path}")
                    };
                    return Some((path, s, t));
                }
            }
            return None;
        }
    }
    if let (Some(x), Some(y)) = (got.as_f64(), want.as_f64()) {
        let scale = x.abs().max(y.abs()).max(1.0);
        if (x - y).abs() <= 1e-9 * scale {
            return None;
        }
    }
    (got != want).then(|| {
        let (a, b) = shown_pair(got, want);
        (String::new(), a, b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_the_path_and_prefer_the_score() {
        let a = json!({"z": 1, "reward": 1.0, "rewards": {"acc": 1.0, "fmt": 0.5}});
        let b = json!({"z": 2, "reward": 1.0, "rewards": {"acc": 0.0, "fmt": 0.5}});
        let (path, got, want) = first_difference(&a, &b).unwrap();
        assert_eq!(
            (path.as_str(), got.as_str(), want.as_str()),
            ("rewards.acc", "1.0", "0.0")
        );
        let a = json!({"m": [{"content": "x"}, {"content": "y"}]});
        let b = json!({"m": [{"content": "x"}, {"content": "Y"}]});
        assert_eq!(first_difference(&a, &b).unwrap().0, "m[1].content");
        assert!(first_difference(&json!({"r": 0.1 + 0.2}), &json!({"r": 0.3})).is_none());
        assert!(first_difference(&json!({"r": 0.3}), &json!({"r": 0.31})).is_some());
        assert!(first_difference(&json!({"a": null}), &json!({})).is_none());
        // Long strings are shown where they differ.
        let long = |tail: &str| json!({"q": format!("{}{tail}", "z".repeat(500))});
        let (_, a, b) = first_difference(&long("AAA"), &long("BBB")).unwrap();
        assert!(
            a.starts_with('…') && a.contains("AAA") && b.contains("BBB"),
            "{a} / {b}"
        );
    }

    #[test]
    fn pending_calls_are_read_from_the_transcript() {
        let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c"}]});
        let tool = json!({"role": "tool", "content": "{}", "tool_call_id": "c"});
        let answer = json!({"role": "assistant", "content": "done"});
        assert!(pending_tool_calls(std::slice::from_ref(&call)));
        assert!(!pending_tool_calls(&[call.clone(), tool.clone(), answer]));
        // A policy with no further turn after its calls: still no answer.
        assert!(pending_tool_calls(&[call, tool]));
        assert!(!pending_tool_calls(&[]));
    }
}
