//! Evidence grounding and the evidence score (E4 §4.1–§4.3): each quoted
//! item is found in the email, tied to one occurrence, and matched against
//! the gold spans that support the gold label.

use memchr::memmem::Finder;
use svbench_core::deadline::{Deadline, TimeBudgetExceeded};

use super::normalize::{normalize_item, NormalizedText};
use super::{GoldSource, GoldSpan, Label, Polarity};

mod words;

pub use words::Words;

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
// … and at least half of the quote (`2·overlap ≥ |e|`, in integers); under
// [`MatchRule::ContentWords`] also half of the span's content words.

/// Most occurrence–span pairs compared one by one when choosing an
/// occurrence; more go through the linear sweep.
const PAIRWISE_MAX: usize = 4_096;

/// Recalled categories looked up one by one before a set is built.
const LINEAR_CATEGORIES: usize = 16;

/// Steps of a long loop between two deadline checks.
const CHECK_EVERY: usize = 4_096;

/// When a valid quote matches a gold span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchRule {
    /// At least half of the quote lies inside the span and it covers at
    /// least `min(|g|, 8)` characters of it (the `upstream` profile's
    /// records keep this rule).
    Overlap,
    /// [`MatchRule::Overlap`], and the quote also covers at least half of
    /// the span's content words ([`Words`]): eight characters of scaffolding
    /// (`https://`, `.example`) or of a long phrase's filler no longer
    /// earn the credit of the indicator (the `v1` profile).
    ContentWords,
}

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

/// How grounding is run: the item limits, the match rule of the profile,
/// and when the work must stop.
#[derive(Debug, Clone, Copy)]
pub struct GroundingRules {
    /// The evidence limits of the environment arguments.
    pub limits: EvidenceLimits,
    /// The match rule of the reward profile.
    pub rule: MatchRule,
    /// Checked inside every loop whose length the input sets.
    pub deadline: Deadline,
}

impl GroundingRules {
    /// `limits` under the `v1` rule, without a deadline.
    #[must_use]
    pub fn v1(limits: EvidenceLimits) -> Self {
        GroundingRules {
            limits,
            rule: MatchRule::ContentWords,
            deadline: Deadline::NONE,
        }
    }
}

/// Grounds `items` in `question`. The question is normalised only when
/// some item needs searching; [`ground_in`] takes a normalised text that a
/// caller scoring many answers to one row can reuse. The work is linear in
/// the question, the items and the spans (an item's occurrences are chosen
/// in one sweep, not against every span).
///
/// # Errors
/// [`TimeBudgetExceeded`] once `rules.deadline` has passed.
pub fn ground(
    question: &str,
    items: &[RawEvidence],
    gold: GoldFacts<'_>,
    rules: &GroundingRules,
) -> Result<Grounding, TimeBudgetExceeded> {
    let needs_text = items.iter().take(rules.limits.max_items).any(|i| match i {
        RawEvidence::Text(_) => true,
        RawEvidence::NotString => false,
    });
    rules.deadline.check()?;
    if needs_text {
        let text = NormalizedText::new(question);
        rules.deadline.check()?;
        ground_in(&text, items, gold, rules)
    } else {
        ground_in(&NormalizedText::new(""), items, gold, rules)
    }
}

/// [`ground`] on an already normalised question.
///
/// # Errors
/// [`TimeBudgetExceeded`] once `rules.deadline` has passed.
pub fn ground_in(
    text: &NormalizedText,
    items: &[RawEvidence],
    gold: GoldFacts<'_>,
    rules: &GroundingRules,
) -> Result<Grounding, TimeBudgetExceeded> {
    let deadline = &rules.deadline;
    // G in normalised coordinates: (start, end, index into gold.spans).
    let mut relevant: Vec<(usize, usize, usize)> = Vec::new();
    for (i, s) in gold.spans.iter().enumerate() {
        if i.is_multiple_of(CHECK_EVERY) {
            deadline.check()?;
        }
        if is_relevant(gold.label, s) {
            let (a, b) = text.covering(s.start, s.end.max(s.start));
            relevant.push((a, b, i));
        }
    }
    let mut state = State {
        text,
        relevant: &relevant,
        recalled: vec![false; relevant.len()],
        cited: Vec::new(),
        rules,
    };
    let mut grounded = Vec::with_capacity(items.len().min(rules.limits.max_items + 1));
    let mut matched = 0usize;
    for (n, item) in items.iter().enumerate() {
        let g = if n >= rules.limits.max_items {
            invalid(None, ItemStatus::TooMany)
        } else {
            deadline.check()?;
            state.ground_item(item)?
        };
        if !g.matched_gold.is_empty() {
            matched += 1;
        }
        grounded.push(g);
    }
    deadline.check()?;
    Ok(score(grounded, gold, &relevant, &state.recalled, matched))
}

