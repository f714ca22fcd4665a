//! `sv-synth-e1`: the seeded flow generator behind the project's own E1
//! dataset (E1 §6.2–6.3).
//!
//! Output is a pure function of (generator version, [`GenConfig`], seed).
//! Splits are generated in the order ood, test, dev, train; `meta.hash` is
//! unique across all four (a colliding row is redrawn, so counts stay exact).
//! [`generate_split`] regenerates the earlier splits at their configured sizes
//! to learn their hashes, so `data gen --split S -n N` rows never repeat a row
//! of an earlier split of the same seed, and with the configured size they
//! equal the corpus file byte for byte.

pub mod ambiguous;
pub mod card;
pub mod decision;
pub mod families;
pub mod flow;
pub mod manifest;
pub mod ood;
pub mod render;
pub mod rng;
pub mod row;
pub mod shape;

use std::collections::HashSet;

use serde_json::Value;

pub use self::flow::{zeek_violations, Flow};
pub use self::manifest::{corpus_from_manifest, Manifest};
pub use self::render::{
    parse_question_v1, render, render_question, render_question_upstream, Template,
};
pub use self::row::question_hash;

use self::ambiguous::ARCHETYPES;
use self::families::{Domain, Family, ID_FAMILIES};
use self::ood::OOD_FAMILIES;
use self::rng::GenRng;
use self::row::{build_row, draw_flow, RowKind};
use crate::e1::Gold;
pub use crate::kit::generate::to_jsonl;
pub use crate::kit::generate::GenError;
use crate::kit::generate::{self as kit, CorpusGenerator, GenFailure, GeneratorEntry};

/// Generator name (`meta.source`, `meta.generator.name`).
pub const GENERATOR_NAME: &str = "sv-synth-e1";
/// Generator version; bump whenever output bytes change.
pub const GENERATOR_VERSION: &str = "1";
/// Default seed (`data gen` without `--seed`, and the committed set).
pub const DEFAULT_SEED: u64 = 42;
/// Share of ood rows drawn from ood-only families (the rest are shifted
/// in-distribution families).
const OOD_ONLY_SHARE: f64 = 0.65;

pub use crate::kit::generate::corpus::{ShareConfig, SplitCorpus};
pub use crate::kit::generate::split::{Split, SplitSizes};

/// The order in which splits are generated (rarer families first).
pub const GENERATION_ORDER: [Split; 4] = [Split::Ood, Split::Test, Split::Dev, Split::Train];

/// Generator configuration (recorded in the manifest).
pub type GenConfig = ShareConfig;

/// The configuration of the committed corpus: 20 % ambiguous rows; 240, 40, 80 and 80 rows.
pub const DEFAULT_GEN_CONFIG: GenConfig = GenConfig {
    ambiguity: 0.20,
    sizes: SplitSizes {
        train: 240,
        dev: 40,
        test: 80,
        ood: 80,
    },
};

/// All four splits of a generated corpus.
pub type Corpus = SplitCorpus;

/// The files of a corpus directory, in write order: the four JSONL files,
/// `manifest.json` and the data card `README.md`.
pub fn corpus_files(corpus: &Corpus) -> Result<Vec<(String, String)>, GenError> {
    let manifest = Manifest::for_corpus(corpus);
    let card = card::render_card(corpus, &manifest).map_err(|e| GenError::Card(e.to_string()))?;
    Ok(kit::corpus_files(&corpus.splits, &manifest, card))
}

/// `sv-synth-e1` as `svbench data gen` runs it (the registry's generator).
#[derive(Debug, Clone, Copy)]
pub struct SvSynthE1;

impl CorpusGenerator for SvSynthE1 {
    const NAME: &'static str = GENERATOR_NAME;
    const DEFAULT_SEED: u64 = DEFAULT_SEED;
    type Split = Split;
    type Corpus = Corpus;
    type Manifest = Manifest;

