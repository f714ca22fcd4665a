//! The data files compiled once: patterns into regexes, lists into sets,
//! brand names into one automaton, brand labels into lookalike indexes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;
use sha2::{Digest, Sha256};

use super::config::{BrandsFile, IndicatorsFile};
use super::lookalike::{fold_skeleton, CharCounts, Folds};
use super::rewrite::Gateways;
use super::{Polarity, BENIGN_CATEGORIES, GENERIC_GREETING, PHISH_CATEGORIES};

const INDICATORS_TOML: &str = include_str!("../../../../datasets/e4/indicators.toml");
const BRANDS_TOML: &str = include_str!("../../../../datasets/e4/brands.toml");

/// Brand names shorter than this never claim a brand from a display name
/// (`X` would match any initial).
const MIN_BRAND_NAME_CHARS: usize = 3;

/// Why the indicator data could not be compiled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndicatorError {
    /// Not valid TOML, or not the expected shape (unknown keys included).
    #[error("{file}: {message}")]
    Toml {
        /// `indicators.toml` or `brands.toml`.
        file: &'static str,
        /// The parser's message.
        message: String,
    },
    /// A phrase pattern does not compile.
    #[error("indicators.toml: phrases.{list}: {message}")]
    Pattern {
        /// The phrase list.
        list: &'static str,
        /// The regex error.
        message: String,
    },
    /// Something parses but makes no sense (a weight for an unknown category,
    /// a missing weight, an empty brand, a non-finite number…).
    #[error("{file}: {message}")]
    Invalid {
        /// `indicators.toml` or `brands.toml`.
        file: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// A brand, as the extractor uses it.
#[derive(Debug)]
pub(super) struct Brand {
    pub name: String,
    /// Official registrable domains, lower case.
    pub domains: Vec<String>,
    /// The brand's own shorteners, lower case.
    pub shorteners: Vec<String>,
}

/// Lookalike thresholds and the brand labels they compare against.
#[derive(Debug)]
pub(super) struct LookalikeIndex {
    pub max_distance: usize,
    pub min_label_chars: usize,
    pub short_label_max_chars: usize,
    pub short_max_distance: usize,
    pub folds: Folds,
    /// (label, its length in chars, brand index, its character counts).
    pub labels: Vec<(String, usize, usize, CharCounts)>,
    /// Folded skeleton of each brand label → brand index.
    pub skeletons: HashMap<String, usize>,
    /// Exact brand labels → brand index.
    pub exact: HashMap<String, usize>,
}

/// `indicators.toml` and `brands.toml`, parsed, validated and compiled.
#[derive(Debug)]
pub struct IndicatorSet {
    indicators_sha256: String,
    brands_sha256: String,
    weights: BTreeMap<String, f64>,
    offset: f64,
    pub(super) min_chars: usize,
    pub(super) max_chars: usize,
    /// The four clause categories and the greeting, searched together.
    pub(super) phrases: PhraseLists,
    pub(super) corporate_claim: Regex,
    pub(super) protected_archive: Regex,
    pub(super) shorteners: HashSet<String>,
    pub(super) suspicious_tlds: HashSet<String>,
    pub(super) freemail: HashSet<String>,
    /// Endings that make a bare dotted word a file name, not a domain.
    pub(super) file_extensions: HashSet<String>,
    pub(super) risky_extensions: HashSet<String>,
    pub(super) decoy_extensions: HashSet<String>,
    pub(super) archive_extensions: HashSet<String>,
    pub(super) brands: Vec<Brand>,
    /// Registrable domain → brand index.
    pub(super) brand_domains: HashMap<String, usize>,
    /// Brand display names (ASCII case-insensitive), pattern id → brand index.
    brand_names: AhoCorasick,
    brand_name_of: Vec<usize>,
    pub(super) lookalike: LookalikeIndex,
    pub(super) gateways: Gateways,
}

impl IndicatorSet {
    /// The embedded data files, compiled on first use.
    ///
    /// # Panics
    /// Never in a released build: a test compiles the embedded files.
    #[must_use]
    pub fn builtin() -> &'static IndicatorSet {
        static SET: OnceLock<IndicatorSet> = OnceLock::new();
        SET.get_or_init(|| {
            IndicatorSet::from_toml(INDICATORS_TOML, BRANDS_TOML)
                .expect("the embedded indicator data compiles (tested)")
        })
    }

    /// Compile the two files' texts.
    pub fn from_toml(indicators: &str, brands: &str) -> Result<Self, IndicatorError> {
        let file: IndicatorsFile =
            toml::from_str(indicators).map_err(|e| IndicatorError::Toml {
                file: "indicators.toml",
                message: e.to_string(),
            })?;
        let brands_file: BrandsFile = toml::from_str(brands).map_err(|e| IndicatorError::Toml {
            file: "brands.toml",
            message: e.to_string(),
        })?;
        let invalid = |message: String| IndicatorError::Invalid {
            file: "indicators.toml",
            message,
        };
        validate_weights(&file.policy.weights).map_err(invalid)?;
        if !file.policy.offset.is_finite() {
            return Err(invalid("policy.offset must be a finite number".into()));
        }
        if file.spans.min_chars == 0 || file.spans.min_chars > file.spans.max_chars {
            return Err(invalid(
                "spans: need 0 < min_chars <= max_chars".to_string(),
            ));
        }
        let p = &file.phrases;
        let phrases = PhraseLists::new(&[
            ("credential_request", &p.credential_request),
            ("pii_request", &p.pii_request),
            ("payment_request", &p.payment_request),
            ("urgency_threat", &p.urgency_threat),
            (GENERIC_GREETING, &p.generic_greeting),
        ])?;
        let corporate_claim = phrase_regex("corporate_claim", &p.corporate_claim)?;
        let protected_archive = phrase_regex("protected_archive", &p.protected_archive)?;

        let folds = Folds::new(&file.lookalike.folds).map_err(|e| invalid(e.to_string()))?;
        let gateways = Gateways::new(&file.link_gateways).map_err(|e| invalid(e.to_string()))?;
        let (compiled, names, name_of) = compile_brands(brands_file)?;
        let mut brand_domains = HashMap::new();
        let mut labels = Vec::new();
        let mut skeletons = HashMap::new();
        let mut exact = HashMap::new();
        for (i, brand) in compiled.iter().enumerate() {
            for d in &brand.0.domains {
                brand_domains.entry(d.clone()).or_insert(i);
            }
            for label in &brand.1 {
                let chars = label.chars().count();
                exact.entry(label.clone()).or_insert(i);
                skeletons.entry(fold_skeleton(label, &folds)).or_insert(i);
                labels.push((label.clone(), chars, i, CharCounts::new(label)));
            }
        }
        let brand_names = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&names)
            .map_err(|e| IndicatorError::Invalid {
                file: "brands.toml",
                message: e.to_string(),
            })?;
        let set = |list: &[String]| -> HashSet<String> {
            list.iter()
                .map(|s| s.trim().trim_start_matches('.').to_lowercase())
                .collect()
        };
        let l = &file.lookalike;
        Ok(IndicatorSet {
            indicators_sha256: sha256_hex(indicators),
            brands_sha256: sha256_hex(brands),
            weights: file.policy.weights,
            offset: file.policy.offset,
            min_chars: file.spans.min_chars,
            max_chars: file.spans.max_chars,
            phrases,
            corporate_claim,
            protected_archive,
            shorteners: set(&file.domains.shorteners),
            suspicious_tlds: set(&file.domains.suspicious_tlds),
            freemail: set(&file.domains.freemail),
            file_extensions: set(&file.domains.file_extensions),
            risky_extensions: set(&file.attachments.risky_extensions),
            decoy_extensions: set(&file.attachments.decoy_extensions),
            archive_extensions: set(&file.attachments.archive_extensions),
            brands: compiled.into_iter().map(|(b, _)| b).collect(),
            brand_domains,
            brand_names,
            brand_name_of: name_of,
            lookalike: LookalikeIndex {
                max_distance: l.max_distance,
                min_label_chars: l.min_label_chars,
                short_label_max_chars: l.short_label_max_chars,
                short_max_distance: l.short_max_distance,
                folds,
                labels,
                skeletons,
                exact,
            },
            gateways,
        })
    }

    /// SHA-256 (lower-case hex) of the `indicators.toml` text compiled.
    #[must_use]
    pub fn indicators_sha256(&self) -> &str {
        &self.indicators_sha256
    }

    /// SHA-256 (lower-case hex) of the `brands.toml` text compiled.
    #[must_use]
    pub fn brands_sha256(&self) -> &str {
        &self.brands_sha256
    }

    /// The builtin policy's weight of a category (`None` for an unknown name).
    #[must_use]
    pub fn weight(&self, category: &str) -> Option<f64> {
        self.weights.get(category).copied()
    }

    /// The builtin policy's logistic offset: p = 1/(1 + e^−(s − offset)).
    #[must_use]
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// Number of brands known.
    #[must_use]
    pub fn brand_count(&self) -> usize {
        self.brands.len()
    }

    /// The brand whose official registrable domains include `registrable`.
    pub(super) fn brand_of_domain(&self, registrable: &str) -> Option<usize> {
        self.brand_domains.get(registrable).copied()
    }

    /// The first brand named in `text` (case-insensitive, word-bounded).
    /// Invisible characters are ignored (`Pay\u{200B}Pal` names PayPal).
    pub(super) fn brand_named_in(&self, text: &str) -> Option<usize> {
        let text = super::fold::strip_invisible(text);
        let text = text.as_ref();
        self.brand_names
            .find_iter(text)
            .find(|m| super::spans::bounded(text, m.start(), m.end()))
            .and_then(|m| self.brand_name_of.get(m.pattern().as_usize()).copied())
    }
}

