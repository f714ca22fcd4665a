//! Rego policies evaluated in-process with `regorus` (spec E2 §1.7).
//!
//! A [`PolicySet`] holds Rego v1 modules loaded from strings (the built-in
//! policies) and from user directories (recursive `*.rego`, `*_test.rego`
//! excluded), with the SHA-256 of every module recorded. It evaluates a deny
//! query for one `input` under an execution time limit, so a hostile policy
//! cannot hang a scan, and validates each deny element against the output
//! contract: valid elements become [`DenyFinding`]s, the others
//! [`RegoError`]s.
//!
//! Hostile policies, and what stops them:
//! - long loops and comprehensions: regorus' execution timer, read at every
//!   work unit ([`DEFAULT_EVAL_LIMIT`]) → [`RegoError::Timeout`];
//! - recursive functions (regorus would overflow the stack and abort): a
//!   call-graph check at load → [`RegoError::Recursion`];
//! - `numbers.range`/`range_step` over huge spans (allocated in one call):
//!   bounded replacements, at most [`MAX_RANGE_ELEMENTS`];
//! - huge literal `sprintf` widths: rejected at load ([`MAX_SPRINTF_WIDTH`]);
//! - engine panics: caught, reported as [`RegoError::Eval`], engine restored.
//!
//! Memory is otherwise bounded only by the time limit (a policy that doubles
//! an array per statement peaks near 0.5 GB under a 200 ms limit).
//!
//! ```
//! use serde_json::json;
//! use svbench_scan::rego::{PolicySet, Severity, K8S_DENY_QUERY};
//!
//! let mut policies = PolicySet::new();
//! policies
//!     .add_policy("demo.rego", r#"
//! package sv.k8s
//! deny contains {"id": "DEMO_1", "severity": "HIGH", "message": "privileged"} if {
//!     input.object.spec.privileged
//! }
//! "#)
//!     .unwrap();
//! let (findings, errors) = policies.eval_deny(K8S_DENY_QUERY, &json!({"object": {"spec": {"privileged": true}}}));
//! assert!(errors.is_empty());
//! assert_eq!(findings[0].severity, Severity::High);
//! ```

mod bounded;
mod deny;
mod format_width;
mod recursion;

use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regorus::utils::limits::ExecutionTimerConfig;
use serde_json::Value;
use sha2::{Digest, Sha256};

pub use crate::Severity;
use crate::{Deadline, TimeBudgetExceeded};
pub use bounded::MAX_RANGE_ELEMENTS;
pub(crate) use deny::short_json;
pub use deny::{is_valid_rule_id, parse_deny_element, DenyElementError, DenyFinding};
pub use format_width::MAX_SPRINTF_WIDTH;

/// Query for Kubernetes policies.
pub const K8S_DENY_QUERY: &str = "data.sv.k8s.deny";
/// Query for Terraform policies.
pub const TF_DENY_QUERY: &str = "data.sv.tf.deny";
/// Query for optional rule metadata (`{id: {severity, title}}`).
pub const META_RULES_QUERY: &str = "data.sv.meta.rules";
/// Execution limit of one evaluation (spec: 1 s).
pub const DEFAULT_EVAL_LIMIT: Duration = Duration::from_secs(1);

/// Why a policy could not be loaded or evaluated, or why a deny element was dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegoError {
    /// A policy file or directory could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// A module did not parse (Rego v1).
    #[error("{name}: policy does not parse: {message}")]
    Parse {
        /// The module's name (file path or given name).
        name: String,
        /// The engine's message, with line and column.
        message: String,
    },
    /// User-defined functions call each other in a cycle (Rego forbids
    /// recursion; regorus would overflow the stack on it).
    #[error("{name}: recursive functions are not allowed: {}", functions.join(", "))]
    Recursion {
        /// The module whose loading closed the cycle.
        name: String,
        /// The functions on (or leading into) the cycle, sorted.
        functions: Vec<String>,
    },
    /// Evaluation failed (compile errors such as undefined functions or
    /// recursion, type errors, builtin errors).
    #[error("evaluating {query} failed: {message}")]
    Eval {
        /// The query.
        query: String,
        /// The engine's message.
        message: String,
    },
    /// Evaluation hit the execution limit.
    #[error("evaluating {query} exceeded the {limit:?} execution limit")]
    Timeout {
        /// The query.
        query: String,
        /// The limit in force.
        limit: Duration,
    },
    /// The query's value is not a set (or array) of elements.
    #[error("{query} is not a set: {found}")]
    NotASet {
        /// The query.
        query: String,
        /// The JSON type found.
        found: String,
    },
    /// A deny element breaks the output contract and was dropped.
    #[error("{query}: dropped deny element {element}: {message}")]
    InvalidDeny {
        /// The query.
        query: String,
        /// The element, as (possibly shortened) JSON.
        element: String,
        /// What is wrong with it.
        message: String,
    },
}