/// What grounding one answer carries from item to item.
struct State<'a> {
    text: &'a NormalizedText,
    relevant: &'a [(usize, usize, usize)],
    recalled: Vec<bool>,
    cited: Vec<(usize, usize)>,
    rules: &'a GroundingRules,
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
    // Looked up in the list while it is short (every real row), in a set
    // once it is long (10,000 distinct categories must not be quadratic).
    let mut names: Vec<&str> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (&(_, _, i), _) in relevant.iter().zip(recalled).filter(|(_, r)| **r) {
        let category = gold.spans[i].category.as_str();
        let new = if names.len() < LINEAR_CATEGORIES {
            !names.contains(&category)
        } else {
            if seen.is_empty() {
                seen.extend(names.iter().copied());
            }
            seen.insert(category)
        };
        if new {
            names.push(category);
        }
    }
    let categories: Vec<String> = names.into_iter().map(str::to_string).collect();
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

impl State<'_> {
    /// §4.1 steps 1–7 for one item within the cap.
    fn ground_item(&mut self, item: &RawEvidence) -> Result<GroundedItem, TimeBudgetExceeded> {
        let limits = &self.rules.limits;
        let deadline = &self.rules.deadline;
        let RawEvidence::Text(raw) = item else {
            return Ok(invalid(None, ItemStatus::NotString));
        };
        let quote = match normalize_item(raw, limits.max_chars) {
            Ok(q) => q,
            Err(too_long) => {
                return Ok(invalid(
                    Some(record_text(&too_long.partial)),
                    ItemStatus::TooLong,
                ))
            }
        };
        let len = quote.chars().count();
        // An empty quote would be "found" everywhere, whatever the limit says.
        if len == 0 || len < limits.min_chars {
            return Ok(invalid(Some(quote), ItemStatus::TooShort));
        }
        if len > limits.max_chars {
            return Ok(invalid(Some(record_text(&quote)), ItemStatus::TooLong));
        }
        let occurrences = match bounded_occurrences(self.text, &quote, len, deadline)? {
            Ok(o) => o,
            Err(status) => return Ok(invalid(Some(quote), status)),
        };
        let (start, end) = choose(
            &occurrences,
            self.relevant,
            &self.recalled,
            self.text.char_len(),
            deadline,
        )?;
        if self.cited.contains(&(start, end)) {
            return Ok(invalid(Some(quote), ItemStatus::Duplicate));
        }
        self.cited.push((start, end));
        let mut matched_gold = Vec::new();
        for (k, &(gs, ge, i)) in self.relevant.iter().enumerate() {
            if k.is_multiple_of(CHECK_EVERY) {
                deadline.check()?;
            }
            let overlap = overlap((start, end), (gs, ge));
            if 2 * overlap < len || overlap < (ge - gs).min(MATCH_MIN_OVERLAP) {
                continue;
            }
            if self.rules.rule == MatchRule::ContentWords
                && !Words::covers_content_in(self.text, (start, end), (gs, ge))
            {
                continue;
            }
            self.recalled[k] = true;
            matched_gold.push(i);
        }
        Ok(GroundedItem {
            text: Some(quote),
            status: ItemStatus::Valid,
            span: Some(self.text.source_range(start, end)),
            matched_gold,
        })
    }
}

