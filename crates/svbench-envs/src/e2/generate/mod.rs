//! `sv-synth-e2`: the seeded generator of the project's E2 corpus (spec E2
//! §8.3–8.4).
//!
//! Each item is a randomly parameterised secure baseline ([`k8s`], [`tf`])
//! plus 0–3 mutations ([`mutate`], [`tf::TF_OPERATORS`]); its labels are what
//! the live oracle (every native analyzer, default rule sets) finds in the
//! final text. Output is a pure function of (generator version, analyzer
//! versions, [`GenConfig`], seed):
//!
//! - item `i` of a language stream draws from ChaCha8 keyed by
//!   SHA-256(seed ‖ language ‖ i ‖ attempt); an item whose intended ids do
//!   not all appear (or a clean item with any finding) is redrawn from the
//!   next attempt, at most [`GenConfig::max_attempts`] times, then dropped;
//! - whether item `k` (counting accepted items) is clean follows systematic
//!   sampling at [`GenConfig::clean_fraction`], so every prefix is within
//!   one item of the share;
//! - an item whose question repeats an earlier one is dropped;
//! - the split is a hash of the baseline text (70/15/15), so an item and its
//!   near duplicates (same baseline) share a split.
//!
//! The stream of a language is walked until its configured count is
//! accepted; `--split S -n N` walks the same streams further, so its rows
//! extend the corpus's rows of that split.

pub mod card;
pub mod hcl;
pub mod k8s;
pub mod manifest;
pub mod mutate;
pub mod rng;
pub mod tf;
pub mod yaml;

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use svbench_core::canonical::sha256_hex;
use svbench_scan::scan::{FileType, ScanOptions, Scanner};

use self::rng::GenRng;
use super::Lang;
pub use crate::kit::generate::GenError;
use crate::kit::generate::{self as kit, CorpusGenerator, GenFailure, GeneratorEntry};

pub use self::manifest::{corpus_from_manifest, Manifest};
pub use crate::kit::generate::to_jsonl;

/// Generator name (`meta.generator.name`).
pub const GENERATOR_NAME: &str = "sv-synth-e2";
/// Generator version; bump whenever output bytes change for the same analyzers.
pub const GENERATOR_VERSION: &str = "1";
/// Default seed (`data gen e2` without `--seed`, and the committed corpus).
pub const DEFAULT_SEED: u64 = 42;
/// Split shares in percent: train, dev, test.
pub const SPLIT_PERCENT: [u64; 3] = [70, 15, 15];

/// A dataset split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    /// Training rows.
    Train,
    /// Development rows.
    Dev,
    /// Test rows (the default evaluation split).
    Test,
}

impl Split {
    /// All splits in file order.
    pub const ALL: [Split; 3] = [Split::Train, Split::Dev, Split::Test];

    /// `train`, `dev` or `test`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Dev => "dev",
            Split::Test => "test",
        }
    }

    /// The split of a baseline: SHA-256 of its text, 70/15/15.
    #[must_use]
    pub fn of_baseline(baseline: &str) -> Split {
        let digest = sha256_hex(format!("sv-synth-e2 split\0{baseline}").as_bytes());
        let x = u64::from_str_radix(&digest[..12], 16).expect("hex digits") % 100;
        if x < SPLIT_PERCENT[0] {
            Split::Train
        } else if x < SPLIT_PERCENT[0] + SPLIT_PERCENT[1] {
            Split::Dev
        } else {
            Split::Test
        }
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Split {
    type Err = GenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        kit::parse_split(s, &Split::ALL, Split::as_str)
    }
}

/// `k8s` or `tf`.
#[must_use]
pub fn lang_str(lang: Lang) -> &'static str {
    match lang {
        Lang::K8s => "k8s",
        Lang::Tf => "tf",
    }
}

/// Generator configuration (recorded in the manifest).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenConfig {
    /// Kubernetes items in the corpus.
    pub k8s: usize,
    /// Terraform items in the corpus.
    pub tf: usize,
    /// Share of clean (unmutated) items, in [0, 1].
    pub clean_fraction: f64,
    /// Draws per item before it is dropped.
    pub max_attempts: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        Self {
            k8s: 300,
            tf: 100,
            clean_fraction: 0.20,
            max_attempts: 10,
        }
    }
}

