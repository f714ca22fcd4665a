//! Spans a model can cite: the length and word-boundary rules of spec §4.1,
//! and the collector that drops anything else and converts byte ranges into
//! code-point offsets once, at the end.

use std::ops::Range;

use super::{Finding, Polarity};

/// Whether `text[start..end]` is word-bounded (spec §4.1 step 5): each end
/// sits at the text's edge, next to a non-alphanumeric character, or is
/// itself a non-alphanumeric character. Byte offsets; `false` when they are
/// not character boundaries.
pub(crate) fn bounded(text: &str, start: usize, end: usize) -> bool {
    let (Some(before), Some(span), Some(after)) =
        (text.get(..start), text.get(start..end), text.get(end..))
    else {
        return false;
    };
    let (Some(first), Some(last)) = (span.chars().next(), span.chars().next_back()) else {
        return false;
    };
    let start_ok = !first.is_alphanumeric()
        || before
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
    let end_ok =
        !last.is_alphanumeric() || after.chars().next().is_none_or(|c| !c.is_alphanumeric());
    start_ok && end_ok
}

/// `range` without surrounding whitespace.
pub(super) fn trim(text: &str, range: Range<usize>) -> Range<usize> {
    let Some(s) = text.get(range.clone()) else {
        return range.start..range.start;
    };
    let start = range.start + (s.len() - s.trim_start().len());
    let end = range.start + s.trim_end().len();
    start..end.max(start)
}

/// A finding located by byte range, before conversion.
struct Raw {
    category: &'static str,
    start: usize,
    end: usize,
    detail: String,
}

/// Gathers findings over one rendered text, keeping only citable spans.
pub(super) struct Collector<'a> {
    text: &'a str,
    min_chars: usize,
    max_chars: usize,
    found: Vec<Raw>,
}

impl<'a> Collector<'a> {
    pub(super) fn new(text: &'a str, min_chars: usize, max_chars: usize) -> Self {
        Self {
            text,
            min_chars,
            max_chars,
            found: Vec::new(),
        }
    }

    /// Whether `range` (bytes) could be cited: on character boundaries,
    /// `min_chars..=max_chars` characters, word-bounded, not blank.
    pub(super) fn citable(&self, range: &Range<usize>) -> bool {
        let Some(span) = self.text.get(range.clone()) else {
            return false;
        };
        if span.trim().len() != span.len() || span.is_empty() {
            return false;
        }
        // Count at most one past the maximum: spans can be long.
        let chars = span.chars().take(self.max_chars + 1).count();
        (self.min_chars..=self.max_chars).contains(&chars)
            && bounded(self.text, range.start, range.end)
    }

    /// Records a finding when its span is citable; returns whether it was.
    pub(super) fn push(
        &mut self,
        category: &'static str,
        range: Range<usize>,
        detail: impl FnOnce() -> String,
    ) -> bool {
        if !self.citable(&range) {
            return false;
        }
        self.found.push(Raw {
            category,
            start: range.start,
            end: range.end,
            detail: detail(),
        });
        true
    }

    /// Pushes the first citable range of `candidates`.
    pub(super) fn push_first(
        &mut self,
        category: &'static str,
        candidates: impl IntoIterator<Item = Range<usize>>,
        detail: impl FnOnce() -> String,
    ) -> bool {
        match candidates.into_iter().find(|r| self.citable(r)) {
            Some(range) => self.push(category, range, detail),
            None => false,
        }
    }

    /// Findings ordered by position, then category; identical
    /// (category, start, end) merged; offsets converted to code points.
    pub(super) fn finish(mut self) -> Vec<Finding> {
        self.found
            .sort_by(|a, b| (a.start, a.end, a.category).cmp(&(b.start, b.end, b.category)));
        self.found
            .dedup_by(|b, a| (a.category, a.start, a.end) == (b.category, b.start, b.end));
        // One forward walk converts every offset: starts are sorted, and
        // each end is counted from its own start.
        let mut byte = 0usize;
        let mut chars = 0usize;
        let mut out = Vec::with_capacity(self.found.len());
        for raw in self.found {
            chars += self.text[byte..raw.start].chars().count();
            byte = raw.start;
            let text = &self.text[raw.start..raw.end];
            let len = text.chars().count();
            out.push(Finding {
                category: raw.category,
                polarity: Polarity::of(raw.category).unwrap_or(Polarity::Phish),
                start: chars,
                end: chars + len,
                text: text.to_string(),
                detail: raw.detail,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_bounds_follow_the_grounding_rule() {
        let t = "see paypa1.com now, (x) ok";
        let at = |s: &str| t.find(s).unwrap();
        assert!(bounded(t, at("paypa1.com"), at("paypa1.com") + 10));
        assert!(!bounded(t, at("aypa1"), at("aypa1") + 5));
        assert!(!bounded(t, at("see"), at("see") + 2));
        // A span whose edge is itself punctuation is bounded.
        assert!(bounded(t, at("(x)"), at("(x)") + 3));
        assert!(bounded(t, 0, t.len()));
        assert!(!bounded("héllo", 0, 2), "not a char boundary");
    }

    #[test]
    fn collector_drops_uncitable_spans_and_counts_code_points() {
        let text = "Größe: verify now, abc";
        let mut c = Collector::new(text, 4, 10);
        let v = text.find("verify").unwrap();
        assert!(c.push("credential_request", v..v + 10, String::new));
        assert!(
            c.push("credential_request", v..v + 10, String::new),
            "dupe merged later"
        );
        assert!(
            !c.push("credential_request", v..v + 3, String::new),
            "word cut"
        );
        let abc = text.find("abc").unwrap();
        assert!(
            !c.push("urgency_threat", abc..abc + 3, String::new),
            "too short"
        );
        assert!(
            !c.push("urgency_threat", 0..text.len(), String::new),
            "too long"
        );
        let f = c.finish();
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].start, f[0].end), (7, 17));
        let cps: String = text.chars().skip(7).take(10).collect();
        assert_eq!(f[0].text, cps);
    }
}
