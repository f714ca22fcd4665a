//! The corpus of a generator that writes the four splits ([`Split`]) with a
//! share of ambiguous rows in each (E1's and E4's): its configuration, the
//! generated rows, and the manifest that regenerates it. The environment
//! keeps what is its own — its default configuration, how rows are drawn,
//! and what its manifest counts per file.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use svbench_core::canonical::sha256_hex;

use super::split::{Split, SplitSizes};
use super::{check_share, split_rows_in, to_jsonl, GenError, GeneratorInfo};

/// Generator configuration (recorded in the manifest).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareConfig {
    /// Share of ambiguous rows per split, in [0, 1] (what an ambiguous row
    /// is, and how the rest is labelled, is the environment's generator's).
    pub ambiguity: f64,
    /// Rows per split.
    pub sizes: SplitSizes,
}

impl ShareConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// [`GenError::Config`] for an ambiguity outside [0, 1].
    pub fn validate(&self) -> Result<(), GenError> {
        check_share("ambiguity", self.ambiguity)
    }
}

/// All four splits of a generated corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitCorpus {
    /// The configuration used.
    pub config: ShareConfig,
    /// The seed used.
    pub seed: u64,
    /// Rows per split, in file order (train, dev, test, ood).
    pub splits: Vec<(Split, Vec<Value>)>,
}

impl SplitCorpus {
    /// Rows of one split.
    #[must_use]
    pub fn rows(&self, split: Split) -> &[Value] {
        split_rows_in(&self.splits, split)
    }
}

/// What every file of a [`SplitManifest`] records, whatever else the
/// environment counts in it.
pub trait ManifestFileOf {
    /// `train`, `dev`, `test` or `ood`.
    fn split(&self) -> &str;
    /// File name relative to the manifest.
    fn path(&self) -> &str;
    /// Rows in the file.
    fn rows(&self) -> usize;
}

/// The manifest of a generated corpus; `F` is the environment's record of
/// one file (its counts and SHA-256).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitManifest<F> {
    /// Which generator wrote the corpus.
    pub generator: GeneratorInfo,
    /// Seed.
    pub seed: u64,
    /// Configuration.
    pub config: ShareConfig,
    /// Files in split order (train, dev, test, ood).
    pub files: Vec<F>,
}

/// What [`SplitManifest::describe`] hands the environment for each file.
#[derive(Debug, Clone, Copy)]
pub struct FileFacts<'a> {
    /// The split's name.
    pub split: &'a str,
    /// `<split>.jsonl`.
    pub path: &'a str,
    /// The split's rows.
    pub rows: &'a [Value],
    /// SHA-256 of the file's bytes, lowercase hex.
    pub sha256: &'a str,
}

impl<F: ManifestFileOf> SplitManifest<F> {
    /// The manifest describing `corpus`, written by generator `name` at
    /// `version`; `file` makes the environment's record of each file.
    #[must_use]
    pub fn describe(
        name: &str,
        version: &str,
        corpus: &SplitCorpus,
        file: impl Fn(FileFacts<'_>) -> F,
    ) -> Self {
        let files = corpus
            .splits
            .iter()
            .map(|(split, rows)| {
                file(FileFacts {
                    split: split.as_str(),
                    path: &format!("{split}.jsonl"),
                    rows,
                    sha256: &sha256_hex(to_jsonl(rows).as_bytes()),
                })
            })
            .collect();
        Self {
            generator: GeneratorInfo::new(name, version),
            seed: corpus.seed,
            config: corpus.config,
            files,
        }
    }

    /// Checks that generator `name` at `version` can regenerate this
    /// manifest's corpus: the same generator and version, a valid
    /// configuration, each file the size its split is configured to.
    ///
    /// # Errors
    /// [`GenError::Manifest`] or [`GenError::Config`] saying which.
    pub fn check(&self, name: &str, version: &str) -> Result<(), GenError> {
        self.generator.check(name, version)?;
        self.config.validate()?;
        self.config
            .sizes
            .check_files(self.files.iter().map(|f| (f.path(), f.split(), f.rows())))
    }
}
