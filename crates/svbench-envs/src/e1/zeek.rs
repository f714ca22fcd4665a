//! Zeek `conn.log` / `conn.log.labeled` importer (E1 §6.5).
//!
//! Reads Zeek ASCII logs (`#separator`, `#unset_field`, `#empty_field`,
//! `#fields`), including IoT-23's quirk of space-separated trailing columns,
//! and turns each connection into an E1 row rendered with the v1 (or
//! upstream-compatible) template. Nothing is defaulted: a label other than
//! benign/malicious is skipped and counted, a malformed line is an error with
//! its line number. Whole captures go to one split.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::generate::rng::GenRng;
use super::generate::{question_hash, render, Flow, Split, Template};
use super::Gold;

/// Errors reading or importing Zeek logs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ZeekError {
    /// A malformed line.
    #[error("{path}:{line}: {message}")]
    Format {
        /// File.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A request that cannot be honoured (e.g. an unlabelled log without `--label`).
    #[error("{0}")]
    Usage(String),
}

/// One parsed log: column names and data rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnLog {
    /// Column names from `#fields`.
    pub fields: Vec<String>,
    /// Data rows in file order.
    pub rows: Vec<ConnRow>,
}

/// A value of a Zeek log cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// `#unset_field` (usually `-`).
    Unset,
    /// `#empty_field` (usually `(empty)`).
    Empty,
    /// Any other text.
    Text(String),
}

impl Cell {
    fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// One data line.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnRow {
    /// 1-based line number.
    pub line: usize,
    /// One cell per field.
    pub cells: Vec<Cell>,
}

/// Decodes `\xHH` escapes (how Zeek writes `#separator \x09`).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            if let Some(v) = s
                .get(i + 2..i + 4)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v as char);
                i += 4;
                continue;
            }
        }
        let c = s[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Parses a Zeek ASCII log. `path` only names the file in errors.
pub fn parse_conn_log(text: &str, path: &Path) -> Result<ConnLog, ZeekError> {
    let err = |line: usize, message: String| ZeekError::Format {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut sep = "\t".to_string();
    let mut unset = "-".to_string();
    let mut empty = "(empty)".to_string();
    let mut fields: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("#separator") {
            sep = unescape(rest.trim_start_matches([' ', '\t']));
            if sep.is_empty() {
                return Err(err(line_no, "empty #separator".into()));
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            let (key, value) = rest.split_once(sep.as_str()).unwrap_or((rest, ""));
            match key {
                "unset_field" => unset = value.to_string(),
                "empty_field" => empty = value.to_string(),
                "fields" => {
                    let mut names: Vec<String> =
                        value.split(sep.as_str()).map(str::to_string).collect();
                    // IoT-23: the last names are separated by spaces, not tabs.
                    if let Some(last) = names.pop() {
                        names.extend(last.split_whitespace().map(str::to_string));
                    }
                    fields = Some(names);
                }
                _ => {}
            }
            continue;
        }
        let Some(names) = fields.as_ref() else {
            return Err(err(line_no, "data line before the #fields header".into()));
        };
        let mut values: Vec<&str> = line.split(sep.as_str()).collect();
        if values.len() < names.len() {
            // IoT-23: trailing columns separated by runs of spaces.
            if let Some(last) = values.pop() {
                values.extend(last.split_whitespace());
            }
        }
        if values.len() != names.len() {
            return Err(err(
                line_no,
                format!(
                    "expected {} fields (from #fields), found {}",
                    names.len(),
                    values.len()
                ),
            ));
        }
        let cells = values
            .into_iter()
            .map(|v| {
                if v == unset {
                    Cell::Unset
                } else if v == empty {
                    Cell::Empty
                } else {
                    Cell::Text(v.to_string())
                }
            })
            .collect();
        rows.push(ConnRow {
            line: line_no,
            cells,
        });
    }
    let fields = fields.ok_or_else(|| err(1, "no #fields header".into()))?;
    Ok(ConnLog { fields, rows })
}

/// How captures are assigned to splits.
#[derive(Debug, Clone, PartialEq)]
pub enum SplitAssignment {
    /// Every capture goes to this split.
    Fixed(Split),
    /// Per capture, deterministic from its name and the seed, with these
    /// shares of train, dev and test.
    Ratios([f64; 3]),
}

/// Importer settings (harness §1.2 `data import-zeek`).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOptions {
    /// Label for every row of unlabelled logs.
    pub label: Option<Gold>,
    /// uid → label, for unlabelled logs.
    pub labels: Option<HashMap<String, Gold>>,
    /// `meta.source`.
    pub source: String,
    /// Device type of every row.
    pub device: Option<String>,
    /// IP → device type (originator first, then responder).
    pub device_map: Option<HashMap<String, String>>,
    /// Capture name for every file (default: the file's folder).
    pub scenario: Option<String>,
    /// Split assignment.
    pub split: SplitAssignment,
    /// Seed for split assignment and sampling.
    pub seed: u64,
    /// Keep at most this many rows per label (seeded sample).
    pub max_per_label: Option<usize>,
    /// Hashes already used elsewhere (`--dedup-against`).
    pub dedup_against: HashSet<String>,
    /// Question template.
    pub template: Template,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            label: None,
            labels: None,
            source: "zeek".to_string(),
            device: None,
            device_map: None,
            scenario: None,
            split: SplitAssignment::Ratios([0.7, 0.15, 0.15]),
            seed: 42,
            max_per_label: None,
            dedup_against: HashSet::new(),
            template: Template::V1,
        }
    }
}

