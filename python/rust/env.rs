//! `svbench._native.Env`: a configured environment with its loaded rows,
//! scoring, tool calls and episodes, all delegated to svbench-api.

use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Map, Value};
use svbench_api::envs::{kind_name, Configured, EnvConfig, EnvId};
use svbench_api::rows::{load_split, row, DataRequest, SplitData};
use svbench_api::score::{inline_example, score_json, ScoreRequest, ScoreResponse};
use svbench_api::session::{Session, ToolCalls};
use svbench_api::{ApiError, ErrorCode, FsAccess, Service};
use svbench_core::Example;

use crate::convert::{from_py, to_py};
use crate::errors::{config_error, scoring_error, UnknownArgumentError};

/// Configured environments are shared by every `Env` of the process.
fn service() -> &'static Service {
    static SERVICE: OnceLock<Service> = OnceLock::new();
    // In-process: the caller is the local user, whose own files the path
    // arguments (`policy_dirs`, `semgrep_config`) name.
    SERVICE.get_or_init(|| Service::with_fs_access(FsAccess::Local))
}

/// A configured environment and the splits loaded through it.
#[pyclass(module = "svbench._native", name = "Env", frozen)]
pub struct PyEnv {
    configured: Arc<Configured>,
    /// Splits loaded by [`PyEnv::load`], searched by example id (first wins).
    loaded: RwLock<Vec<Arc<SplitData>>>,
    /// Embedded splits searched after `loaded`, default split first, each
    /// loaded on first need: scoring by id needs no prior `load`, as with
    /// `svbench serve`. Kept apart from `loaded` so a later `load` of other
    /// rows still takes precedence.
    embedded: RwLock<Vec<Arc<SplitData>>>,
}

/// An example found by id among the loaded splits, or built inline.
enum Found {
    Loaded(Arc<SplitData>, String),
    Inline(Box<Example>),
}

impl Found {
    fn example(&self) -> &Example {
        match self {
            Found::Loaded(split, id) => split
                .by_id(id)
                .expect("Found::Loaded holds an id its split has"),
            Found::Inline(e) => e,
        }
    }
}

impl std::fmt::Debug for PyEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Env")
            .field("configured", &self.configured)
            .finish_non_exhaustive()
    }
}

impl PyEnv {
    fn find_loaded(&self, id: &str) -> Option<Arc<SplitData>> {
        self.loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|s| s.by_id(id).is_some())
            .cloned()
    }

    /// The split holding `id`: a loaded one, else an embedded split, the
    /// rows `load(split)` gives (loaded here if not yet).
    fn find_split(&self, id: &str) -> Result<Option<Arc<SplitData>>, ApiError> {
        if let Some(split) = self.find_loaded(id) {
            return Ok(Some(split));
        }
        let holding = |splits: &[Arc<SplitData>]| {
            splits
                .iter()
                .find(|s| s.by_id(id).is_some())
                .map(Arc::clone)
        };
        if let Some(split) = holding(&self.embedded.read().unwrap_or_else(PoisonError::into_inner))
        {
            return Ok(Some(split));
        }
        let mut embedded = self
            .embedded
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        // Another thread may have loaded more splits meanwhile.
        if let Some(split) = holding(&embedded) {
            return Ok(Some(split));
        }
        let entry = self.configured.entry;
        let order = std::iter::once(entry.default_split).chain(
            entry
                .splits
                .iter()
                .copied()
                .filter(|s| *s != entry.default_split),
        );
        for name in order.skip(embedded.len()) {
            let data = service().split(&self.configured, name)?;
            embedded.push(Arc::clone(&data));
            if data.by_id(id).is_some() {
                return Ok(Some(data));
            }
        }
        Ok(None)
    }

    /// [`PyEnv::find_split`]'s miss as an `unknown_example` error.
    fn unknown_example(&self, id: &str) -> ApiError {
        ApiError::new(
            ErrorCode::UnknownExample,
            format!(
                "no example `{id}` in the embedded splits of {} ({}) or the rows loaded (load \
                 its dataset, or pass answer, info and question inline)",
                self.configured.entry.name(),
                self.configured.entry.splits.join(", ")
            ),
        )
    }

    /// The example to score or run tools against: a loaded row by id, else
    /// an inline reference (`answer`, `info`, `question`).
    fn resolve(
        &self,
        example_id: Option<String>,
        answer: Option<Value>,
        info: Option<Value>,
        question: Option<String>,
        need_answer: bool,
    ) -> Result<Found, ApiError> {
        if let Some(id) = &example_id {
            // With an inline reference to fall back on, an id that is not
            // found (or splits that fail to load) is not an error. Where the
            // registry says scoring reads the question, a question is a
            // reference of its own (E2's rows have no answer); an environment
            // that also needs an answer (E4) refuses a missing one when it scores.
            let scores_by_question = self.configured.entry.inline_question.is_some();
            let inline =
                answer.is_some() || (question.is_some() && (!need_answer || scores_by_question));
            match self.find_split(id) {
                Ok(Some(split)) => return Ok(Found::Loaded(split, id.clone())),
                Ok(None) if !inline => return Err(self.unknown_example(id)),
                Err(e) if !inline => return Err(e),
                Ok(None) | Err(_) => {}
            }
        }
        // Without an answer, scoring reads `info` and `question` only (an
        // environment that needs an answer says so); tool calls need only
        // the workspace.
        let answer = answer.or((!need_answer || question.is_some()).then_some(Value::Null));
        let req = ScoreRequest {
            answer,
            info,
            question,
            ..ScoreRequest::default()
        };
        inline_example(EnvId::from(self.configured.entry), &req).map(|e| Found::Inline(Box::new(e)))
    }
}

