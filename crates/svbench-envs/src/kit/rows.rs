//! Rows of a dataset, loaded the way every single-turn environment needs:
//! the embedded set, a JSONL file or generated rows, kept as text (the
//! embedded set as slices of the binary, the rest in a [`Spool`] on disk),
//! validated once, filtered by split, selected with a seeded shuffle, and
//! hashed. An environment describes its rows with a [`RowFormat`].

use std::borrow::Cow;
use std::path::PathBuf;

use rand::seq::SliceRandom;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::value::RawValue;
use serde_json::Value;
use svbench_core::canonical::RowHasher;
use svbench_core::compact::{StrIndex, StrList};
use svbench_core::example::{
    base_example_id, check_common_fields, parse_row_object, row_split, split_row, strip_bom,
    DatasetError,
};
use svbench_core::spool::{Spool, SpoolWriter};
use svbench_core::{Example, ExampleSet};

use super::dataset::{DataProvenance, DatasetSpec};
use super::generate::GenError;

/// Generated rows of one split: `(seed, split, n, sink)`, or why not (an
/// unknown split is [`GenError::Config`]).
pub type SyntheticRows = fn(u64, &str, usize, &mut dyn FnMut(Value)) -> Result<(), GenError>;

/// What an environment's rows look like.
pub struct RowFormat<'a, G, E> {
    /// Short id (`e1`), for `embedded:e1/test.jsonl` origins and messages.
    pub env: &'static str,
    /// The embedded default set, `(split, text)` per file.
    pub embedded: &'static [(&'static str, &'static str)],
    /// The splits the environment knows.
    pub splits: &'static [&'static str],
    /// Checks a row beyond the common fields (`question` a string, `answer`
    /// present, `meta` an object) and returns its gold label, or the
    /// environment's error (the loader adds the file and line).
    pub validate: &'a (dyn Fn(&Value) -> Result<G, E> + Sync),
    /// The example's `answer` for a gold label.
    pub answer: fn(G) -> Value,
    /// `synthetic:SEED:N` rows.
    pub synthetic: SyntheticRows,
    /// The longest row a dataset file may hold, in bytes of one line
    /// ([`MAX_ROW_BYTES`] unless an environment needs another).
    pub max_row_bytes: usize,
}

pub use svbench_core::lines::MAX_ROW_BYTES;

impl<G, E> std::fmt::Debug for RowFormat<'_, G, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowFormat")
            .field("env", &self.env)
            .field("splits", &self.splits)
            .finish_non_exhaustive()
    }
}

/// Which split to take; `None` means "not given on the command line".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitRequest(pub Option<String>);

/// What to select after loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionRequest {
    /// Maximum distinct examples (`-n`); `None` = all.
    pub max_examples: Option<usize>,
    /// Seeded shuffle before truncation.
    pub shuffle: bool,
    /// Seed for the shuffle.
    pub seed: u64,
}

/// A loaded, selected dataset with its provenance.
#[derive(Debug, Clone)]
pub struct LoadedDataset<G> {
    /// Selected examples in evaluation order (`index` = position).
    pub examples: Vec<Example>,
    /// Gold labels, parallel to `examples`.
    pub gold: Vec<G>,
    /// Where the rows came from.
    pub provenance: DataProvenance,
}

/// Raw rows of a dataset spec, kept as text and parsed one at a time when
/// needed: the embedded set as slices of the binary, files and generated
/// rows in a [`Spool`] on disk. A 1,000,000-row run never holds its rows in
/// memory, as text or as JSON trees.
struct Source {
    rows: Rows,
    origins: Vec<PathBuf>,
    file_sha256: Option<String>,
}

