//! Scoreboards (harness §5.1): one entry per run, computed from the run's
//! artifacts by this library (summaries recomputed, analyzers never run),
//! merged into `<env>_scoreboard.json` and rendered as Markdown.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use svbench_core::scoreboard::{
    E1Entry, E2Entry, E2EntryUpstream, E4Entry, EntryCommon, Scoreboard, ScoreboardEntry,
};
use svbench_core::summary::{Summary, SummaryMetrics};

use crate::error::ReportError;
use crate::markup::table_cell;
use crate::plugin::PluginLookup;
use crate::{build_report, write, ReportOptions};
use svbench_core::identity::{self, EnvIdentity};

/// Which environment a scoreboard covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardEnv {
    /// `e1_scoreboard.json`.
    E1,
    /// `e2_scoreboard.json`.
    E2,
    /// `e4_scoreboard.json`.
    E4,
}

impl BoardEnv {
    /// Every environment with a board, in benchmark order.
    pub const ALL: [BoardEnv; 3] = [BoardEnv::E1, BoardEnv::E2, BoardEnv::E4];

    /// The environment this board covers.
    fn identity(self) -> &'static EnvIdentity {
        match self {
            BoardEnv::E1 => &identity::NETWORK_LOGS,
            BoardEnv::E2 => &identity::CONFIG_VERIFICATION,
            BoardEnv::E4 => &identity::PHISHING_DETECTION,
        }
    }

    /// From a canonical name, short id or alias of an environment with a board.
    pub fn parse(name: &str) -> Option<BoardEnv> {
        let id = identity::lookup_loose(name)?;
        BoardEnv::ALL.into_iter().find(|b| b.identity() == id)
    }

    /// The short ids of every board, for messages: `e1, e2 and e4`.
    pub fn listed() -> String {
        let shorts: Vec<&str> = BoardEnv::ALL.iter().map(|b| b.short()).collect();
        match shorts.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => shorts.concat(),
        }
    }

    /// Whether `entry` is of this board's environment.
    fn holds(self, entry: &ScoreboardEntry) -> bool {
        matches!(
            (self, entry),
            (BoardEnv::E1, ScoreboardEntry::E1(_))
                | (BoardEnv::E2, ScoreboardEntry::E2(_))
                | (BoardEnv::E4, ScoreboardEntry::E4(_))
        )
    }

    /// The short id (`e1`, `e2`, `e4`).
    pub fn short(self) -> &'static str {
        self.identity().short
    }

    fn canonical(self) -> &'static str {
        self.identity().name
    }

    /// `<alias>_scoreboard.json` in `dir`.
    pub fn json_path(self, dir: &Path) -> PathBuf {
        dir.join(format!("{}_scoreboard.json", self.short()))
    }

    /// `<alias>_scoreboard.md` in `dir`.
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