fn opt_value(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => from_py(o).map(Some),
    }
}

/// A typed record part as the JSON value it is written as.
fn json_err(e: serde_json::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The score as a dict: `reward`, `rewards`, `weights`, `reward_profile`,
/// `reward_config_hash`, `parse`, `parsed`, `compat`, `example_id`.
fn score_dict<'py>(py: Python<'py>, s: &ScoreResponse) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("reward", s.reward)?;
    let rewards = PyDict::new(py);
    for (k, v) in &s.rewards {
        rewards.set_item(k, *v)?;
    }
    d.set_item("rewards", rewards)?;
    let weights = PyDict::new(py);
    for (k, v) in &s.weights {
        weights.set_item(k, *v)?;
    }
    d.set_item("weights", weights)?;
    d.set_item("reward_profile", &s.reward_profile)?;
    d.set_item("reward_config_hash", &s.reward_config_hash)?;
    let parse = PyDict::new(py);
    parse.set_item(
        "status",
        serde_json::to_value(s.parse.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned)),
    )?;
    parse.set_item("reason", s.parse.reason.as_deref())?;
    parse.set_item("format_ok", s.parse.format_ok)?;
    d.set_item("parse", parse)?;
    d.set_item(
        "parsed",
        to_py(py, &serde_json::to_value(&s.parsed).map_err(json_err)?)?,
    )?;
    d.set_item(
        "compat",
        to_py(py, &serde_json::to_value(&s.compat).map_err(json_err)?)?,
    )?;
    d.set_item("example_id", s.example_id.as_deref())?;
    Ok(d)
}

