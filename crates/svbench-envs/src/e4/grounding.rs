//! Evidence grounding and the evidence score (E4 §4.1–§4.3): each quoted
//! item is found in the email, tied to one occurrence, and matched against
//! the gold spans that support the gold label.

use memchr::memmem::Finder;

use super::normalize::{normalize_item, NormalizedText};
use super::{GoldSource, GoldSpan, Label, Polarity};

/// Default of the env arg `evidence_max_items`.
pub const DEFAULT_MAX_ITEMS: usize = 10;
/// Default of the env arg `evidence_min_chars`.
pub const DEFAULT_MIN_CHARS: usize = 4;
/// Default of the env arg `evidence_max_chars`.
pub const DEFAULT_MAX_CHARS: usize = 200;
/// Longest item text kept in the record, in characters (a model may quote
/// megabytes; the status already says it was too long).
pub const RECORD_TEXT_MAX_CHARS: usize = 1_000;
/// A match needs the quote's overlap with the span to cover at least
/// `min(|g|, MATCH_MIN_OVERLAP)` characters of the span (§4.3) …
const MATCH_MIN_OVERLAP: usize = 8;
// … and at least half of the quote (`2·overlap ≥ |e|`, in integers).

/// The evidence limits of the environment arguments (E4 §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvidenceLimits {
    /// `evidence_max_items`: items beyond it are `too_many`.
    pub max_items: usize,
    /// `evidence_min_chars`: shorter items are `too_short`.
    pub min_chars: usize,
    /// `evidence_max_chars`: longer items are `too_long`.
    pub max_chars: usize,
}

impl Default for EvidenceLimits {
    fn default() -> Self {
        EvidenceLimits {
            max_items: DEFAULT_MAX_ITEMS,
            min_chars: DEFAULT_MIN_CHARS,
            max_chars: DEFAULT_MAX_CHARS,
        }
    }
}

/// One evidence item as the parser read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawEvidence {
    /// A string item.
    Text(String),
    /// Any other JSON value.
    NotString,
}

/// What became of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemStatus {
    /// Found, word-bounded, not a repeat, within the cap.
    Valid,
    /// Not a string.
    NotString,
    /// Shorter than `evidence_min_chars` after normalisation.
    TooShort,
    /// Longer than `evidence_max_chars` after normalisation.
    TooLong,
    /// Not in the email.
    NotFound,
    /// Only found inside words.
    NotWordBounded,
    /// Cites the same occurrence as an earlier item.
    Duplicate,
    /// Beyond `evidence_max_items`.
    TooMany,
}

impl ItemStatus {
    /// The recorded spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::Valid => "valid",
            ItemStatus::NotString => "not_string",
            ItemStatus::TooShort => "too_short",
            ItemStatus::TooLong => "too_long",
            ItemStatus::NotFound => "not_found",
            ItemStatus::NotWordBounded => "not_word_bounded",
            ItemStatus::Duplicate => "duplicate",
            ItemStatus::TooMany => "too_many",
        }
    }
}

/// One item after grounding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroundedItem {
    /// The normalised quote (cut to [`RECORD_TEXT_MAX_CHARS`]); `None` for
    /// a non-string or an item beyond the cap.
    pub text: Option<String>,
    /// What became of it.
    pub status: ItemStatus,
    /// Code-point range of the cited occurrence in `question` (valid items).
    pub span: Option<(usize, usize)>,
    /// Indices into the row's gold spans that the item matches.
    pub matched_gold: Vec<usize>,
}

/// The grounded evidence of one answer and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Grounding {
    /// Every item, in order.
    pub items: Vec<GroundedItem>,
    /// Size of the relevant gold set G.
    pub relevant: usize,
    /// Valid items matching some span of G.
    pub matched: usize,
    /// Spans of G matched by some item.
    pub recalled: usize,
    /// Whether the component is scored for the row (§4.3).
    pub applicable: bool,
    /// matched / items; `None` when not applicable or nothing was cited.
    pub precision: Option<f64>,
    /// recalled / |G|; `None` when not applicable or G is empty.
    pub recall: Option<f64>,
    /// The `evidence` component; `None` when not applicable.
    pub f1: Option<f64>,
    /// Categories of the recalled spans, in gold order, once each.
    pub recalled_categories: Vec<String>,
}

/// The gold facts grounding needs.
#[derive(Debug, Clone, Copy)]
pub struct GoldFacts<'a> {
    /// Gold label.
    pub label: Label,
    /// The row's gold spans (code points into `question`).
    pub spans: &'a [GoldSpan],
    /// Where they come from.
    pub source: GoldSource,
}

