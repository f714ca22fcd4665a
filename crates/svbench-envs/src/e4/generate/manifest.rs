//! `manifest.json` of a generated corpus: what regenerates it exactly
//! (generator, version, seed, config) and what came out (counts and SHA-256
//! per file).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{generate_corpus, Corpus, GenError, GENERATOR_NAME, GENERATOR_VERSION};
use crate::kit::generate::corpus::SplitManifest;
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
pub type Manifest = SplitManifest<ManifestFile>;

impl Manifest {
    /// The manifest describing `corpus`.
    #[must_use]
    pub fn for_corpus(corpus: &Corpus) -> Manifest {
        Manifest::describe(GENERATOR_NAME, GENERATOR_VERSION, corpus, |f| {
            let count = |a: &str| f.rows.iter().filter(|r: &&Value| r["answer"] == a).count();
            ManifestFile {
                split: f.split.to_string(),
                path: f.path.to_string(),
                rows: f.rows.len(),
                phishing: count("Phishing"),
                legitimate: count("Legitimate"),
                abstain: count("Abstain"),
                sha256: f.sha256.to_string(),
            }
        })
    }
}

/// Regenerates the corpus a manifest records. Fails if the manifest names
/// another generator or version, or its sizes disagree with its files.
pub fn corpus_from_manifest(manifest: &Manifest) -> Result<Corpus, GenError> {
    manifest.check(GENERATOR_NAME, GENERATOR_VERSION, |f| {
        (&f.path, &f.split, f.rows)
    })?;
    Ok(generate_corpus(&manifest.config, manifest.seed))
}