#[pymethods]
impl PyEnv {
    /// Configures an environment by name or alias.
    #[new]
    #[pyo3(signature = (name, reward_profile=None, reward_config=None, env_args=None, max_turns=None, tool_budget=None))]
    fn new(
        py: Python<'_>,
        name: &str,
        reward_profile: Option<String>,
        reward_config: Option<&Bound<'_, PyAny>>,
        env_args: Option<&Bound<'_, PyAny>>,
        max_turns: Option<u32>,
        tool_budget: Option<u32>,
    ) -> PyResult<Self> {
        let id = EnvId::resolve(name).map_err(config_error)?;
        let env_args = match opt_value(env_args)? {
            None => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(PyValueError::new_err("env_args must be a dict")),
        };
        if let Some(unknown) = env_args
            .keys()
            .find(|k| !id.arg_names().contains(&k.as_str()))
        {
            let known = if id.arg_names().is_empty() {
                "none".to_string()
            } else {
                id.arg_names().join(", ")
            };
            return Err(UnknownArgumentError::new_err(format!(
                "{} has no argument `{unknown}` (its own arguments: {known})",
                id.name()
            )));
        }
        let config = EnvConfig {
            reward_profile,
            reward_config: opt_value(reward_config)?,
            env_args,
            max_turns,
            tool_budget,
        };
        let configured = py
            .detach(|| service().configured(id, &config))
            .map_err(config_error)?;
        Ok(Self {
            configured,
            loaded: RwLock::new(Vec::new()),
            embedded: RwLock::new(Vec::new()),
        })
    }

