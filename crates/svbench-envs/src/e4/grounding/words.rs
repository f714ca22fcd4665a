//! The words of the normalised question and which of them carry content,
//! for the `v1` match rule (a quote must cover at least half of a span's
//! content words).
//!
//! A word is a maximal run of alphanumeric characters. It is scaffolding,
//! not content, when it is a URL scheme before `:` (`http`, `https`, `ftp`,
//! `mailto`), `www` before `.`, the rendering's `[link:` marker, or the last
//! label of a dotted name (`.example`, `.top`; never all digits, so an IPv4
//! address keeps its last number). A span whose words are all scaffolding
//! counts all of them; a span without words has only the character rule.

use crate::e4::normalize::NormalizedText;

/// URL schemes that are scaffolding when a `:` follows.
const SCHEMES: [&str; 4] = ["http", "https", "ftp", "mailto"];

/// The words of a text, in normalised character positions, with a running
/// count of the content words among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    /// `[start, end)` of each word, in order.
    spans: Vec<(usize, usize)>,
    /// `content[i]`: content words among the first `i` words.
    content: Vec<usize>,
}

impl Words {
    /// The words of `text` (linear in its length).
    #[must_use]
    pub fn new(text: &str) -> Self {
        let mut spans = Vec::new();
        let mut content = vec![0usize];
        each_word(text, |start, end, is_content| {
            spans.push((start, end));
            let before = content.last().copied().unwrap_or(0);
            content.push(before + usize::from(is_content));
        });
        Words { spans, content }
    }

    /// The words wholly inside `[a, b)`: `(content words, all words)`.
    fn inside(&self, (a, b): (usize, usize)) -> (usize, usize) {
        let first = self.spans.partition_point(|w| w.0 < a);
        let last = self.spans.partition_point(|w| w.1 <= b).max(first);
        let at = |i: usize| self.content.get(i).copied().unwrap_or(0);
        (at(last) - at(first), last - first)
    }

    /// [`Words::covers_content`] over `text`, reading only the span and the
    /// two characters before and one after it (all that decides a word
    /// inside the span and whether it is scaffolding), so a match costs the
    /// span's length, not the email's, and allocates nothing.
    #[must_use]
    pub fn covers_content_in(
        text: &NormalizedText,
        quote: (usize, usize),
        span: (usize, usize),
    ) -> bool {
        let from = span.0.saturating_sub(2);
        let window = text.char_slice(from, span.1 + 1);
        let shift = |(a, b): (usize, usize)| (a.saturating_sub(from), b.saturating_sub(from));
        let (quote, span) = (shift(quote), shift(span));
        let shared = (quote.0.max(span.0), quote.1.min(span.1));
        let mut in_span = Count::default();
        let mut in_shared = Count::default();
        each_word(window, |start, end, is_content| {
            in_span.add((start, end), span, is_content);
            in_shared.add((start, end), shared, is_content);
        });
        covers(in_span, in_shared)
    }

    /// Whether the quote `quote` covers at least half of the content words
    /// of the span `span` (all its words when none is content; true for a
    /// span without words).
    #[must_use]
    pub fn covers_content(&self, quote: (usize, usize), span: (usize, usize)) -> bool {
        let (content, all) = self.inside(span);
        let shared = (quote.0.max(span.0), quote.1.min(span.1));
        let (covered_content, covered_all) = if shared.0 < shared.1 {
            self.inside(shared)
        } else {
            (0, 0)
        };
        covers(
            Count { content, all },
            Count {
                content: covered_content,
                all: covered_all,
            },
        )
    }
}

/// Words wholly inside a range: content ones and all.
#[derive(Debug, Default, Clone, Copy)]
struct Count {
    content: usize,
    all: usize,
}

impl Count {
    fn add(&mut self, word: (usize, usize), range: (usize, usize), is_content: bool) {
        if range.0 < range.1 && word.0 >= range.0 && word.1 <= range.1 {
            self.all += 1;
            self.content += usize::from(is_content);
        }
    }
}

/// The rule: half of the span's content words covered, or half of all its
/// words when none is content (a span without words passes).
fn covers(span: Count, covered: Count) -> bool {
    if span.content > 0 {
        2 * covered.content >= span.content
    } else {
        2 * covered.all >= span.all
    }
}

/// Calls `f(start, end, is_content)` for each word of `text`, in character
/// positions, in order.
fn each_word(text: &str, mut f: impl FnMut(usize, usize, bool)) {
    let mut chars = text.char_indices().peekable();
    // The two characters before the current one.
    let (mut prev, mut prev2) = (None, None);
    let mut i = 0usize;
    while let Some((byte, c)) = chars.next() {
        if !c.is_alphanumeric() {
            (prev2, prev) = (prev, Some(c));
            i += 1;
            continue;
        }
        let start = i;
        let mut last = c;
        i += 1;
        while let Some(&(_, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                break;
            }
            last = c;
            chars.next();
            i += 1;
        }
        let end_byte = chars.peek().map_or(text.len(), |&(b, _)| b);
        let next = chars.peek().map(|&(_, c)| c);
        let word = &text[byte..end_byte];
        f(start, i, !scaffolding(word, prev, prev2, next));
        // The word's last two characters, for the next word's look-back.
        prev2 = if i - start >= 2 {
            word[..word.len() - last.len_utf8()].chars().next_back()
        } else {
            prev
        };
        prev = Some(last);
    }
}