/// Every category has a finite weight, with the sign of its polarity; no
/// unknown names.
fn validate_weights(weights: &BTreeMap<String, f64>) -> Result<(), String> {
    for (name, w) in weights {
        let Some(polarity) = super::Polarity::of(name) else {
            return Err(format!("policy.weights: unknown category `{name}`"));
        };
        let ok = w.is_finite()
            && match polarity {
                Polarity::Phish => *w >= 0.0,
                Polarity::Benign => *w <= 0.0,
            };
        if !ok {
            return Err(format!(
                "policy.weights.{name} = {w}: must be finite, ≥ 0 for phish and ≤ 0 for benign categories"
            ));
        }
    }
    let missing: Vec<&str> = PHISH_CATEGORIES
        .iter()
        .chain(&[GENERIC_GREETING])
        .chain(&BENIGN_CATEGORIES)
        .copied()
        .filter(|c| !weights.contains_key(*c))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("policy.weights: missing {}", missing.join(", ")))
    }
}

/// The regex source of a phrase list: case-insensitive, word-bounded at
/// both ends (ASCII boundaries keep the regex on its fast DFA path).
fn phrase_pattern(list: &'static str, patterns: &[String]) -> Result<String, IndicatorError> {
    if patterns.is_empty() {
        return Err(IndicatorError::Pattern {
            list,
            message: "the list is empty".into(),
        });
    }
    let alternation = patterns
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    Ok(format!(r"(?i)(?-u:\b)(?:{alternation})(?-u:\b)"))
}