/// Whether a gold span is in G for `gold` (§4.2).
pub fn is_relevant(gold: Label, span: &GoldSpan) -> bool {
    match gold {
        Label::Phishing => span.polarity == Polarity::Phish,
        Label::Legitimate => span.polarity == Polarity::Benign,
        Label::Abstain => true,
    }
}

/// Whether evidence is scored for the row (§4.3): not for `gold_source =
/// none`, nor for an extractor-gold phishing row without phish spans.
pub fn is_applicable(gold: GoldFacts<'_>, relevant: usize) -> bool {
    match gold.source {
        GoldSource::None => false,
        GoldSource::Extractor => !(gold.label == Label::Phishing && relevant == 0),
        GoldSource::Annotated => true,
    }
}

/// Grounds `items` in `question`. The question is normalised only when
/// some item needs searching; [`ground_in`] takes a normalised text that a
/// caller scoring many answers to one row can reuse.
pub fn ground(
    question: &str,
    items: &[RawEvidence],
    gold: GoldFacts<'_>,
    limits: &EvidenceLimits,
) -> Grounding {
    let needs_text = items.iter().take(limits.max_items).any(|i| match i {
        RawEvidence::Text(_) => true,
        RawEvidence::NotString => false,
    });
    if needs_text {
        ground_in(&NormalizedText::new(question), items, gold, limits)
    } else {
        ground_in(&NormalizedText::new(""), items, gold, limits)
    }
}

/// [`ground`] on an already normalised question.
pub fn ground_in(
    text: &NormalizedText,
    items: &[RawEvidence],
    gold: GoldFacts<'_>,
    limits: &EvidenceLimits,
) -> Grounding {
    // G in normalised coordinates: (start, end, index into gold.spans).
    let relevant: Vec<(usize, usize, usize)> = gold
        .spans
        .iter()
        .enumerate()
        .filter(|(_, s)| is_relevant(gold.label, s))
        .map(|(i, s)| {
            let (a, b) = text.covering(s.start, s.end.max(s.start));
            (a, b, i)
        })
        .collect();
    let mut recalled = vec![false; relevant.len()];
    let mut cited: Vec<(usize, usize)> = Vec::new();
    let mut grounded = Vec::with_capacity(items.len().min(limits.max_items + 1));
    let mut matched = 0usize;
    for (n, item) in items.iter().enumerate() {
        let g = if n >= limits.max_items {
            invalid(None, ItemStatus::TooMany)
        } else {
            ground_item(text, item, &relevant, &mut recalled, &mut cited, limits)
        };
        if !g.matched_gold.is_empty() {
            matched += 1;
        }
        grounded.push(g);
    }
    score(grounded, gold, &relevant, &recalled, matched)
}

/// Precision, recall and F1 from the grounded items (§4.3).
fn score(
    items: Vec<GroundedItem>,
    gold: GoldFacts<'_>,
    relevant: &[(usize, usize, usize)],
    recalled: &[bool],
    matched: usize,
) -> Grounding {
    let applicable = is_applicable(gold, relevant.len());
    let n_recalled = recalled.iter().filter(|r| **r).count();
    let mut categories: Vec<String> = Vec::new();
    for (&(_, _, i), _) in relevant.iter().zip(recalled).filter(|(_, r)| **r) {
        let category = &gold.spans[i].category;
        if !categories.contains(category) {
            categories.push(category.clone());
        }
    }
    let n = items.len();
    let precision = (n > 0).then(|| matched as f64 / n as f64);
    let recall = (!relevant.is_empty()).then(|| n_recalled as f64 / relevant.len() as f64);
    let f1 = match (precision, recall) {
        // G empty: citing nothing is right, citing anything is not.
        (_, None) => {
            if n == 0 {
                1.0
            } else {
                0.0
            }
        }
        (None, Some(_)) => 0.0,
        (Some(p), Some(r)) if p + r > 0.0 => 2.0 * p * r / (p + r),
        (Some(_), Some(_)) => 0.0,
    };
    Grounding {
        items,
        relevant: relevant.len(),
        matched,
        recalled: n_recalled,
        applicable,
        precision: precision.filter(|_| applicable),
        recall: recall.filter(|_| applicable),
        f1: applicable.then_some(f1),
        recalled_categories: categories,
    }
}

fn invalid(text: Option<String>, status: ItemStatus) -> GroundedItem {
    GroundedItem {
        text,
        status,
        span: None,
        matched_gold: Vec::new(),
    }
}

