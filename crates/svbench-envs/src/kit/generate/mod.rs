//! The generator kit: what every environment's seeded corpus generator
//! shares — randomness ([`rng`]), JSONL text, the manifest's generator check
//! and reproduction check, the corpus directory's files — and the
//! [`GeneratorEntry`] through which `svbench data gen` runs any of them.
//!
//! An environment implements [`CorpusGenerator`] for its generator and
//! declares `GeneratorEntry::of::<ItsGenerator>()` in its registry entry.

pub mod corpus;
pub mod rng;
pub mod split;

use std::fmt::Display;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use self::rng::SeededRng;

/// Rows as JSONL text: compact JSON, one row per line, `\n` after each.
#[must_use]
pub fn to_jsonl(rows: &[Value]) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(&serde_json::to_string(row).expect("JSON values always serialise"));
        out.push('\n');
    }
    out
}

/// A manifest as committed: pretty JSON with a trailing newline.
#[must_use]
pub fn manifest_text<M: Serialize>(manifest: &M) -> String {
    let mut s = serde_json::to_string_pretty(manifest).expect("manifest serialises");
    s.push('\n');
    s
}

/// Parses manifest text.
///
/// # Errors
/// [`GenError::Manifest`] (`invalid manifest: …`) for text that is not a
/// manifest of this shape.
pub fn parse_manifest<M: DeserializeOwned>(text: &str) -> Result<M, GenError> {
    serde_json::from_str(text).map_err(|e| GenError::Manifest(format!("invalid manifest: {e}")))
}

/// The split named `name` among `all` (in file order), by each split's
/// `as_str` name.
///
/// # Errors
/// [`GenError::Config`] (`unknown split `x` (train, dev, …)`) listing the
/// splits there are.
pub fn parse_split<S: Copy>(
    name: &str,
    all: &[S],
    as_str: fn(S) -> &'static str,
) -> Result<S, GenError> {
    all.iter()
        .copied()
        .find(|&s| as_str(s) == name)
        .ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|&s| as_str(s)).collect();
            GenError::Config(format!("unknown split `{name}` ({})", known.join(", ")))
        })
}

/// The rows of `split` in a corpus's `(split, rows)` list; none where the
/// list has no such split.
#[must_use]
pub fn split_rows_in<S: PartialEq>(splits: &[(S, Vec<Value>)], split: S) -> &[Value] {
    splits
        .iter()
        .find(|(s, _)| *s == split)
        .map_or(&[], |(_, r)| r.as_slice())
}

/// Checks a configured share: `name` must lie in [0, 1].
///
/// # Errors
/// [`GenError::Config`] (`<name> must be in [0, 1], got <value>`).
pub fn check_share(name: &str, value: f64) -> Result<(), GenError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(GenError::Config(format!(
            "{name} must be in [0, 1], got {value}"
        )))
    }
}

/// Generator errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// Invalid configuration or request.
    #[error("{0}")]
    Config(String),
    /// A manifest that cannot be reproduced by this generator.
    #[error("{0}")]
    Manifest(String),
    /// The quality checks for the data card could not read the rows.
    #[error("data card: {0}")]
    Card(String),
    /// The analyzers that label the rows could not be configured.
    #[error("analyzers: {0}")]
    Scanner(String),
}

/// Generator identity, as a manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorInfo {
    /// `sv-synth-<env>`.
    pub name: String,
    /// Generator version.
    pub version: String,
}

impl GeneratorInfo {
    /// This build's generator.
    #[must_use]
    pub fn new(name: &str, version: &str) -> Self {
        Self {
            name: name.to_string(),
            version: version.to_string(),
        }
    }

    /// Refuses a manifest written by another generator or another version
    /// (this build cannot reproduce it).
    ///
    /// # Errors
    /// [`GenError::Manifest`] saying which.
    pub fn check(&self, name: &str, version: &str) -> Result<(), GenError> {
        if self.name != name {
            return Err(GenError::Manifest(format!(
                "manifest names generator `{}`, this is `{name}`",
                self.name
            )));
        }
        if self.version != version {
            return Err(GenError::Manifest(format!(
                "manifest was written by {name} version {}, this build has version {version}; it cannot reproduce other versions",
                self.version
            )));
        }
        Ok(())
    }
}

/// The files a manifest records: every generator's manifest has a `files`
/// list whose entries carry at least these keys.
#[derive(Deserialize)]
struct RecordedFiles {
    files: Vec<RecordedFile>,
}

