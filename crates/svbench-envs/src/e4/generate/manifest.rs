//! `manifest.json` of a generated corpus: what regenerates it exactly
//! (generator, version, seed, config) and what came out (counts and SHA-256
//! per file).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use svbench_core::canonical::sha256_hex;

use super::{
    generate_corpus, to_jsonl, Corpus, GenConfig, GenError, GENERATOR_NAME, GENERATOR_VERSION,
};
pub use crate::kit::generate::GeneratorInfo;

/// One file of the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// `train`, `dev`, `test` or `ood`.
    pub split: String,
    /// File name relative to the manifest.
    pub path: String,
    /// Rows in the file.
    pub rows: usize,
    /// Rows whose answer is Phishing.
    pub phishing: usize,
    /// Rows whose answer is Legitimate.
    pub legitimate: usize,
    /// Rows whose answer is Abstain (the ambiguous items).
    pub abstain: usize,
    /// SHA-256 of the file bytes, lowercase hex.
    pub sha256: String,
}

/// The manifest of a generated corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Which generator wrote the corpus.
    pub generator: GeneratorInfo,
    /// Seed.
    pub seed: u64,
    /// Configuration.
    pub config: GenConfig,
    /// Files in split order (train, dev, test, ood).
    pub files: Vec<ManifestFile>,
}

impl Manifest {
    /// The manifest describing `corpus`.
    pub fn for_corpus(corpus: &Corpus) -> Manifest {
        let files = corpus
            .splits
            .iter()
            .map(|(split, rows)| {
                let count = |a: &str| rows.iter().filter(|r: &&Value| r["answer"] == a).count();
                ManifestFile {
                    split: split.as_str().to_string(),
                    path: format!("{split}.jsonl"),
                    rows: rows.len(),
                    phishing: count("Phishing"),
                    legitimate: count("Legitimate"),
                    abstain: count("Abstain"),
                    sha256: sha256_hex(to_jsonl(rows).as_bytes()),
                }
            })
            .collect();
        Manifest {
            generator: GeneratorInfo::new(GENERATOR_NAME, GENERATOR_VERSION),
            seed: corpus.seed,
            config: corpus.config,
            files,
        }
    }
}

/// Regenerates the corpus a manifest records. Fails if the manifest names
/// another generator or version, or its sizes disagree with its files.
pub fn corpus_from_manifest(manifest: &Manifest) -> Result<Corpus, GenError> {
    manifest
        .generator
        .check(GENERATOR_NAME, GENERATOR_VERSION)?;
    manifest.config.validate()?;
    manifest.config.sizes.check_files(
        manifest
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.split.as_str(), f.rows)),
    )?;
    Ok(generate_corpus(&manifest.config, manifest.seed))
}