enum Rows {
    /// `(origin, 1-based line, text)` of the compiled-in rows.
    Embedded(Vec<(usize, usize, &'static str)>),
    /// Everything else: origin 0.
    Spooled(Spool),
}

impl Source {
    fn len(&self) -> usize {
        match &self.rows {
            Rows::Embedded(rows) => rows.len(),
            Rows::Spooled(spool) => spool.len(),
        }
    }

    /// Where row `i` came from, for error messages.
    fn location(&self, i: usize) -> (PathBuf, usize) {
        match &self.rows {
            Rows::Embedded(rows) => (self.origins[rows[i].0].clone(), rows[i].1),
            Rows::Spooled(spool) => (self.origins[0].clone(), spool.line(i)),
        }
    }

    fn row_error(&self, i: usize, message: String) -> DatasetError {
        let (path, line) = self.location(i);
        DatasetError::Row {
            path,
            line,
            message,
        }
    }

    /// The text of row `i`.
    fn text(&self, i: usize) -> Result<Cow<'static, str>, DatasetError> {
        match &self.rows {
            Rows::Embedded(rows) => Ok(Cow::Borrowed(rows[i].2)),
            Rows::Spooled(spool) => spool.read(i).map(Cow::Owned).map_err(|e| {
                self.row_error(i, format!("cannot read the row back from the spool: {e}"))
            }),
        }
    }

    /// Row `i` as a JSON object (every row was validated when loaded).
    fn value(&self, i: usize) -> Result<Value, DatasetError> {
        let text = self.text(i)?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| self.row_error(i, format!("not valid JSON: {e}")))?;
        if value.is_object() {
            Ok(value)
        } else {
            Err(self.row_error(i, "row is not a JSON object".into()))
        }
    }
}

fn spool_error(origin: &std::path::Path) -> impl Fn(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: origin.to_path_buf(),
        source: std::io::Error::new(
            source.kind(),
            format!("cannot spool rows to a temporary file: {source}"),
        ),
    }
}

/// Calls `f` with each line of `path` (its number and bytes, newline
/// included), read with a bounded buffer: a line longer than
/// `max_row_bytes` is an error naming the file and line, raised once that
/// many bytes of it are read (the line is never held whole).
fn each_line(
    path: &std::path::Path,
    max_row_bytes: usize,
    mut f: impl FnMut(usize, &[u8]) -> Result<(), DatasetError>,
) -> Result<(), DatasetError> {
    use svbench_core::lines::{BoundedLines, LineError};
    let io = |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut lines = BoundedLines::new(
        std::io::BufReader::with_capacity(1 << 16, file),
        max_row_bytes,
    );
    let mut buf = Vec::new();
    loop {
        match lines.next_into(&mut buf) {
            Ok(Some(line_no)) => f(line_no, &buf)?,
            Ok(None) => return Ok(()),
            Err(LineError::Io(e)) => return Err(io(e)),
            Err(e) => {
                return Err(DatasetError::Row {
                    path: path.to_path_buf(),
                    line: e.line().unwrap_or(lines.line() + 1),
                    message: e.to_string(),
                })
            }
        }
    }
}

/// Reads a whole JSONL file whose rows are parsed together (E2's loader
/// resolves ids across rows), refusing a line longer than `max_row_bytes`
/// as soon as that many bytes of it are read: the file costs its own size
/// in memory, and a single hostile line never more than the limit.
///
/// # Errors
/// [`DatasetError::Io`] when the file cannot be read; [`DatasetError::Row`]
/// naming the line that is too long.
pub fn read_bounded(path: &std::path::Path, max_row_bytes: usize) -> Result<Vec<u8>, DatasetError> {
    let mut bytes = Vec::new();
    each_line(path, max_row_bytes, |_, line| {
        bytes.extend_from_slice(line);
        Ok(())
    })?;
    Ok(bytes)
}

/// Reads a JSONL file line by line into a spool, hashing its bytes (lines
/// as [`each_line`] reads them).
fn spool_file(
    path: &std::path::Path,
    max_row_bytes: usize,
) -> Result<(Spool, String), DatasetError> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    let mut spool = SpoolWriter::new().map_err(spool_error(path))?;
    each_line(path, max_row_bytes, |line_no, buf| {
        hasher.update(buf);
        let text = std::str::from_utf8(buf).map_err(|_| DatasetError::Row {
            path: path.to_path_buf(),
            line: line_no,
            message: "invalid UTF-8".to_string(),
        })?;
        let text = text.strip_suffix('\n').unwrap_or(text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        // A BOM some editors write before line 1 is not part of the row.
        let text = if line_no == 1 { strip_bom(text) } else { text };
        if !text.trim().is_empty() {
            spool.push(text, line_no).map_err(spool_error(path))?;
        }
        Ok(())
    })?;
    let spool = spool.finish().map_err(spool_error(path))?;
    Ok((spool, format!("{:x}", hasher.finalize())))
}

