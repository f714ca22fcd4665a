//! `sv-synth-e4`: the seeded template generator behind the project's own E4
//! corpus (spec §3.1).
//!
//! Output is a pure function of (generator version, [`GenConfig`], seed).
//! Each split is drawn from its own stream, as groups: a legitimate instance
//! with its phishing counterparts (one `pair_id`), or one ambiguous item.
//! Whole groups belong to one split; the ood split draws from two families,
//! three brands, two organisations and two vendors the other splits never
//! see. Only this version's manifests can be reproduced: a version-1
//! manifest is reported stale ([`stale`]).

pub mod alarming;
pub mod ambiguous;
pub mod bec;
pub mod brands;
pub mod card;
pub mod ctx;
pub mod draft;
pub mod families;
pub mod gateway;
pub mod invoice;
pub mod lang;
pub mod manifest;
pub mod phrases;
pub mod rng;
pub mod row;
pub mod scenario;
pub mod slots;
pub mod thread;
pub mod vendor;

use serde_json::Value;

use self::ambiguous::{archetype_of, Archetype};
use self::families::Family;
pub use self::manifest::{corpus_from_manifest, Manifest};
use self::rng::{stream, GenRng};
use self::row::{build_row, RowInfo};
pub use self::row::{email_from_json, email_json};
pub use self::scenario::{ambiguous_pair, AmbiguousSeeds, AmbiguousSide};
use self::scenario::{brand_name, draw_slots, families_for};
use crate::e4::Label;
use crate::kit::generate::{self as kit, CorpusGenerator, GenFailure, GeneratorEntry};
pub use crate::kit::generate::{to_jsonl, GenError};

/// Generator name (`meta.generator.name`).
pub const GENERATOR_NAME: &str = "sv-synth-e4";
/// Generator version; bump whenever output bytes change.
pub const GENERATOR_VERSION: &str = "2";
/// Default seed (and the committed corpus's).
pub const DEFAULT_SEED: u64 = 42;

pub use crate::kit::generate::corpus::{ShareConfig, SplitCorpus};
pub use crate::kit::generate::split::{Split, SplitSizes};

/// Generator configuration (recorded in the manifest).
pub type GenConfig = ShareConfig;

/// The configuration of the committed corpus: 20 % ambiguous (gold `Abstain`) rows, the rest half phishing, half legitimate; 1,200, 200, 400 and 200 rows.
pub const DEFAULT_GEN_CONFIG: GenConfig = GenConfig {
    ambiguity: 0.20,
    sizes: SplitSizes {
        train: 1_200,
        dev: 200,
        test: 400,
        ood: 200,
    },
};

/// All four splits of a generated corpus.
pub type Corpus = SplitCorpus;

/// The corpus at `config` for `seed` (the spec's `generate`).
pub fn generate(config: &GenConfig, seed: u64) -> Corpus {
    generate_corpus(config, seed)
}

/// The whole corpus at the configured sizes.
pub fn generate_corpus(config: &GenConfig, seed: u64) -> Corpus {
    let splits = Split::ALL
        .into_iter()
        .map(|s| (s, generate_split(config, seed, s, config.sizes.get(s))))
        .collect();
    Corpus {
        config: *config,
        seed,
        splits,
    }
}

/// The files of a corpus directory: four JSONL files, `manifest.json`, the
/// data card `README.md`.
pub fn corpus_files(corpus: &Corpus) -> Vec<(String, String)> {
    let manifest = Manifest::for_corpus(corpus);
    let card = card::render_card(corpus, &manifest);
    kit::corpus_files(&corpus.splits, &manifest, card)
}

/// How many times a later (not extractor-worded) family is dealt per round.
pub(crate) const LATER_WEIGHT: usize = 8;

