//! `manifest.json` of a generated corpus: what it takes to regenerate it
//! exactly (generator, version, seed, config, analyzer catalogue) and what
//! came out (counts per split × language × clean, drops, SHA-256 per file).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use svbench_core::canonical::sha256_hex;

use super::{
    catalogue, generate_corpus, oracle_scanner, to_jsonl, Corpus, Dropped, GenConfig, GenError,
    GENERATOR_NAME, GENERATOR_VERSION,
};
pub use crate::kit::generate::GeneratorInfo;

/// Items of one split and language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Count {
    /// `train`, `dev` or `test`.
    pub split: String,
    /// `k8s` or `tf`.
    pub lang: String,
    /// Items without mutations (no labels).
    pub clean: usize,
    /// Items with at least one mutation.
    pub mutated: usize,
}

/// One file of the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// `train`, `dev` or `test`.
    pub split: String,
    /// File name relative to the manifest.
    pub path: String,
    /// Rows in the file.
    pub rows: usize,
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
    /// Namespace → version of the analyzers that labelled the rows.
    pub catalogue: BTreeMap<String, String>,
    /// Items per split × language × clean.
    pub counts: Vec<Count>,
    /// Items left out.
    pub dropped: Dropped,
    /// Files in split order (train, dev, test).
    pub files: Vec<ManifestFile>,
}

impl Manifest {
    /// The manifest describing `corpus`.
    #[must_use]
    pub fn for_corpus(corpus: &Corpus) -> Manifest {
        let mut counts = Vec::new();
        for (split, rows) in &corpus.splits {
            for lang in ["k8s", "tf"] {
                let of_lang = rows.iter().filter(|r| r["meta"]["lang"] == lang);
                let (clean, mutated) = of_lang.fold((0, 0), |(c, m), r| {
                    let is_clean = r["meta"]["generator"]["mutations"]
                        .as_array()
                        .is_some_and(Vec::is_empty);
                    if is_clean {
                        (c + 1, m)
                    } else {
                        (c, m + 1)
                    }
                });
                counts.push(Count {
                    split: split.as_str().to_string(),
                    lang: lang.to_string(),
                    clean,
                    mutated,
                });
            }
        }
        let files = corpus
            .splits
            .iter()
            .map(|(split, rows)| ManifestFile {
                split: split.as_str().to_string(),
                path: format!("{split}.jsonl"),
                rows: rows.len(),
                sha256: sha256_hex(to_jsonl(rows).as_bytes()),
            })
            .collect();
        Manifest {
            generator: GeneratorInfo::new(GENERATOR_NAME, GENERATOR_VERSION),
            seed: corpus.seed,
            config: corpus.config,
            catalogue: corpus.catalogue.clone(),
            counts,
            dropped: corpus.dropped,
            files,
        }
    }
}

/// Regenerates the corpus a manifest records. Fails if the manifest names
/// another generator or version, or analyzers of other versions (their
/// labels could differ).
///
/// # Errors
/// See above; and an invalid configuration.
pub fn corpus_from_manifest(manifest: &Manifest) -> Result<Corpus, GenError> {
    manifest
        .generator
        .check(GENERATOR_NAME, GENERATOR_VERSION)?;
    let current = catalogue(&oracle_scanner()?);
    if current != manifest.catalogue {
        let changed: Vec<&str> = current
            .iter()
            .filter(|(k, v)| manifest.catalogue.get(*k) != Some(*v))
            .map(|(k, _)| k.as_str())
            .collect();
        return Err(GenError::Manifest(format!(
            "the manifest's labels come from other analyzer versions (changed: {}); regenerate the corpus with this build",
            changed.join(", ")
        )));
    }
    generate_corpus(&manifest.config, manifest.seed)
}