    /// Without `n`, the split's configured size: its corpus file byte for byte.
    fn split_rows(seed: u64, split: Split, n: Option<usize>) -> Result<Vec<Value>, GenFailure> {
        let config = DEFAULT_GEN_CONFIG;
        let n = n.unwrap_or(config.sizes.get(split));
        Ok(generate_split(&config, seed, split, n))
    }

    fn corpus(seed: u64) -> Result<Corpus, GenFailure> {
        Ok(generate_corpus(&DEFAULT_GEN_CONFIG, seed))
    }

    fn corpus_from_manifest(manifest: &Manifest) -> Result<Corpus, GenFailure> {
        corpus_from_manifest(manifest).map_err(|e| GenFailure::Manifest(e.to_string()))
    }

    fn manifest_of(corpus: &Corpus) -> Manifest {
        Manifest::for_corpus(corpus)
    }

    fn files(corpus: &Corpus) -> Result<Vec<(String, String)>, GenFailure> {
        corpus_files(corpus).map_err(|e| GenFailure::Failed(e.to_string()))
    }
}

/// E1's generator in the registry.
pub static GENERATOR: GeneratorEntry = GeneratorEntry::of::<SvSynthE1>();

/// `n` rows of `split`. Earlier splits (generation order) are regenerated at
/// their configured sizes first so hashes stay unique across the corpus.
pub fn generate_split(config: &GenConfig, seed: u64, split: Split, n: usize) -> Vec<Value> {
    let mut rows = Vec::with_capacity(n);
    generate_split_each(config, seed, split, n, |row| rows.push(row));
    rows
}

/// [`generate_split`] handing each row to `sink` as it is made (in the same
/// order), so a caller that converts rows need not hold them all as trees.
pub fn generate_split_each(
    config: &GenConfig,
    seed: u64,
    split: Split,
    n: usize,
    mut sink: impl FnMut(Value),
) {
    let mut taken = HashSet::new();
    for earlier in GENERATION_ORDER {
        if earlier == split {
            break;
        }
        generate_rows_each(
            config,
            seed,
            earlier,
            config.sizes.get(earlier),
            &mut taken,
            &mut |_| {},
        );
    }
    generate_rows_each(config, seed, split, n, &mut taken, &mut sink);
}

/// The whole corpus at the configured sizes.
pub fn generate_corpus(config: &GenConfig, seed: u64) -> Corpus {
    let mut taken = HashSet::new();
    let mut made: Vec<(Split, Vec<Value>)> = GENERATION_ORDER
        .into_iter()
        .map(|s| {
            (
                s,
                generate_rows(config, seed, s, config.sizes.get(s), &mut taken),
            )
        })
        .collect();
    made.sort_by_key(|(s, _)| *s);
    Corpus {
        config: *config,
        seed,
        splits: made,
    }
}

/// Generates one split, drawing again whenever a question's hash is taken.
fn generate_rows(
    config: &GenConfig,
    seed: u64,
    split: Split,
    n: usize,
    taken: &mut HashSet<u64>,
) -> Vec<Value> {
    let mut rows = Vec::with_capacity(n);
    generate_rows_each(config, seed, split, n, taken, &mut |row| rows.push(row));
    rows
}

fn generate_rows_each(
    config: &GenConfig,
    seed: u64,
    split: Split,
    n: usize,
    taken: &mut HashSet<u64>,
    sink: &mut dyn FnMut(Value),
) {
    let mut rng = GenRng::new(seed, &format!("v{GENERATOR_VERSION}/{split}"));
    let kinds = plan(config, split, n, &mut rng);
    for kind in kinds {
        loop {
            let flow = draw_flow(&mut rng, kind, split);
            let row = build_row(&flow, kind, split, seed);
            // The hash is 16 hex digits: kept as the u64 they spell (8 bytes
            // a row instead of a String), the same set.
            let hash = row["meta"]["hash"].as_str().unwrap_or_default();
            let hash = u64::from_str_radix(hash, 16).expect("question_hash is 16 hex digits");
            if taken.insert(hash) {
                sink(row);
                break;
            }
        }
    }
}