    /// Canonical environment name.
    #[getter]
    fn name(&self) -> &'static str {
        self.configured.entry.name()
    }

    /// Environment version.
    #[getter]
    fn version(&self) -> &'static str {
        self.configured.entry.version
    }

    /// `single_turn`, `tool` or `multi_turn`.
    #[getter]
    fn kind(&self) -> &'static str {
        kind_name(self.configured.env.kind())
    }

    /// Active reward profile.
    #[getter]
    fn profile(&self) -> &'static str {
        self.configured.profile
    }

    /// `reward_config_hash` of the effective reward config.
    #[getter]
    fn config_hash(&self) -> &str {
        &self.configured.config_hash
    }

    /// Turn limit of an episode.
    #[getter]
    fn max_turns(&self) -> u32 {
        self.configured.budgets.max_turns
    }

    /// Tool calls allowed per episode.
    #[getter]
    fn tool_budget(&self) -> u32 {
        self.configured.budgets.tool_budget
    }

    /// The embedded splits.
    #[getter]
    fn splits(&self) -> Vec<&'static str> {
        self.configured.entry.splits.to_vec()
    }

    /// The environment's own argument names.
    #[getter]
    fn arg_names(&self) -> Vec<&'static str> {
        self.configured.entry.arg_names.to_vec()
    }

    /// Components and weights of the profile, in declared order.
    fn weights(&self) -> Vec<(String, f64)> {
        self.configured.weights.clone()
    }

    /// OpenAI `tools` entries offered to the model (empty without tools).
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Array(self.configured.env.tools()))
    }

    /// Loads a split (the `eval` flags of the same names) and returns its
    /// rows: `index`, `example_id`, `question`, `prompt` (the messages
    /// `eval` sends), `answer`, `info`. Loaded rows can be scored by id (so
    /// can the embedded splits' rows without a `load`).
    #[pyo3(signature = (split, dataset="embedded", max_examples=None, shuffle=false, seed=0))]
    fn load<'py>(
        &self,
        py: Python<'py>,
        split: &str,
        dataset: &str,
        max_examples: Option<usize>,
        shuffle: bool,
        seed: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let req = DataRequest {
            dataset: dataset.to_string(),
            split: split.to_string(),
            max_examples,
            shuffle,
            seed,
        };
        let configured = &self.configured;
        let data = py
            .detach(|| {
                if req.dataset == "embedded" && req.max_examples.is_none() && !req.shuffle {
                    service().split(configured, &req.split)
                } else {
                    load_split(configured, &req).map(Arc::new)
                }
            })
            .map_err(config_error)?;
        let rows = PyList::empty(py);
        for example in &data.examples {
            let r = row(configured, example, true);
            let d = PyDict::new(py);
            d.set_item("index", r.index)?;
            d.set_item("example_id", &r.example_id)?;
            d.set_item("question", &example.question)?;
            d.set_item("prompt", to_py(py, &r.prompt)?)?;
            d.set_item("answer", to_py(py, &r.answer)?)?;
            d.set_item("info", to_py(py, &r.info)?)?;
            rows.append(d)?;
        }
        let out = PyDict::new(py);
        out.set_item("split", &data.split)?;
        out.set_item("dataset_sha256", &data.dataset_sha256)?;
        out.set_item("warnings", data.warnings.clone())?;
        out.set_item("rows", rows)?;
        let mut loaded = self.loaded.write().unwrap_or_else(PoisonError::into_inner);
        if !loaded.iter().any(|s| Arc::ptr_eq(s, &data)) {
            loaded.push(data);
        }
        Ok(out)
    }

    /// Scores a completion (a string or a list of message dicts) against an
    /// example by id (loaded, or in an embedded split) or an inline reference (`answer`,
    /// `info`, and `question` where the environment scores against it: E2's
    /// configuration under audit, E4's rendered email).
    #[pyo3(signature = (completion, example_id=None, answer=None, info=None, question=None))]
    fn score<'py>(
        &self,
        py: Python<'py>,
        completion: &Bound<'py, PyAny>,
        example_id: Option<String>,
        answer: Option<&Bound<'py, PyAny>>,
        info: Option<&Bound<'py, PyAny>>,
        question: Option<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let completion = from_py(completion)?;
        let (answer, info) = (opt_value(answer)?, opt_value(info)?);
        let configured = &self.configured;
        let scored = py
            .detach(|| {
                // Resolving may load an embedded split: without the GIL.
                let found = self.resolve(example_id, answer, info, question, true)?;
                let example = found.example();
                let id = matches!(found, Found::Loaded(..)).then_some(example.id.as_str());
                score_json(configured, example, id, &completion)
            })
            .map_err(scoring_error)?;
        score_dict(py, &scored)
    }

    /// Runs one tool call (`arguments` as JSON text) against an example's
    /// workspace; returns `{content, ok, error}` as the runner records it.
    #[pyo3(signature = (name, arguments, example_id=None, question=None, info=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: &str,
        example_id: Option<String>,
        question: Option<String>,
        info: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let info = opt_value(info)?;
        let found = py
            .detach(|| self.resolve(example_id, None, info, question, false))
            .map_err(scoring_error)?;
        let configured = &self.configured;
        let result = py.detach(|| {
            let mut episode = configured.env.start_episode(found.example());
            episode.call_tool(name, arguments)
        });
        let d = PyDict::new(py);
        d.set_item("content", result.content)?;
        d.set_item("ok", result.ok)?;
        d.set_item("error", result.error)?;
        Ok(d)
    }

    /// Starts one rollout's tool calls against an example's workspace (by
    /// id, or inline `question` and `info`), under the tool budget.
    #[pyo3(signature = (example_id=None, question=None, info=None))]
    fn start_tools<'py>(
        &self,
        py: Python<'py>,
        example_id: Option<String>,
        question: Option<String>,
        info: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyToolCalls> {
        let info = opt_value(info)?;
        let found = py
            .detach(|| self.resolve(example_id, None, info, question, false))
            .map_err(scoring_error)?;
        Ok(PyToolCalls {
            inner: Mutex::new(ToolCalls::start(&self.configured, found.example())),
        })
    }

    /// Starts a multi-turn episode of an example by id (loaded, or in an
    /// embedded split).
    fn start_session(&self, py: Python<'_>, example_id: &str) -> PyResult<PySession> {
        let split = py
            .detach(|| self.find_split(example_id))
            .and_then(|s| s.ok_or_else(|| self.unknown_example(example_id)))
            .map_err(scoring_error)?;
        let example = split
            .by_id(example_id)
            .cloned()
            .expect("find_loaded returned a split holding the id");
        let session = Session::start(Arc::clone(&self.configured), example);
        Ok(PySession {
            inner: Mutex::new(session),
        })
    }

    /// Scores the same completion `n` times in Rust and returns the seconds
    /// taken: the baseline the Python overhead benchmark subtracts.
    #[pyo3(signature = (completion, example_id, n))]
    fn _bench_score(
        &self,
        py: Python<'_>,
        completion: &Bound<'_, PyAny>,
        example_id: String,
        n: usize,
    ) -> PyResult<f64> {
        let completion = from_py(completion)?;
        let found = py
            .detach(|| self.resolve(Some(example_id), None, None, None, true))
            .map_err(scoring_error)?;
        let configured = &self.configured;
        py.detach(|| {
            let example = found.example();
            let start = std::time::Instant::now();
            for _ in 0..n {
                score_json(configured, example, Some(&example.id), &completion)?;
            }
            Ok(start.elapsed().as_secs_f64())
        })
        .map_err(scoring_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "Env({}, profile={}, config_hash={})",
            self.configured.entry.name(),
            self.configured.profile,
            self.configured.config_hash
        )
    }
}

