//! Text as the matchers compare it: invisible characters removed (raw, or
//! as the `[U+XXXX]` marker a rendering may show in their place), and, for
//! phrase matching, Latin accents folded so one pattern covers `verificação`
//! and `verificacao`.

use std::borrow::Cow;

/// Characters a reader cannot see that still change what a string compares
/// equal to: zero-width characters, word joiners, the byte-order mark, soft
/// hyphens, bidi controls and Unicode tag characters.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// The invisible character a `[U+XXXX]` (or, for a run, `[U+XXXX×N]`)
/// marker at the start of `s` stands for, and the marker's length in bytes.
pub(super) fn marker(s: &str) -> Option<(char, usize)> {
    let hex_start = "[U+".len();
    let rest = s.strip_prefix("[U+")?;
    let digits = rest
        .bytes()
        .take(7)
        .take_while(u8::is_ascii_hexdigit)
        .count();
    if !(4..=6).contains(&digits) {
        return None;
    }
    let after = &rest[digits..];
    let run = match after.strip_prefix('×') {
        Some(count) => {
            let n = count
                .bytes()
                .take(10)
                .take_while(u8::is_ascii_digit)
                .count();
            if n == 0 {
                return None;
            }
            '×'.len_utf8() + n
        }
        None => 0,
    };
    if after.as_bytes().get(run) != Some(&b']') {
        return None;
    }
    let c = u32::from_str_radix(&rest[..digits], 16)
        .ok()
        .and_then(char::from_u32)?;
    is_invisible(c).then_some((c, hex_start + digits + run + 1))
}

/// Whether `s` holds an invisible character, raw or as a marker.
pub(crate) fn has_invisible(s: &str) -> bool {
    s.chars().any(is_invisible)
        || s.match_indices("[U+")
            .any(|(i, _)| marker(&s[i..]).is_some())
}

/// `s` with each `[U+XXXX]` marker of an invisible character turned back
/// into the character, so one check reads both spellings.
pub(crate) fn unmark(s: &str) -> Cow<'_, str> {
    if !s.contains("[U+") {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        match (c == '[').then(|| marker(rest)).flatten() {
            Some((hidden, len)) => {
                out.push(hidden);
                rest = &rest[len..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    Cow::Owned(out)
}

/// `s` without invisible characters (raw or as markers): what every brand
/// and domain comparison reads, so `Pay\u{200B}Pal` is PayPal.
pub(crate) fn strip_invisible(s: &str) -> Cow<'_, str> {
    if !has_invisible(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(unmark(s).chars().filter(|c| !is_invisible(*c)).collect())
}

/// The ASCII letters a Latin letter with a diacritic folds to (`None`:
/// keep it). German umlauts fold to the bare vowel (`prüfen` → `prufen`);
/// patterns are written in that folded form.
fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'ç' | 'ć' | 'č' => "c",
        'Ç' | 'Ć' | 'Č' => "C",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => "e",
        'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ę' | 'Ě' => "E",
        'ì' | 'í' | 'î' | 'ï' | 'ī' => "i",
        'Ì' | 'Í' | 'Î' | 'Ï' | 'Ī' => "I",
        'ñ' | 'ń' | 'ň' => "n",
        'Ñ' | 'Ń' | 'Ň' => "N",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' | 'Ō' | 'Ő' => "O",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => "u",
        'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ū' | 'Ů' | 'Ű' => "U",
        'ý' | 'ÿ' => "y",
        'Ý' | 'Ÿ' => "Y",
        'ß' => "ss",
        'œ' => "oe",
        'Œ' => "OE",
        'æ' => "ae",
        'Æ' => "AE",
        // Typographic apostrophes and a no-break space, as typed text has them.
        '\u{2019}' | '\u{2018}' | '\u{02BC}' => "'",
        '\u{00A0}' | '\u{202F}' => " ",
        _ => return None,
    })
}

