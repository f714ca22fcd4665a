//! Builtin policies (harness §1.1): they need no network and answer in the
//! environment's format, so their output goes through the same parser and
//! rewards as a model's. This module holds what every environment shares —
//! the [`Policy`] trait, [`PolicyError`] and `replay:FILE`; each
//! environment's own builtins live in its folder (`e1::policy`, …).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use svbench_core::canonical::sha256_hex;
use svbench_core::record::SampleError;
use svbench_core::{Completion, Example, ExampleSet, Message, Role};

/// Something that answers an example: a builtin policy (or, later, a model).
pub trait Policy: Send + Sync {
    /// The policy name recorded as `effective_model` and used in the run slug.
    fn name(&self) -> &str;

    /// Answers one sample.
    fn respond(
        &self,
        example: &Example,
        rollout_index: usize,
        messages: &[Message],
    ) -> Result<Completion, SampleError>;

    /// Ids of selected samples the policy cannot answer (replay without a record).
    fn missing(&self, examples: &dyn ExampleSet, rollouts: usize) -> Vec<String> {
        let _ = (examples, rollouts);
        Vec::new()
    }

    /// Lines of the replay file whose record matches no selected sample
    /// (reported as a warning; empty for other policies).
    fn unmatched(&self, examples: &dyn ExampleSet, rollouts: usize) -> Vec<usize> {
        let _ = (examples, rollouts);
        Vec::new()
    }

    /// `(path, sha256)` of the replayed file, for `builtin:replay:FILE`.
    fn replay_source(&self) -> Option<(String, String)> {
        None
    }

    /// How reports name the policy: its name, or [`ORACLE_LABEL`] for the
    /// oracle builtins (an upper bound, never a baseline).
    fn label(&self) -> &str {
        self.name()
    }

    /// A multi-turn builtin (E2's `tool-only`): the runner then drives it
    /// through the same loop as a model — one [`Policy::respond`] call per
    /// turn with the conversation so far, returning one assistant message
    /// whose tool calls the episode executes within the tool budget and turn
    /// limit. Single-shot policies (the default) answer once.
    fn interactive(&self) -> bool {
        false
    }
}

