//! `v1` reasoning stripping (E1 §2.3 step 2).

use std::borrow::Cow;

const OPEN: &[u8] = b"<think>";
const CLOSE: &[u8] = b"</think>";

/// Removes reasoning blocks: every `<think>`…`</think>` span (ASCII
/// case-insensitive, shortest, across newlines); then, if a `</think>`
/// remains, everything up to and including the last one; then, if a
/// `<think>` remains, everything from it to the end; finally trims.
///
/// Borrows the input unless a span in the middle had to be cut out.
pub fn strip_reasoning(text: &str) -> Cow<'_, str> {
    if !text.contains('<') {
        return Cow::Borrowed(text.trim());
    }
    // Pass 1, like `re.sub(r"(?is)<think>.*?</think>", "", text)`.
    let mut joined: Option<String> = None;
    let mut kept_from = 0;
    let mut from = 0;
    while let Some(open) = find_ci(text, OPEN, from) {
        let Some(close) = find_ci(text, CLOSE, open + OPEN.len()) else {
            // No closer after this opener, so none after any later one.
            break;
        };
        joined
            .get_or_insert_with(|| String::with_capacity(text.len()))
            .push_str(&text[kept_from..open]);
        kept_from = close + CLOSE.len();
        from = kept_from;
    }
    let joined: Cow<'_, str> = match joined {
        None => Cow::Borrowed(text),
        Some(mut s) => {
            s.push_str(&text[kept_from..]);
            Cow::Owned(s)
        }
    };
    // Passes 2 and 3 only cut a prefix and a suffix: work with offsets.
    let s: &str = &joined;
    let mut start = rfind_ci(s, CLOSE).map_or(0, |k| k + CLOSE.len());
    let mut end = find_ci(s, OPEN, start).unwrap_or(s.len());
    let trimmed = s[start..end].trim();
    start += s[start..end].len() - s[start..end].trim_start().len();
    end = start + trimmed.len();
    match joined {
        Cow::Borrowed(b) => Cow::Borrowed(&b[start..end]),
        Cow::Owned(mut o) => {
            o.truncate(end);
            o.drain(..start);
            Cow::Owned(o)
        }
    }
}

/// First ASCII-case-insensitive occurrence of `needle` (which starts with
/// `<`) at or after byte `from`.
fn find_ci(hay: &str, needle: &[u8], from: usize) -> Option<usize> {
    let bytes = hay.as_bytes();
    let mut at = from;
    while let Some(off) = hay.get(at..)?.find('<') {
        let i = at + off;
        if bytes
            .get(i..i + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// Last ASCII-case-insensitive occurrence of `needle` (which starts with `<`).
fn rfind_ci(hay: &str, needle: &[u8]) -> Option<usize> {
    let bytes = hay.as_bytes();
    let mut end = hay.len();
    while let Some(i) = hay.get(..end)?.rfind('<') {
        if bytes
            .get(i..i + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            return Some(i);
        }
        end = i;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_blocks() {
        let cases = [
            ("plain", "plain"),
            ("  padded \n", "padded"),
            ("<think>a {x}</think>{\"y\":1}", "{\"y\":1}"),
            ("<THINK>a</Think> b <think>c\n</think> d", "b  d"),
            ("x <think>never closed {\"a\":1}", "x"),
            ("<think>{\"a\":1}", ""),
            ("stray {x} </think> {\"b\":2}", "{\"b\":2}"),
            ("a </think> b </think> c", "c"),
            ("<think>1</think><think>2</think>ok", "ok"),
            ("<think>a <think> b</think> c", "c"),
            ("a < b", "a < b"),
            ("<thi<think>x</think>nk> tail", ""),
            ("head <think>x</think> </think> tail", "tail"),
            ("<", "<"),
            ("é<think>ü</think>ß", "éß"),
        ];
        for (input, want) in cases {
            assert_eq!(strip_reasoning(input), want, "input {input:?}");
        }
    }

    #[test]
    fn borrows_when_only_prefix_or_suffix_is_cut() {
        assert!(matches!(strip_reasoning(" a "), Cow::Borrowed("a")));
        assert!(matches!(strip_reasoning("x</think> a"), Cow::Borrowed("a")));
        assert!(matches!(strip_reasoning("a <think> b"), Cow::Borrowed("a")));
        assert!(matches!(
            strip_reasoning("a <think>b</think> c"),
            Cow::Owned(_)
        ));
    }
}