/// A text folded for phrase matching, with the way back to the original.
pub(super) struct Folded<'a> {
    /// The folded text (borrowed when nothing needed folding).
    pub text: Cow<'a, str>,
    /// For each byte of `text` (and one past the end), the byte of the
    /// original character it came from; empty when `text` is the original.
    origin: Vec<usize>,
    original_len: usize,
}

impl<'a> Folded<'a> {
    /// Fold `s`: accents per [`fold_char`], invisible characters removed.
    /// ASCII text is borrowed as is.
    pub(super) fn new(s: &'a str) -> Self {
        if s.is_ascii() && !s.contains("[U+") {
            return Self {
                text: Cow::Borrowed(s),
                origin: Vec::new(),
                original_len: s.len(),
            };
        }
        let mut text = String::with_capacity(s.len());
        let mut origin = Vec::with_capacity(s.len() + 1);
        let mut skip_to = 0;
        for (i, c) in s.char_indices() {
            if i < skip_to || is_invisible(c) {
                continue;
            }
            if let Some((_, len)) = (c == '[').then(|| marker(&s[i..])).flatten() {
                skip_to = i + len;
                continue;
            }
            let before = text.len();
            match fold_char(c) {
                Some(f) => text.push_str(f),
                None => text.push(c),
            }
            origin.extend(std::iter::repeat_n(i, text.len() - before));
        }
        origin.push(s.len());
        Self {
            text: Cow::Owned(text),
            origin,
            original_len: s.len(),
        }
    }

    /// The original byte range of the folded range `start..end` (a match of
    /// the folded text): from the start of the character `start` came from
    /// to the end of the one `end - 1` came from.
    pub(super) fn original(&self, original: &str, start: usize, end: usize) -> (usize, usize) {
        if self.origin.is_empty() {
            return (start, end);
        }
        let at = |i: usize| self.origin.get(i).copied().unwrap_or(self.original_len);
        let s = at(start);
        let last = at(end.saturating_sub(1).max(start));
        let e = original
            .get(last..)
            .and_then(|r| r.chars().next())
            .map_or(self.original_len, |c| last + c.len_utf8());
        (s, e.max(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisibles_are_stripped_raw_and_as_markers() {
        let cases = [
            ("Pay\u{200B}Pal", "PayPal"),
            ("Pay[U+200B]Pal", "PayPal"),
            ("Micro\u{E0041}soft\u{FEFF}", "Microsoft"),
            ("\u{202E}lapyap", "lapyap"),
            ("Pay[U+200b]Pal[U+E0020]", "PayPal"),
            // A run, as the rendering writes it.
            ("Mi[U+200C×3]crosoft", "Microsoft"),
            ("Mi[U+200C×]crosoft", "Mi[U+200C×]crosoft"),
            // Markers of visible characters, and look-alike brackets, stay.
            ("Pay[U+0041]Pal", "Pay[U+0041]Pal"),
            ("[U+200]x", "[U+200]x"),
            ("plain text", "plain text"),
        ];
        for (input, want) in cases {
            assert_eq!(strip_invisible(input), want, "{input:?}");
            assert_eq!(has_invisible(input), input != want, "{input:?}");
        }
    }

    #[test]
    fn folding_maps_matches_back_to_the_original() {
        let s = "Verificação da conta: Straße\u{200B}n";
        let marked = Folded::new("pass[U+200B]word");
        assert_eq!(marked.text, "password");
        assert_eq!(marked.original("pass[U+200B]word", 0, 8), (0, 16));
        let f = Folded::new(s);
        assert_eq!(f.text, "Verificacao da conta: Strassen");
        let at = f.text.find("cacao").unwrap();
        let (a, b) = f.original(s, at, at + 5);
        assert_eq!(&s[a..b], "cação");
        let at = f.text.find("strassen").or_else(|| f.text.find("Strassen"));
        let at = at.unwrap();
        let (a, b) = f.original(s, at, f.text.len());
        assert_eq!(&s[a..b], "Straße\u{200B}n");
        let ascii = Folded::new("plain");
        assert_eq!(ascii.original("plain", 1, 3), (1, 3));
    }
}