/// Decides what each row is: ambiguous archetypes (round-robin from a random
/// start) with labels by systematic sampling, then clear families filling
/// the split to exactly ⌊n/2⌋ malicious rows, in a shuffled order.
///
/// Systematic sampling (one uniform offset u; row j with cumulative
/// probability C_j is Malicious iff ⌊C_j + u⌋ > ⌊C_{j-1} + u⌋) makes every
/// row Malicious with probability exactly its q, independently of its
/// features, while any run of consecutive rows holds within one of its
/// expected number of malicious labels. Rows are laid out archetype by
/// archetype (in catalogue order, then shuffled inside each archetype), so
/// small splits still show each archetype's rate.
fn plan(config: &GenConfig, split: Split, n: usize, rng: &mut GenRng) -> Vec<RowKind> {
    let n_amb = ((config.ambiguity * n as f64).round() as usize).min(n);
    let start = rng.below(ARCHETYPES.len() as u64) as usize;
    let mut kinds: Vec<RowKind> = Vec::with_capacity(n);
    let mut amb_mal = 0usize;
    let u = rng.uniform();
    let mut cum = 0.0f64;
    for (i, arch) in ARCHETYPES.iter().enumerate() {
        let pos = (i + ARCHETYPES.len() - start) % ARCHETYPES.len();
        let k = n_amb / ARCHETYPES.len() + usize::from(pos < n_amb % ARCHETYPES.len());
        let mut labels: Vec<Gold> = Vec::with_capacity(k);
        for _ in 0..k {
            let before = (cum + u).floor();
            cum += arch.q;
            let malicious = (cum + u).floor() > before;
            amb_mal += usize::from(malicious);
            labels.push(if malicious {
                Gold::Malicious
            } else {
                Gold::Benign
            });
        }
        rng.shuffle(&mut labels);
        kinds.extend(labels.into_iter().map(|g| RowKind::Ambiguous(arch, g)));
    }
    let n_clear = n - n_amb;
    let clear_mal = (n / 2).saturating_sub(amb_mal).min(n_clear);
    let clear_ben = n_clear - clear_mal;
    for (label, count) in [(Gold::Malicious, clear_mal), (Gold::Benign, clear_ben)] {
        let pool = family_pool(split, label);
        kinds.extend(systematic(rng, &pool, count));
    }
    rng.shuffle(&mut kinds);
    kinds
}

/// Families for a label in a split with their effective weights.
fn family_pool(split: Split, label: Gold) -> Vec<(&'static Family, bool, f64)> {
    let of = |list: &'static [Family], domain: Domain| {
        list.iter()
            .filter(move |f| f.label == label && f.domain == domain)
            .collect::<Vec<_>>()
    };
    let id = of(ID_FAMILIES, Domain::InDistribution);
    if split != Split::Ood {
        return id.into_iter().map(|f| (f, false, f.weight)).collect();
    }
    let ood = of(OOD_FAMILIES, Domain::OodOnly);
    let total = |v: &[&Family]| v.iter().map(|f| f.weight).sum::<f64>();
    let (t_ood, t_id) = (total(&ood), total(&id));
    ood.into_iter()
        .map(|f| (f, false, OOD_ONLY_SHARE * f.weight / t_ood))
        .chain(
            id.into_iter()
                .map(|f| (f, true, (1.0 - OOD_ONLY_SHARE) * f.weight / t_id)),
        )
        .collect()
}

/// Systematic sampling: `count` draws whose family counts match the weights
/// to within one.
fn systematic(
    rng: &mut GenRng,
    pool: &[(&'static Family, bool, f64)],
    count: usize,
) -> Vec<RowKind> {
    if count == 0 || pool.is_empty() {
        return Vec::new();
    }
    let total: f64 = pool.iter().map(|p| p.2).sum();
    let u = rng.uniform();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let x = (u + i as f64) / count as f64 * total;
        let mut acc = 0.0;
        let mut chosen = pool[pool.len() - 1];
        for p in pool {
            acc += p.2;
            if x < acc {
                chosen = *p;
                break;
            }
        }
        out.push(RowKind::Clear(chosen.0, chosen.1));
    }
    out
}