fn load_source<G: Copy, E: std::fmt::Display>(
    format: &RowFormat<'_, G, E>,
    spec: &DatasetSpec,
    split: &SplitRequest,
) -> Result<Source, DatasetError> {
    match spec {
        DatasetSpec::Embedded => {
            let mut rows = Vec::new();
            let mut origins = Vec::new();
            for (name, text) in format.embedded {
                for (i, line) in text.lines().enumerate() {
                    if !line.trim().is_empty() {
                        rows.push((origins.len(), i + 1, line));
                    }
                }
                origins.push(PathBuf::from(format!(
                    "embedded:{}/{name}.jsonl",
                    format.env
                )));
            }
            Ok(Source {
                rows: Rows::Embedded(rows),
                origins,
                file_sha256: None,
            })
        }
        DatasetSpec::File(path) => {
            let (spool, sha256) = spool_file(path, format.max_row_bytes)?;
            Ok(Source {
                rows: Rows::Spooled(spool),
                origins: vec![path.clone()],
                file_sha256: Some(sha256),
            })
        }
        DatasetSpec::Synthetic { seed, n } => {
            let origin = PathBuf::from(format!("synthetic:{seed}:{n}"));
            let split_name = split.0.clone().unwrap_or_else(|| "test".to_string());
            if split_name == "all" {
                return Err(DatasetError::Selection(
                    "synthetic:SEED:N generates one split; choose --split train, dev, test or ood"
                        .to_string(),
                ));
            }
            // Rows become text as they are generated (no tree per row kept).
            let mut spool = SpoolWriter::new().map_err(spool_error(&origin))?;
            let mut failed = None;
            (format.synthetic)(*seed, &split_name, *n, &mut |value| {
                if failed.is_none() {
                    let line = spool.len() + 1;
                    if let Err(e) = spool.push(&value.to_string(), line) {
                        failed = Some(e);
                    }
                }
            })
            .map_err(|e| DatasetError::Selection(e.to_string()))?;
            if let Some(e) = failed {
                return Err(spool_error(&origin)(e));
            }
            Ok(Source {
                rows: Rows::Spooled(spool.finish().map_err(spool_error(&origin))?),
                origins: vec![origin],
                file_sha256: None,
            })
        }
    }
}

/// A validated, selected dataset whose examples are built one at a time
/// from rows kept on disk (see [`open`]); [`ExampleSet`] for the runner.
pub struct SelectedRows<G> {
    source: Source,
    /// Source row of each selected example, in evaluation order.
    order: Vec<u32>,
    /// Example ids in evaluation order.
    ids: StrList,
    /// Gold labels in evaluation order.
    gold: Vec<G>,
    /// Turns a gold label into the example's `answer`.
    answer: fn(G) -> Value,
    /// Split of each selected row (a position in `split_names`).
    row_splits: Vec<u32>,
    split_names: StrIndex,
    /// Where the rows came from.
    pub provenance: DataProvenance,
}

impl<G> std::fmt::Debug for SelectedRows<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelectedRows")
            .field("split", &self.provenance.split)
            .field("selected", &self.order.len())
            .field("split_rows", &self.provenance.split_rows)
            .finish_non_exhaustive()
    }
}

impl<G: Copy + Send + Sync> SelectedRows<G> {
    /// Gold labels in evaluation order.
    pub fn gold(&self) -> &[G] {
        &self.gold
    }

