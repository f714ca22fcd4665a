//! `results.jsonl`, read for the transcript browser of `report.html`.
//!
//! Unlike the lean reader of [`crate::read`], this one keeps what a person
//! reads: prompt, every turn, tool calls and results, parsed answer, reward
//! components and errors. Fields are taken as raw JSON text (never
//! re-serialised) and copied into the page with `<` escaped, so the cost per
//! record is one validating parse plus a copy. Lines are parsed on all cores
//! in chunks; prompt messages repeated across samples (system prompts) are
//! stored once.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use svbench_core::ParseStatus;

use crate::e1::outcome::{classify, Prediction};
use crate::error::ReportError;
use crate::read::records::{map_lines, split_lines};
use crate::read::RecordView;

/// How a sample is filed in the browser (legend in the page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// The sample errored (no reward).
    Error,
    /// No usable answer (`parse.status` invalid or no_answer).
    Invalid,
    /// Graded wrong.
    Wrong,
    /// E1: the model abstained.
    Abstain,
    /// Graded correct.
    Correct,
    /// Scored, in an environment without a correct/wrong rule (E3–E6).
    Scored,
}

impl Outcome {
    /// Every outcome, in display order.
    pub const ALL: [Outcome; 6] = [
        Outcome::Correct,
        Outcome::Wrong,
        Outcome::Abstain,
        Outcome::Invalid,
        Outcome::Error,
        Outcome::Scored,
    ];

    /// The name used in the page and in `#outcome=` fragments.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Error => "error",
            Outcome::Invalid => "invalid",
            Outcome::Wrong => "wrong",
            Outcome::Abstain => "abstain",
            Outcome::Correct => "correct",
            Outcome::Scored => "scored",
        }
    }
}

/// Which grading rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grading {
    /// E1: predicted label against the gold label.
    E1,
    /// E2: the scored findings equal the oracle's.
    E2,
    /// Other environments: no correct/wrong rule.
    Other,
}

/// One sample of the browser.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Example id.
    pub example_id: String,
    /// Position in the selection.
    pub index: Option<usize>,
    /// Rollout number.
    pub rollout_index: usize,
    /// Split.
    pub split: String,
    /// How it is filed.
    pub outcome: Outcome,
    /// Total reward.
    pub reward: Option<f64>,
    /// Reward profile that scored it.
    pub reward_profile: String,
    /// One line shown in the list (prediction, or start of the completion).
    pub preview: String,
    /// Prompt messages: indices into [`Samples::messages`].
    pub prompt: Vec<u32>,
    /// The rest of the transcript as a JSON object (raw fields, `<` not yet
    /// escaped).
    pub detail: String,
}

/// The samples of a run.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Sorted by `(index, rollout_index)`; for a repeated key the last line wins.
    pub samples: Vec<Sample>,
    /// Distinct prompt messages (raw JSON).
    pub messages: Vec<String>,
    /// Reading notes (torn last line, superseded lines).
    pub warnings: Vec<String>,
}

/// Raw view of a line: every field the browser shows, unparsed.
#[derive(Deserialize)]
struct LineView<'a> {
    #[serde(default, borrow)]
    index: Option<&'a RawValue>,
    #[serde(default, borrow)]
    rollout_index: Option<&'a RawValue>,
    #[serde(default, borrow)]
    example_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    split: Option<&'a RawValue>,
    #[serde(default, borrow)]
    question: Option<&'a RawValue>,
    #[serde(default, borrow)]
    prompt: Option<&'a RawValue>,
    #[serde(default, borrow)]
    answer: Option<&'a RawValue>,
    #[serde(default, borrow)]
    completion: Option<&'a RawValue>,
    #[serde(default, borrow)]
    completion_messages: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_interactions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    parsed: Option<&'a RawValue>,
    #[serde(default, borrow)]
    parse: Option<&'a RawValue>,
    #[serde(default, borrow)]
    reward: Option<&'a RawValue>,
    #[serde(default, borrow)]
    rewards: Option<&'a RawValue>,
    #[serde(default, borrow)]
    reward_profile: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
    #[serde(default, borrow)]
    completion_error: Option<&'a RawValue>,
    #[serde(default, borrow)]
    predicted_label: Option<&'a RawValue>,
    #[serde(default, borrow)]
    confidence: Option<&'a RawValue>,
    #[serde(default, borrow)]
    truncated: Option<&'a RawValue>,
    #[serde(default, borrow)]
    latency_ms: Option<&'a RawValue>,
    #[serde(default, borrow)]
    turns: Option<&'a RawValue>,
}