/// Every word-bounded occurrence of `quote` (normalised character ranges),
/// overlapping ones included, or why there is none.
fn bounded_occurrences(
    text: &NormalizedText,
    quote: &str,
    len: usize,
    deadline: &Deadline,
) -> Result<Result<Vec<(usize, usize)>, ItemStatus>, TimeBudgetExceeded> {
    let haystack = text.as_str();
    let bytes = haystack.as_bytes();
    let finder = Finder::new(quote.as_bytes());
    let first_alnum = quote.chars().next().is_some_and(char::is_alphanumeric);
    let last_alnum = quote.chars().next_back().is_some_and(char::is_alphanumeric);
    let step = quote.chars().next().map_or(1, char::len_utf8);
    let mut found = false;
    let mut out = Vec::new();
    let mut from = 0;
    let mut steps = 0usize;
    while let Some(offset) = bytes.get(from..).and_then(|rest| finder.find(rest)) {
        steps += 1;
        if steps.is_multiple_of(CHECK_EVERY) {
            deadline.check()?;
        }
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
    Ok(match (found, out.is_empty()) {
        (false, _) => Err(ItemStatus::NotFound),
        (true, true) => Err(ItemStatus::NotWordBounded),
        (true, false) => Ok(out),
    })
}

/// §4.1 step 6: the occurrence overlapping a not-yet-matched span of G
/// most, else any span of G most; the earliest on ties.
fn choose(
    occurrences: &[(usize, usize)],
    relevant: &[(usize, usize, usize)],
    recalled: &[bool],
    n_chars: usize,
    deadline: &Deadline,
) -> Result<(usize, usize), TimeBudgetExceeded> {
    choose_with(
        occurrences,
        relevant,
        recalled,
        n_chars,
        deadline,
        PAIRWISE_MAX,
    )
}

/// [`choose`] comparing pair by pair up to `pairwise_max` pairs (tests
/// pass 0 to check the sweep alone).
fn choose_with(
    occurrences: &[(usize, usize)],
    relevant: &[(usize, usize, usize)],
    recalled: &[bool],
    n_chars: usize,
    deadline: &Deadline,
    pairwise_max: usize,
) -> Result<(usize, usize), TimeBudgetExceeded> {
    let earliest = occurrences.first().copied().unwrap_or_default();
    let open = relevant
        .iter()
        .zip(recalled)
        .filter(|(_, done)| !**done)
        .map(|(&(a, b, _), _)| (a, b));
    let (o, occ) = most_overlapping(occurrences, open, n_chars, deadline, pairwise_max)?;
    if o > 0 {
        return Ok(occ);
    }
    let any = relevant.iter().map(|&(a, b, _)| (a, b));
    let (o, occ) = most_overlapping(occurrences, any, n_chars, deadline, pairwise_max)?;
    Ok(if o > 0 { occ } else { earliest })
}

/// The largest overlap of an occurrence with a span, and the earliest
/// occurrence that has it, in one sweep over the text: O(text + spans +
/// occurrences), where comparing every occurrence with every span would
/// cost their product (a quote found 100,000 times in a long email against
/// 10,000 spans).
///
/// `occurrences` are sorted and all of one length. With `reach[p]` the
/// furthest end of a span starting at or before `p`, the best overlap of
/// `[s, e)` is `max over p in [s, e) of min(e, reach[p]) − p`: the span
/// reaching furthest from `p` overlaps at least that much, and the best
/// span is counted at `p = max(s, its start)`. `reach` never decreases, so
/// the first `p0 ≥ s` with `reach[p0] ≥ e` splits the window: before it the
/// term is `reach[p] − p` (a sliding-window maximum), from it `e − p0`.
fn most_overlapping(
    occurrences: &[(usize, usize)],
    spans: impl Iterator<Item = (usize, usize)> + Clone,
    n_chars: usize,
    deadline: &Deadline,
    pairwise_max: usize,
) -> Result<(usize, (usize, usize)), TimeBudgetExceeded> {
    let earliest = occurrences.first().copied().unwrap_or_default();
    // A few occurrences against a few spans (nearly every real answer: one
    // occurrence) are compared pair by pair; the sweep below allocates and
    // walks the whole text, which costs more than it saves there.
    let pairs = occurrences.len().saturating_mul(spans.clone().count());
    if pairs <= pairwise_max {
        let mut best = (0usize, earliest);
        for &occurrence in occurrences {
            let o = spans
                .clone()
                .map(|span| overlap(occurrence, span))
                .max()
                .unwrap_or(0);
            if o > best.0 {
                best = (o, occurrence);
            }
        }
        return Ok(best);
    }
    let mut reach = vec![0usize; n_chars];
    let mut any = false;
    for (k, (a, b)) in spans.enumerate() {
        if k.is_multiple_of(CHECK_EVERY) {
            deadline.check()?;
        }
        if a < b && a < n_chars {
            reach[a] = reach[a].max(b);
            any = true;
        }
    }
    if !any {
        return Ok((0, earliest));
    }
    for p in 1..n_chars {
        reach[p] = reach[p].max(reach[p - 1]);
    }
    deadline.check()?;
    // term(p) = reach[p] − p where reach[p] > p, else nothing.
    let term = |p: usize| reach[p].checked_sub(p).filter(|&t| t > 0);
    let mut best = (0usize, earliest);
    // Indices of the window [s, p0), their terms decreasing from the front.
    let mut window: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    let (mut p0, mut pushed) = (0usize, 0usize);
    for (k, &occurrence) in occurrences.iter().enumerate() {
        if k.is_multiple_of(CHECK_EVERY) {
            deadline.check()?;
        }
        let (s, e) = (occurrence.0, occurrence.1.min(n_chars));
        p0 = p0.max(s);
        while p0 < e && reach[p0] < e {
            p0 += 1;
        }
        pushed = pushed.max(s);
        while pushed < p0 {
            if let Some(t) = term(pushed) {
                while window.back().is_some_and(|&q| term(q) <= Some(t)) {
                    window.pop_back();
                }
                window.push_back(pushed);
            }
            pushed += 1;
        }
        while window.front().is_some_and(|&q| q < s) {
            window.pop_front();
        }
        let inside = window.front().and_then(|&q| term(q)).unwrap_or(0);
        let reaching = e.saturating_sub(p0);
        let o = inside.max(reaching);
        if o > best.0 {
            best = (o, occurrence);
        }
    }
    Ok(best)
}

fn overlap(a: (usize, usize), b: (usize, usize)) -> usize {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

#[cfg(test)]
mod tests;