/// What one group of a split is.
#[derive(Debug, Clone, Copy)]
enum Group {
    /// A legitimate instance with `phish` counterparts (0–2).
    Pair(&'static Family, usize),
    /// One ambiguous item of an archetype (of the family named).
    Ambiguous(&'static Family, &'static Archetype),
}

/// A 53-bit seed (exact in every JSON reader).
fn seed53(rng: &mut GenRng) -> u64 {
    rng.next_u64() >> 11
}

/// `n` rows of `split`. With the configured size this is the split's file.
pub fn generate_split(config: &GenConfig, seed: u64, split: Split, n: usize) -> Vec<Value> {
    let ood = split == Split::Ood;
    let mut rng = stream(seed, &format!("v{GENERATOR_VERSION}/{split}"));
    let groups = plan(config, n, ood, &mut rng);
    let mut rows: Vec<(String, RowInfo, self::draft::Built)> = Vec::with_capacity(n);
    for (g, group) in groups.iter().enumerate() {
        let pair_id = format!("e4-{split}-{:04}", g + 1);
        match *group {
            Group::Pair(family, phish) => {
                let slots = draw_slots(&mut rng, family, ood);
                let base = RowInfo {
                    label: Label::Legitimate,
                    family: family.id,
                    phishing_type: None,
                    brand: brand_name(&slots),
                    language: slots.language,
                    pair_id,
                    hard: Vec::new(),
                    soft: Vec::new(),
                    ambiguity: None,
                };
                let legit = scenario::legit(family, &slots, seed53(&mut rng));
                let info = RowInfo {
                    soft: legit.soft.clone(),
                    ..base.clone()
                };
                rows.push((String::new(), info, legit.built));
                for _ in 0..phish {
                    let p = scenario::phishing(family, &slots, seed53(&mut rng));
                    let info = RowInfo {
                        label: Label::Phishing,
                        phishing_type: Some(family.phishing_type),
                        hard: p.hard.clone(),
                        ..base.clone()
                    };
                    rows.push((String::new(), info, p.built));
                }
            }
            Group::Ambiguous(family, arch) => {
                let seeds = AmbiguousSeeds {
                    surface: seed53(&mut rng),
                    legitimate: seed53(&mut rng),
                    phishing: seed53(&mut rng),
                };
                let built = scenario::surface(arch, ood, seeds.surface);
                let brand = {
                    let mut r = stream(seeds.surface, "surface");
                    brand_name(&draw_slots(&mut r, family, ood))
                };
                let hard = built
                    .spans
                    .iter()
                    .filter(|s| s.polarity == crate::e4::Polarity::Phish)
                    .map(|s| s.category)
                    .collect();
                let info = RowInfo {
                    label: Label::Abstain,
                    family: family.id,
                    phishing_type: None,
                    brand,
                    language: "en",
                    pair_id,
                    hard: Vec::new(),
                    soft: hard,
                    ambiguity: Some((arch.id, seeds)),
                };
                rows.push((String::new(), info, built));
            }
        }
    }
    rng.shuffle(&mut rows);
    let offset: usize = Split::ALL
        .iter()
        .take_while(|s| **s != split)
        .map(|s| config.sizes.get(*s))
        .sum();
    rows.into_iter()
        .enumerate()
        .map(|(i, (_, info, built))| {
            let id = format!("e4-gen-{:06}", offset + i + 1);
            build_row(&id, split.as_str(), &built, &info, seed)
        })
        .collect()
}

/// Label counts for `n` rows: ambiguous ≈ `ambiguity`·n, the rest split
/// evenly (one more ambiguous row when the rest is odd).
pub fn label_counts(config: &GenConfig, n: usize) -> (usize, usize, usize) {
    let mut amb = ((config.ambiguity * n as f64).round() as usize).min(n);
    if (n - amb) % 2 == 1 {
        amb += 1;
    }
    let half = (n - amb) / 2;
    (half, half, amb)
}

/// The groups of a split: one in eight phishing rows sits in a group with a
/// second counterpart, balanced by as many legitimate-only groups; families
/// are dealt round-robin from a shuffled deck (the later families
/// [`LATER_WEIGHT`] times in it); ambiguous items go round the families that
/// have an archetype.
fn plan(config: &GenConfig, n: usize, ood: bool, rng: &mut GenRng) -> Vec<Group> {
    let (phish, _legit, amb) = label_counts(config, n);
    // The later families are dealt more often: they are what separates a
    // reader from a keyword list.
    let mut families: Vec<&'static Family> = families_for(ood)
        .into_iter()
        .flat_map(|f| std::iter::repeat_n(f, if f.extractor_worded { 1 } else { LATER_WEIGHT }))
        .collect();
    rng.shuffle(&mut families);
    let triples = phish / 8;
    let pairs = phish - 2 * triples;
    let mut groups = Vec::new();
    let mut deal = {
        let mut i = 0usize;
        move || {
            i += 1;
            families[(i - 1) % families.len()]
        }
    };
    for _ in 0..triples {
        groups.push(Group::Pair(deal(), 2));
    }
    for _ in 0..pairs {
        groups.push(Group::Pair(deal(), 1));
    }
    for _ in 0..triples {
        groups.push(Group::Pair(deal(), 0));
    }
    // Ambiguous items come from the families that have an archetype.
    let mut ambiguous: Vec<(&'static Family, &'static Archetype)> = families_for(ood)
        .into_iter()
        .filter_map(|f| archetype_of(f.id).map(|a| (f, a)))
        .collect();
    rng.shuffle(&mut ambiguous);
    for i in 0..amb {
        let (f, a) = ambiguous[i % ambiguous.len()];
        groups.push(Group::Ambiguous(f, a));
    }
    groups
}

/// `sv-synth-e4` as `svbench data gen` runs it.
#[derive(Debug, Clone, Copy)]
pub struct SvSynthE4;

impl CorpusGenerator for SvSynthE4 {
    const NAME: &'static str = GENERATOR_NAME;
    const DEFAULT_SEED: u64 = DEFAULT_SEED;
    type Split = Split;
    type Corpus = Corpus;
    type Manifest = Manifest;