    /// Builds every example (small sets: the API, benchmarks, tests).
    pub fn into_loaded(self) -> Result<LoadedDataset<G>, DatasetError> {
        let examples = (0..self.order.len())
            .map(|i| self.example(i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(LoadedDataset {
            examples,
            gold: self.gold,
            provenance: self.provenance,
        })
    }
}

impl<G: Copy + Send + Sync> ExampleSet for SelectedRows<G> {
    fn len(&self) -> usize {
        self.order.len()
    }

    fn id(&self, index: usize) -> &str {
        self.ids.get(index)
    }

    fn example(&self, index: usize) -> Result<Example, DatasetError> {
        let row = self.order[index] as usize;
        let (question, _answer, info) = split_row(self.source.value(row)?);
        let info = RawValue::from_string(info.to_string()).map_err(|e| {
            self.source
                .row_error(row, format!("cannot keep row metadata: {e}"))
        })?;
        Ok(Example {
            index,
            id: self.ids.get(index).to_string(),
            split: Some(
                self.split_names
                    .name(self.row_splits[index] as usize)
                    .to_string(),
            ),
            question: question
                .and_then(|q| q.as_str().map(str::to_string))
                .unwrap_or_default(),
            answer: (self.answer)(self.gold[index]),
            info,
        })
    }
}

/// No `meta.split` on the row.
const NO_SPLIT: u32 = u32::MAX;

/// Loads, validates, filters and selects rows, building every example.
pub fn load<G: Copy + Send + Sync, E: std::fmt::Display>(
    format: &RowFormat<'_, G, E>,
    spec: &DatasetSpec,
    split: &SplitRequest,
    selection: &SelectionRequest,
) -> Result<LoadedDataset<G>, DatasetError> {
    open(format, spec, split, selection)?.into_loaded()
}

/// Loads, validates, filters and selects rows; examples are built when
/// asked for ([`ExampleSet::example`]). Memory per row is about 40 bytes
/// while loading and 30 per selected row after, whatever the rows' size.
pub fn open<G: Copy, E: std::fmt::Display>(
    format: &RowFormat<'_, G, E>,
    spec: &DatasetSpec,
    split: &SplitRequest,
    selection: &SelectionRequest,
) -> Result<SelectedRows<G>, DatasetError> {
    let source = load_source(format, spec, split)?;
    let n = source.len();
    let position = |i: usize| {
        u32::try_from(i).map_err(|_| {
            DatasetError::Selection(format!("{n} rows: at most 2^32 rows are supported"))
        })
    };
    position(n)?;

    // Pass 1: validate every row (a bad row anywhere is reported: invalid
    // JSON, a repeated key, a wrong-typed field), read gold, split and id.
    let mut gold_of = Vec::with_capacity(n);
    let mut split_of = Vec::with_capacity(n);
    let mut split_names = StrIndex::new();
    let mut base_ids = StrIndex::new();
    let mut base_of = Vec::with_capacity(n);
    for i in 0..n {
        let text = source.text(i)?;
        let value = parse_row_object(&text).map_err(|e| source.row_error(i, e.to_string()))?;
        check_common_fields(&value).map_err(|e| source.row_error(i, e.to_string()))?;
        match value.get("question") {
            Some(Value::String(_)) => {}
            Some(_) => return Err(source.row_error(i, "field `question` is not a string".into())),
            None => return Err(source.row_error(i, "missing field `question`".into())),
        }
        if value.get("answer").is_none() {
            return Err(source.row_error(i, "missing field `answer`".into()));
        }
        if let Some(meta) = value.get("meta") {
            if !meta.is_object() {
                return Err(source.row_error(i, "field `meta` is not an object".into()));
            }
        }
        gold_of.push((format.validate)(&value).map_err(|e| source.row_error(i, e.to_string()))?);
        base_of.push(position(base_ids.insert(&base_example_id(&value)).0)?);
        split_of.push(match row_split(&value) {
            Some(s) => position(split_names.insert(s).0)?,
            None => NO_SPLIT,
        });
    }
    let any_split = split_of.iter().any(|&s| s != NO_SPLIT);

    let split_name = match (&split.0, any_split) {
        (Some(s), _) => s.clone(),
        (None, true) => "test".to_string(),
        (None, false) => "all".to_string(),
    };
    if split_name != "all" && !format.splits.contains(&split_name.as_str()) {
        return Err(DatasetError::Selection(format!(
            "unknown split `{split_name}` ({} splits: {}, all)",
            format.env.to_uppercase(),
            format.splits.join(", ")
        )));
    }
    let requested = split_names.get(&split_name).map(|p| p as u32);

    let mut members: Vec<u32> = Vec::new();
    for (i, &s) in split_of.iter().enumerate() {
        if split_name == "all" || (s != NO_SPLIT && Some(s) == requested) {
            members.push(i as u32);
        } else if s == NO_SPLIT {
            return Err(source.row_error(
                i,
                format!(
                    "row has no `meta.split` but split `{split_name}` was requested; use --split all"
                ),
            ));
        }
    }
    if members.is_empty() {
        let mut counts = vec![0usize; split_names.len()];
        for &s in split_of.iter().filter(|&&s| s != NO_SPLIT) {
            counts[s as usize] += 1;
        }
        let present = counts
            .into_iter()
            .enumerate()
            .map(|(i, n)| (split_names.name(i).to_string(), n))
            .collect();
        return Err(DatasetError::EmptySplit {
            path: source.origins[0].clone(),
            split: split_name,
            present,
        });
    }
    // Pass 2: the split's canonical hash, in source order.
    let mut split_hash = RowHasher::new();
    for &i in &members {
        split_hash.push(&source.value(i as usize)?);
    }
    let dataset_sha256 = split_hash.finish();
    let split_rows = members.len();

    let unchanged_order =
        !selection.shuffle && selection.max_examples.is_none_or(|m| m >= members.len());
    let mut order = members;
    if selection.shuffle {
        let mut rng = ChaCha8Rng::seed_from_u64(selection.seed);
        order.shuffle(&mut rng);
    }
    if let Some(m) = selection.max_examples {
        if m == 0 {
            return Err(DatasetError::Selection(
                "-n must be a positive integer".into(),
            ));
        }
        order.truncate(m);
    }
    order.shrink_to_fit();

    // Pass 3: the selected rows' hash in evaluation order (the split's hash
    // when selection kept every row in source order).
    let selected_sha256 = if unchanged_order {
        dataset_sha256.clone()
    } else {
        let mut selected_hash = RowHasher::new();
        for &i in &order {
            selected_hash.push(&source.value(i as usize)?);
        }
        selected_hash.finish()
    };

    // Ids: repeats get `~1`, `~2`, … in source order (as `dedupe_ids`).
    let mut seen = vec![0u32; base_ids.len()];
    let mut suffix_of: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut warnings = Vec::new();
    for (i, &b) in base_of.iter().enumerate() {
        let count = &mut seen[b as usize];
        if *count > 0 {
            let base = base_ids.name(b as usize);
            warnings.push(format!(
                "duplicate example id {base}: renamed to {base}~{count}"
            ));
            suffix_of.insert(i as u32, *count);
        }
        *count += 1;
    }
    drop(seen);
    let mut ids = StrList::new();
    let mut gold = Vec::with_capacity(order.len());
    let mut row_splits = Vec::with_capacity(order.len());
    let mut fallback = None;
    for &i in &order {
        let base = base_ids.name(base_of[i as usize] as usize);
        match suffix_of.get(&i) {
            Some(k) => ids.push(&format!("{base}~{k}")),
            None => ids.push(base),
        };
        gold.push(gold_of[i as usize]);
        row_splits.push(match split_of[i as usize] {
            NO_SPLIT => *fallback.get_or_insert_with(|| split_names.insert(&split_name).0 as u32),
            s => s,
        });
    }
    ids.shrink_to_fit();
    let file_sha256 = source.file_sha256.clone();
    warnings.sort();
    warnings.dedup();
    Ok(SelectedRows {
        source,
        order,
        ids,
        gold,
        answer: format.answer,
        row_splits,
        split_names,
        provenance: DataProvenance {
            split: split_name,
            split_rows,
            dataset_sha256,
            selected_sha256,
            file_sha256,
            warnings,
        },
    })
}