/// Errors constructing a builtin policy.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// Not a builtin this environment has.
    #[error("unknown builtin policy `{name}` for {env} (available: {available})")]
    Unknown {
        /// Requested name.
        name: String,
        /// Environment.
        env: String,
        /// Builtins the environment has.
        available: String,
    },
    /// The replay file could not be read.
    #[error("cannot read replay file {path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A replay line is malformed.
    #[error("{path}:{line}: {message}")]
    Line {
        /// File.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// `builtin:replay:FILE`: replays recorded completions from svbench's
/// `results.jsonl` or upstream's results (whose `completion` is a string).
///
/// Matching (one rule, harness §1.1): a record's example id is its
/// `example_id`, else its `id`; records match a sample by `(id,
/// rollout_index)`, else by id alone (the id's record with the lowest
/// rollout index), else by `index` (rollout-0 records, rollout 0 only).
/// Errored records and records without a completion are skipped. Two
/// usable records with the same `(id, rollout_index)`, or two rollout-0
/// records with the same `index`, are an error naming both lines.
///
/// Single-turn environments score the recorded final text. Multi-turn
/// environments ([`ReplayPolicy::multi_turn`], E2) replay the recorded
/// assistant messages one per turn through the runner's loop: their tool
/// calls are executed again by the environment within its turn limit and
/// tool budget, so the record's `turns`, `tool_calls`, tool messages and
/// tool rewards come from the executed calls; recorded tool messages are
/// ignored. When the recording runs out with tool calls pending, the
/// sample ends with no answer.
#[derive(Debug, Clone)]
pub struct ReplayPolicy {
    path: PathBuf,
    sha256: String,
    /// `(id, rollout)` → (line, completion).
    by_key: HashMap<(String, usize), (usize, Completion)>,
    /// id → (lowest rollout, line).
    by_id: HashMap<String, (usize, usize)>,
    /// index of rollout-0 records → (line, completion).
    by_index: HashMap<usize, (usize, Completion)>,
    /// Usable records: (line, id, rollout, index), for [`Policy::unmatched`].
    keys: Vec<(usize, Option<String>, usize, Option<usize>)>,
    /// Replay one assistant message per turn (multi-turn environments).
    multi_turn: bool,
    /// Lines skipped because they recorded an error or no completion.
    pub skipped_errors: usize,
}

impl ReplayPolicy {
    /// Reads a replay file. An unparseable last line (a torn write) is ignored;
    /// any other unparseable line is an error naming it.
    pub fn load(path: &Path) -> Result<Self, PolicyError> {
        let bytes = std::fs::read(path).map_err(|source| PolicyError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let sha256 = sha256_hex(&bytes);
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .collect();
        let mut policy = Self {
            path: path.to_path_buf(),
            sha256,
            by_key: HashMap::new(),
            by_id: HashMap::new(),
            by_index: HashMap::new(),
            keys: Vec::new(),
            multi_turn: false,
            skipped_errors: 0,
        };
        let last = lines.len().saturating_sub(1);
        for (pos, (i, line)) in lines.iter().enumerate() {
            let value: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) if pos == last => break,
                Err(e) => {
                    return Err(PolicyError::Line {
                        path: path.to_path_buf(),
                        line: i + 1,
                        message: format!("not valid JSON: {e}"),
                    })
                }
            };
            policy.add_record(&value, i + 1)?;
        }
        Ok(policy)
    }

    fn add_record(&mut self, value: &Value, line: usize) -> Result<(), PolicyError> {
        if !value.is_object() {
            return Err(PolicyError::Line {
                path: self.path.clone(),
                line,
                message: "record is not a JSON object".into(),
            });
        }
        let errored = value.get("error").is_some_and(|e| !e.is_null());
        let completion = recorded_completion(value);
        let Some(completion) = completion.filter(|_| !errored) else {
            self.skipped_errors += 1;
            return Ok(());
        };
        let rollout = usize::try_from(
            value
                .get("rollout_index")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        )
        .unwrap_or(usize::MAX);
        let id_of = |v: Option<&Value>| match v {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let id = id_of(value.get("example_id")).or_else(|| id_of(value.get("id")));
        let index = value
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok());
        let duplicate = |what: String, first: usize| PolicyError::Line {
            path: self.path.clone(),
            line,
            message: format!("duplicate replay record for {what}: line {first} has it too"),
        };
        if let Some(id) = &id {
            if let Some((first, _)) = self.by_key.get(&(id.clone(), rollout)) {
                return Err(duplicate(
                    format!("example `{id}` rollout {rollout}"),
                    *first,
                ));
            }
            self.by_key
                .insert((id.clone(), rollout), (line, completion.clone()));
            let lowest = self.by_id.entry(id.clone()).or_insert((rollout, line));
            if rollout < lowest.0 {
                *lowest = (rollout, line);
            }
        }
        if let Some(i) = index.filter(|_| rollout == 0) {
            if let Some((first, _)) = self.by_index.get(&i) {
                return Err(duplicate(format!("index {i}"), *first));
            }
            self.by_index.insert(i, (line, completion));
        }
        self.keys.push((line, id, rollout, index));
        Ok(())
    }

    /// Replays one recorded assistant message per turn through the runner's
    /// loop (multi-turn environments; see the type's documentation).
    #[must_use]
    pub fn multi_turn(mut self) -> Self {
        self.multi_turn = true;
        self
    }

    /// The record for example `id` at position `index`, rollout `rollout`.
    fn lookup(&self, id: &str, index: usize, rollout: usize) -> Option<&Completion> {
        self.by_key
            .get(&(id.to_string(), rollout))
            .or_else(|| {
                self.by_id
                    .get(id)
                    .and_then(|(r, _)| self.by_key.get(&(id.to_string(), *r)))
            })
            .or_else(|| {
                if rollout == 0 {
                    self.by_index.get(&index)
                } else {
                    None
                }
            })
            .map(|(_, c)| c)
    }
}