fn record_text(s: &str) -> String {
    match s.char_indices().nth(RECORD_TEXT_MAX_CHARS) {
        Some((cut, _)) => s[..cut].to_string(),
        None => s.to_string(),
    }
}

/// §4.1 steps 1–7 for one item within the cap.
fn ground_item(
    text: &NormalizedText,
    item: &RawEvidence,
    relevant: &[(usize, usize, usize)],
    recalled: &mut [bool],
    cited: &mut Vec<(usize, usize)>,
    limits: &EvidenceLimits,
) -> GroundedItem {
    let RawEvidence::Text(raw) = item else {
        return invalid(None, ItemStatus::NotString);
    };
    let quote = match normalize_item(raw, limits.max_chars) {
        Ok(q) => q,
        Err(partial) => return invalid(Some(record_text(&partial)), ItemStatus::TooLong),
    };
    let len = quote.chars().count();
    // An empty quote would be "found" everywhere, whatever the limit says.
    if len == 0 || len < limits.min_chars {
        return invalid(Some(quote), ItemStatus::TooShort);
    }
    if len > limits.max_chars {
        return invalid(Some(record_text(&quote)), ItemStatus::TooLong);
    }
    let occurrences = match bounded_occurrences(text, &quote, len) {
        Ok(o) => o,
        Err(status) => return invalid(Some(quote), status),
    };
    let (start, end) = choose(&occurrences, relevant, recalled);
    if cited.contains(&(start, end)) {
        return invalid(Some(quote), ItemStatus::Duplicate);
    }
    cited.push((start, end));
    let mut matched_gold = Vec::new();
    for (k, &(gs, ge, i)) in relevant.iter().enumerate() {
        let overlap = overlap((start, end), (gs, ge));
        if 2 * overlap >= len && overlap >= (ge - gs).min(MATCH_MIN_OVERLAP) {
            recalled[k] = true;
            matched_gold.push(i);
        }
    }
    GroundedItem {
        text: Some(quote),
        status: ItemStatus::Valid,
        span: Some(text.source_range(start, end)),
        matched_gold,
    }
}

/// Every word-bounded occurrence of `quote` (normalised character ranges),
/// overlapping ones included, or why there is none.
fn bounded_occurrences(
    text: &NormalizedText,
    quote: &str,
    len: usize,
) -> Result<Vec<(usize, usize)>, ItemStatus> {
    let haystack = text.as_str();
    let bytes = haystack.as_bytes();
    let finder = Finder::new(quote.as_bytes());
    let first_alnum = quote.chars().next().is_some_and(char::is_alphanumeric);
    let last_alnum = quote.chars().next_back().is_some_and(char::is_alphanumeric);
    let step = quote.chars().next().map_or(1, char::len_utf8);
    let mut found = false;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(offset) = bytes.get(from..).and_then(|rest| finder.find(rest)) {
        let start = from + offset;
        let end = start + quote.len();
        from = start + step;
        found = true;
        let before_ok = !first_alnum
            || !haystack[..start]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        let after_ok = !last_alnum
            || !haystack[end..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
        if before_ok && after_ok {
            let s = text.char_index(start);
            out.push((s, s + len));
        }
    }
    match (found, out.is_empty()) {
        (false, _) => Err(ItemStatus::NotFound),
        (true, true) => Err(ItemStatus::NotWordBounded),
        (true, false) => Ok(out),
    }
}

/// §4.1 step 6: the occurrence overlapping a not-yet-matched span of G
/// most, else any span of G most; the earliest on ties.
fn choose(
    occurrences: &[(usize, usize)],
    relevant: &[(usize, usize, usize)],
    recalled: &[bool],
) -> (usize, usize) {
    let earliest = occurrences.first().copied().unwrap_or_default();
    let best = |open_only: bool| {
        let mut best = (0usize, earliest);
        for &occ in occurrences {
            let o = relevant
                .iter()
                .zip(recalled)
                .filter(|(_, done)| !(open_only && **done))
                .map(|(&(gs, ge, _), _)| overlap(occ, (gs, ge)))
                .max()
                .unwrap_or(0);
            if o > best.0 {
                best = (o, occ);
            }
        }
        best
    };
    let (o, occ) = best(true);
    if o > 0 {
        occ
    } else {
        best(false).1
    }
}

fn overlap(a: (usize, usize), b: (usize, usize)) -> usize {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

#[cfg(test)]
mod tests;
