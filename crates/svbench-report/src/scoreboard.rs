//! Scoreboards (harness §5.1): one entry per run, computed from the run's
//! artifacts by this library (summaries recomputed, analyzers never run),
//! merged into `<env>_scoreboard.json` and rendered as Markdown.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use svbench_core::identity::EnvIdentity;
use svbench_core::scoreboard::{self as board, BoardEntry, EntryCommon, Scoreboard};
use svbench_core::summary::Summary;

use crate::error::ReportError;
use crate::plugin::{PluginLookup, ReportPlugin};
use crate::{build_report, write, ReportOptions};

/// What an environment puts on its scoreboard: its entry type, how an
/// entry is made from a summary and told apart, and its Markdown table.
pub trait EnvBoard: Sync {
    /// The entry of a summary of this environment.
    ///
    /// # Errors
    /// The entry does not serialise as an object.
    fn entry(&self, head: &EntryHead<'_>) -> Result<BoardEntry, serde_json::Error>;

    /// Whether an entry read from a board file is one of this
    /// environment's.
    fn holds(&self, entry: &BoardEntry) -> bool;

    /// The Markdown table of the board's entries (header, rows and the
    /// notes under it).
    fn table(&self, out: &mut String, board: &[BoardEntry]);

    /// The JSON Schema of an entry (its type's, as `schemars` writes it).
    fn entry_schema(&self) -> Value;
}

/// An entry read as its environment's type (`None` when it does not read).
#[must_use]
pub fn typed<T: serde::de::DeserializeOwned>(entry: &BoardEntry) -> Option<T> {
    T::deserialize(&Value::Object(entry.clone())).ok()
}

/// What every entry takes from a summary.
#[derive(Debug, Clone)]
pub struct EntryHead<'a> {
    /// The summary.
    pub summary: &'a Summary,
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// Dataset spec (empty when unrecorded).
    pub dataset: String,
    /// Headline metric → 95 % interval (the entry keeps those it shows).
    pub ci95: BTreeMap<String, [f64; 2]>,
}

impl EntryHead<'_> {
    /// A headline value.
    #[must_use]
    pub fn value(&self, name: &str) -> Option<f64> {
        self.summary.headline_value(name)
    }

    /// The fields every entry carries, with the intervals named in `keep`.
    #[must_use]
    pub fn common(&self, keep: &[&str]) -> EntryCommon {
        let s = self.summary;
        let mut ci95 = self.ci95.clone();
        ci95.retain(|k, _| keep.contains(&k.as_str()));
        EntryCommon {
            parse_failure_rate: s.validity.parse_failure_rate,
            error_rate: s.validity.error_rate,
            dataset_sha256: s.dataset_sha256.clone(),
            split: s.split.clone(),
            reward_profile: s.reward_profile.clone(),
            reward_mean: s.reward.mean,
            reward_range: s.reward.range,
            svbench_version: s.svbench_version.clone(),
            run_finished_at: s.run_finished_at.clone(),
            ci95,
        }
    }
}

/// The environment a scoreboard covers.
#[derive(Clone, Copy)]
pub struct Board {
    /// Its names.
    pub identity: &'static EnvIdentity,
    /// Its report plugin (which has a board).
    pub plugin: &'static dyn ReportPlugin,
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board")
            .field("environment", &self.identity.name)
            .finish_non_exhaustive()
    }
}

impl Board {
    /// The board of an environment whose plugin has one.
    #[must_use]
    pub fn of(identity: &'static EnvIdentity, plugin: &'static dyn ReportPlugin) -> Option<Self> {
        plugin.board().map(|_| Board { identity, plugin })
    }

    fn board(self) -> &'static dyn EnvBoard {
        self.plugin
            .board()
            .expect("a Board is made only for a plugin with a board")
    }

    /// The short id (`e1`, `e2`, `e4`).
    #[must_use]
    pub fn short(self) -> &'static str {
        self.identity.short
    }

    fn canonical(self) -> &'static str {
        self.identity.name
    }

    /// `<short>_scoreboard.json` in `dir`.
    #[must_use]
    pub fn json_path(self, dir: &Path) -> PathBuf {
        dir.join(format!("{}_scoreboard.json", self.short()))
    }

    /// `<short>_scoreboard.md` in `dir`.
    #[must_use]
    pub fn md_path(self, dir: &Path) -> PathBuf {
        dir.join(format!("{}_scoreboard.md", self.short()))
    }
}