impl GenConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// A clean fraction outside [0, 1] or no attempts.
    pub fn validate(&self) -> Result<(), GenError> {
        kit::check_share("clean_fraction", self.clean_fraction)?;
        if self.max_attempts == 0 {
            return Err(GenError::Config("max_attempts must be ≥ 1".into()));
        }
        Ok(())
    }

    fn count(&self, lang: Lang) -> usize {
        match lang {
            Lang::K8s => self.k8s,
            Lang::Tf => self.tf,
        }
    }
}

/// Items not in the corpus, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dropped {
    /// Intended ids still missing after every attempt.
    pub intent_failed: usize,
    /// Question identical to an earlier item's.
    pub duplicate: usize,
}

/// A generated corpus: rows per split (k8s rows, then tf rows, each in
/// stream order).
#[derive(Debug, Clone, PartialEq)]
pub struct Corpus {
    /// The configuration used.
    pub config: GenConfig,
    /// The seed used.
    pub seed: u64,
    /// Rows per split in file order.
    pub splits: Vec<(Split, Vec<Value>)>,
    /// Items left out.
    pub dropped: Dropped,
    /// Namespace → analyzer version (the catalogue the labels come from).
    pub catalogue: BTreeMap<String, String>,
}

impl Corpus {
    /// Rows of one split.
    #[must_use]
    pub fn rows(&self, split: Split) -> &[Value] {
        kit::split_rows_in(&self.splits, split)
    }

    /// Every row, in file order.
    pub fn all_rows(&self) -> impl Iterator<Item = &Value> {
        self.splits.iter().flat_map(|(_, r)| r.iter())
    }
}

/// The live oracle: every native analyzer with its default rule set.
///
/// # Errors
/// The built-in policies do not load (a build problem).
pub fn oracle_scanner() -> Result<Scanner, GenError> {
    Scanner::new(&ScanOptions::default()).map_err(|e| GenError::Scanner(e.to_string()))
}

/// Namespace → version of the oracle's analyzers.
#[must_use]
pub fn catalogue(scanner: &Scanner) -> BTreeMap<String, String> {
    scanner
        .analyzers()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.version))
        .collect()
}

/// Labelled namespaces of a language (E2 §8.2: those with rules for it).
#[must_use]
pub fn labelled_namespaces(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::K8s => &["kube-linter", "semgrep", "opa"],
        Lang::Tf => &["opa"],
    }
}

/// One accepted item before it becomes a row.
#[derive(Debug, Clone)]
pub struct Item {
    /// Language.
    pub lang: Lang,
    /// Index in its language stream.
    pub index: u64,
    /// Baseline family name.
    pub baseline: String,
    /// The baseline text (decides the split).
    pub baseline_text: String,
    /// The final config.
    pub question: String,
    /// Operators applied, in order.
    pub mutations: Vec<&'static str>,
    /// Full ids the operators intend, sorted and distinct.
    pub intended_ids: Vec<String>,
    /// Label entries (upstream keys), in the oracle's output order.
    pub violations: Vec<Value>,
}

/// Draws item `index` of a language stream, trying up to
/// `config.max_attempts` sub-seeds; `None` when every attempt misses an
/// intended id (or a clean item is not clean).
pub fn draw_item(
    scanner: &mut Scanner,
    config: &GenConfig,
    seed: u64,
    lang: Lang,
    index: u64,
    clean: bool,
) -> Option<Item> {
    for attempt in 0..config.max_attempts {
        let mut rng = GenRng::for_item(seed, lang_str(lang), index, attempt);
        let (baseline, baseline_text, question, mutations, intended) = match lang {
            Lang::K8s => draft_k8s(&mut rng, clean),
            Lang::Tf => draft_tf(&mut rng, clean),
        };
        let file_type = match lang {
            Lang::K8s => FileType::K8s,
            Lang::Tf => FileType::Tf,
        };
        let report = scanner.scan(lang.workspace_name(), question.as_bytes(), file_type);
        if !report.errors.is_empty() {
            continue;
        }
        let found: HashSet<String> = report.findings.iter().map(|f| f.full_id()).collect();
        let ok = if clean {
            found.is_empty()
        } else {
            intended.iter().all(|id| found.contains(id))
        };
        if !ok {
            continue;
        }
        let violations = report
            .findings
            .iter()
            .map(|f| {
                json!({
                    "tool": f.tool.as_str(),
                    "rule_id": f.rule_id,
                    "severity": f.severity.as_str(),
                    "msg": f.message,
                    "loc": f.location(),
                })
            })
            .collect();
        return Some(Item {
            lang,
            index,
            baseline,
            baseline_text,
            question,
            mutations,
            intended_ids: intended,
            violations,
        });
    }
    None
}