/// One input file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportInput {
    /// Where it came from (capture name and error messages).
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// The result of an import.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOutcome {
    /// Rows in input order.
    pub rows: Vec<Value>,
    /// Skipped connections by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Capture → (split, rows kept).
    pub captures: BTreeMap<String, (Split, usize)>,
}

/// The capture a file belongs to: its folder's name, skipping a `bro`,
/// `zeek` or `logs` folder (IoT-23 keeps logs in `<capture>/bro/`); the file
/// name without extension if it has no folder.
pub fn capture_name(path: &Path) -> String {
    let mut dir = path.parent();
    while let Some(d) = dir {
        match d.file_name().and_then(|n| n.to_str()) {
            Some(n) if matches!(n.to_ascii_lowercase().as_str(), "bro" | "zeek" | "logs") => {
                dir = d.parent();
            }
            Some(n) if !n.is_empty() => return n.to_string(),
            _ => break,
        }
    }
    path.file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.split('.').next().unwrap_or(n).to_string())
        .unwrap_or_else(|| "capture".to_string())
}

/// The split of a capture under ratios: a uniform number from SHA-256 of
/// (seed, capture name) compared with the cumulative shares.
pub fn capture_split(capture: &str, seed: u64, ratios: [f64; 3]) -> Split {
    let mut h = Sha256::new();
    h.update(b"sv-import-zeek\0");
    h.update(seed.to_le_bytes());
    h.update(capture.as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    let u = (u64::from_le_bytes(b) >> 11) as f64 / (1u64 << 53) as f64;
    let total: f64 = ratios.iter().sum();
    let mut acc = 0.0;
    for (share, split) in ratios.iter().zip([Split::Train, Split::Dev, Split::Test]) {
        acc += share / total;
        if u < acc {
            return split;
        }
    }
    Split::Test
}

/// Normalises a label cell: benign/malicious, case-insensitive, trimmed.
pub fn normalize_label(s: &str) -> Option<Gold> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("benign") {
        Some(Gold::Benign)
    } else if t.eq_ignore_ascii_case("malicious") {
        Some(Gold::Malicious)
    } else {
        None
    }
}

/// Parses a `--labels` file: one `uid label` per line (tab, comma or spaces
/// between); blank lines and `#` comments ignored.
pub fn parse_label_file(text: &str, path: &Path) -> Result<HashMap<String, Gold>, ZeekError> {
    let mut out = HashMap::new();
    for (uid, value, line) in pairs(text) {
        let gold = normalize_label(value).ok_or_else(|| ZeekError::Format {
            path: path.to_path_buf(),
            line,
            message: format!("label `{value}` is neither benign nor malicious"),
        })?;
        out.insert(uid.to_string(), gold);
    }
    Ok(out)
}

