//! Characters a reader cannot see (zero-width, word joiners, the byte-order
//! mark, tag characters, bidirectional controls) made visible in the
//! rendering as markers: `[U+200B]`, or `[U+200B×3]` for a run of the same
//! character, so that neither the model nor a person misses text that reads
//! differently from what it is (`Pay[U+200B]Pal`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is drawn as nothing (or only changes direction).
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}'     // zero-width space, non-joiner, joiner, LRM, RLM
        | '\u{2060}'..='\u{2064}'   // word joiner, invisible operators
        | '\u{FEFF}'                // zero-width no-break space (BOM)
        | '\u{E0000}'..='\u{E007F}' // tag characters
        | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
        | '\u{2066}'..='\u{2069}'   // bidi isolates
        | '\u{061C}'                // Arabic letter mark
        | '\u{180E}'                // Mongolian vowel separator
    )
}

/// Emoji and pictographs, between which a zero-width joiner builds one
/// emoji (👩‍💻) rather than hiding anything.
fn pictographic(c: char) -> bool {
    matches!(c,
        '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{2300}'..='\u{23FF}'
        | '\u{2B00}'..='\u{2BFF}' | '\u{FE0F}')
}

/// `text` with every run of one invisible character replaced by its marker
/// (a zero-width joiner inside an emoji sequence is kept as it is).
pub(crate) fn mark_invisibles(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || !text.chars().any(is_invisible) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        let emoji_joiner = c == '\u{200D}'
            && prev.is_some_and(pictographic)
            && chars.peek().is_some_and(|&n| pictographic(n));
        if !is_invisible(c) || emoji_joiner {
            out.push(c);
            prev = Some(c);
            continue;
        }
        let mut run = 1usize;
        while chars.peek() == Some(&c) {
            chars.next();
            run += 1;
        }
        // Writing to a String cannot fail.
        let _ = if run == 1 {
            write!(out, "[U+{:04X}]", c as u32)
        } else {
            write!(out, "[U+{:04X}×{run}]", c as u32)
        };
        prev = Some(c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisibles_become_markers() {
        for (input, expected) in [
            ("PayPal", "PayPal"),
            ("Pay\u{200B}Pal", "Pay[U+200B]Pal"),
            ("Mi\u{200C}\u{200C}\u{200C}crosoft", "Mi[U+200C×3]crosoft"),
            ("a\u{200D}\u{2060}b", "a[U+200D][U+2060]b"),
            ("\u{FEFF}x", "[U+FEFF]x"),
            ("Bank\u{E0041}\u{E0042}", "Bank[U+E0041][U+E0042]"),
            ("\u{202E}fdp.exe", "[U+202E]fdp.exe"),
            ("caf\u{e9}", "caf\u{e9}"),
            // An emoji sequence keeps its joiner.
            ("\u{1F469}\u{200D}\u{1F4BB}", "\u{1F469}\u{200D}\u{1F4BB}"),
        ] {
            assert_eq!(mark_invisibles(input), expected, "{input:?}");
        }
    }
}
