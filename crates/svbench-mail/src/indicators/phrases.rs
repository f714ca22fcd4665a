//! Phrase indicators of the subject and body: the clause categories
//! (`credential_request`, `pii_request`, `payment_request`,
//! `urgency_threat`), whose span is the sentence holding the phrase, and
//! `generic_greeting`, whose span is the greeting itself.

use std::ops::Range;

use super::doc::Doc;
use super::fold::Folded;
use super::spans::{trim, Collector};
use super::{IndicatorSet, GENERIC_GREETING};

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
        let hay: &str = &folded.text;
        for (category, regex) in &set.phrases {
            for m in regex.find_iter(hay).take(MAX_MATCHES) {
                let (start, end) = folded.original(original, m.start(), m.end());
                let phrase = region.start + start..region.start + end;
                let detail = || format!("“{}”", m.as_str());
                if *category == GENERIC_GREETING {
                    out.push(category, phrase, detail);
                    continue;
                }
                let clause = clause(doc.text, &region, &phrase);
                out.push_first(category, [clause, phrase], detail);
            }
        }
    }
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
    use super::*;

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