/// The entry of one summary, or `None` when the summary belongs to another
/// environment.
pub fn entry_of(summary: &Summary) -> Option<ScoreboardEntry> {
    let baseline = summary
        .metadata
        .baseline_name
        .clone()
        .unwrap_or_else(|| summary.model.clone());
    let common = |ci95: BTreeMap<String, [f64; 2]>| EntryCommon {
        parse_failure_rate: summary.validity.parse_failure_rate,
        error_rate: summary.validity.error_rate,
        dataset_sha256: summary.dataset_sha256.clone(),
        split: summary.split.clone(),
        reward_profile: summary.reward_profile.clone(),
        reward_mean: summary.reward.mean,
        reward_range: summary.reward.range,
        svbench_version: summary.svbench_version.clone(),
        run_finished_at: summary.run_finished_at.clone(),
        ci95,
    };
    let dataset = summary.dataset.clone().unwrap_or_default();
    let value = |name: &str| summary.headline_value(name);
    let mut ci95 = BTreeMap::new();
    for m in &summary.headline {
        if let Some(ci) = m.ci95 {
            ci95.insert(m.name.clone(), ci);
        }
    }
    match &summary.metrics {
        SummaryMetrics::E1(m) => {
            let undefined = summary.e1.as_ref().map_or(&[][..], |e| &e.undefined[..]);
            let cwa = (!undefined.iter().any(|u| u == "cost_weighted_accuracy"))
                .then_some(m.cost.cost_weighted_accuracy);
            ci95.retain(|k, _| k == "accuracy" || k == "f1");
            Some(ScoreboardEntry::E1(E1Entry {
                baseline,
                model: summary.model.clone(),
                dataset,
                n: summary.n_examples,
                accuracy: value("accuracy"),
                accuracy_non_abstained: value("accuracy_non_abstained"),
                f1: value("f1"),
                ece: value("ece"),
                abstain_rate: value("abstain_rate"),
                cost_weighted_accuracy: cwa,
                run_id: summary.run_id.clone(),
                common: common(ci95),
            }))
        }
        SummaryMetrics::E2(m) => {
            ci95.retain(|k, _| k == "micro_f1");
            if let Some(ci) = summary.e2.as_ref().and_then(|e| e.ci95.as_ref()) {
                ci95.insert("f1_weighted".to_string(), ci.f1_weighted);
                if let Some(p) = ci.patch_success_rate {
                    ci95.insert("patch_success".to_string(), p);
                }
            }
            let micro_f1_by_lang = summary
                .e2
                .iter()
                .flat_map(|e| &e.by_lang)
                .map(|(lang, g)| (lang.clone(), g.micro.unweighted.f1))
                .collect();
            Some(ScoreboardEntry::E2(E2Entry {
                baseline,
                model: summary.model.clone(),
                dataset,
                n: summary.n_examples,
                micro_f1: value("micro_f1"),
                micro_precision: value("micro_precision"),
                micro_recall: value("micro_recall"),
                micro_f1_by_lang,
                clean_pass_rate: value("clean_pass_rate"),
                // Upstream writes 0 when no patch was provided: undefined.
                patch_success: (m.patch.patch_provided_rate > 0.0)
                    .then_some(m.patch.patch_success_rate),
                run_id: summary.run_id.clone(),
                upstream_compat: E2EntryUpstream {
                    f1_weighted: m.finding_quality.f1_weighted,
                    f1_weighted_positive_only: m.finding_quality.f1_weighted_positive_only,
                    clean_pass_rate: m.episode.clean_pass_rate,
                    false_positive_rate_on_clean: m.episode.false_positive_rate_on_clean,
                },
                common: common(ci95),
            }))
        }
        SummaryMetrics::E4(m) => {
            ci95.retain(|k, _| k == "f1" || k == "accuracy" || k == "evidence_f1");
            let a = &m.all;
            Some(ScoreboardEntry::E4(E4Entry {
                baseline,
                model: summary.model.clone(),
                dataset,
                n: summary.n_examples,
                policy_label: crate::headline::policy_label(
                    summary.metadata.baseline_type.as_deref(),
                ),
                f1: value("f1"),
                precision: a.precision,
                recall_strict: value("recall_strict"),
                fpr: a.fpr,
                accuracy: value("accuracy"),
                evidence_f1: value("evidence_f1"),
                ece: value("ece"),
                abstain_rate: a.abstention.abstain_rate,
                expected_cost_v1: a.cost.expected_cost_v1,
                run_id: summary.run_id.clone(),
                common: common(ci95),
            }))
        }
        SummaryMetrics::Generic(_) => None,
    }
}

/// Computes the entries of `runs` (recomputing each summary with the
/// default bootstrap settings). Two runs with one run id are an error.
pub fn entries(
    env: BoardEnv,
    runs: &[PathBuf],
    plugins: PluginLookup,
) -> Result<Vec<ScoreboardEntry>, ScoreboardError> {
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
        let entry = entry_of(&summary).ok_or_else(|| ScoreboardError::WrongEnvironment {
            path: dir.clone(),
            found: summary.environment.clone(),
            expected: env.canonical().to_string(),
        })?;
        out.push(entry);
    }
    Ok(out)
}

/// Reads an existing scoreboard of `env` (`None` when the file does not
/// exist); an entry of another environment makes it a bad file.
pub fn read_board(env: BoardEnv, path: &Path) -> Result<Option<Scoreboard>, ScoreboardError> {
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
    if let Some(e) = board.iter().find(|e| !env.holds(e)) {
        return Err(bad(format!(
            "the entry of run `{}` is not an {} entry",
            e.run_id(),
            env.short()
        )));
    }
    Ok(Some(board))
}