/// A parsed line before prompt interning: prompt messages are borrowed
/// from the read buffer, with a hash computed on the parsing thread.
struct Parsed<'a> {
    sample: Sample,
    prompt: Vec<(u64, &'a str)>,
}

/// Reads `results.jsonl` for the browser. A missing file is an empty run;
/// a torn or unparseable last line is skipped with a warning; any other
/// unparseable line is an error naming it (as [`crate::read`]).
pub fn read_samples(path: &Path, grading: Grading) -> Result<Samples, ReportError> {
    let read_err = |source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Samples::default()),
        Err(e) => return Err(read_err(e)),
    };
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + CHUNK / 4);
    let mut next_line = 1usize;
    let mut kept: Vec<(usize, Sample, Vec<u32>)> = Vec::new();
    // Message hash → ids of the distinct messages with that hash.
    let mut interned: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut messages: Vec<String> = Vec::new();
    let mut failed: Option<(usize, String)> = None;
    let mut eof = false;
    while !eof {
        let start = buf.len();
        buf.resize(start + CHUNK, 0);
        let got = read_full(&mut file, &mut buf[start..]).map_err(read_err)?;
        buf.truncate(start + got);
        eof = got == 0;
        let end = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None => continue,
            }
        };
        let lines = split_lines(&buf[..end], &mut next_line);
        for (line, result) in parse_lines(&lines, grading, threads) {
            if let Some((bad, message)) = failed.take() {
                return Err(ReportError::ResultsLine {
                    path: path.to_path_buf(),
                    line: bad,
                    message,
                });
            }
            match result {
                Ok(p) => {
                    let ids = p
                        .prompt
                        .into_iter()
                        .map(|(hash, m)| {
                            let bucket = interned.entry(hash).or_default();
                            match bucket.iter().find(|&&id| messages[id as usize] == m) {
                                Some(&id) => id,
                                None => {
                                    let id = u32::try_from(messages.len()).unwrap_or(u32::MAX);
                                    bucket.push(id);
                                    messages.push(m.to_string());
                                    id
                                }
                            }
                        })
                        .collect();
                    kept.push((line, p.sample, ids));
                }
                Err(message) => failed = Some((line, message)),
            }
        }
        buf.drain(..end);
    }
    let mut warnings = Vec::new();
    if let Some((line, message)) = failed {
        warnings.push(format!(
            "results.jsonl line {line} is torn or unparseable ({message}); it is the last line and was skipped"
        ));
    }
    let (samples, superseded) = dedupe_and_sort(kept);
    if superseded > 0 {
        warnings.push(format!(
            "{superseded} line(s) of results.jsonl were superseded by a later line with the same key"
        ));
    }
    Ok(Samples {
        samples,
        messages,
        warnings,
    })
}

const CHUNK: usize = 8 << 20;

fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

type LineResult<'a> = (usize, Result<Parsed<'a>, String>);

fn parse_lines<'a>(
    lines: &[(usize, &'a [u8])],
    grading: Grading,
    threads: usize,
) -> Vec<LineResult<'a>> {
    map_lines(lines, threads, |l| parse_line(l, grading))
}

/// `Some(value)` for a present, non-null raw field.
fn present(raw: Option<&RawValue>) -> Option<&RawValue> {
    raw.filter(|r| r.get() != "null")
}

fn typed<T: serde::de::DeserializeOwned>(raw: Option<&RawValue>) -> Option<T> {
    serde_json::from_str(present(raw)?.get()).ok()
}