#[derive(Deserialize)]
struct RecordedFile {
    split: String,
    path: String,
    sha256: String,
}

impl RecordedFiles {
    fn of<M: Serialize>(manifest: &M) -> Result<Vec<RecordedFile>, GenFailure> {
        serde_json::to_value(manifest)
            .and_then(serde_json::from_value::<RecordedFiles>)
            .map(|r| r.files)
            .map_err(|e| GenFailure::Failed(format!("manifest without a file list: {e}")))
    }
}

/// The files of a corpus directory, in write order: one `<split>.jsonl` per
/// split, `manifest.json`, the data card `README.md`.
#[must_use]
pub fn corpus_files<S: Display, M: Serialize>(
    splits: &[(S, Vec<Value>)],
    manifest: &M,
    card: String,
) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = splits
        .iter()
        .map(|(split, rows)| (format!("{split}.jsonl"), to_jsonl(rows)))
        .collect();
    files.push(("manifest.json".to_string(), manifest_text(manifest)));
    files.push(("README.md".to_string(), card));
    files
}

/// Why a generator request failed; the CLI maps each kind to an exit code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GenFailure {
    /// A request the generator refuses (an unknown split).
    #[error("{0}")]
    Usage(String),
    /// A manifest that does not parse or that this generator cannot read.
    #[error("{0}")]
    Manifest(String),
    /// A manifest this build cannot reproduce, with what to do about it.
    #[error("{message}")]
    Stale {
        /// What differs.
        message: String,
        /// What to do.
        hint: String,
    },
    /// Generation itself failed (invalid configuration, analyzers that
    /// cannot be configured, quality checks that cannot read the rows).
    #[error("{0}")]
    Failed(String),
}

/// A generated corpus directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedCorpus {
    /// `(file name, text)` in write order.
    pub files: Vec<(String, String)>,
    /// Lines to report after writing (e.g. what was dropped).
    pub notes: Vec<String>,
}

/// A corpus regenerated from a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regenerated {
    /// The corpus this build generates from the manifest.
    pub corpus: GeneratedCorpus,
    /// The manifest's files whose recorded SHA-256 it does not reproduce.
    pub differ: Vec<String>,
}

/// An environment's seeded corpus generator, as the kit drives it.
pub trait CorpusGenerator {
    /// `sv-synth-<env>`.
    const NAME: &'static str;
    /// Seed when none is given (and of the committed corpus).
    const DEFAULT_SEED: u64;
    /// A split name, parsed (an unknown one is a usage error).
    type Split: FromStr<Err: Display>;
    /// A generated corpus.
    type Corpus;
    /// Its manifest (with a `files` list of `split`, `path`, `sha256`).
    type Manifest: Serialize + DeserializeOwned;

    /// Rows of split `split`: `n` of them, or without `n` exactly the
    /// split's file of the corpus at the default configuration.
    ///
    /// # Errors
    /// [`GenFailure::Failed`].
    fn split_rows(
        seed: u64,
        split: Self::Split,
        n: Option<usize>,
    ) -> Result<Vec<Value>, GenFailure>;

    /// The corpus at the default configuration.
    ///
    /// # Errors
    /// [`GenFailure::Failed`].
    fn corpus(seed: u64) -> Result<Self::Corpus, GenFailure>;

    /// The corpus a manifest records.
    ///
    /// # Errors
    /// [`GenFailure::Manifest`] or [`GenFailure::Stale`] for a manifest this
    /// build cannot reproduce.
    fn corpus_from_manifest(manifest: &Self::Manifest) -> Result<Self::Corpus, GenFailure>;

    /// The manifest describing a corpus.
    fn manifest_of(corpus: &Self::Corpus) -> Self::Manifest;

    /// The corpus directory's files.
    ///
    /// # Errors
    /// [`GenFailure::Failed`] when the data card cannot be written.
    fn files(corpus: &Self::Corpus) -> Result<Vec<(String, String)>, GenFailure>;

    /// Lines to report after writing the corpus.
    fn notes(_corpus: &Self::Corpus) -> Vec<String> {
        Vec::new()
    }
}

/// Rows of a split by name: seed, split, `-n`.
pub type SplitRows = fn(u64, &str, Option<usize>) -> Result<Vec<Value>, GenFailure>;