/// Merges `fresh` into `existing`: entries of other runs are kept, an entry
/// with the run id of a fresh one is replaced; the result is sorted.
pub fn merge(existing: Scoreboard, fresh: Vec<ScoreboardEntry>) -> Scoreboard {
    let ids: BTreeSet<String> = fresh.iter().map(|e| e.run_id().to_string()).collect();
    let mut board: Scoreboard = existing
        .into_iter()
        .filter(|e| !ids.contains(e.run_id()))
        .chain(fresh)
        .collect();
    board.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    board
}

/// The JSON text of a board (pretty, trailing newline).
pub fn board_json(board: &Scoreboard) -> String {
    let mut s = serde_json::to_string_pretty(board).expect("scoreboard entries serialise");
    s.push('\n');
    s
}

fn num(v: f64) -> String {
    format!("{v:.3}")
}

/// Three decimals, `n/a` when undefined.
fn opt(v: Option<f64>) -> String {
    v.map(num)
        .unwrap_or_else(|| crate::markdown::NA.to_string())
}

/// `0.812 (0.000 to 1.300)`: the mean reward and the profile's range.
fn reward(c: &EntryCommon) -> String {
    match c.reward_range {
        Some([lo, hi]) => format!("{} ({} to {})", opt(c.reward_mean), num(lo), num(hi)),
        None => opt(c.reward_mean),
    }
}

fn ci(c: &EntryCommon, key: &str) -> String {
    c.ci95
        .get(key)
        .map(|[l, h]| format!("[{}, {}]", num(*l), num(*h)))
        .unwrap_or_else(|| "—".to_string())
}

/// The Markdown rendering: three decimals, the latest `run_finished_at` as
/// the date (never today's).
pub fn board_markdown(env: BoardEnv, board: &Scoreboard) -> String {
    let latest = board
        .iter()
        .filter_map(|e| e.common().run_finished_at.as_deref())
        .max()
        .unwrap_or("—");
    let mut s = format!(
        "# {} scoreboard\n\nLatest run finished {latest}. {} run(s); generated by svbench from run artifacts (`svbench scoreboard --env {}`).\n\n",
        env.short().to_uppercase(),
        board.len(),
        env.short()
    );
    match env {
        BoardEnv::E1 => {
            s.push_str("| baseline | model | dataset | n | accuracy | accuracy 95 % CI | accuracy_non_abstained | f1 | f1 95 % CI | ece | abstain_rate | cost_weighted_accuracy | mean reward (range) | parse fail | errors | run_id |\n|---|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|---|\n");
            for e in board {
                if let ScoreboardEntry::E1(x) = e {
                    let _ = writeln!(
                        s,
                        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | `{}` |",
                        table_cell(&x.baseline),
                        table_cell(&x.model),
                        table_cell(&x.dataset),
                        x.n,
                        opt(x.accuracy),
                        ci(&x.common, "accuracy"),
                        opt(x.accuracy_non_abstained),
                        opt(x.f1),
                        ci(&x.common, "f1"),
                        opt(x.ece),
                        opt(x.abstain_rate),
                        opt(x.cost_weighted_accuracy),
                        reward(&x.common),
                        opt(x.common.parse_failure_rate),
                        opt(x.common.error_rate),
                        table_cell(&x.run_id)
                    );
                }
            }
            let _ = writeln!(
                s,
                "\n`accuracy`: {} `accuracy_non_abstained`: {} `n/a`: undefined (zero denominator).",
                crate::headline::E1_ACCURACY,
                crate::headline::E1_ACCURACY_NON_ABSTAINED
            );
        }
        BoardEnv::E2 => {
            let langs: BTreeSet<&String> = board
                .iter()
                .filter_map(|e| match e {
                    ScoreboardEntry::E2(x) => Some(x.micro_f1_by_lang.keys()),
                    ScoreboardEntry::E1(_) | ScoreboardEntry::E4(_) => None,
                })
                .flatten()
                .collect();
            let lang_cols: String = langs.iter().map(|l| format!(" micro_f1 {l} |")).collect();
            let lang_rule: String = langs.iter().map(|_| "---:|").collect();
            let _ = writeln!(
                s,
                "| baseline | model | dataset | n | micro_f1 | micro_f1 95 % CI | micro_precision | micro_recall |{lang_cols} clean_pass_rate | patch_success | mean reward (range) | parse fail | errors | f1_weighted (upstream-compatible) | run_id |\n|---|---|---|---:|---:|---|---:|---:|{lang_rule}---:|---:|---|---:|---:|---:|---|"
            );
            for e in board {
                if let ScoreboardEntry::E2(x) = e {
                    let by_lang: String = langs
                        .iter()
                        .map(|l| {
                            format!(" {} |", opt(x.micro_f1_by_lang.get(*l).copied().flatten()))
                        })
                        .collect();
                    let _ = writeln!(
                        s,
                        "| {} | {} | {} | {} | {} | {} | {} | {} |{by_lang} {} | {} | {} | {} | {} | {} | `{}` |",
                        table_cell(&x.baseline),
                        table_cell(&x.model),
                        table_cell(&x.dataset),
                        x.n,
                        opt(x.micro_f1),
                        ci(&x.common, "micro_f1"),
                        opt(x.micro_precision),
                        opt(x.micro_recall),
                        opt(x.clean_pass_rate),
                        opt(x.patch_success),
                        reward(&x.common),
                        opt(x.common.parse_failure_rate),
                        opt(x.common.error_rate),
                        num(x.upstream_compat.f1_weighted),
                        table_cell(&x.run_id)
                    );
                }
            }
            let _ = writeln!(
                s,
                "\n`micro_f1`: {} `f1_weighted (upstream-compatible)` is upstream's averaged per-record F1: a clean item correctly answered `[]` counts 0 and Terraform's `opa/` labels are dropped, so it understates correct runs. `n/a`: undefined (zero denominator).",
                crate::headline::E2_MICRO_F1
            );
        }
        BoardEnv::E4 => e4_rows(&mut s, board),
    }
    s
}