/// Parses a `--device-map` file: one `ip device` per line.
pub fn parse_device_map(text: &str) -> HashMap<String, String> {
    pairs(text)
        .map(|(ip, dev, _)| (ip.to_string(), dev.to_string()))
        .collect()
}

fn pairs(text: &str) -> impl Iterator<Item = (&str, &str, usize)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            return None;
        }
        let (a, b) = l.split_once(['\t', ',', ' '])?;
        Some((a.trim(), b.trim(), i + 1))
    })
}

struct Columns {
    idx: HashMap<String, usize>,
}

impl Columns {
    fn cell<'a>(&self, row: &'a ConnRow, name: &str) -> Option<&'a Cell> {
        self.idx.get(name).and_then(|i| row.cells.get(*i))
    }
    fn text<'a>(&self, row: &'a ConnRow, name: &str) -> Option<&'a str> {
        self.cell(row, name).and_then(Cell::text)
    }
}

fn number<T: std::str::FromStr>(
    cols: &Columns,
    row: &ConnRow,
    name: &str,
    path: &Path,
) -> Result<Option<T>, ZeekError> {
    match cols.text(row, name) {
        None => Ok(None),
        Some(t) => t.parse::<T>().map(Some).map_err(|_| ZeekError::Format {
            path: path.to_path_buf(),
            line: row.line,
            message: format!("{name} `{t}` is not a number"),
        }),
    }
}

/// The flow of one log row.
fn row_flow(
    cols: &Columns,
    row: &ConnRow,
    path: &Path,
    opts: &ImportOptions,
) -> Result<Flow, ZeekError> {
    let text = |n: &str| cols.text(row, n).map(str::to_string);
    let device = opts.device.clone().or_else(|| {
        let map = opts.device_map.as_ref()?;
        ["id.orig_h", "id.resp_h"]
            .iter()
            .find_map(|h| cols.text(row, h).and_then(|ip| map.get(ip)).cloned())
    });
    let ts: Option<f64> = number(cols, row, "ts", path)?;
    let duration: Option<f64> = number(cols, row, "duration", path)?;
    for (name, v) in [("ts", ts), ("duration", duration)] {
        if v.is_some_and(|x| !x.is_finite() || x < 0.0) {
            return Err(ZeekError::Format {
                path: path.to_path_buf(),
                line: row.line,
                message: format!("{name} must be a finite, non-negative number"),
            });
        }
    }
    Ok(Flow {
        ts,
        uid: text("uid"),
        proto: text("proto"),
        service: text("service"),
        duration,
        orig_bytes: number(cols, row, "orig_bytes", path)?,
        resp_bytes: number(cols, row, "resp_bytes", path)?,
        conn_state: text("conn_state"),
        history: text("history"),
        orig_pkts: number(cols, row, "orig_pkts", path)?,
        resp_pkts: number(cols, row, "resp_pkts", path)?,
        orig_p: number(cols, row, "id.orig_p", path)?,
        resp_p: number(cols, row, "id.resp_p", path)?,
        device_type: device,
    })
}

