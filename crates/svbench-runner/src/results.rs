//! `results.jsonl`: the append-only record of finished samples.
//!
//! One `write` of line + `\n` per sample, flushed at once and fsynced at least
//! every 5 s and at the end, so a crash loses at most a torn last line — which
//! [`recover`] detects and truncates before a resume.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use svbench_core::compact::StrIndex;
use svbench_core::record::ResultRecord;
use svbench_core::ExampleSet;

use crate::artifacts::ArtifactError;
use crate::integrity::{check_record_row, IntegrityError, KeyTracker, SampleKey, Selection};

const FSYNC_EVERY: Duration = Duration::from_secs(5);

/// Appends result records.
#[derive(Debug)]
pub struct ResultsWriter {
    path: PathBuf,
    file: File,
    last_sync: Instant,
}

impl ResultsWriter {
    /// Opens (creating if needed) `results.jsonl` for appending.
    pub fn open(path: &Path) -> Result<Self, ArtifactError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| ArtifactError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            last_sync: Instant::now(),
        })
    }

    /// Appends one record as a single write.
    pub fn append(&mut self, record: &ResultRecord) -> Result<(), ArtifactError> {
        let mut line = serde_json::to_vec(record).map_err(|e| ArtifactError::Serialize {
            what: "result record",
            message: e.to_string(),
        })?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .map_err(|source| ArtifactError::Io {
                path: self.path.clone(),
                source,
            })?;
        if self.last_sync.elapsed() >= FSYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Flushes to disk.
    pub fn sync(&mut self) -> Result<(), ArtifactError> {
        self.last_sync = Instant::now();
        self.file.sync_data().map_err(|source| ArtifactError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// What [`recover`] found in an existing `results.jsonl`.
#[derive(Debug, Default)]
pub struct Recovered {
    /// Per recorded sample: whether its last record finished without
    /// error. Keys are `(example index in the selection, rollout_index)`
    /// (without a selection, ids are numbered in order of appearance). Only
    /// keys are kept, not records or ids, so a resume's memory grows by a
    /// few dozen bytes per sample, not with record size.
    pub done: HashMap<SampleKey, bool>,
    /// Lines dropped from the end (torn or unparseable).
    pub truncated_lines: usize,
}

/// Reads an existing results file for a resume. A trailing partial or
/// unparseable line is truncated away (the file is rewritten to end at the
/// last good line); an unparseable line before good ones, a sample recorded
/// again after a record without error, and (given `selection`) a record of
/// a sample outside the run's selection are [`IntegrityError`]s, found
/// before the file is touched. The file is read line by line; each line is
/// parsed as a whole record (so validity is unchanged) and then dropped.
pub fn recover(path: &Path, selection: Option<&Selection>) -> Result<Recovered, ArtifactError> {
    recover_checked(path, selection, None)
}

/// [`recover`] that also checks each kept record against `rows`, the run's
/// selected examples (indexed as `selection` numbers them): a record whose
/// row hash or split differs from its example's is an
/// [`IntegrityError::RowMismatch`] naming the line, found before the file
/// is touched. `eval --resume` uses it, so a record edited after the fact
/// (its question, gold or info) is refused instead of being kept.
pub fn recover_checked(
    path: &Path,
    selection: Option<&Selection>,
    rows: Option<&dyn ExampleSet>,
) -> Result<Recovered, ArtifactError> {
    let ioerr = |source| ArtifactError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut out = Recovered::default();
    let mut keys = KeyTracker::default();
    let mut unselected_ids = StrIndex::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(ioerr)?;
    let total = file.metadata().map_err(ioerr)?.len();

    let mut good_end = 0u64; // byte offset just after the last good line
    let mut pending_bad: Option<(usize, String)> = None; // first bad line seen, and why
    let mut start = 0u64;
    let mut line_no = 0usize;
    {
        let mut reader = BufReader::with_capacity(1 << 16, &mut file);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf).map_err(ioerr)?;
            if n == 0 {
                break;
            }
            line_no += 1;
            let complete = buf.last() == Some(&b'\n');
            let next = start + n as u64;
            let line = if complete { &buf[..n - 1] } else { &buf[..] };
            if line.iter().all(u8::is_ascii_whitespace) {
                if complete && pending_bad.is_none() {
                    good_end = next;
                }
                start = next;
                continue;
            }
            let parsed = if complete {
                serde_json::from_slice::<ResultRecord>(line).map_err(|e| e.to_string())
            } else {
                Err("torn line (no newline)".to_string())
            };
            match parsed {
                Ok(rec) => {
                    if let Some((bad, message)) = pending_bad {
                        return Err(IntegrityError::BadLine {
                            path: path.to_path_buf(),
                            line: bad,
                            message,
                        }
                        .into());
                    }
                    let key = match selection {
                        Some(sel) => {
                            sel.check(path, line_no, &rec.example_id, rec.rollout_index)?
                        }
                        None => (unselected_ids.insert(&rec.example_id).0, rec.rollout_index),
                    };
                    keys.observe(path, line_no, key, &rec.example_id, rec.error.is_some())?;
                    if let (Some(rows), Some(_)) = (rows, selection) {
                        let example = rows.example(key.0).map_err(|e| IntegrityError::Io {
                            path: path.to_path_buf(),
                            message: format!(
                                "line {line_no}: cannot read the dataset example of `{}`: {e}",
                                rec.example_id
                            ),
                        })?;
                        check_record_row(path, line_no, &rec, &example)?;
                    }
                    good_end = next;
                }
                Err(message) => {
                    pending_bad.get_or_insert((line_no, message));
                    out.truncated_lines += 1;
                }
            }
            start = next;
        }
    }
    out.done = keys.into_done();
    if good_end < total {
        file.set_len(good_end).map_err(ioerr)?;
        file.seek(SeekFrom::End(0)).map_err(ioerr)?;
        file.sync_all().map_err(ioerr)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str) -> ResultRecord {
        ResultRecord {
            example_id: id.into(),
            reward: Some(1.0),
            ..Default::default()
        }
    }

    #[test]
    fn torn_last_line_is_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        {
            let mut w = ResultsWriter::open(&path).unwrap();
            w.append(&rec("a")).unwrap();
            w.append(&rec("b")).unwrap();
        }
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"example_id\":\"c\",\"rew").unwrap();
        drop(f);
        let r = recover(&path, None).unwrap();
        assert_eq!(r.done.len(), 2);
        assert_eq!(r.truncated_lines, 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("}\n"));
        assert_eq!(text.lines().count(), 2);
        // Appending after recovery yields a valid file.
        let mut w = ResultsWriter::open(&path).unwrap();
        w.append(&rec("c")).unwrap();
        assert_eq!(recover(&path, None).unwrap().done.len(), 3);
    }

    #[test]
    fn bad_line_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let good = serde_json::to_string(&rec("a")).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        assert!(recover(&path, None).is_err());
    }

    #[test]
    fn a_retry_after_an_error_wins_but_a_second_success_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let mut w = ResultsWriter::open(&path).unwrap();
        let mut first = rec("a");
        first.error = Some(svbench_core::record::SampleError {
            kind: "timeout".into(),
            message: "m".into(),
            http_status: None,
            attempts: 1,
            retryable: true,
        });
        w.append(&first).unwrap();
        let mut second = rec("a");
        second.reward = Some(2.0);
        w.append(&second).unwrap();
        let r = recover(&path, None).unwrap();
        // Without a selection, ids are numbered in order of appearance.
        assert!(r.done[&(0, 0)], "the retry without error wins");
        w.append(&rec("a")).unwrap();
        let before = std::fs::read(&path).unwrap();
        assert!(matches!(
            recover(&path, None),
            Err(ArtifactError::Integrity(IntegrityError::Duplicate {
                line: 3,
                first_line: 2,
                ..
            }))
        ));
        assert_eq!(std::fs::read(&path).unwrap(), before, "left untouched");
    }

    #[test]
    fn records_outside_the_selection_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let mut w = ResultsWriter::open(&path).unwrap();
        w.append(&rec("a")).unwrap();
        w.append(&rec("z")).unwrap();
        let sel = Selection::new(["a", "b"], 1);
        assert!(matches!(
            recover(&path, Some(&sel)),
            Err(ArtifactError::Integrity(IntegrityError::Foreign {
                line: 2,
                ..
            }))
        ));
    }
}
