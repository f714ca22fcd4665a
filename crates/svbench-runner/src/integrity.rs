//! What a `results.jsonl` may hold: each sample key `(example_id,
//! rollout_index)` at most once, except that an errored record may be
//! followed by its retry (`--resume --retry-errors`, last record wins); and
//! only keys of the run's selection.
//!
//! [`KeyTracker`] enforces the first rule line by line; [`Selection`] the
//! second. `eval --resume` applies both (it has the dataset);
//! [`check_results_file`] applies what the run directory alone can prove
//! (duplicates, rollout range, no more keys than planned, and membership
//! in the selection that [`write_selected_ids`] recorded at the start of
//! the run) for `report`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::de::IgnoredAny;
use serde::Deserialize;
use svbench_core::compact::StrIndex;

/// A `results.jsonl` that cannot belong to its run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntegrityError {
    /// A line that is not a result record, before the last line.
    #[error("{path}: line {line} is not a valid result record ({message})")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// Why.
        message: String,
    },
    /// A sample recorded twice, the first time without error.
    #[error(
        "{path}: line {line} records sample `{example_id}` rollout {rollout_index} again; \
         line {first_line} already recorded it without error (only an errored record may be \
         followed by its retry)"
    )]
    Duplicate {
        /// The file.
        path: PathBuf,
        /// The repeating line.
        line: usize,
        /// The earlier line.
        first_line: usize,
        /// Example id.
        example_id: String,
        /// Rollout.
        rollout_index: usize,
    },
    /// A record whose sample is not part of the run.
    #[error("{path}: line {line}: sample `{example_id}` rollout {rollout_index} is not in this run's selection ({why})")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// Example id.
        example_id: String,
        /// Rollout.
        rollout_index: usize,
        /// What makes it foreign.
        why: String,
    },
    /// A record whose row (`question`, `answer`, `info`) is not the row of
    /// the dataset example with its id: written from other data, or edited.
    #[error(
        "{path}: line {line}: the record of sample `{example_id}` rollout {rollout_index} does \
         not match the dataset row with that id: its `{field}` differs (the row hash of a \
         record is that of its question, answer and info)"
    )]
    RowMismatch {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// Example id.
        example_id: String,
        /// Rollout.
        rollout_index: usize,
        /// The first differing field: `question`, `answer`, `info` or `split`.
        field: &'static str,
    },
    /// More distinct samples than the run planned.
    #[error("{path}: {found} distinct samples recorded, but the run planned {planned}")]
    TooMany {
        /// The file.
        path: PathBuf,
        /// Distinct keys.
        found: usize,
        /// Planned samples.
        planned: usize,
    },
    /// Reading failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause.
        message: String,
    },
}

/// A sample: `(position of its example id, rollout_index)`. Positions come
/// from a [`Selection`] (the example's index) or, without one, from
/// numbering ids in order of appearance; ids are kept once, not per record.
pub type SampleKey = (usize, usize);

/// Tracks sample keys in file order: the line of each key's last record and
/// whether it is an error.
#[derive(Debug, Default)]
pub struct KeyTracker {
    last: HashMap<SampleKey, (usize, bool)>,
}

impl KeyTracker {
    /// Records line `line` for `key` (`example_id` and `rollout_index` name
    /// it in errors); an error when the key's previous record had no error.
    pub fn observe(
        &mut self,
        path: &Path,
        line: usize,
        key: SampleKey,
        example_id: &str,
        errored: bool,
    ) -> Result<(), IntegrityError> {
        if let Some(&(first_line, was_error)) = self.last.get(&key) {
            if !was_error {
                return Err(IntegrityError::Duplicate {
                    path: path.to_path_buf(),
                    line,
                    first_line,
                    example_id: example_id.to_string(),
                    rollout_index: key.1,
                });
            }
        }
        self.last.insert(key, (line, errored));
        Ok(())
    }

    /// Distinct keys seen.
    pub fn len(&self) -> usize {
        self.last.len()
    }

    /// Whether no key was seen.
    pub fn is_empty(&self) -> bool {
        self.last.is_empty()
    }

    /// Per key, whether its last record finished without error.
    pub fn into_done(self) -> HashMap<SampleKey, bool> {
        self.last
            .into_iter()
            .map(|(k, (_, errored))| (k, !errored))
            .collect()
    }
}

/// The samples of a run: its selected example ids × rollouts. An id's
/// position is the index of its example.
#[derive(Debug, Clone)]
pub struct Selection {
    ids: StrIndex,
    rollouts: usize,
}