/// A loaded policy module and the hash of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicySource {
    /// The name given, or the file path for directory policies.
    pub name: String,
    /// Lower-case hex SHA-256 of the module text.
    pub sha256: String,
}

/// Catalogue entry registered by `data.sv.meta.rules`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMeta {
    /// Catalogue severity.
    pub severity: Severity,
    /// Human title, if given.
    pub title: Option<String>,
}

/// A set of Rego v1 modules ready for evaluation.
#[derive(Debug, Clone)]
pub struct PolicySet {
    engine: regorus::Engine,
    /// `engine` as it was after the last module was added, to recover from a panic.
    loaded: regorus::Engine,
    sources: Vec<PolicySource>,
    limit: Duration,
    /// The execution limit currently set in `engine`: `limit`, or less while
    /// a deadline leaves less time than that.
    timer: Duration,
}

impl Default for PolicySet {
    fn default() -> Self {
        Self::new()
    }
}

impl PolicySet {
    /// An empty set with the default 1 s execution limit.
    #[must_use]
    pub fn new() -> Self {
        Self::with_limit(DEFAULT_EVAL_LIMIT)
    }

    /// An empty set whose evaluations stop after `limit`.
    #[must_use]
    pub fn with_limit(limit: Duration) -> Self {
        let mut engine = regorus::Engine::new();
        // Rego v1 is regorus' default; set it explicitly so it cannot drift.
        engine.set_rego_v0(false);
        bounded::install(&mut engine).expect("a fresh engine has no extensions yet");
        engine.set_execution_timer_config(timer_config(limit));
        PolicySet {
            loaded: engine.clone(),
            engine,
            sources: Vec::new(),
            limit,
            timer: limit,
        }
    }

    /// Sets the engine's execution limit to `limit` (when it is not already).
    fn set_timer(&mut self, limit: Duration) {
        if self.timer != limit {
            self.engine.set_execution_timer_config(timer_config(limit));
            self.timer = limit;
        }
    }

    /// The modules loaded so far, in load order.
    #[must_use]
    pub fn sources(&self) -> &[PolicySource] {
        &self.sources
    }

    /// One hash for the whole set, for the analyzer version of a scan report:
    /// the SHA-256 of the modules' hex hashes, one per line, in load order.
    #[must_use]
    pub fn policies_sha256(&self) -> String {
        let mut lines = String::new();
        for source in &self.sources {
            lines.push_str(&source.sha256);
            lines.push('\n');
        }
        sha256_hex(lines.as_bytes())
    }