/// Why a scoreboard could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ScoreboardError {
    /// A run's report could not be computed.
    #[error("{}: {source}", path.display())]
    Run {
        /// The run directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: ReportError,
    },
    /// A run has no record, so no summary.
    #[error("{}: the run has no result record, so it has no scoreboard entry", .0.display())]
    Empty(PathBuf),
    /// A run of another environment.
    #[error("{}: a run of `{found}`, not of `{expected}`", path.display())]
    WrongEnvironment {
        /// The run directory.
        path: PathBuf,
        /// Its environment.
        found: String,
        /// The scoreboard's.
        expected: String,
    },
    /// Two given runs share a run id.
    #[error("runs {} and {} share run id `{run_id}`", first.display(), second.display())]
    DuplicateRunId {
        /// The run id.
        run_id: String,
        /// One run directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// The existing scoreboard file is not a scoreboard.
    #[error("{}: not a scoreboard: {message}", path.display())]
    BadFile {
        /// The file.
        path: PathBuf,
        /// The parse error.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The entry of one summary on `board`.
///
/// # Errors
/// The environment's entry does not serialise as an object.
pub fn entry_of(board: &dyn EnvBoard, summary: &Summary) -> Result<BoardEntry, serde_json::Error> {
    // A few-shot run is another row than the same model zero-shot.
    let baseline =
        summary
            .metadata
            .baseline_name
            .clone()
            .unwrap_or_else(|| match summary.metadata.few_shot {
                Some(k) => format!("{} ({k}-shot)", summary.model),
                None => summary.model.clone(),
            });
    let ci95 = summary
        .headline
        .iter()
        .filter_map(|m| Some((m.name.clone(), m.ci95?)))
        .collect();
    board.entry(&EntryHead {
        summary,
        baseline,
        dataset: summary.dataset.clone().unwrap_or_default(),
        ci95,
    })
}

/// Computes the entries of `runs` (recomputing each summary with the
/// default bootstrap settings). Two runs with one run id are an error.
pub fn entries(
    env: Board,
    runs: &[PathBuf],
    plugins: PluginLookup,
) -> Result<Vec<BoardEntry>, ScoreboardError> {
    let mut out = Vec::with_capacity(runs.len());
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    let opts = ReportOptions {
        // The entry holds no generation time; fix it so nothing reads a clock.
        timestamp: Some("1970-01-01T00:00:00Z".to_string()),
        // Entries need the summary only.
        no_plots: true,
        ..ReportOptions::new(plugins)
    };
    for dir in runs {
        let built = build_report(dir, &opts).map_err(|source| ScoreboardError::Run {
            path: dir.clone(),
            source,
        })?;
        let summary = built
            .summary
            .ok_or_else(|| ScoreboardError::Empty(dir.clone()))?;
        if summary.environment != env.canonical() {
            return Err(ScoreboardError::WrongEnvironment {
                path: dir.clone(),
                found: summary.environment.clone(),
                expected: env.canonical().to_string(),
            });
        }
        if let Some(first) = seen.insert(summary.run_id.clone(), dir.clone()) {
            return Err(ScoreboardError::DuplicateRunId {
                run_id: summary.run_id.clone(),
                first,
                second: dir.clone(),
            });
        }
        let entry = entry_of(env.board(), &summary).map_err(|e| ScoreboardError::BadFile {
            path: dir.clone(),
            message: format!("the run's entry does not serialise: {e}"),
        })?;
        out.push(entry);
    }
    Ok(out)
}

/// Reads an existing scoreboard of `env` (`None` when the file does not
/// exist); an entry of another environment makes it a bad file.
pub fn read_board(env: Board, path: &Path) -> Result<Option<Scoreboard>, ScoreboardError> {
    let bad = |message: String| ScoreboardError::BadFile {
        path: path.to_path_buf(),
        message,
    };
    let board: Scoreboard = match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ScoreboardError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if let Some(e) = board.iter().find(|e| !env.board().holds(e)) {
        return Err(bad(format!(
            "the entry of run `{}` is not an {} entry",
            board::run_id(e),
            env.short()
        )));
    }
    Ok(Some(board))
}

/// Merges `fresh` into `existing`: entries of other runs are kept, an entry
/// with the run id of a fresh one is replaced; the result is sorted.
pub fn merge(existing: Scoreboard, fresh: Vec<BoardEntry>) -> Scoreboard {
    let ids: BTreeSet<String> = fresh.iter().map(|e| board::run_id(e).to_string()).collect();
    let mut entries: Scoreboard = existing
        .into_iter()
        .filter(|e| !ids.contains(board::run_id(e)))
        .chain(fresh)
        .collect();
    entries.sort_by(|a, b| board::sort_key(a).cmp(&board::sort_key(b)));
    entries
}

/// The JSON text of a board (pretty, trailing newline).
pub fn board_json(board: &Scoreboard) -> String {
    let mut s = serde_json::to_string_pretty(board).expect("scoreboard entries serialise");
    s.push('\n');
    s
}

/// Three decimals.
pub fn num(v: f64) -> String {
    format!("{v:.3}")
}

/// Three decimals, `n/a` when undefined.
pub fn opt(v: Option<f64>) -> String {
    v.map(num)
        .unwrap_or_else(|| crate::markdown::NA.to_string())
}

/// `0.812 (0.000 to 1.300)`: the mean reward and the profile's range.
pub fn reward(c: &EntryCommon) -> String {
    match c.reward_range {
        Some([lo, hi]) => format!("{} ({} to {})", opt(c.reward_mean), num(lo), num(hi)),
        None => opt(c.reward_mean),
    }
}

/// `[0.100, 0.900]`: the interval of `key`, `—` when undefined.
pub fn ci(c: &EntryCommon, key: &str) -> String {
    c.ci95
        .get(key)
        .map(|[l, h]| format!("[{}, {}]", num(*l), num(*h)))
        .unwrap_or_else(|| "—".to_string())
}

/// The Markdown rendering: three decimals, the latest `run_finished_at` as
/// the date (never today's).
pub fn board_markdown(env: Board, entries: &Scoreboard) -> String {
    let latest = entries
        .iter()
        .filter_map(|e| e.get("run_finished_at").and_then(Value::as_str))
        .max()
        .unwrap_or("—");
    let mut s = format!(
        "# {} scoreboard\n\nLatest run finished {latest}. {} run(s); generated by svbench from run artifacts (`svbench scoreboard --env {}`).\n\n",
        env.short().to_uppercase(),
        entries.len(),
        env.short()
    );
    env.board().table(&mut s, entries);
    s
}

/// What [`update`] wrote.
#[derive(Debug, Clone)]
pub struct UpdateOutcome {
    /// The JSON file.
    pub json_path: PathBuf,
    /// The Markdown file.
    pub md_path: PathBuf,
    /// Entries in the board after the update.
    pub entries: usize,
}

/// Computes the entries of `runs` and merges them into the scoreboard in
/// `out_dir` (created if needed), writing JSON and Markdown atomically.
pub fn update(
    env: Board,
    runs: &[PathBuf],
    out_dir: &Path,
    plugins: PluginLookup,
) -> Result<UpdateOutcome, ScoreboardError> {
    let fresh = entries(env, runs, plugins)?;
    let json_path = env.json_path(out_dir);
    let existing = read_board(env, &json_path)?.unwrap_or_default();
    let board = merge(existing, fresh);
    std::fs::create_dir_all(out_dir).map_err(|source| ScoreboardError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: ReportError| match e {
            ReportError::Write { source, .. } => ScoreboardError::Io { path, source },
            other => ScoreboardError::Run {
                path,
                source: other,
            },
        }
    };
    write::write_atomic(&json_path, board_json(&board).as_bytes()).map_err(io(&json_path))?;
    let md_path = env.md_path(out_dir);
    write::write_atomic(&md_path, board_markdown(env, &board).as_bytes()).map_err(io(&md_path))?;
    Ok(UpdateOutcome {
        json_path,
        md_path,
        entries: board.len(),
    })
}

/// `scoreboard --check`: recomputes the entries of `runs` and lists every
/// run whose entry in the file is missing or differs (empty = passed).
pub fn check(
    env: Board,
    runs: &[PathBuf],
    out_dir: &Path,
    plugins: PluginLookup,
) -> Result<Vec<String>, ScoreboardError> {
    let fresh = entries(env, runs, plugins)?;
    let json_path = env.json_path(out_dir);
    let bytes = match std::fs::read(&json_path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(vec![format!("{} is missing", json_path.display())]);
        }
        Err(source) => {
            return Err(ScoreboardError::Io {
                path: json_path,
                source,
            })
        }
    };
    // Compare as JSON values read by the same parser, so float formatting
    // cannot introduce differences.
    let file: Vec<Value> =
        serde_json::from_slice(&bytes).map_err(|e| ScoreboardError::BadFile {
            path: json_path.clone(),
            message: e.to_string(),
        })?;
    let mut differences = Vec::new();
    for entry in fresh {
        let id = board::run_id(&entry).to_string();
        let recomputed: Value =
            serde_json::from_str(&serde_json::to_string(&entry).expect("serialises"))
                .expect("re-reads");
        match file
            .iter()
            .find(|v| v.get("run_id").and_then(Value::as_str) == Some(&id))
        {
            None => differences.push(format!("run {id}: no entry in {}", json_path.display())),
            Some(v) if *v != recomputed => {
                let fields: Vec<String> = recomputed
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, x)| v.get(k.as_str()) != Some(x))
                    .map(|(k, x)| {
                        format!(
                            "{k}: file has {}, recomputed {x}",
                            v.get(k.as_str())
                                .map_or("nothing".to_string(), Value::to_string)
                        )
                    })
                    .collect();
                differences.push(format!("run {id}: {}", fields.join("; ")));
            }
            Some(_) => {}
        }
    }
    Ok(differences)
}