/// A multi-turn episode driven from Python (verifiers' MultiTurnEnv).
#[pyclass(module = "svbench._native", name = "Session", frozen)]
pub struct PySession {
    inner: Mutex<Session>,
}

impl std::fmt::Debug for PySession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

impl PySession {
    fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl PySession {
    /// The first messages the model sees.
    fn prompt<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Array(self.lock().prompt().to_vec()))
    }

    /// Tool specifications offered to the model.
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Array(self.lock().tools().to_vec()))
    }

    /// Whether the episode has ended.
    #[getter]
    fn done(&self) -> bool {
        self.lock().done()
    }

    /// Model turns so far.
    #[getter]
    fn turn(&self) -> u32 {
        self.lock().turn()
    }

    /// Every message after the prompt.
    fn transcript<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Array(self.lock().transcript().to_vec()))
    }

    /// The score once done, else None.
    fn reward<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        match self.lock().reward() {
            Some(r) => score_dict(py, r).map(Some),
            None => Ok(None),
        }
    }

    /// Takes the model's next assistant message; returns `{messages, done,
    /// turn, truncated, tool_interactions, reward}`.
    fn step<'py>(
        &self,
        py: Python<'py>,
        message: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let message = from_py(message)?;
        let outcome = py
            .detach(|| self.lock().step(&message))
            .map_err(scoring_error)?;
        let d = PyDict::new(py);
        d.set_item("messages", to_py(py, &Value::Array(outcome.messages))?)?;
        d.set_item("done", outcome.done)?;
        d.set_item("turn", outcome.turn)?;
        d.set_item("truncated", outcome.truncated)?;
        d.set_item(
            "tool_interactions",
            to_py(
                py,
                &serde_json::to_value(&outcome.tool_interactions).map_err(json_err)?,
            )?,
        )?;
        match &outcome.reward {
            Some(r) => d.set_item("reward", score_dict(py, r)?)?,
            None => d.set_item("reward", py.None())?,
        }
        Ok(d)
    }
}

/// One rollout's tool calls, call by call (E2's verifiers tools): the budget
/// and every answer are `eval`'s.
#[pyclass(module = "svbench._native", name = "ToolCalls", frozen)]
pub struct PyToolCalls {
    inner: Mutex<ToolCalls>,
}

impl std::fmt::Debug for PyToolCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCalls").finish_non_exhaustive()
    }
}

impl PyToolCalls {
    fn lock(&self) -> std::sync::MutexGuard<'_, ToolCalls> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl PyToolCalls {
    /// Runs one call (`arguments` as the model's JSON text); returns
    /// `{content, ok, error}`. Past the budget the call is refused with
    /// `budget_exhausted`; every call counts, failed ones too.
    fn call<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let outcome = py.detach(|| self.lock().call(name, arguments));
        let d = PyDict::new(py);
        d.set_item("content", outcome.content)?;
        d.set_item("ok", outcome.ok)?;
        d.set_item("error", outcome.error)?;
        Ok(d)
    }

    /// Calls made so far, refused ones included.
    #[getter]
    fn used(&self) -> u32 {
        self.lock().used()
    }

    /// The tool budget.
    #[getter]
    fn budget(&self) -> u32 {
        self.lock().budget()
    }
}