/// Imports logs into E1 rows.
pub fn import(inputs: &[ImportInput], opts: &ImportOptions) -> Result<ImportOutcome, ZeekError> {
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut captures: BTreeMap<String, (Split, usize)> = BTreeMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut kept: Vec<(Gold, Value)> = Vec::new();
    for input in inputs {
        let log = parse_conn_log(&input.text, &input.path)?;
        let cols = Columns {
            idx: log
                .fields
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
        };
        let labelled = cols.idx.contains_key("label");
        if labelled && (opts.label.is_some() || opts.labels.is_some()) {
            return Err(ZeekError::Usage(format!(
                "{} has a label column; --label/--labels are only for unlabelled logs",
                input.path.display()
            )));
        }
        if !labelled && opts.label.is_none() && opts.labels.is_none() {
            return Err(ZeekError::Usage(format!(
                "{} has no label column: give --label benign|malicious or --labels UIDFILE",
                input.path.display()
            )));
        }
        let capture = opts
            .scenario
            .clone()
            .unwrap_or_else(|| capture_name(&input.path));
        let split = match &opts.split {
            SplitAssignment::Fixed(s) => *s,
            SplitAssignment::Ratios(r) => capture_split(&capture, opts.seed, *r),
        };
        captures.entry(capture.clone()).or_insert((split, 0));
        for row in &log.rows {
            let mut skip = |reason: String| *skipped.entry(reason).or_default() += 1;
            let gold = if labelled {
                match cols.cell(row, "label") {
                    Some(Cell::Text(t)) => match normalize_label(t) {
                        Some(g) => g,
                        None => {
                            skip(format!("unknown label `{}`", t.trim()));
                            continue;
                        }
                    },
                    _ => {
                        skip("missing label".to_string());
                        continue;
                    }
                }
            } else if let Some(map) = &opts.labels {
                match cols.text(row, "uid").and_then(|u| map.get(u)) {
                    Some(g) => *g,
                    None => {
                        skip("uid not in --labels file".to_string());
                        continue;
                    }
                }
            } else {
                opts.label
                    .ok_or_else(|| ZeekError::Usage("unlabelled log without --label".to_string()))?
            };
            let flow = row_flow(&cols, row, &input.path, opts)?;
            let question = render(&flow, opts.template);
            let hash = question_hash(&question);
            if opts.dedup_against.contains(&hash) {
                skip("duplicate of a row in --dedup-against".to_string());
                continue;
            }
            if !seen.insert(hash.clone()) {
                skip("duplicate question".to_string());
                continue;
            }
            let family = match (gold, cols.text(row, "detailed-label")) {
                (Gold::Malicious, Some(d)) if !d.trim().is_empty() => d.trim().to_string(),
                _ => "NA".to_string(),
            };
            let mut meta = Map::new();
            meta.insert("source".into(), json!(opts.source));
            meta.insert("scenario".into(), json!(capture));
            meta.insert("attack_family".into(), json!(family));
            meta.insert("hash".into(), json!(hash));
            meta.insert("split".into(), json!(split.as_str()));
            meta.insert("flow".into(), flow.to_json());
            let mut out = Map::new();
            out.insert("question".into(), json!(question));
            out.insert("answer".into(), json!(gold.as_str()));
            out.insert("meta".into(), Value::Object(meta));
            kept.push((gold, Value::Object(out)));
        }
    }
    if let Some(max) = opts.max_per_label {
        kept = sample_per_label(kept, max, opts.seed, &mut skipped);
    }
    for (_, row) in &kept {
        if let Some(c) = row["meta"]["scenario"]
            .as_str()
            .and_then(|c| captures.get_mut(c))
        {
            c.1 += 1;
        }
    }
    Ok(ImportOutcome {
        rows: kept.into_iter().map(|(_, r)| r).collect(),
        skipped,
        captures,
    })
}

/// Keeps at most `max` rows per label: a seeded random subset, in input order.
fn sample_per_label(
    rows: Vec<(Gold, Value)>,
    max: usize,
    seed: u64,
    skipped: &mut BTreeMap<String, usize>,
) -> Vec<(Gold, Value)> {
    let mut keep = vec![true; rows.len()];
    for gold in [Gold::Benign, Gold::Malicious] {
        let mut idx: Vec<usize> = (0..rows.len()).filter(|i| rows[*i].0 == gold).collect();
        if idx.len() <= max {
            continue;
        }
        let mut rng = GenRng::new(seed, &format!("import-zeek/sample/{}", gold.as_str()));
        rng.shuffle(&mut idx);
        for i in &idx[max..] {
            keep[*i] = false;
        }
        *skipped
            .entry("sampled out (--max-per-label)".to_string())
            .or_default() += idx.len() - max;
    }
    rows.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_separator() {
        assert_eq!(unescape("\\x09"), "\t");
        assert_eq!(unescape("\\x2c"), ",");
        assert_eq!(unescape("ab"), "ab");
    }

    #[test]
    fn capture_names_skip_bro_folders() {
        assert_eq!(
            capture_name(Path::new(
                "/d/CTU-IoT-Malware-Capture-34-1/bro/conn.log.labeled"
            )),
            "CTU-IoT-Malware-Capture-34-1"
        );
        assert_eq!(capture_name(Path::new("cap-a/conn.log")), "cap-a");
        assert_eq!(capture_name(Path::new("conn.log")), "conn");
    }
}