/// Whether `word`, between `prev2 prev` and `next`, is scaffolding (see
/// the module).
fn scaffolding(word: &str, prev: Option<char>, prev2: Option<char>, next: Option<char>) -> bool {
    // Compared as its lowercase form, without building it (`name` is
    // lowercase ASCII; a non-ASCII letter may lowercase to one, as the
    // Kelvin sign does to `k`).
    let is = |name: &str| {
        if word.is_ascii() {
            return word.eq_ignore_ascii_case(name);
        }
        word.chars().count() == name.len()
            && word.chars().zip(name.chars()).all(|(c, n)| {
                let mut lower = c.to_lowercase();
                lower.next() == Some(n) && lower.next().is_none()
            })
    };
    if next == Some(':') && SCHEMES.iter().any(|s| is(s)) {
        return true;
    }
    if next == Some('.') && is("www") {
        return true;
    }
    if prev == Some('[') && next == Some(':') && is("link") {
        return true;
    }
    let ends_name =
        next.is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '.' | '-' | '@' | '_')));
    prev == Some('.')
        && prev2.is_some_and(|c| c.is_alphanumeric() || c == '-')
        && !word.bytes().all(|b| b.is_ascii_digit())
        && ends_name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content_words(text: &str) -> Vec<String> {
        let w = Words::new(text);
        let chars: Vec<char> = text.chars().collect();
        w.spans
            .iter()
            .enumerate()
            .filter(|(i, _)| w.content[i + 1] > w.content[*i])
            .map(|(_, &(a, b))| chars[a..b].iter().collect())
            .collect()
    }

    #[test]
    fn url_scaffolding_is_not_content() {
        assert_eq!(
            content_words("https://www.litwarecloud.example/d/view"),
            ["litwarecloud", "d", "view"]
        );
        assert_eq!(content_words("northwlnd-bank.top"), ["northwlnd", "bank"]);
        assert_eq!(
            content_words("http://203.0.113.7/northwind/login"),
            ["203", "0", "113", "7", "northwind", "login"]
        );
        assert_eq!(
            content_words("recovery.desk@freemail.example"),
            ["recovery", "desk", "freemail"]
        );
        assert_eq!(
            content_words("www.bank.test [link: https://bank-secure.xyz/x]"),
            ["bank", "bank", "secure", "x"]
        );
        assert_eq!(
            content_words("within 48 hours or your account will be suspended."),
            [
                "within",
                "48",
                "hours",
                "or",
                "your",
                "account",
                "will",
                "be",
                "suspended"
            ]
        );
    }

    #[test]
    fn the_span_window_decides_as_the_whole_text_does() {
        let text =
            "Hi, see https://www.sso.quillon-legal.test/pw?x=1 [link: http://203.0.113.7/a] \
                    or mail recovery.desk@freemail.example within 48 hours.example.org end \
                    für Ihr Konto: café.bänk.exämple/ß [LIN\u{212A}: x] ab.ÿ.été";
        let normalized = NormalizedText::new(text);
        let whole = Words::new(normalized.as_str());
        let n = normalized.char_len();
        for a in 0..n {
            for b in a + 1..=n.min(a + 40) {
                for q in [
                    (a, b),
                    (a + 1, b),
                    (a, b.saturating_sub(1)),
                    (a.saturating_sub(3), b + 2),
                ] {
                    assert_eq!(
                        Words::covers_content_in(&normalized, q, (a, b)),
                        whole.covers_content(q, (a, b)),
                        "span {a}..{b}, quote {q:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn half_of_the_content_words_must_be_covered() {
        let text = "see https://sso.quillon-legal.test/password/change now";
        let w = Words::new(text);
        let span = (4, 50);
        assert_eq!(
            &text[4..50],
            "https://sso.quillon-legal.test/password/change"
        );
        // `https://` and `.test` cover no content word.
        assert!(!w.covers_content((4, 12), span));
        assert!(!w.covers_content((29, 34), span));
        // 3 of the 5 content words (sso, quillon, legal, password, change).
        assert!(w.covers_content((12, 34), span));
        assert!(!w.covers_content((12, 23), span));
        assert!(w.covers_content(span, span));
        // A span of scaffolding only counts its words; one without words
        // leaves the decision to the character rule.
        let w = Words::new("go https:// now ::: x");
        assert!(w.covers_content((3, 11), (3, 11)));
        assert!(w.covers_content((16, 17), (15, 19)));
    }
}