impl Selection {
    /// The selection of `ids` (in evaluation order, distinct) with
    /// `rollouts` samples each.
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>, rollouts: usize) -> Self {
        Self {
            ids: ids.into_iter().collect(),
            rollouts: rollouts.max(1),
        }
    }

    /// Distinct ids selected.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The key of a record when it belongs to the selection.
    pub fn check(
        &self,
        path: &Path,
        line: usize,
        example_id: &str,
        rollout_index: usize,
    ) -> Result<SampleKey, IntegrityError> {
        let why = match self.ids.get(example_id) {
            None => "no selected example has this id".to_string(),
            Some(_) if rollout_index >= self.rollouts => {
                format!("the run has {} rollout(s) per example", self.rollouts)
            }
            Some(position) => return Ok((position, rollout_index)),
        };
        Err(IntegrityError::Foreign {
            path: path.to_path_buf(),
            line,
            example_id: example_id.to_string(),
            rollout_index,
            why,
        })
    }
}

/// The run-directory file listing the run's selected example ids, one JSON
/// string per line in evaluation order, so `report` can refuse a record of
/// another run even when the run is partial.
pub const SELECTED_IDS_FILE: &str = "selected_ids.jsonl";

/// Writes [`SELECTED_IDS_FILE`] into `dir` (atomically: a temporary file and
/// a rename), streaming: about 20 bytes per example on disk, nothing kept.
pub fn write_selected_ids<'a>(
    dir: &Path,
    ids: impl IntoIterator<Item = &'a str>,
) -> std::io::Result<()> {
    let path = dir.join(SELECTED_IDS_FILE);
    let tmp = dir.join(format!("{SELECTED_IDS_FILE}.tmp"));
    {
        let mut out = BufWriter::new(std::fs::File::create(&tmp)?);
        for id in ids {
            serde_json::to_writer(&mut out, id)?;
            out.write_all(b"\n")?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    }
    std::fs::rename(&tmp, &path)
}

/// The selection recorded in `dir` by [`write_selected_ids`], or `None` for
/// a run directory without one (runs from before it existed).
pub fn read_selected_ids(dir: &Path, rollouts: usize) -> Result<Option<Selection>, IntegrityError> {
    let path = dir.join(SELECTED_IDS_FILE);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(IntegrityError::Io {
                path,
                message: e.to_string(),
            })
        }
    };
    let mut ids = StrIndex::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let bad = |message: String| IntegrityError::BadLine {
            path: path.clone(),
            line: i + 1,
            message,
        };
        let line = line.map_err(|e| bad(e.to_string()))?;
        let id: String = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
        ids.insert(&id);
    }
    Ok(Some(Selection {
        ids,
        rollouts: rollouts.max(1),
    }))
}

/// Checks that `record` (line `line` of `path`) carries the row of
/// `example`, the dataset example with its id: the same row hash
/// ([`svbench_core::example::sample_row_sha256`]) and split. The error names
/// the first differing field.
pub fn check_record_row(
    path: &Path,
    line: usize,
    record: &svbench_core::record::ResultRecord,
    example: &svbench_core::Example,
) -> Result<(), IntegrityError> {
    let split = example.split.as_deref().unwrap_or("all");
    let field = if record.question != example.question {
        "question"
    } else if record.answer != example.answer {
        "answer"
    } else if record.row_sha256() != example.row_sha256() {
        "info"
    } else if record.split != split {
        "split"
    } else {
        return Ok(());
    };
    Err(IntegrityError::RowMismatch {
        path: path.to_path_buf(),
        line,
        example_id: record.example_id.clone(),
        rollout_index: record.rollout_index,
        field,
    })
}

/// The fields of a record the checks need.
#[derive(Deserialize)]
struct KeyView {
    example_id: String,
    #[serde(default)]
    rollout_index: usize,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

/// What [`check_results_file`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultsCheck {
    /// Distinct sample keys.
    pub samples: usize,
    /// Records (lines) read.
    pub records: usize,
}