type Drafted = (String, String, String, Vec<&'static str>, Vec<String>);

/// How many mutations a mutated item gets: 1 (50 %), 2 (35 %), 3 (15 %).
fn mutation_count(rng: &mut GenRng) -> usize {
    match rng.below(20) {
        0..=9 => 1,
        10..=16 => 2,
        _ => 3,
    }
}

fn draft_k8s(rng: &mut GenRng, clean: bool) -> Drafted {
    let ops: Vec<Operator<k8s::K8sDraft>> = mutate::K8S_OPERATORS
        .iter()
        .map(|op| (op.name, op.solo, op.apply))
        .collect();
    let (d, baseline_text, mutations, intended) = draft_mutated(
        rng,
        clean,
        &k8s::FAMILIES,
        &ops,
        k8s::draft,
        k8s::K8sDraft::render,
    );
    (
        d.family.to_string(),
        baseline_text,
        d.render(),
        mutations,
        intended,
    )
}

fn draft_tf(rng: &mut GenRng, clean: bool) -> Drafted {
    let ops: Vec<Operator<tf::TfDraft>> = tf::TF_OPERATORS
        .iter()
        .map(|op| (op.name, false, op.apply))
        .collect();
    let (d, baseline_text, mutations, intended) = draft_mutated(
        rng,
        clean,
        &tf::FAMILIES,
        &ops,
        tf::draft,
        tf::TfDraft::render,
    );
    (
        d.family.clone(),
        baseline_text,
        d.render(),
        mutations,
        intended,
    )
}

/// A mutation operator as drafting sees it: name, whether it must be the
/// item's only mutation, and its edit (`None`: not applicable).
type Operator<D> = (
    &'static str,
    bool,
    fn(&mut D, &mut GenRng) -> Option<Vec<String>>,
);

/// Drafts one item of a language: a baseline of a random family, and for a
/// mutated item a uniformly drawn lead operator on the first family (in
/// random order) it applies to — so operators that need a Service, a
/// ConfigMap or a Job are as frequent as the others — then up to
/// [`mutation_count`] operators in random order. Returns the final draft,
/// the baseline's text, the operators applied and the intended ids (sorted,
/// distinct).
fn draft_mutated<D: Clone>(
    rng: &mut GenRng,
    clean: bool,
    families: &[&'static str],
    ops: &[Operator<D>],
    draft: fn(&mut GenRng, &'static str) -> D,
    render: fn(&D) -> String,
) -> (D, String, Vec<&'static str>, Vec<String>) {
    let mut mutations = Vec::new();
    let mut intended = Vec::new();
    let lead = (!clean).then(|| rng.below(ops.len() as u64) as usize);
    let mut families = families.to_vec();
    rng.shuffle(&mut families);
    let mut d = draft(rng, families[0]);
    let mut baseline_text = render(&d);
    if let Some(lead) = lead {
        let (lead_name, lead_solo, lead_apply) = ops[lead];
        for family in families {
            let base = draft(rng, family);
            let mut trial = base.clone();
            if let Some(ids) = lead_apply(&mut trial, rng) {
                baseline_text = render(&base);
                d = trial;
                mutations.push(lead_name);
                intended.extend(ids);
                break;
            }
        }
        let want = mutation_count(rng);
        let mut order: Vec<usize> = (0..ops.len()).collect();
        rng.shuffle(&mut order);
        for i in order {
            let (name, solo, apply) = ops[i];
            if mutations.len() >= want || lead_solo {
                break;
            }
            if solo || mutations.contains(&name) {
                continue;
            }
            let mut trial = d.clone();
            if let Some(ids) = apply(&mut trial, rng) {
                d = trial;
                mutations.push(name);
                intended.extend(ids);
            }
        }
    }
    intended.sort();
    intended.dedup();
    (d, baseline_text, mutations, intended)
}

/// The first 16 hex characters of SHA-256 over the question (E2 §8.4).
#[must_use]
pub fn question_hash(question: &str) -> String {
    sha256_hex(question.as_bytes())[..16].to_string()
}

/// The row of an item (E2 §8.4), keys in the documented order.
#[must_use]
pub fn build_row(item: &Item, seed: u64, catalogue: &BTreeMap<String, String>) -> Value {
    let lang = lang_str(item.lang);
    let namespaces = labelled_namespaces(item.lang);
    let versions: Map<String, Value> = namespaces
        .iter()
        .filter_map(|ns| catalogue.get(*ns).map(|v| ((*ns).to_string(), json!(v))))
        .collect();
    json!({
        "id": format!("e2-{lang}-{:06}", item.index),
        "question": item.question,
        "info": {
            "violations": item.violations,
            "patch": null,
            "labelled_namespaces": namespaces,
            "analyzer_versions": versions,
        },
        "meta": {
            "lang": lang,
            "file_name": item.lang.workspace_name(),
            "split": Split::of_baseline(&item.baseline_text).as_str(),
            "hash": question_hash(&item.question),
            "generator": {
                "name": GENERATOR_NAME,
                "version": GENERATOR_VERSION,
                "seed": seed,
                "baseline": item.baseline,
                "mutations": item.mutations,
                "intended_ids": item.intended_ids,
            },
        },
    })
}

/// Walks one language stream, calling `keep` on every accepted item until
/// it returns false.
fn walk_stream(
    scanner: &mut Scanner,
    config: &GenConfig,
    seed: u64,
    lang: Lang,
    dropped: &mut Dropped,
    mut keep: impl FnMut(Item) -> bool,
) {
    let mut plan = GenRng::for_item(seed, &format!("{}/plan", lang_str(lang)), 0, 0);
    let offset = (plan.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let p = config.clean_fraction;
    let mut seen: HashSet<String> = HashSet::new();
    let mut accepted = 0u64;
    let mut index = 0u64;
    loop {
        let k = accepted as f64;
        let clean = ((k + 1.0) * p + offset).floor() > (k * p + offset).floor();
        let drawn = draw_item(scanner, config, seed, lang, index, clean);
        index += 1;
        let Some(item) = drawn else {
            dropped.intent_failed += 1;
            continue;
        };
        if !seen.insert(sha256_hex(item.question.as_bytes())) {
            dropped.duplicate += 1;
            continue;
        }
        accepted += 1;
        if !keep(item) {
            return;
        }
    }
}

/// The whole corpus at the configured sizes.
///
/// # Errors
/// An invalid configuration, or analyzers that cannot be configured.
pub fn generate_corpus(config: &GenConfig, seed: u64) -> Result<Corpus, GenError> {
    config.validate()?;
    let mut scanner = oracle_scanner()?;
    let catalogue = catalogue(&scanner);
    let mut splits: Vec<(Split, Vec<Value>)> =
        Split::ALL.iter().map(|s| (*s, Vec::new())).collect();
    let mut dropped = Dropped::default();
    for lang in [Lang::K8s, Lang::Tf] {
        let target = config.count(lang);
        if target == 0 {
            continue;
        }
        let mut n = 0;
        walk_stream(&mut scanner, config, seed, lang, &mut dropped, |item| {
            let split = Split::of_baseline(&item.baseline_text);
            let row = build_row(&item, seed, &catalogue);
            if let Some((_, rows)) = splits.iter_mut().find(|(s, _)| *s == split) {
                rows.push(row);
            }
            n += 1;
            n < target
        });
    }
    Ok(Corpus {
        config: *config,
        seed,
        splits,
        dropped,
        catalogue,
    })
}

/// `n` rows of `split`: the languages in the configured proportion (k8s
/// rows first), each walking its stream until enough of its items fall in
/// the split. Every language's rows extend its rows in the corpus file of
/// the split (the streams are the same); for the file itself, use
/// [`generate_corpus`] and [`Corpus::rows`].
///
/// # Errors
/// An invalid configuration, or analyzers that cannot be configured.
pub fn generate_split(
    config: &GenConfig,
    seed: u64,
    split: Split,
    n: usize,
) -> Result<Vec<Value>, GenError> {
    config.validate()?;
    let mut scanner = oracle_scanner()?;
    let catalogue = catalogue(&scanner);
    let total = config.k8s + config.tf;
    let n_k8s = (n * config.k8s + total / 2).checked_div(total).unwrap_or(0);
    let mut rows = Vec::with_capacity(n);
    let mut dropped = Dropped::default();
    for (lang, want) in [(Lang::K8s, n_k8s), (Lang::Tf, n - n_k8s)] {
        if want == 0 {
            continue;
        }
        let mut got = 0;
        walk_stream(&mut scanner, config, seed, lang, &mut dropped, |item| {
            if Split::of_baseline(&item.baseline_text) == split {
                rows.push(build_row(&item, seed, &catalogue));
                got += 1;
            }
            got < want
        });
    }
    Ok(rows)
}

/// The files of a corpus directory, in write order: `train.jsonl`,
/// `dev.jsonl`, `test.jsonl`, `manifest.json`, `README.md`.
#[must_use]
pub fn corpus_files(corpus: &Corpus) -> Vec<(String, String)> {
    let manifest = Manifest::for_corpus(corpus);
    let card = card::render_card(corpus, &manifest);
    kit::corpus_files(&corpus.splits, &manifest, card)
}

/// `sv-synth-e2` as `svbench data gen` runs it (the registry's generator).
#[derive(Debug, Clone, Copy)]
pub struct SvSynthE2;

impl CorpusGenerator for SvSynthE2 {
    const NAME: &'static str = GENERATOR_NAME;
    const DEFAULT_SEED: u64 = DEFAULT_SEED;
    type Split = Split;
    type Corpus = Corpus;
    type Manifest = Manifest;

    /// Without `n`, exactly the corpus file of the split.
    fn split_rows(seed: u64, split: Split, n: Option<usize>) -> Result<Vec<Value>, GenFailure> {
        let config = GenConfig::default();
        let rows = match n {
            None => generate_corpus(&config, seed).map(|c| c.rows(split).to_vec()),
            Some(n) => generate_split(&config, seed, split, n),
        };
        rows.map_err(|e| GenFailure::Failed(e.to_string()))
    }

    fn corpus(seed: u64) -> Result<Corpus, GenFailure> {
        generate_corpus(&GenConfig::default(), seed).map_err(|e| GenFailure::Failed(e.to_string()))
    }

    /// Labels from other analyzer versions cannot be reproduced: the fix is a
    /// new corpus.
    fn corpus_from_manifest(manifest: &Manifest) -> Result<Corpus, GenFailure> {
        corpus_from_manifest(manifest).map_err(|e| GenFailure::Stale {
            message: e.to_string(),
            hint: "regenerate with `svbench data gen e2` and commit the new corpus".to_string(),
        })
    }

    fn manifest_of(corpus: &Corpus) -> Manifest {
        Manifest::for_corpus(corpus)
    }

    fn files(corpus: &Corpus) -> Result<Vec<(String, String)>, GenFailure> {
        Ok(corpus_files(corpus))
    }

    fn notes(corpus: &Corpus) -> Vec<String> {
        let d = corpus.dropped;
        vec![format!(
            "dropped {} items (intended ids missing), {} duplicates",
            d.intent_failed, d.duplicate
        )]
    }
}

/// E2's generator in the registry.
pub static GENERATOR: GeneratorEntry = GeneratorEntry::of::<SvSynthE2>();
