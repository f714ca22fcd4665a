//! `svbench data inspect FILE`: what a CSV or JSONL file holds, and the
//! import flags that would map it. It only suggests; nothing is applied.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::table::{read_csv, read_jsonl, Table};
use super::ImportError;

/// Columns with at most this many distinct values are listed with counts.
const LOW_CARDINALITY: usize = 20;
/// A text column's cells are at least this long on average.
const TEXT_MIN_MEAN_CHARS: f64 = 20.0;
/// Listed values are cut here.
const VALUE_MAX_CHARS: usize = 60;

/// A column's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Column name.
    pub name: String,
    /// Non-empty cells.
    pub non_empty: usize,
    /// Mean length of the non-empty cells, in characters.
    pub mean_chars: f64,
    /// Distinct values with counts, when there are few.
    pub values: Option<BTreeMap<String, usize>>,
}

/// What a file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// Rows.
    pub rows: usize,
    /// Columns in file order.
    pub columns: Vec<Column>,
}

/// Reads a CSV (by extension `.csv`) or JSONL file and summarises it.
pub fn inspect(path: &Path) -> Result<Inspection, ImportError> {
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let table = if is_csv {
        read_csv(path)?
    } else {
        read_jsonl(path)?
    };
    Ok(summarise(&table))
}

fn summarise(table: &Table) -> Inspection {
    let columns = table
        .columns
        .iter()
        .map(|name| {
            let mut values: BTreeMap<String, usize> = BTreeMap::new();
            let mut non_empty = 0;
            let mut chars = 0usize;
            for r in &table.records {
                let cell = r.cells.get(name).map_or("", |c| c.trim());
                if !cell.is_empty() {
                    non_empty += 1;
                    chars += cell.chars().count();
                }
                if values.len() <= LOW_CARDINALITY {
                    *values.entry(cell.to_string()).or_default() += 1;
                }
            }
            Column {
                name: name.clone(),
                non_empty,
                mean_chars: if non_empty == 0 {
                    0.0
                } else {
                    chars as f64 / non_empty as f64
                },
                values: (values.len() <= LOW_CARDINALITY).then_some(values),
            }
        })
        .collect();
    Inspection {
        rows: table.records.len(),
        columns,
    }
}

/// A label value's likely E4 label, from common corpus spellings.
fn suggest_label(value: &str) -> Option<&'static str> {
    let v = value.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| v.contains(w));
    if has(&["phish", "spam", "malicious", "fraud", "scam"]) || v == "1" || v == "true" {
        Some("Phishing")
    } else if has(&["safe", "legit", "ham", "benign", "clean", "normal"])
        || v == "0"
        || v == "false"
    {
        Some("Legitimate")
    } else if has(&["abstain", "unsure", "ambiguous"]) {
        Some("Abstain")
    } else {
        None
    }
}

impl Inspection {
    /// The report printed by `svbench data inspect`, suggestions included.
    pub fn report(&self, path: &Path) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} rows, {} columns",
            path.display(),
            self.rows,
            self.columns.len()
        );
        for c in &self.columns {
            let _ = writeln!(
                out,
                "  {:?}: {} non-empty, mean {:.0} chars",
                c.name, c.non_empty, c.mean_chars
            );
            // Long cells are text, not categories: their values are not listed.
            let listed = c
                .values
                .as_ref()
                .filter(|_| c.mean_chars < TEXT_MIN_MEAN_CHARS);
            for (v, n) in listed.into_iter().flatten() {
                let shown: String = v.chars().take(VALUE_MAX_CHARS).collect();
                let _ = writeln!(out, "      {shown:?}: {n}");
            }
        }
        // The label column: few values, all readable as labels; columns
        // whose values name the classes beat 0/1 columns (often an index).
        let label = self
            .columns
            .iter()
            .filter(|c| {
                c.values.as_ref().is_some_and(|v| {
                    (2..=6).contains(&v.len())
                        && v.keys()
                            .filter(|k| !k.is_empty())
                            .all(|k| suggest_label(k).is_some())
                })
            })
            .max_by_key(|c| {
                c.values
                    .iter()
                    .flatten()
                    .filter(|(k, _)| k.parse::<f64>().is_err())
                    .count()
            });
        // The text column: the longest cells, at least a sentence long.
        let label_name = label.map(|l| l.name.as_str());
        let text = self
            .columns
            .iter()
            .filter(|c| c.mean_chars >= TEXT_MIN_MEAN_CHARS && Some(c.name.as_str()) != label_name)
            .max_by(|a, b| a.mean_chars.total_cmp(&b.mean_chars));
        let _ = writeln!(out, "\nSuggested mapping (check it; nothing is applied):");
        match (text, label) {
            (Some(t), Some(l)) => {
                let map = l
                    .values
                    .iter()
                    .flatten()
                    .filter(|(k, _)| !k.is_empty())
                    .filter_map(|(k, _)| suggest_label(k).map(|s| format!("{k}={s}")))
                    .collect::<Vec<_>>()
                    .join(",");
                let _ = writeln!(
                    out,
                    "  --text-col {:?} --label-col {:?} --label-map {:?} --text-kind body|raw \
                     --evidence-gold extractor|none",
                    t.name, l.name, map
                );
                let _ = writeln!(
                    out,
                    "  (--text-kind raw if the text column holds whole messages with headers)"
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "  none: no column looks like a text column with a label column beside it; \
                     choose --text-col, --label-col and --label-map by hand"
                );
            }
        }
        out
    }
}