    /// Loads several modules as one unit: all of them or none. The AST
    /// checks run once over the result, not once per module (each run
    /// serialises every loaded module, so one-by-one loading is quadratic).
    ///
    /// # Errors
    /// As [`PolicySet::add_policy`], naming the first module that fails.
    pub fn add_policies(&mut self, modules: &[(&str, &str)]) -> Result<(), RegoError> {
        let mut engine = self.engine.clone();
        for (name, text) in modules {
            let parse_error = |message: String| RegoError::Parse {
                name: (*name).to_owned(),
                message,
            };
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                engine.add_policy((*name).to_owned(), (*text).to_owned())
            }))
            .map_err(|payload| {
                parse_error(format!("the parser panicked: {}", panic_text(&*payload)))
            })?
            .map_err(|e| parse_error(e.to_string()))?;
        }
        let batch = modules
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ");
        check_ast(&engine, &batch)?;
        self.loaded = engine.clone();
        self.engine = engine;
        self.sources
            .extend(modules.iter().map(|(name, text)| PolicySource {
                name: (*name).to_owned(),
                sha256: sha256_hex(text.as_bytes()),
            }));
        Ok(())
    }

    /// Adds one module from text; `name` identifies it in errors.
    ///
    /// # Errors
    ///
    /// [`RegoError::Parse`] when the module is not valid Rego v1,
    /// [`RegoError::Recursion`] when its functions (with those already loaded)
    /// form a call cycle; the set is unchanged then.
    pub fn add_policy(&mut self, name: &str, text: &str) -> Result<(), RegoError> {
        // Load into a copy so that a rejected module leaves the set unchanged
        // (regorus cannot remove a module).
        let mut engine = self.engine.clone();
        let parse_error = |message: String| RegoError::Parse {
            name: name.to_owned(),
            message,
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.add_policy(name.to_owned(), text.to_owned())
        }))
        .map_err(|payload| parse_error(format!("the parser panicked: {}", panic_text(&*payload))))?
        .map_err(|e| parse_error(e.to_string()))?;
        check_ast(&engine, name)?;
        self.loaded = engine.clone();
        self.engine = engine;
        self.sources.push(PolicySource {
            name: name.to_owned(),
            sha256: sha256_hex(text.as_bytes()),
        });
        Ok(())
    }

    /// Adds every `*.rego` file under `dir` (recursively, in path order),
    /// except `*_test.rego`. Symbolic links to directories are not followed.
    ///
    /// Returns the modules loaded and the files that failed; a bad file does
    /// not stop the others from loading.
    pub fn add_policy_dir(&mut self, dir: &Path) -> (Vec<PolicySource>, Vec<RegoError>) {
        self.add_policy_dir_checked(dir, |_| Ok(()))
    }

    /// [`PolicySet::add_policy_dir`], keeping a file only if `check` accepts
    /// the set with it loaded (e.g. a query the file must not break); a
    /// rejected file leaves the set unchanged and its error is returned.
    pub fn add_policy_dir_checked(
        &mut self,
        dir: &Path,
        mut check: impl FnMut(&mut PolicySet) -> Result<(), RegoError>,
    ) -> (Vec<PolicySource>, Vec<RegoError>) {
        let mut files = Vec::new();
        let mut errors = Vec::new();
        collect_rego_files(dir, &mut files, &mut errors);
        files.sort();
        let mut loaded = Vec::new();
        for file in files {
            let name = file.display().to_string();
            let text = match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(e) => {
                    errors.push(RegoError::Io {
                        path: file,
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            // Engines share their modules, so a trial copy is cheap.
            let mut trial = self.clone();
            match trial
                .add_policy(&name, &text)
                .and_then(|()| check(&mut trial))
            {
                Ok(()) => {
                    *self = trial;
                    loaded.extend(self.sources.last().cloned());
                }
                Err(e) => errors.push(e),
            }
        }
        (loaded, errors)
    }

    /// Evaluates `query` (e.g. [`K8S_DENY_QUERY`]) for `input` and validates
    /// the deny set. An undefined query (no policy defines it) yields nothing.
    pub fn eval_deny(&mut self, query: &str, input: &Value) -> (Vec<DenyFinding>, Vec<RegoError>) {
        match RegoInput::from_json(input) {
            Ok(input) => self.eval_deny_input(query, &input),
            Err(e) => (
                Vec::new(),
                vec![RegoError::Eval {
                    query: query.to_owned(),
                    message: e.to_string(),
                }],
            ),
        }
    }

    /// [`PolicySet::eval_deny`] for an input already converted (see [`RegoInput`]).
    pub fn eval_deny_input(
        &mut self,
        query: &str,
        input: &RegoInput,
    ) -> (Vec<DenyFinding>, Vec<RegoError>) {
        let value = match self.eval(query, &input.0) {
            Ok(Some(v)) => v,
            Ok(None) => return (Vec::new(), Vec::new()),
            Err(e) => return (Vec::new(), vec![e]),
        };
        let Value::Array(elements) = value else {
            return (
                Vec::new(),
                vec![RegoError::NotASet {
                    query: query.to_owned(),
                    found: json_type(&value).to_owned(),
                }],
            );
        };
        let mut findings = Vec::new();
        let mut errors = Vec::new();
        for element in &elements {
            match deny::parse_element(query, element) {
                Ok(f) => findings.push(f),
                Err(e) => errors.push(e),
            }
        }
        (findings, errors)
    }

    /// [`PolicySet::eval_deny_input`] inside a total time budget: the
    /// evaluation's limit is the per-policy limit or the time `deadline`
    /// leaves, whichever is smaller, so the last evaluation of a scan ends
    /// with the budget instead of up to a full per-policy limit after it.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when `deadline` has passed before the
    /// evaluation, or the evaluation ran out of the time it left.
    pub fn eval_deny_input_within(
        &mut self,
        query: &str,
        input: &RegoInput,
        deadline: &Deadline,
    ) -> Result<(Vec<DenyFinding>, Vec<RegoError>), TimeBudgetExceeded> {
        deadline.check()?;
        let cut_short = match deadline.remaining() {
            Some(left) if left < self.limit => {
                self.set_timer(left);
                true
            }
            _ => {
                self.set_timer(self.limit);
                false
            }
        };
        let (findings, errors) = self.eval_deny_input(query, input);
        if cut_short {
            // Later evaluations without a deadline get the full limit again.
            self.set_timer(self.limit);
            if errors
                .iter()
                .any(|e| matches!(e, RegoError::Timeout { .. }))
            {
                return Err(deadline.exceeded());
            }
        }
        Ok((findings, errors))
    }

    /// Reads `data.sv.meta.rules` (`{id: {severity, title}}`); entries that
    /// break the shape are reported and skipped. Undefined → empty.
    pub fn meta_rules(&mut self) -> (BTreeMap<String, RuleMeta>, Vec<RegoError>) {
        let mut rules = BTreeMap::new();
        let mut errors = Vec::new();
        let value = match self.eval(META_RULES_QUERY, &regorus::Value::Null) {
            Ok(Some(v)) => v,
            Ok(None) => return (rules, errors),
            Err(e) => return (rules, vec![e]),
        };
        let Value::Object(map) = value else {
            errors.push(RegoError::NotASet {
                query: META_RULES_QUERY.to_owned(),
                found: json_type(&value).to_owned(),
            });
            return (rules, errors);
        };
        for (id, entry) in map {
            let severity = entry
                .get("severity")
                .and_then(Value::as_str)
                .and_then(Severity::parse);
            match severity {
                Some(severity) if is_valid_rule_id(&id) => {
                    let title = entry
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    rules.insert(id, RuleMeta { severity, title });
                }
                _ => errors.push(RegoError::InvalidDeny {
                    query: META_RULES_QUERY.to_owned(),
                    element: format!("{id}: {entry}"),
                    message: "needs a valid id and severity low|med|high".into(),
                }),
            }
        }
        (rules, errors)
    }

    /// Evaluates `query`; `None` when it is undefined.
    fn eval(&mut self, query: &str, input: &regorus::Value) -> Result<Option<Value>, RegoError> {
        let eval_error = |message: String| RegoError::Eval {
            query: query.to_owned(),
            message,
        };
        // A reference-counted copy: the input's parts are shared, not copied.
        self.engine.set_input(input.clone());
        // regorus can panic on hostile policies (e.g. `sprintf` widths written
        // with non-ASCII digits); a panic is this evaluation's error, and the
        // engine is rebuilt from the last loaded state since its interpreter
        // may be left mid-evaluation.
        // A plain rule path is evaluated as a rule: `eval_query` parses and
        // schedules the query text and rebuilds rule prefixes on every call,
        // which costs more than most policies' own work. Paths that are not
        // one rule (`rules.ID := …` entries, or no rule there) fall back to
        // a query.
        let as_rule = is_rule_path(query);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if as_rule {
                match self.engine.eval_rule(query.to_owned()) {
                    Err(e) if e.to_string().contains("not a valid rule path") => {}
                    other => return other.map(Some),
                }
            }
            self.engine
                .eval_query(query.to_owned(), false)
                .map(|results| {
                    results
                        .result
                        .into_iter()
                        .next()
                        .and_then(|r| r.expressions.into_iter().next())
                        .map(|e| e.value)
                })
        }));
        let value = match outcome {
            Ok(result) => result.map_err(|e| self.classify(query, &e))?,
            Err(payload) => {
                self.engine = self.loaded.clone();
                self.timer = self.limit;
                return Err(eval_error(format!(
                    "the policy engine panicked: {}",
                    panic_text(&*payload)
                )));
            }
        };
        let Some(value) = value else {
            return Ok(None);
        };
        if value == regorus::Value::Undefined {
            return Ok(None);
        }
        // Sets serialise as arrays in their (sorted) order.
        serde_json::to_value(&value)
            .map(Some)
            .map_err(|e| eval_error(format!("result: {e}")))
    }

    fn classify(&self, query: &str, err: &anyhow::Error) -> RegoError {
        let is_timeout = err.chain().any(|cause| {
            matches!(
                cause.downcast_ref::<regorus::LimitError>(),
                Some(regorus::LimitError::TimeLimitExceeded { .. })
            )
        }) || err.to_string().contains("time limit");
        if is_timeout {
            RegoError::Timeout {
                query: query.to_owned(),
                limit: self.limit,
            }
        } else {
            RegoError::Eval {
                query: query.to_owned(),
                message: format!("{err:#}"),
            }
        }
    }
}