/// A raw field as text: strings unquoted, other values as their JSON.
fn text(raw: Option<&RawValue>) -> String {
    match present(raw) {
        None => String::new(),
        Some(r) => serde_json::from_str::<String>(r.get()).unwrap_or_else(|_| r.get().to_string()),
    }
}

fn parse_line(line: &[u8], grading: Grading) -> Result<Parsed<'_>, String> {
    let v: LineView = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    let errored = present(v.error).is_some() || present(v.completion_error).is_some();
    let parsed: Option<Value> = typed(v.parsed);
    let outcome = if errored {
        Outcome::Error
    } else {
        grade(&v, parsed.as_ref(), grading)
    };
    let reward: Option<f64> = typed(v.reward);
    let completion = text(v.completion);
    let preview = preview(&v, parsed.as_ref(), grading, &completion);
    let prompt: Vec<(u64, &str)> = present(v.prompt)
        .and_then(|p| serde_json::from_str::<Vec<&RawValue>>(p.get()).ok())
        .map(|msgs| {
            msgs.iter()
                .map(|m| {
                    let mut h = std::hash::DefaultHasher::new();
                    m.get().hash(&mut h);
                    (h.finish(), m.get())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut detail = String::with_capacity(line.len() / 2);
    detail.push('{');
    let fields: [(&str, Option<&RawValue>); 16] = [
        ("question", v.question),
        ("answer", v.answer),
        ("completion", v.completion),
        ("completion_messages", v.completion_messages),
        ("tool_interactions", v.tool_interactions),
        ("parse", v.parse),
        ("parsed", v.parsed),
        ("reward", v.reward),
        ("rewards", v.rewards),
        ("reward_profile", v.reward_profile),
        ("error", v.error),
        ("completion_error", v.completion_error),
        ("truncated", v.truncated),
        ("latency_ms", v.latency_ms),
        ("turns", v.turns),
        (
            "prompt_raw",
            present(v.prompt).filter(|_| prompt.is_empty()),
        ),
    ];
    let mut first = true;
    for (key, raw) in fields {
        let Some(raw) = present(raw) else { continue };
        if !first {
            detail.push(',');
        }
        first = false;
        detail.push('"');
        detail.push_str(key);
        detail.push_str("\":");
        detail.push_str(raw.get());
    }
    detail.push('}');
    Ok(Parsed {
        sample: Sample {
            example_id: text(v.example_id),
            index: typed(v.index),
            rollout_index: typed(v.rollout_index).unwrap_or(0),
            split: text(v.split),
            outcome,
            reward,
            reward_profile: text(v.reward_profile),
            preview,
            prompt: Vec::new(),
            detail,
        },
        prompt,
    })
}

/// The outcome of a non-errored sample.
fn grade(v: &LineView, parsed: Option<&Value>, grading: Grading) -> Outcome {
    let parse: Option<svbench_core::ParseRecord> = typed(v.parse);
    if let Some(p) = &parse {
        if matches!(p.status, ParseStatus::Invalid | ParseStatus::NoAnswer) {
            return Outcome::Invalid;
        }
    }
    match grading {
        Grading::E1 => {
            let view = RecordView {
                answer: typed(v.answer).unwrap_or(Value::Null),
                parsed: parsed.cloned(),
                parse,
                predicted_label: typed(v.predicted_label),
                confidence: typed(v.confidence),
                ..RecordView::default()
            };
            match classify(&view) {
                // A gold label that is not Malicious/Benign cannot be graded.
                Err(_) => Outcome::Invalid,
                Ok(s) => match s.prediction {
                    Prediction::Invalid => Outcome::Invalid,
                    Prediction::Abstain => Outcome::Abstain,
                    Prediction::Malicious | Prediction::Benign => {
                        if (s.prediction == Prediction::Malicious) == s.gold_malicious {
                            Outcome::Correct
                        } else {
                            Outcome::Wrong
                        }
                    }
                },
            }
        }
        Grading::E2 => {
            let profile = text(v.reward_profile);
            if e2_exact(parsed, &profile) {
                Outcome::Correct
            } else {
                Outcome::Wrong
            }
        }
        Grading::Other => Outcome::Scored,
    }
}

/// E2: the scored findings equal the oracle's — `parsed.detection.<profile>`
/// has no false positive and no false negative; without that block, the
/// id sets of `parsed.prediction` and `parsed.oracle` are equal.
fn e2_exact(parsed: Option<&Value>, profile: &str) -> bool {
    let Some(parsed) = parsed else { return false };
    let profile = if profile.is_empty() { "v1" } else { profile };
    if let Some(d) = parsed
        .get("detection")
        .and_then(|d| d.get(profile))
        .filter(|d| d.is_object())
    {
        let zero = |k: &str| d.get(k).and_then(Value::as_f64) == Some(0.0);
        return zero("fp") && zero("fn");
    }
    let ids = |key: &str| -> Option<std::collections::BTreeSet<String>> {
        parsed.get(key)?.as_array().map(|a| {
            a.iter()
                .filter_map(|e| e.get("id").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
    };
    match (ids("prediction"), ids("oracle")) {
        (Some(p), Some(o)) => p == o,
        _ => false,
    }
}

const PREVIEW_CHARS: usize = 100;

/// One line for the list: E1 prediction and gold, else the completion's start.
fn preview(v: &LineView, parsed: Option<&Value>, grading: Grading, completion: &str) -> String {
    let mut out = String::new();
    if grading == Grading::E1 {
        let label = parsed
            .and_then(|p| p.get("label"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| text(v.predicted_label));
        let conf = parsed
            .and_then(|p| p.get("confidence"))
            .and_then(Value::as_f64)
            .or_else(|| typed(v.confidence));
        if !label.is_empty() {
            out.push_str(&label);
            if let Some(c) = conf {
                out.push_str(&format!(" ({c})"));
            }
            out.push_str(" · gold ");
            out.push_str(&text(v.answer));
            return out;
        }
    }
    if let Some(e) = present(v.error).and_then(|e| serde_json::from_str::<Value>(e.get()).ok()) {
        let kind = e.get("kind").and_then(Value::as_str).unwrap_or("error");
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        out = format!("{kind}: {msg}");
    } else {
        out.push_str(completion);
    }
    let collapsed: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(PREVIEW_CHARS) {
        Some((i, _)) => format!("{}…", &collapsed[..i]),
        None => collapsed,
    }
}

#[derive(PartialEq, Eq, Hash)]
enum Key {
    Id(String, usize),
    Index(usize, usize),
    Line(usize),
}

/// Last line per `(example_id, rollout_index)` wins; sorted by
/// `(index, rollout_index)`, file order breaking ties (as [`crate::read`]).
fn dedupe_and_sort(lines: Vec<(usize, Sample, Vec<u32>)>) -> (Vec<Sample>, usize) {
    let mut slot: HashMap<Key, usize> = HashMap::with_capacity(lines.len());
    let mut alive = vec![true; lines.len()];
    let mut superseded = 0;
    for (pos, (line, s, _)) in lines.iter().enumerate() {
        let key = if !s.example_id.is_empty() {
            Key::Id(s.example_id.clone(), s.rollout_index)
        } else if let Some(i) = s.index {
            Key::Index(i, s.rollout_index)
        } else {
            Key::Line(*line)
        };
        if let Some(old) = slot.insert(key, pos) {
            alive[old] = false;
            superseded += 1;
        }
    }
    let mut order: Vec<(usize, usize, usize, usize)> = lines
        .iter()
        .enumerate()
        .filter(|(pos, _)| alive[*pos])
        .map(|(pos, (line, s, _))| (s.index.unwrap_or(pos), s.rollout_index, *line, pos))
        .collect();
    order.sort_unstable();
    let mut slots: Vec<Option<(Sample, Vec<u32>)>> = lines
        .into_iter()
        .map(|(_, s, ids)| Some((s, ids)))
        .collect();
    let samples = order
        .iter()
        .filter_map(|&(_, _, _, pos)| slots[pos].take())
        .map(|(mut s, ids)| {
            s.prompt = ids;
            s
        })
        .collect();
    (samples, superseded)
}