/// One regex for a phrase list.
fn phrase_regex(list: &'static str, patterns: &[String]) -> Result<Regex, IndicatorError> {
    Regex::new(&phrase_pattern(list, patterns)?).map_err(|e| IndicatorError::Pattern {
        list,
        message: e.to_string(),
    })
}

/// Phrase lists compiled into one multi-pattern regex (pattern `i` is list
/// `i`), so a region is scanned once for all of them, not once per list.
#[derive(Debug)]
pub(super) struct PhraseLists {
    pub(super) categories: Vec<&'static str>,
    /// Each list's own regex source (pattern `i` of `regex`), for the test
    /// that compares one scan with a scan per list.
    #[cfg(test)]
    pub(super) sources: Vec<String>,
    pub(super) regex: regex_automata::meta::Regex,
}

/// Lazy-DFA cache per searching thread.
const CACHE: usize = 8 << 20;

impl PhraseLists {
    fn new(lists: &[(&'static str, &[String])]) -> Result<Self, IndicatorError> {
        let sources = lists
            .iter()
            .map(|(list, patterns)| phrase_pattern(list, patterns))
            .collect::<Result<Vec<_>, _>>()?;
        let config = regex_automata::meta::Config::new().hybrid_cache_capacity(CACHE);
        let regex = regex_automata::meta::Builder::new()
            .configure(config)
            .build_many(&sources)
            .map_err(|e| {
                let list = e
                    .pattern()
                    .and_then(|p| lists.get(p.as_usize()))
                    .map_or("phrases", |(list, _)| *list);
                IndicatorError::Pattern {
                    list,
                    message: e.to_string(),
                }
            })?;
        Ok(Self {
            categories: lists.iter().map(|(list, _)| *list).collect(),
            #[cfg(test)]
            sources,
            regex,
        })
    }
}

type CompiledBrands = (Vec<(Brand, Vec<String>)>, Vec<String>, Vec<usize>);

/// Brands with their lookalike labels, plus the display-name patterns and the
/// brand index of each.
fn compile_brands(file: BrandsFile) -> Result<CompiledBrands, IndicatorError> {
    let invalid = |message: String| IndicatorError::Invalid {
        file: "brands.toml",
        message,
    };
    let mut brands = Vec::new();
    let mut names = Vec::new();
    let mut name_of = Vec::new();
    for (i, entry) in file.brand.into_iter().enumerate() {
        if entry.name.trim().is_empty() || entry.domains.is_empty() {
            return Err(invalid(format!(
                "brand {}: needs a name and at least one domain",
                i + 1
            )));
        }
        let domains: Vec<String> = entry
            .domains
            .iter()
            .map(|d| d.trim().to_lowercase())
            .collect();
        for s in &entry.shorteners {
            if !domains.contains(&s.trim().to_lowercase()) {
                return Err(invalid(format!(
                    "brand {}: shortener {s} is not one of its domains",
                    entry.name
                )));
            }
        }
        let labels: Vec<String> = if entry.labels.is_empty() {
            domains
                .iter()
                .filter_map(|d| d.split('.').next().map(str::to_string))
                .collect()
        } else {
            entry
                .labels
                .iter()
                .map(|l| l.trim().to_lowercase())
                .collect()
        };
        for name in std::iter::once(&entry.name).chain(&entry.names) {
            let name = name.trim();
            if name.chars().count() >= MIN_BRAND_NAME_CHARS {
                names.push(name.to_string());
                name_of.push(i);
            }
        }
        let shorteners = entry
            .shorteners
            .iter()
            .map(|s| s.trim().to_lowercase())
            .collect();
        brands.push((
            Brand {
                name: entry.name,
                domains,
                shorteners,
            },
            labels,
        ));
    }
    Ok((brands, names, name_of))
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