/// A generator in the registry: what `svbench data gen` calls.
#[derive(Debug, Clone, Copy)]
pub struct GeneratorEntry {
    /// `sv-synth-<env>`.
    pub name: &'static str,
    /// Seed when none is given.
    pub default_seed: u64,
    /// Rows of one split by name (see [`CorpusGenerator::split_rows`]);
    /// [`GenFailure::Usage`] for a split the generator does not have.
    pub split_rows: SplitRows,
    /// The corpus directory at the default configuration for a seed.
    pub corpus: fn(u64) -> Result<GeneratedCorpus, GenFailure>,
    /// Regenerates the corpus that manifest text records and checks it
    /// against the recorded hashes.
    pub regenerate: fn(&str) -> Result<Regenerated, GenFailure>,
}

impl GeneratorEntry {
    /// The entry of generator `G`.
    #[must_use]
    pub const fn of<G: CorpusGenerator>() -> Self {
        Self {
            name: G::NAME,
            default_seed: G::DEFAULT_SEED,
            split_rows: split_rows::<G>,
            corpus: corpus::<G>,
            regenerate: regenerate::<G>,
        }
    }
}

fn directory<G: CorpusGenerator>(corpus: &G::Corpus) -> Result<GeneratedCorpus, GenFailure> {
    Ok(GeneratedCorpus {
        files: G::files(corpus)?,
        notes: G::notes(corpus),
    })
}

fn split_rows<G: CorpusGenerator>(
    seed: u64,
    split: &str,
    n: Option<usize>,
) -> Result<Vec<Value>, GenFailure> {
    let split = split
        .parse()
        .map_err(|e: <G::Split as FromStr>::Err| GenFailure::Usage(e.to_string()))?;
    G::split_rows(seed, split, n)
}

fn corpus<G: CorpusGenerator>(seed: u64) -> Result<GeneratedCorpus, GenFailure> {
    directory::<G>(&G::corpus(seed)?)
}

fn regenerate<G: CorpusGenerator>(text: &str) -> Result<Regenerated, GenFailure> {
    let recorded: G::Manifest =
        parse_manifest(text).map_err(|e| GenFailure::Manifest(e.to_string()))?;
    let corpus = G::corpus_from_manifest(&recorded)?;
    let fresh = RecordedFiles::of(&G::manifest_of(&corpus))?;
    let differ = RecordedFiles::of(&recorded)?
        .into_iter()
        .filter(|f| {
            !fresh
                .iter()
                .any(|g| g.split == f.split && g.sha256 == f.sha256)
        })
        .map(|f| f.path)
        .collect();
    Ok(Regenerated {
        corpus: directory::<G>(&corpus)?,
        differ,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_check_refuses_other_names_and_versions() {
        let info = GeneratorInfo::new("sv-synth-x", "1");
        assert!(info.check("sv-synth-x", "1").is_ok());
        let message = |name, version| info.check(name, version).unwrap_err().to_string();
        assert!(message("sv-synth-y", "1").contains("names generator"));
        assert!(message("sv-synth-x", "2").contains("version 1"));
    }

    #[test]
    fn splits_parse_by_name_and_an_unknown_one_lists_them() {
        let all = [1u8, 2, 3];
        let name = |s: u8| ["", "train", "dev", "test"][usize::from(s)];
        assert_eq!(parse_split("dev", &all, name).unwrap(), 2);
        assert_eq!(
            parse_split("ood", &all, name).unwrap_err().to_string(),
            "unknown split `ood` (train, dev, test)"
        );
        let splits = vec![(1u8, vec![serde_json::json!(1)]), (3, vec![])];
        assert_eq!(split_rows_in(&splits, 1).len(), 1);
        assert!(split_rows_in(&splits, 2).is_empty());
    }

    #[test]
    fn shares_lie_in_the_unit_interval() {
        assert!(check_share("x", 0.0).is_ok() && check_share("x", 1.0).is_ok());
        assert_eq!(
            check_share("clean_fraction", 1.5).unwrap_err().to_string(),
            "clean_fraction must be in [0, 1], got 1.5"
        );
        assert!(check_share("x", f64::NAN).is_err());
    }

    #[test]
    fn corpus_files_are_splits_then_manifest_then_card() {
        let rows = vec![serde_json::json!({"a": 1}), serde_json::json!({"b": [2]})];
        let manifest = serde_json::json!({"files": []});
        let files = corpus_files(&[("test", rows)], &manifest, "# card\n".into());
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["test.jsonl", "manifest.json", "README.md"]);
        assert_eq!(files[0].1, "{\"a\":1}\n{\"b\":[2]}\n");
        assert_eq!(files[1].1, "{\n  \"files\": []\n}\n");
    }
}
