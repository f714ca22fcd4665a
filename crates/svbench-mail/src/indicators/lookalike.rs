//! Lookalike domains: a label near a brand label (Damerau–Levenshtein), the
//! same confusable skeleton (UTS-39, after digit/letter folding), or a brand
//! label used as a subdomain or hyphenated token of someone else's domain.

use super::compile::LookalikeIndex;
use super::IndicatorSet;

/// Ordered (from, to) rewrites applied before the skeleton (`0→o`, `rn→m`).
#[derive(Debug)]
pub(super) struct Folds(Vec<(String, String)>);

/// A fold whose `from` string is empty (it would match everywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("lookalike.folds: an empty `from` string")]
pub(super) struct EmptyFoldFrom;

impl Folds {
    pub(super) fn new(pairs: &[(String, String)]) -> Result<Self, EmptyFoldFrom> {
        if pairs.iter().any(|(from, _)| from.is_empty()) {
            return Err(EmptyFoldFrom);
        }
        Ok(Self(
            pairs
                .iter()
                .map(|(f, t)| (f.to_lowercase(), t.to_lowercase()))
                .collect(),
        ))
    }
}

/// How many times each character occurs in a label (non-ASCII characters
/// share buckets with ASCII ones, which only weakens the bound below).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CharCounts {
    /// Characters in the label.
    len: usize,
    /// (bucket, count) of each bucket that occurs.
    buckets: Vec<(u8, u8)>,
}

/// A label's counts as a table, for comparing it with many labels.
struct CountTable([u8; 128]);

fn bucket(c: char) -> usize {
    c as usize % 128
}

impl CountTable {
    fn new(label: &str) -> Self {
        let mut counts = [0u8; 128];
        for c in label.chars() {
            let slot = &mut counts[bucket(c)];
            *slot = slot.saturating_add(1);
        }
        Self(counts)
    }
}

impl CharCounts {
    pub(super) fn new(label: &str) -> Self {
        let table = CountTable::new(label);
        let buckets = (0u8..128)
            .filter(|&b| table.0[usize::from(b)] > 0)
            .map(|b| (b, table.0[usize::from(b)]))
            .collect();
        Self {
            len: label.chars().count(),
            buckets,
        }
    }

    /// A lower bound on the Damerau–Levenshtein distance between this
    /// label and `other` (`other_len` characters): an insertion or deletion
    /// changes the counts by 1, a substitution by 2, a transposition by 0.
    /// The counts' L1 distance is |a| + |b| − 2·Σ min(a_c, b_c), which only
    /// needs this label's own buckets. Exact for labels under 256 of one
    /// character, a smaller (still valid) bound beyond.
    fn min_edits(&self, other: &CountTable, other_len: usize) -> usize {
        let shared: usize = self
            .buckets
            .iter()
            .map(|&(b, n)| usize::from(n.min(other.0[usize::from(b)])))
            .sum();
        (self.len + other_len)
            .saturating_sub(2 * shared)
            .div_ceil(2)
    }
}

/// The folded UTS-39 skeleton of a label, lower case.
pub(super) fn fold_skeleton(label: &str, folds: &Folds) -> String {
    let mut s = label.to_lowercase();
    for (from, to) in &folds.0 {
        if s.contains(from.as_str()) {
            s = s.replace(from.as_str(), to);
        }
    }
    // Most labels are ASCII: their skeleton is each character's, looked up
    // (the general path decomposes and recomposes every label).
    let skeleton = match s.is_ascii() {
        true => s
            .bytes()
            .map(|b| ascii_skeletons()[usize::from(b)].as_str())
            .collect(),
        false => unicode_skeleton(&s),
    };
    // The skeleton maps some ASCII letters to others' prototypes; lower
    // case again so both sides compare alike.
    skeleton.to_lowercase()
}

/// The UTS-39 skeleton of `s`.
fn unicode_skeleton(s: &str) -> String {
    unicode_security::confusable_detection::skeleton(s).collect()
}

/// The skeleton of each ASCII character, computed once. An ASCII string's
/// skeleton is its characters' skeletons in a row: none of them holds a
/// combining mark that normalisation could move across a boundary (a test
/// compares both paths).
fn ascii_skeletons() -> &'static [String] {
    static TABLE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..128u8)
            .map(|b| unicode_skeleton(&char::from(b).to_string()))
            .collect()
    })
}

/// Why a host looks like a brand's, or `None`. `host` is lower case and
/// Unicode; `registrable` is its registrable domain, which is no brand's.
pub(super) fn check(host: &str, registrable: &str, set: &IndicatorSet) -> Option<String> {
    let index = &set.lookalike;
    let label = registrable.split('.').next().unwrap_or(registrable);
    let subdomains = host
        .strip_suffix(registrable)
        .unwrap_or("")
        .trim_end_matches('.');
    // A brand label as a subdomain or a hyphenated token of a foreign domain.
    let tokens = subdomains
        .split('.')
        .filter(|l| !l.is_empty())
        .chain(label.split('-').filter(|_| label.contains('-')));
    for token in tokens {
        if let Some(&b) = index.exact.get(token) {
            return Some(format!(
                "uses the {} label `{token}` on {registrable}",
                set.brands[b].name
            ));
        }
    }
    // A near or confusable label: the registrable label (also without its
    // hyphens, and each hyphenated token) and each subdomain label.
    let dehyphenated = label.replace('-', "");
    let candidates = std::iter::once(label)
        .chain(Some(dehyphenated.as_str()).filter(|d| *d != label))
        .chain(label.split('-').filter(|_| label.contains('-')))
        .chain(subdomains.split('.').filter(|l| !l.is_empty()));
    for candidate in candidates {
        if let Some(reason) = near(candidate, index, set) {
            return Some(format!("{reason} ({registrable})"));
        }
    }
    None
}