/// The assistant messages of a recorded completion, in order.
fn assistant_messages(completion: &Completion) -> Vec<Value> {
    match completion {
        Completion::Text(text) => vec![serde_json::json!({"role": "assistant", "content": text})],
        Completion::Messages(msgs) => msgs
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .cloned()
            .collect(),
    }
}

/// The completion a record stores: svbench's `completion_messages` when
/// present (so text selection sees the real messages), else `completion` as
/// a string or a message list. `None` when the record has none.
fn recorded_completion(value: &Value) -> Option<Completion> {
    if let Some(Value::Array(msgs)) = value.get("completion_messages") {
        if !msgs.is_empty() {
            return Some(Completion::Messages(msgs.clone()));
        }
    }
    match value.get("completion") {
        Some(Value::String(s)) => Some(Completion::Text(s.clone())),
        Some(Value::Array(msgs)) => Some(Completion::Messages(msgs.clone())),
        _ => None,
    }
}

impl Policy for ReplayPolicy {
    fn name(&self) -> &str {
        "replay"
    }

    fn interactive(&self) -> bool {
        self.multi_turn
    }

    fn respond(
        &self,
        example: &Example,
        rollout: usize,
        messages: &[Message],
    ) -> Result<Completion, SampleError> {
        let recorded = self.lookup(&example.id, example.index, rollout);
        if self.multi_turn {
            if let Some(completion) = recorded {
                // Turn k replays the k-th recorded assistant message; an
                // empty list says the recording ran out.
                let turn = messages
                    .iter()
                    .filter(|m| m.role == Role::Assistant)
                    .count();
                return Ok(Completion::Messages(
                    assistant_messages(completion)
                        .into_iter()
                        .nth(turn)
                        .into_iter()
                        .collect(),
                ));
            }
        }
        recorded.cloned().ok_or_else(|| SampleError {
            kind: "internal".into(),
            message: format!("no recorded completion for example {}", example.id),
            http_status: None,
            attempts: 0,
            retryable: false,
        })
    }

    fn replay_source(&self) -> Option<(String, String)> {
        Some((self.path.display().to_string(), self.sha256.clone()))
    }

    fn unmatched(&self, examples: &dyn ExampleSet, rollouts: usize) -> Vec<usize> {
        let ids: std::collections::HashSet<&str> =
            (0..examples.len()).map(|i| examples.id(i)).collect();
        self.keys
            .iter()
            .filter(|(_, id, rollout, index)| {
                let by_id = id.as_deref().is_some_and(|id| ids.contains(id)) && *rollout < rollouts;
                // Example indices are positions: 0..len.
                let by_index =
                    id.is_none() && *rollout == 0 && index.is_some_and(|i| i < examples.len());
                !(by_id || by_index)
            })
            .map(|(line, ..)| *line)
            .collect()
    }

    fn missing(&self, examples: &dyn ExampleSet, rollouts: usize) -> Vec<String> {
        let mut missing = Vec::new();
        for i in 0..examples.len() {
            let id = examples.id(i);
            for r in 0..rollouts {
                if self.lookup(id, i, r).is_none() {
                    missing.push(if rollouts > 1 {
                        format!("{id}#{r}")
                    } else {
                        id.to_string()
                    });
                }
            }
        }
        missing
    }
}

pub use svbench_core::ORACLE_LABEL;

/// A sample error of kind `internal` (a builtin could not answer).
// Only some environments' policies can fail internally; a build without
// them leaves it unused.
#[cfg_attr(not(any(feature = "e2", feature = "e4")), allow(dead_code))]
pub(crate) fn internal(message: String) -> SampleError {
    SampleError {
        kind: "internal".into(),
        message,
        http_status: None,
        attempts: 0,
        retryable: false,
    }
}
