//! Builtin policies (harness §1.1): they need no network and answer in the
//! environment's format, so their output goes through the same parser and
//! rewards as a model's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use svbench_core::canonical::sha256_hex;
use svbench_core::record::SampleError;
use svbench_core::{Completion, Example, Message};

use crate::e1::heuristic;

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
    fn missing(&self, examples: &[Example], rollouts: usize) -> Vec<String> {
        let _ = (examples, rollouts);
        Vec::new()
    }

    /// `(path, sha256)` of the replayed file, for `builtin:replay:FILE`.
    fn replay_source(&self) -> Option<(String, String)> {
        None
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

/// E1's `builtin:heuristic` (E1 §5).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPolicy;

impl Policy for HeuristicPolicy {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn respond(
        &self,
        example: &Example,
        _: usize,
        _: &[Message],
    ) -> Result<Completion, SampleError> {
        Ok(Completion::assistant_text(heuristic::answer_text(
            &example.question,
        )))
    }
}

/// `builtin:oracle` for E1: the gold label with confidence 1.0 (an upper bound).
#[derive(Debug, Clone, Copy, Default)]
pub struct E1OraclePolicy;

impl Policy for E1OraclePolicy {
    fn name(&self) -> &str {
        "oracle"
    }

    fn respond(
        &self,
        example: &Example,
        _: usize,
        _: &[Message],
    ) -> Result<Completion, SampleError> {
        let label = example.answer.as_str().unwrap_or_default();
        Ok(Completion::assistant_text(format!(
            "{{\"label\":\"{label}\",\"confidence\":1.0}}"
        )))
    }
}

/// `builtin:replay:FILE`: replays recorded completions from svbench's
/// `results.jsonl` or upstream's results (whose `completion` is a string).
#[derive(Debug, Clone)]
pub struct ReplayPolicy {
    path: PathBuf,
    sha256: String,
    by_key: HashMap<(String, usize), Completion>,
    by_id: HashMap<String, Completion>,
    by_index: HashMap<usize, Completion>,
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
        let rollout = value
            .get("rollout_index")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let id = match value.get("example_id") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        if let Some(id) = id {
            self.by_key
                .insert((id.clone(), rollout), completion.clone());
            self.by_id.entry(id).or_insert_with(|| completion.clone());
        }
        if let Some(index) = value.get("index").and_then(Value::as_u64) {
            if rollout == 0 {
                self.by_index.insert(index as usize, completion);
            }
        }
        Ok(())
    }

    fn lookup(&self, example: &Example, rollout: usize) -> Option<&Completion> {
        self.by_key
            .get(&(example.id.clone(), rollout))
            .or_else(|| self.by_id.get(&example.id))
            .or_else(|| {
                if rollout == 0 {
                    self.by_index.get(&example.index)
                } else {
                    None
                }
            })
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

    fn respond(
        &self,
        example: &Example,
        rollout: usize,
        _: &[Message],
    ) -> Result<Completion, SampleError> {
        self.lookup(example, rollout)
            .cloned()
            .ok_or_else(|| SampleError {
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

    fn missing(&self, examples: &[Example], rollouts: usize) -> Vec<String> {
        let mut missing = Vec::new();
        for ex in examples {
            for r in 0..rollouts {
                if self.lookup(ex, r).is_none() {
                    missing.push(if rollouts > 1 {
                        format!("{}#{r}", ex.id)
                    } else {
                        ex.id.clone()
                    });
                }
            }
        }
        missing
    }
}

/// A builtin policy by name (`heuristic`, `oracle`, `replay:FILE`) for E1.
pub fn e1_builtin(name: &str) -> Result<Box<dyn Policy>, PolicyError> {
    match name {
        "heuristic" => Ok(Box::new(HeuristicPolicy)),
        "oracle" => Ok(Box::new(E1OraclePolicy)),
        _ => {
            if let Some(file) = name.strip_prefix("replay:") {
                return Ok(Box::new(ReplayPolicy::load(Path::new(file))?));
            }
            Err(PolicyError::Unknown {
                name: name.to_string(),
                env: crate::e1::NAME.to_string(),
                available: "heuristic, oracle, replay:FILE".to_string(),
            })
        }
    }
}
