//! The text evidence is compared in (E4 §4.1): Unicode NFC with every
//! maximal whitespace run replaced by one space, plus a map from each
//! character back to the `question` code points it came from.

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// `question` in comparison form, with the way back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedText {
    text: String,
    /// Byte offset of each character of `text`, then `text.len()`.
    char_bytes: Vec<u32>,
    /// Per character of `text`: the half-open code-point range of
    /// `question` it stands for (a collapsed whitespace run, or an NFC
    /// segment, maps to the whole run or segment).
    source: Vec<(u32, u32)>,
}

impl NormalizedText {
    /// Normalises `question`. Linear in its length; an ASCII or already
    /// NFC text skips the composition step.
    pub fn new(question: &str) -> Self {
        let mut out = Builder::with_capacity(question.len());
        if question.is_ascii() {
            push_ascii(question, &mut out);
        } else if is_nfc_quick(question.chars()) == IsNormalized::Yes {
            push_chars(question, &mut out);
        } else {
            compose_segments(question, &mut out);
        }
        out.finish()
    }

    /// The normalised text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Number of characters of the normalised text.
    pub fn char_len(&self) -> usize {
        self.source.len()
    }

    /// The normalised characters `[start, end)`, clamped to the text.
    pub(crate) fn char_slice(&self, start: usize, end: usize) -> &str {
        let byte = |i: usize| {
            self.char_bytes
                .get(i.min(self.source.len()))
                .map_or(self.text.len(), |&b| b as usize)
        };
        self.text
            .get(byte(start)..byte(end.max(start)))
            .unwrap_or("")
    }

    /// Character index of a byte offset that starts a character (or is the
    /// end of the text).
    pub(crate) fn char_index(&self, byte: usize) -> usize {
        self.char_bytes.partition_point(|&b| (b as usize) < byte)
    }

    /// The `question` code-point range of the normalised characters
    /// `[start, end)` (`end > start`).
    pub(crate) fn source_range(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.source.get(start).map_or(0, |r| r.0 as usize);
        let last = end
            .checked_sub(1)
            .and_then(|i| self.source.get(i))
            .map_or(first, |r| r.1 as usize);
        (first, last)
    }

    /// The normalised-character range covering the `question` code points
    /// `[start, end)`: every character whose source overlaps it.
    pub(crate) fn covering(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.source.partition_point(|r| (r.1 as usize) <= start);
        let last = self.source.partition_point(|r| (r.0 as usize) < end);
        (first, last.max(first))
    }
}

/// Every character of an NFC `question`, one by one.
fn push_chars(question: &str, out: &mut Builder) {
    for (i, c) in question.chars().enumerate() {
        out.push(c, i, i + 1);
    }
}

/// [`push_chars`] for an ASCII `question` (characters are bytes): each run
/// without whitespace is appended whole, which is most of an email.
fn push_ascii(question: &str, out: &mut Builder) {
    // `char::is_whitespace` among ASCII characters.
    let space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ');
    let bytes = question.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let word_end = bytes[i..]
            .iter()
            .position(|&b| space(b))
            .map_or(bytes.len(), |p| i + p);
        if word_end > i {
            let base = out.text.len() as u32;
            out.char_bytes
                .extend((0..(word_end - i) as u32).map(|k| base + k));
            out.source
                .extend((i as u32..word_end as u32).map(|k| (k, k + 1)));
            out.text.push_str(&question[i..word_end]);
            out.in_space = false;
        }
        i = word_end;
        while i < bytes.len() && space(bytes[i]) {
            out.push(char::from(bytes[i]), i, i + 1);
            i += 1;
        }
    }
}

/// NFC one segment at a time, so each output character knows its source.
/// A segment starts at a character that is a starter and NFC-stable
/// (quick check Yes): nothing before it can compose or reorder with it.
fn compose_segments(question: &str, out: &mut Builder) {
    let chars: Vec<char> = question.chars().collect();
    let mut start = 0;
    for i in 1..=chars.len() {
        let boundary = chars.get(i).is_none_or(|&c| {
            canonical_combining_class(c) == 0
                && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
        });
        if boundary {
            let segment = &chars[start..i];
            for c in segment.iter().copied().nfc() {
                out.push(c, start, i);
            }
            start = i;
        }
    }
}

/// Collapses whitespace runs while characters are appended.
struct Builder {
    text: String,
    char_bytes: Vec<u32>,
    source: Vec<(u32, u32)>,
    in_space: bool,
}

impl Builder {
    fn with_capacity(bytes: usize) -> Self {
        Builder {
            text: String::with_capacity(bytes),
            char_bytes: Vec::with_capacity(bytes + 1),
            source: Vec::with_capacity(bytes),
            in_space: false,
        }
    }

    fn push(&mut self, c: char, from: usize, to: usize) {
        // Offsets are u32: rendered emails are far below 4 GiB.
        let (from, to) = (from as u32, to as u32);
        if c.is_whitespace() {
            if self.in_space {
                if let Some(last) = self.source.last_mut() {
                    last.1 = to;
                }
                return;
            }
            self.in_space = true;
            self.append(' ', from, to);
        } else {
            self.in_space = false;
            self.append(c, from, to);
        }
    }