/// The E4 table: an oracle run's baseline cell says it is an upper bound.
fn e4_rows(s: &mut String, board: &Scoreboard) {
    s.push_str("| baseline | model | dataset | n | f1 | f1 95 % CI | precision | recall_strict | fpr | accuracy | accuracy 95 % CI | evidence_f1 | evidence_f1 95 % CI | ece | abstain_rate | expected_cost_v1 | mean reward (range) | parse fail | errors | run_id |\n|---|---|---|---:|---:|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---|---:|---:|---|\n");
    let mut oracle = false;
    for e in board {
        let ScoreboardEntry::E4(x) = e else { continue };
        let baseline = match &x.policy_label {
            Some(label) => {
                oracle = true;
                format!("{} — **{}**", table_cell(&x.baseline), table_cell(label))
            }
            None => table_cell(&x.baseline),
        };
        let _ = writeln!(
            s,
            "| {baseline} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | `{}` |",
            table_cell(&x.model),
            table_cell(&x.dataset),
            x.n,
            opt(x.f1),
            ci(&x.common, "f1"),
            opt(x.precision),
            opt(x.recall_strict),
            opt(x.fpr),
            opt(x.accuracy),
            ci(&x.common, "accuracy"),
            opt(x.evidence_f1),
            ci(&x.common, "evidence_f1"),
            opt(x.ece),
            opt(x.abstain_rate),
            opt(x.expected_cost_v1),
            reward(&x.common),
            opt(x.common.parse_failure_rate),
            opt(x.common.error_rate),
            table_cell(&x.run_id)
        );
    }
    let _ = writeln!(
        s,
        "\n`f1`: {} `recall_strict`: {} `evidence_f1`: {} `expected_cost_v1`: mean v1 triage cost per email, an invalid answer charged as a missed phishing email (lower is better). `n/a`: undefined (zero denominator).",
        crate::headline::E4_F1,
        crate::headline::E4_RECALL_STRICT,
        crate::headline::E4_EVIDENCE_F1
    );
    if oracle {
        let _ = writeln!(
            s,
            "\n**{}**: the run answers with the gold label and the gold evidence. It bounds what a perfect answer scores; it is not a baseline.",
            svbench_core::ORACLE_LABEL
        );
    }
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
    env: BoardEnv,
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
    env: BoardEnv,
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
        let id = entry.run_id().to_string();
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