/// A JSON value the policy engine cannot take as input (the conversion's
/// message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("input: {0}")]
pub struct InputError(String);

/// A policy input converted to the engine's value type.
///
/// The engine's values are reference-counted, so cloning a `RegoInput` is
/// cheap: a part shared by many inputs (the `objects` list of a YAML file, a
/// Terraform module view) is converted once and shared by every evaluation.
#[derive(Debug, Clone)]
pub struct RegoInput(regorus::Value);

impl RegoInput {
    /// Converts a JSON value.
    ///
    /// # Errors
    /// The conversion's message (e.g. a number the engine cannot represent).
    pub fn from_json(value: &Value) -> Result<RegoInput, InputError> {
        serde_json::from_value(value.clone())
            .map(RegoInput)
            .map_err(|e| InputError(e.to_string()))
    }

    /// An array of already converted values.
    #[must_use]
    pub fn array(items: Vec<RegoInput>) -> RegoInput {
        RegoInput(regorus::Value::from(
            items.into_iter().map(|i| i.0).collect::<Vec<_>>(),
        ))
    }

    /// An object with string keys and already converted values.
    #[must_use]
    pub fn object<'a>(fields: impl IntoIterator<Item = (&'a str, RegoInput)>) -> RegoInput {
        RegoInput(regorus::Value::from(
            fields
                .into_iter()
                .map(|(k, v)| (regorus::Value::from(k), v.0))
                .collect::<BTreeMap<_, _>>(),
        ))
    }
}

