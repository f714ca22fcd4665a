//! Phrase indicators of the subject and body: the clause categories
//! (`credential_request`, `pii_request`, `payment_request`,
//! `urgency_threat`), whose span is the sentence holding the phrase, and
//! `generic_greeting`, whose span is the greeting itself.

use std::ops::Range;

use super::doc::Doc;
use super::fold::Folded;
use super::spans::{trim, Collector};
use super::{IndicatorSet, GENERIC_GREETING};

use regex_automata::{Anchored, Input, PatternID};

/// Matches examined per category and region (bounded work on hostile text).
const MAX_MATCHES: usize = 64;

pub(super) fn check(doc: &Doc<'_>, set: &IndicatorSet, out: &mut Collector<'_>) {
    let regions = doc.header("Subject").into_iter().chain([doc.body.clone()]);
    for region in regions {
        let original = doc.slice(&region);
        if original.is_empty() {
            continue;
        }
        // Accents folded and invisible characters dropped, once per region.
        let folded = Folded::new(original);
        for (list, m) in phrase_matches(&folded.text, set) {
            let category = set.phrases.categories[list];
            let (start, end) = folded.original(original, m.start, m.end);
            let phrase = region.start + start..region.start + end;
            let detail = || format!("“{}”", &folded.text[m.clone()]);
            if category == GENERIC_GREETING {
                out.push(category, phrase, detail);
                continue;
            }
            let clause = clause(doc.text, &region, &phrase);
            out.push_first(category, [clause, phrase], detail);
        }
    }
}

/// Each list's matches in `hay` as `(list, byte range)`: what searching
/// with each list's own regex, left to right without overlaps, finds (at
/// most [`MAX_MATCHES`] a list), from one scan of the text. The combined
/// regex stops at every position where some list matches; every list is
/// then tried anchored there, and kept unless it overlaps its own previous
/// match.
fn phrase_matches(hay: &str, set: &IndicatorSet) -> Vec<(usize, Range<usize>)> {
    let lists = &set.phrases;
    let n = lists.categories.len();
    let mut found = Vec::new();
    let mut next_free = vec![0usize; n];
    let mut counts = vec![0usize; n];
    let mut at = 0;
    while at < hay.len() && counts.iter().any(|&c| c < MAX_MATCHES) {
        let Some(first) = lists.regex.search(&Input::new(hay).range(at..)) else {
            break;
        };
        let start = first.start();
        for list in 0..n {
            if counts[list] >= MAX_MATCHES || start < next_free[list] {
                continue;
            }
            let end = if list == first.pattern().as_usize() {
                Some(first.end())
            } else {
                let pattern = PatternID::new_unchecked(list);
                let input = Input::new(hay)
                    .range(start..)
                    .anchored(Anchored::Pattern(pattern));
                lists.regex.search(&input).map(|m| m.end())
            };
            if let Some(end) = end {
                found.push((list, start..end));
                next_free[list] = end;
                counts[list] += 1;
            }
        }
        // On to the next character: another list may start inside this match.
        at = start + hay[start..].chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// The sentence or line around `phrase`, within `region`, trimmed: from
/// after the previous line break or sentence end (`.`, `!`, `?` or `;`
/// followed by whitespace) to the next one, its punctuation included.
fn clause(text: &str, region: &Range<usize>, phrase: &Range<usize>) -> Range<usize> {
    let before = &text[region.start..phrase.start];
    let mut start = region.start;
    let mut prev: Option<char> = None;
    for (i, c) in before.char_indices().rev() {
        if c == '\n'
            || (matches!(c, '.' | '!' | '?' | ';') && prev.is_some_and(char::is_whitespace))
        {
            start = region.start + i + c.len_utf8();
            break;
        }
        prev = Some(c);
    }
    let after = &text[phrase.end..region.end];
    let mut end = region.end;
    let mut chars = after.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' {
            end = phrase.end + i;
            break;
        }
        if matches!(c, '.' | '!' | '?' | ';')
            && chars.peek().is_none_or(|(_, next)| next.is_whitespace())
        {
            end = phrase.end + i + c.len_utf8();
            break;
        }
    }
    trim(text, start..end)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What searching with each list's own regex finds.
    fn one_list_at_a_time(hay: &str) -> Vec<(usize, Range<usize>)> {
        static EACH: std::sync::OnceLock<Vec<regex::Regex>> = std::sync::OnceLock::new();
        let each = EACH.get_or_init(|| {
            let sources = &IndicatorSet::builtin().phrases.sources;
            sources
                .iter()
                .map(|s| regex::Regex::new(s).unwrap())
                .collect()
        });
        let mut found: Vec<(usize, Range<usize>)> = Vec::new();
        for (list, regex) in each.iter().enumerate() {
            let matches = regex.find_iter(hay).take(MAX_MATCHES);
            found.extend(matches.map(|m| (list, m.range())));
        }
        found.sort_by_key(|(list, r)| (r.start, *list));
        found
    }

    #[rustfmt::skip]
    const WORDS: &[&str] = &[
        "verify", "your", "account", "password", "within", "24", "hours", "will", "be", "expire", "today",
        "suspended", "Dear", "customer", "valued", "click", "here", "to", "confirm", "wire",
        "transfer", "the", "funds", "urgent", "action", "required", "senha", "sua", "conta",
        "verifique", "Sehr", "geehrter", "Kunde", "é", "naïve", ".", ",", "\n", "immediately",
        "login", "details", "bank", "invoice",
    ];

    proptest! {
        /// One scan for all lists finds exactly what a scan per list finds,
        /// overlaps between lists included.
        #[test]
        fn one_scan_finds_what_each_list_finds(
            words in prop::collection::vec(prop::sample::select(WORDS), 0..60),
            glue in prop::collection::vec(prop::sample::select(&[" ", "  ", "\n", "-", ""][..]), 60),
        ) {
            let hay: String = words
                .iter()
                .zip(&glue)
                .flat_map(|(w, g)| [*w, *g])
                .collect::<String>();
            let set = IndicatorSet::builtin();
            let mut combined = phrase_matches(&hay, set);
            combined.sort_by_key(|(list, r)| (r.start, *list));
            prop_assert_eq!(combined, one_list_at_a_time(&hay));
        }
    }

    #[test]
    fn overlapping_phrases_of_two_lists_are_both_found() {
        // `expire today` (urgency) starts inside `your password will
        // expire` (credential).
        let hay = "Dear customer, your password will expire today. Confirm your password now.";
        let set = IndicatorSet::builtin();
        let mut combined = phrase_matches(hay, set);
        combined.sort_by_key(|(list, r)| (r.start, *list));
        assert_eq!(combined, one_list_at_a_time(hay));
        let lists: Vec<&str> = combined
            .iter()
            .map(|(l, _)| set.phrases.categories[*l])
            .collect();
        for category in ["generic_greeting", "credential_request", "urgency_threat"] {
            assert!(lists.contains(&category), "{lists:?}");
        }
    }

    #[test]
    fn clauses_stop_at_sentences_and_lines() {
        let t = "Hi.\nWe saw a login. Confirm your password within 24 hours! Thanks\nBye";
        let p = t.find("your password").unwrap();
        let c = clause(t, &(0..t.len()), &(p..p + 13));
        assert_eq!(&t[c], "Confirm your password within 24 hours!");
        // A dot inside a word (a domain) does not end the sentence.
        let t = "Sign in at bank.test now to verify";
        let p = t.find("verify").unwrap();
        let c = clause(t, &(0..t.len()), &(p..p + 6));
        assert_eq!(&t[c], t);
    }
}
