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

impl<F> SplitManifest<F> {
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
    /// configuration, each file (`facts`: its path, split and rows) the
    /// size its split is configured to.
    ///
    /// # Errors
    /// [`GenError::Manifest`] or [`GenError::Config`] saying which.
    pub fn check(
        &self,
        name: &str,
        version: &str,
        facts: impl Fn(&F) -> (&str, &str, usize),
    ) -> Result<(), GenError> {
        self.generator.check(name, version)?;
        self.config.validate()?;
        self.config.sizes.check_files(self.files.iter().map(facts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file record of the test: path, split, rows and the answers seen.
    #[derive(Debug, PartialEq)]
    struct File(String, String, usize, String);

    fn corpus() -> SplitCorpus {
        let row = |a: &str| serde_json::json!({"answer": a});
        SplitCorpus {
            config: ShareConfig {
                ambiguity: 0.5,
                sizes: SplitSizes {
                    train: 2,
                    dev: 1,
                    test: 0,
                    ood: 0,
                },
            },
            seed: 7,
            splits: vec![
                (Split::Train, vec![row("x"), row("y")]),
                (Split::Dev, vec![row("z")]),
            ],
        }
    }

    fn manifest(corpus: &SplitCorpus) -> SplitManifest<File> {
        SplitManifest::describe("sv-synth-x", "1", corpus, |f| {
            let answers: Vec<&str> = f.rows.iter().filter_map(|r| r["answer"].as_str()).collect();
            assert_eq!(f.sha256, sha256_hex(to_jsonl(f.rows).as_bytes()));
            File(
                f.path.into(),
                f.split.into(),
                f.rows.len(),
                answers.concat(),
            )
        })
    }

    #[test]
    fn a_manifest_describes_each_split_and_checks_what_regenerates_it() {
        let c = corpus();
        let m = manifest(&c);
        assert_eq!((m.seed, m.config), (7, c.config));
        assert_eq!(
            m.files,
            [
                File("train.jsonl".into(), "train".into(), 2, "xy".into()),
                File("dev.jsonl".into(), "dev".into(), 1, "z".into()),
            ]
        );
        fn facts(f: &File) -> (&str, &str, usize) {
            (&f.0, &f.1, f.2)
        }
        assert!(m.check("sv-synth-x", "1", facts).is_ok());
        assert!(m.check("sv-synth-y", "1", facts).is_err());
        let mut resized = m;
        resized.config.sizes.dev = 3;
        let err = resized.check("sv-synth-x", "1", facts).unwrap_err();
        assert!(err.to_string().contains("dev.jsonl has 1 rows"), "{err}");
        resized.config.ambiguity = 1.5;
        assert!(matches!(
            resized.check("sv-synth-x", "1", facts),
            Err(GenError::Config(_))
        ));
    }
}