fn collect_rego_files(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<RegoError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(RegoError::Io {
                path: dir.to_owned(),
                message: e.to_string(),
            });
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                errors.push(RegoError::Io {
                    path: dir.to_owned(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            collect_rego_files(&path, files, errors);
            continue;
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // A symlink to a file counts; one to a directory is not followed.
        if name.ends_with(".rego") && !name.ends_with("_test.rego") && path.is_file() {
            files.push(path);
        }
    }
}

/// The load-time defences against hostile policies, over every module
/// loaded in `engine`; `name` names what was just added.
fn check_ast(engine: &regorus::Engine, name: &str) -> Result<(), RegoError> {
    let parse_error = |message: String| RegoError::Parse {
        name: name.to_owned(),
        message,
    };
    let ast = engine
        .get_ast_as_json()
        .map_err(|e| parse_error(e.to_string()))?;
    // The AST is read with serde_json's nesting limit; a module too deep
    // for it is rejected rather than left unchecked.
    let ast: Value = serde_json::from_str(&ast)
        .map_err(|e| parse_error(format!("policy AST unreadable: {e}")))?;
    if let Some(functions) = recursion::function_cycle(&ast) {
        return Err(RegoError::Recursion {
            name: name.to_owned(),
            functions,
        });
    }
    if let Some(format) = format_width::oversized_format(&ast) {
        return Err(parse_error(format!(
            "sprintf format {format:?} has a field width above {MAX_SPRINTF_WIDTH} or non-ASCII digits"
        )));
    }
    Ok(())
}

/// The execution timer of an engine whose evaluations stop after `limit`.
fn timer_config(limit: Duration) -> ExecutionTimerConfig {
    ExecutionTimerConfig {
        limit,
        // Read the clock at every work unit: a statement can double an
        // array, so 64 unchecked units could ask for 2^64 elements. Measured
        // cost: ~7% of a typical evaluation (22 → 23.6 µs).
        check_interval: NonZeroU32::new(1).expect("1 is not zero"),
    }
}

/// Whether `query` is `data.` followed by dot-separated identifiers (a rule
/// path `eval_rule` accepts).
fn is_rule_path(query: &str) -> bool {
    query.strip_prefix("data.").is_some_and(|rest| {
        rest.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The JSON type name of a value, for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