    /// Without `n`, the split's configured size: its corpus file byte for
    /// byte.
    fn split_rows(seed: u64, split: Split, n: Option<usize>) -> Result<Vec<Value>, GenFailure> {
        let config = DEFAULT_GEN_CONFIG;
        let n = n.unwrap_or(config.sizes.get(split));
        Ok(generate_split(&config, seed, split, n))
    }

    fn corpus(seed: u64) -> Result<Corpus, GenFailure> {
        Ok(generate_corpus(&DEFAULT_GEN_CONFIG, seed))
    }

    /// A version-1 manifest is stale (its families, draw order and
    /// rendering are gone); anything else unreadable is a manifest error.
    fn corpus_from_manifest(manifest: &Manifest) -> Result<Corpus, GenFailure> {
        if let Some(failure) = stale(manifest) {
            return Err(failure);
        }
        corpus_from_manifest(manifest).map_err(|e| GenFailure::Manifest(e.to_string()))
    }

    fn manifest_of(corpus: &Corpus) -> Manifest {
        Manifest::for_corpus(corpus)
    }

    fn files(corpus: &Corpus) -> Result<Vec<(String, String)>, GenFailure> {
        Ok(corpus_files(corpus))
    }
}

/// The last commit whose generator is version 1: a build of it regenerates
/// the version-1 splits from their manifest byte for byte (checked when
/// version 2 landed).
pub const VERSION_1_COMMIT: &str = "b7b1195";

/// [`GenFailure::Stale`] for a manifest of an older `sv-synth-e4`.
pub fn stale(manifest: &Manifest) -> Option<GenFailure> {
    let g = &manifest.generator;
    (g.name == GENERATOR_NAME && g.version == "1").then(|| GenFailure::Stale {
        message: format!(
            "the manifest records {GENERATOR_NAME} version 1, written by svbench 0.1.0 before \
             generator version {GENERATOR_VERSION}; this build cannot reproduce its files"
        ),
        hint: format!(
            "reproduce the version-1 files with a build of commit {VERSION_1_COMMIT} \
             (`git checkout {VERSION_1_COMMIT} && cargo run -p svbench-cli -- data gen e4 \
             --manifest MANIFEST --out DIR`), or generate the current corpus with \
             `svbench data gen e4 --out DIR` (seed 42 is the committed one)"
        ),
    })
}

/// E4's generator for the registry (`generators: &[&e4::generate::GENERATOR]`).
pub static GENERATOR: GeneratorEntry = GeneratorEntry::of::<SvSynthE4>();