    fn append(&mut self, c: char, from: u32, to: u32) {
        self.char_bytes.push(self.text.len() as u32);
        self.text.push(c);
        self.source.push((from, to));
    }

    fn finish(mut self) -> NormalizedText {
        self.char_bytes.push(self.text.len() as u32);
        NormalizedText {
            text: self.text,
            char_bytes: self.char_bytes,
            source: self.source,
        }
    }
}

/// An evidence item certainly longer than its limit, with the comparison
/// form built before normalisation stopped (what a record shows of it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("evidence item is longer than {max_chars} characters")]
pub struct ItemTooLong {
    /// The item's comparison form so far (more than `max_chars`
    /// characters, untrimmed, quotes not stripped).
    pub partial: String,
    /// The limit it exceeds.
    pub max_chars: usize,
}

/// An evidence item in comparison form (E4 §4.1 step 2): NFC, whitespace
/// runs collapsed, trimmed, one layer of matching quotes stripped and
/// trimmed again. Stops early, returning [`ItemTooLong`] with the text built
/// so far, once the result cannot be at most `max_chars` long, so a huge
/// item costs little.
///
/// # Errors
/// [`ItemTooLong`]: the item is certainly longer than `max_chars`.
pub fn normalize_item(item: &str, max_chars: usize) -> Result<String, ItemTooLong> {
    // Trimming and quote stripping remove at most four characters.
    let cap = max_chars.saturating_add(4);
    let mut out = String::with_capacity(item.len().min(cap * 4));
    let mut chars = 0usize;
    let mut in_space = false;
    for c in item.nfc() {
        if c.is_whitespace() {
            if in_space || out.is_empty() {
                in_space = true;
                continue;
            }
            in_space = true;
            out.push(' ');
        } else {
            in_space = false;
            out.push(c);
        }
        chars += 1;
        if chars > cap {
            return Err(ItemTooLong {
                partial: out,
                max_chars,
            });
        }
    }
    let trimmed = out.trim_end();
    let stripped = strip_quotes(trimmed).trim();
    Ok(stripped.to_string())
}

/// The quote pairs stripped from around an item.
const QUOTE_PAIRS: [(char, char); 4] = [('"', '"'), ('\'', '\''), ('`', '`'), ('“', '”')];

fn strip_quotes(s: &str) -> &str {
    let mut it = s.chars();
    let (Some(first), Some(last)) = (it.next(), it.next_back()) else {
        return s;
    };
    if QUOTE_PAIRS.contains(&(first, last)) {
        &s[first.len_utf8()..s.len() - last.len_utf8()]
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn the_ascii_path_is_the_character_path(text in "[ a-z.:/\t\n\x0B\x0C\r\x1C-]{0,80}") {
            let mut by_chars = Builder::with_capacity(text.len());
            push_chars(&text, &mut by_chars);
            proptest::prop_assert_eq!(NormalizedText::new(&text), by_chars.finish());
        }
    }

    use super::*;

    #[test]
    fn whitespace_runs_collapse_and_map_back() {
        let q = "ab \n\t cd\n";
        let t = NormalizedText::new(q);
        assert_eq!(t.as_str(), "ab cd ");
        // "b cd" is normalised chars 1..5, question code points 1..8.
        assert_eq!(t.source_range(1, 5), (1, 8));
        assert_eq!(t.covering(3, 8), (2, 5));
    }

    #[test]
    fn nfc_composes_and_maps_back() {
        // "e" + combining acute, then "x".
        let q = "Cafe\u{301} x";
        let t = NormalizedText::new(q);
        assert_eq!(t.as_str(), "Caf\u{e9} x");
        assert_eq!(t.char_len(), 6);
        // The composed "é" stands for question code points 3..5.
        assert_eq!(t.source_range(3, 4), (3, 5));
        assert_eq!(t.source_range(0, 6), (0, 7));
        // Hangul jamo compose across starters.
        let t = NormalizedText::new("\u{1100}\u{1161} ok");
        assert_eq!(t.as_str(), "\u{ac00} ok");
        assert_eq!(t.source_range(0, 1), (0, 2));
    }

    #[test]
    fn items_are_trimmed_collapsed_and_unquoted() {
        let n = |s: &str| normalize_item(s, 200).unwrap();
        assert_eq!(n("  \"Confirm  your\npassword\" "), "Confirm your password");
        assert_eq!(n("'abc d'"), "abc d");
        assert_eq!(n("`code`"), "code");
        assert_eq!(n("“quoted”"), "quoted");
        assert_eq!(n("\"\"inner\"\""), "\"inner\"");
        assert_eq!(n("\"unbalanced'"), "\"unbalanced'");
        assert_eq!(n("Cafe\u{301}"), "Caf\u{e9}");
        assert_eq!(n("\""), "\"");
        assert!(normalize_item(&"x".repeat(1_000_000), 200).is_err());
        assert_eq!(
            normalize_item(&" ".repeat(1_000_000), 200),
            Ok(String::new())
        );
    }
}