/// Why `registrable` looks like `known` (the recipient organisation's own
/// domain, or a correspondent's earlier in the thread) and is not it: its
/// label, or a hyphenated part of it, a few edits away or confusable, or
/// `known`'s label as a hyphenated part (`acme-corp-payroll.top`).
pub(super) fn near_known(
    registrable: &str,
    known: &str,
    whose: &str,
    index: &LookalikeIndex,
) -> Option<String> {
    let label = registrable.split('.').next().unwrap_or(registrable);
    let known_label = known.split('.').next().unwrap_or(known);
    let known_chars = known_label.chars().count();
    if registrable == known || label == known_label || known_chars < index.min_label_chars {
        return None;
    }
    let hyphenated = label
        .strip_prefix(known_label)
        .is_some_and(|rest| rest.starts_with('-'))
        || label
            .strip_suffix(known_label)
            .is_some_and(|rest| rest.ends_with('-'));
    if hyphenated {
        return Some(format!("uses {whose} name `{known_label}` ({registrable})"));
    }
    let known_skeleton = fold_skeleton(known_label, &index.folds);
    let parts = std::iter::once(label).chain(label.split('-').filter(|_| label.contains('-')));
    for part in parts {
        let chars = part.chars().count();
        if chars < index.min_label_chars || part == known_label {
            continue;
        }
        if fold_skeleton(part, &index.folds) == known_skeleton {
            return Some(format!(
                "`{part}` is confusable with {whose} `{known_label}` ({registrable})"
            ));
        }
        let limit = if chars.min(known_chars) <= index.short_label_max_chars {
            index.short_max_distance
        } else {
            index.max_distance
        };
        if chars.abs_diff(known_chars) > limit {
            continue;
        }
        let d = strsim::damerau_levenshtein(part, known_label);
        if d <= limit {
            return Some(format!(
                "`{part}` is {d} edit{} from {whose} `{known_label}` ({registrable})",
                if d == 1 { "" } else { "s" }
            ));
        }
    }
    None
}

/// `candidate` within the edit distance of a brand label, or with its
/// skeleton.
fn near(candidate: &str, index: &LookalikeIndex, set: &IndicatorSet) -> Option<String> {
    let chars = candidate.chars().count();
    if chars < index.min_label_chars {
        return None;
    }
    if let Some(&b) = index.exact.get(candidate) {
        return Some(format!("`{candidate}` is the {} label", set.brands[b].name));
    }
    if let Some(&b) = index.skeletons.get(&fold_skeleton(candidate, &index.folds)) {
        return Some(format!(
            "`{candidate}` is confusable with {}",
            set.brands[b].name
        ));
    }
    let counts = CountTable::new(candidate);
    for (brand_label, brand_chars, b, brand_counts) in &index.labels {
        if *brand_chars < index.min_label_chars {
            continue;
        }
        let limit = if chars.min(*brand_chars) <= index.short_label_max_chars {
            index.short_max_distance
        } else {
            index.max_distance
        };
        // Distance is at least the length difference: skip most labels cheaply.
        if chars.abs_diff(*brand_chars) > limit || brand_counts.min_edits(&counts, chars) > limit {
            continue;
        }
        let d = strsim::damerau_levenshtein(candidate, brand_label);
        if d <= limit {
            return Some(format!(
                "`{candidate}` is {d} edit{} from {} (`{brand_label}`)",
                if d == 1 { "" } else { "s" },
                set.brands[*b].name
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The ASCII table gives the general path's skeleton.
        #[test]
        fn ascii_skeletons_match_the_general_path(label in "[ -~]{0,24}") {
            let fast: String = label
                .bytes()
                .map(|b| ascii_skeletons()[usize::from(b)].as_str())
                .collect();
            prop_assert_eq!(fast, unicode_skeleton(&label));
        }
    }

    #[test]
    fn every_ascii_pair_skeletons_alike_on_both_paths() {
        for a in 0..128u8 {
            for b in 0..128u8 {
                let s: String = [char::from(a), char::from(b)].iter().collect();
                let fast: String = s
                    .bytes()
                    .map(|x| ascii_skeletons()[usize::from(x)].as_str())
                    .collect();
                assert_eq!(fast, unicode_skeleton(&s), "{s:?}");
            }
        }
    }

    use super::*;

    #[test]
    fn folded_skeletons_match_digit_and_letter_tricks() {
        let folds = Folds::new(&[
            ("0".into(), "o".into()),
            ("1".into(), "l".into()),
            ("rn".into(), "m".into()),
            ("vv".into(), "w".into()),
        ])
        .unwrap();
        let sk = |s| fold_skeleton(s, &folds);
        assert_eq!(sk("paypa1"), sk("paypal"));
        assert_eq!(sk("rnicrosoft"), sk("microsoft"));
        assert_eq!(sk("g00gle"), sk("google"));
        assert_eq!(sk("аррӏе"), sk("apple"), "Cyrillic confusables");
        assert_ne!(sk("maple"), sk("apple"));
    }

    #[test]
    fn the_count_bound_never_exceeds_the_distance() {
        let words = [
            "paypal",
            "paypa1",
            "pyapal",
            "northwind",
            "nortwhind",
            "northwlnd",
            "contoso",
            "cnotoso",
            "microsoft",
            "rnicrosoft",
            "apple",
            "аррӏе",
            "",
            "a",
            "ab",
            "ba",
        ];
        for a in words {
            for b in words {
                let bound = CharCounts::new(a).min_edits(&CountTable::new(b), b.chars().count());
                assert!(bound <= strsim::damerau_levenshtein(a, b), "{a} {b}");
            }
        }
    }
}