/// Checks a run's `results.jsonl` with what the run directory alone can
/// prove: every line but a torn last one is a record, no sample is recorded
/// twice (an errored record followed by its retry is fine), rollout indices
/// are below `rollouts_per_example`, and there are no more distinct samples
/// than `planned`; given the run's `selection` ([`read_selected_ids`]),
/// every record's example is in it. A missing file passes (no samples).
/// Memory grows with the number of distinct samples (their keys), not with
/// record size.
pub fn check_results_file(
    path: &Path,
    planned: usize,
    rollouts_per_example: usize,
    selection: Option<&Selection>,
) -> Result<ResultsCheck, IntegrityError> {
    let io = |e: std::io::Error| IntegrityError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ResultsCheck::default()),
        Err(e) => return Err(io(e)),
    };
    let rollouts = rollouts_per_example.max(1);
    let mut reader = BufReader::new(file);
    let mut tracker = KeyTracker::default();
    let mut ids = StrIndex::new();
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut pending_bad: Option<(usize, String)> = None;
    let mut records = 0usize;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
            break;
        }
        line_no += 1;
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some((line, message)) = pending_bad.take() {
            return Err(IntegrityError::BadLine {
                path: path.to_path_buf(),
                line,
                message,
            });
        }
        let view = match serde_json::from_slice::<KeyView>(&buf) {
            Ok(v) => v,
            Err(e) => {
                // Fatal unless it is the (torn) last line.
                pending_bad = Some((line_no, e.to_string()));
                continue;
            }
        };
        records += 1;
        if view.rollout_index >= rollouts {
            return Err(IntegrityError::Foreign {
                path: path.to_path_buf(),
                line: line_no,
                example_id: view.example_id,
                rollout_index: view.rollout_index,
                why: format!("the run has {rollouts} rollout(s) per example"),
            });
        }
        let key = match selection {
            Some(sel) => sel.check(path, line_no, &view.example_id, view.rollout_index)?,
            None => (ids.insert(&view.example_id).0, view.rollout_index),
        };
        tracker.observe(path, line_no, key, &view.example_id, view.error.is_some())?;
    }
    if tracker.len() > planned {
        return Err(IntegrityError::TooMany {
            path: path.to_path_buf(),
            found: tracker.len(),
            planned,
        });
    }
    Ok(ResultsCheck {
        samples: tracker.len(),
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, rollout: usize, error: bool) -> String {
        if error {
            format!(r#"{{"example_id":"{id}","rollout_index":{rollout},"error":{{"kind":"x"}}}}"#)
        } else {
            format!(r#"{{"example_id":"{id}","rollout_index":{rollout},"error":null}}"#)
        }
    }

    fn check(
        lines: &[String],
        planned: usize,
        rollouts: usize,
    ) -> Result<ResultsCheck, IntegrityError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        check_results_file(&path, planned, rollouts, None)
    }

    #[test]
    fn retry_after_error_is_fine_but_a_second_success_is_a_duplicate() {
        let ok = check(
            &[line("a", 0, true), line("a", 0, false), line("b", 0, false)],
            2,
            1,
        )
        .unwrap();
        assert_eq!(
            ok,
            ResultsCheck {
                samples: 2,
                records: 3
            }
        );
        let e = check(
            &[
                line("a", 0, false),
                line("b", 0, false),
                line("a", 0, false),
            ],
            5,
            1,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                IntegrityError::Duplicate {
                    line: 3,
                    first_line: 1,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn more_samples_than_planned_or_rollout_out_of_range_are_foreign() {
        let e = check(&[line("a", 0, false), line("b", 0, false)], 1, 1).unwrap_err();
        assert!(
            matches!(
                e,
                IntegrityError::TooMany {
                    found: 2,
                    planned: 1,
                    ..
                }
            ),
            "{e}"
        );
        let e = check(&[line("a", 1, false)], 4, 1).unwrap_err();
        assert!(matches!(e, IntegrityError::Foreign { line: 1, .. }), "{e}");
    }

    #[test]
    fn bad_middle_line_is_an_error_and_a_torn_last_line_is_not() {
        let e = check(
            &[line("a", 0, false), "nope".into(), line("b", 0, false)],
            5,
            1,
        )
        .unwrap_err();
        assert!(matches!(e, IntegrityError::BadLine { line: 2, .. }), "{e}");
        let ok = check(&[line("a", 0, false), "{\"example_id\":\"b".into()], 5, 1).unwrap();
        assert_eq!(ok.samples, 1);
    }

    #[test]
    fn a_record_outside_the_recorded_selection_is_foreign_even_in_a_partial_run() {
        let dir = tempfile::tempdir().unwrap();
        write_selected_ids(dir.path(), ["a", "b\nwith a newline", "c"]).unwrap();
        let sel = read_selected_ids(dir.path(), 1).unwrap().expect("recorded");
        let path = dir.path().join("results.jsonl");
        let ok = [line("a", 0, false), line("c", 0, false)];
        std::fs::write(&path, ok.join("\n") + "\n").unwrap();
        assert_eq!(
            check_results_file(&path, 3, 1, Some(&sel)).unwrap().samples,
            2
        );
        let foreign = [line("a", 0, false), line("zz", 0, false)];
        std::fs::write(&path, foreign.join("\n") + "\n").unwrap();
        let e = check_results_file(&path, 3, 1, Some(&sel)).unwrap_err();
        assert!(matches!(e, IntegrityError::Foreign { line: 2, .. }), "{e}");
        assert!(read_selected_ids(&dir.path().join("nowhere"), 1)
            .unwrap()
            .is_none());
    }

    #[test]
    fn selection_membership() {
        let s = Selection::new(["a", "b"], 2);
        let p = Path::new("r");
        assert_eq!(s.check(p, 1, "a", 1).unwrap(), (0, 1));
        assert_eq!(s.check(p, 1, "b", 0).unwrap(), (1, 0));
        assert!(s.check(p, 1, "c", 0).is_err());
        assert!(s.check(p, 1, "a", 2).is_err());
    }
}
